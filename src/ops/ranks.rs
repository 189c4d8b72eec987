//! The rank and per-dim requirements the issue-37 rules share: an input that must have an exact
//! rank (E4 when it has another), and a dim that must equal another (E4 when never, W4 when only
//! under a condition), each stated in the operator doc's words.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::RuleError;
use crate::shape::{Dim, Shape};

/// `shape`'s dims when ranked; an E4 stating `requires` when its rank is not `rank`.
pub(crate) fn exact<'a>(
    shape: &'a Shape,
    rank: usize,
    requires: &str,
    slot: usize,
) -> Result<Option<&'a [Dim]>, RuleError> {
    match shape.dims() {
        Some(d) if d.len() != rank => {
            Err(Constraint::new(requires, format!("it has rank {}", d.len()), &[slot]).unmet())
        }
        other => Ok(other),
    }
}

/// Requires `found == expected` (`what` names the dim found, `requires` states the rule).
pub(crate) fn equal(
    pending: &mut Pending,
    found: &Dim,
    expected: &Dim,
    requires: &str,
    what: &str,
    slots: &[usize],
) -> Result<(), RuleError> {
    pending.equal(found, expected, || {
        Constraint::new(
            requires,
            format!("{what} is {found}, {expected} expected"),
            slots,
        )
    })
}

/// Requires each dim of `found` (a ranked shape of `expected`'s rank, else an E4) to equal
/// `expected`'s at the same axis.
pub(crate) fn same_shape(
    pending: &mut Pending,
    found: &Shape,
    expected: &[Dim],
    requires: &str,
    slots: &[usize],
) -> Result<(), RuleError> {
    let slot = slots.last().copied().unwrap_or(0);
    let Some(dims) = exact(found, expected.len(), requires, slot)? else {
        return Ok(());
    };
    for (axis, (f, e)) in dims.iter().zip(expected).enumerate() {
        equal(pending, f, e, requires, &format!("dim {axis}"), slots)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_rank_is_unmet_and_unranked_passes() {
        let s = Shape::from_known(&[2, 3]);
        assert!(exact(&s, 3, "X must be 3-D", 0).is_err());
        assert_eq!(
            exact(&s, 2, "X must be 2-D", 0).unwrap().map(<[Dim]>::len),
            Some(2)
        );
        assert!(exact(&Shape::Unranked, 3, "X must be 3-D", 0)
            .unwrap()
            .is_none());
    }

    #[test]
    fn same_shape_gives_conditions_per_axis() {
        let mut p = Pending::default();
        let found = Shape::Ranked(vec![Dim::sym("b"), Dim::known(2)]);
        same_shape(&mut p, &found, &[Dim::known(4), Dim::known(2)], "S", &[0]).unwrap();
        assert_eq!(p.into_checks().len(), 1);
        let mut p = Pending::default();
        let wrong = Shape::from_known(&[4, 3]);
        assert!(same_shape(&mut p, &wrong, &[Dim::known(4), Dim::known(2)], "S", &[0]).is_err());
    }
}
