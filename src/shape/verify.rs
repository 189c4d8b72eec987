//! Verification of a declared output shape against the inferred one, as the MLIR
//! `Broadcastable` trait verifies a result type (000, "Verification"): nothing to check when
//! either is unranked; ranks must match; two static dims must be equal; a dynamic dim on
//! either side is fine. Symbolic dims mismatch only when provably different (`seq` vs
//! `seq+1`); an undecided pair passes.

use std::fmt::{self, Display, Formatter};

use super::{Dim, Shape, Tri};

/// A declared shape that contradicts the inferred one: where the two first depart (W2's facts).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Mismatch {
    /// The ranks differ.
    Rank {
        /// Inferred rank.
        inferred: usize,
        /// Declared rank.
        declared: usize,
    },
    /// The dims on `axis` are provably different.
    Dim {
        /// The axis.
        axis: usize,
        /// Inferred dim.
        inferred: Dim,
        /// Declared dim.
        declared: Dim,
    },
}

impl Display for Mismatch {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Rank { inferred, declared } => {
                write!(f, "rank {inferred} inferred, {declared} declared")
            }
            Mismatch::Dim {
                axis,
                inferred,
                declared,
            } => write!(f, "axis {axis} is {inferred} inferred, {declared} declared"),
        }
    }
}

/// Checks `declared` against `inferred` as the MLIR verification table does; the first
/// offending axis is reported.
pub(crate) fn compare(inferred: &Shape, declared: &Shape) -> Result<(), Mismatch> {
    compare_with(inferred, declared, |a, b| a.eq_dim(b) == Tri::No)
}

/// The stricter check of the MLIR pseudo-code `ERROR_IF(IsStatic(actualDim) and
/// inferredDim != actualDim)`: a static declared dim must be provably equal to the inferred
/// one, so `?` inferred against a declared 4 fails (the spec's third incorrect example), which
/// the MLIR table itself allows. Use it where a declared static size must be justified.
///
/// Only the spec's worked examples use it today: no check demands a justified static size yet.
#[cfg(test)]
pub(crate) fn compare_strict(inferred: &Shape, declared: &Shape) -> Result<(), Mismatch> {
    compare_with(inferred, declared, |a, b| {
        a.eq_dim(b) == Tri::No || (b.as_known().is_some() && a.eq_dim(b) != Tri::Yes)
    })
}

fn compare_with(
    inferred: &Shape,
    declared: &Shape,
    differs: impl Fn(&Dim, &Dim) -> bool,
) -> Result<(), Mismatch> {
    let (Some(i), Some(d)) = (inferred.dims(), declared.dims()) else {
        return Ok(());
    };
    if i.len() != d.len() {
        return Err(Mismatch::Rank {
            inferred: i.len(),
            declared: d.len(),
        });
    }
    for (axis, (a, b)) in i.iter().zip(d).enumerate() {
        if differs(a, b) {
            return Err(Mismatch::Dim {
                axis,
                inferred: a.clone(),
                declared: b.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{compare, Mismatch};
    use crate::shape::{Dim, Shape};

    #[test]
    fn provably_different_symbols_mismatch() {
        let seq = Dim::sym("seq");
        let inferred = Shape::Ranked(vec![seq.clone()]);
        let declared = Shape::Ranked(vec![seq.add(&Dim::known(1))]);
        let err = compare(&inferred, &declared).unwrap_err();
        assert_eq!(err.to_string(), "axis 0 is seq inferred, seq+1 declared");
        let other = Shape::Ranked(vec![Dim::sym("len")]);
        assert_eq!(compare(&inferred, &other), Ok(()));
    }

    #[test]
    fn rank_and_static_rules() {
        let r = compare(&Shape::from_known(&[3]), &Shape::from_known(&[1, 3]));
        assert_eq!(
            r,
            Err(Mismatch::Rank {
                inferred: 1,
                declared: 2
            })
        );
        assert!(compare(&Shape::from_known(&[2]), &Shape::from_known(&[4])).is_err());
        assert!(compare(&Shape::Ranked(vec![Dim::Unknown]), &Shape::from_known(&[4])).is_ok());
        assert!(compare(&Shape::from_known(&[4]), &Shape::Ranked(vec![Dim::Unknown])).is_ok());
        assert!(compare(&Shape::Unranked, &Shape::from_known(&[4])).is_ok());
    }
}
