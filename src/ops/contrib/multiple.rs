//! The divisibility requirement the issue-37 round-3b contrib rules share: a dim that must be a
//! multiple of a known size (a head count, a window, a packing factor): E4 when it never is, W4
//! under the condition `dim % k = 0` when only some values are.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::RuleError;
use crate::shape::{Condition, Dim};

/// Requires `dim % k = 0` (`k` positive), stated by `requires` with `found` naming the values.
/// An unknown dim, or a remainder the engine cannot write, is left to run time.
pub(super) fn require_multiple(
    pending: &mut Pending,
    dim: &Dim,
    k: i64,
    requires: &str,
    slots: &[usize],
) -> Result<(), RuleError> {
    if k <= 1 || matches!(dim, Dim::Unknown) {
        return Ok(());
    }
    let rem = dim.modulo(&Dim::known(k));
    if matches!(rem, Dim::Unknown) {
        return Ok(());
    }
    pending.holds_if(&Condition::eq(&rem, &Dim::known(0)), || {
        Constraint::new(requires, format!("{dim} is not a multiple of {k}"), slots)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_remainders_fail_and_symbols_give_a_condition() {
        let mut p = Pending::default();
        require_multiple(&mut p, &Dim::known(12), 4, "R", &[0]).unwrap();
        assert!(require_multiple(&mut p, &Dim::known(10), 4, "R", &[0]).is_err());
        require_multiple(&mut p, &Dim::sym("s"), 4, "R", &[0]).unwrap();
        require_multiple(&mut p, &Dim::Unknown, 4, "R", &[0]).unwrap();
        let checks = p.into_checks();
        assert_eq!(checks.len(), 1);
        assert_eq!(checks[0].condition().unwrap().to_string(), "s%4 = 0");
    }
}
