//! Helpers shared by the tensor-movement rules: axis normalisation and reading integer lists
//! from attributes or from input values.

use super::constraint::Constraint;
use super::{Input, RuleError};
use crate::model::tensor::MAX_VALUE_ELEMENTS;
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// `axis` in `[-rank, rank)` as an index, as ONNX ops accept negative axes.
pub(crate) fn normalise(axis: i64, rank: usize) -> Option<usize> {
    let rank = i64::try_from(rank).ok()?;
    let axis = if axis < 0 {
        axis.checked_add(rank)?
    } else {
        axis
    };
    (0..rank)
        .contains(&axis)
        .then(|| usize::try_from(axis).ok())?
}

/// Like [`normalise`], or the operator's error naming the attribute (`Concat axis`): every ONNX
/// axis attribute accepts `[-r, r-1]` for a data input of rank `r` (input 0).
pub(crate) fn require(axis: i64, rank: usize, what: &str) -> Result<usize, RuleError> {
    normalise(axis, rank).ok_or_else(|| {
        Constraint::new(
            format!("{what} must be in [-r, r-1] for a data input of rank r"),
            format!("{what} is {axis}, rank is {rank}"),
            &[0],
        )
        .fix(format!(
            "use an axis in [-{rank}, {}]",
            rank.saturating_sub(1)
        ))
        .unmet()
    })
}

/// Every element of a value, when all are static integers.
pub(crate) fn known_ints(value: &ValueTensor) -> Option<Vec<i64>> {
    value.data.iter().map(Dim::as_known).collect()
}

/// Static integers of an input's value.
pub(crate) fn input_ints(input: Option<Input<'_>>) -> Option<Vec<i64>> {
    known_ints(input?.value?)
}

/// A shape of `rank` unknown dims. Ranks often come from the declared length of a 1-D shape
/// tensor, which a hostile model sets to 2^62: beyond what the engine carries as data the rank
/// is unknown rather than allocated.
pub(crate) fn unknown_dims(rank: usize) -> Shape {
    if rank > MAX_VALUE_ELEMENTS {
        return Shape::Unranked;
    }
    Shape::Ranked(vec![Dim::Unknown; rank])
}

/// The product of dims (checked; unknown when any factor is).
pub(crate) fn product(dims: &[Dim]) -> Dim {
    dims.iter().fold(Dim::known(1), |acc, d| acc.mul(d))
}

/// A dim from a `usize` count.
pub(crate) fn count(n: usize) -> Dim {
    i64::try_from(n).map_or(Dim::Unknown, Dim::known)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_axes_count_from_the_end() {
        assert_eq!(normalise(-1, 3), Some(2));
        assert_eq!(normalise(2, 3), Some(2));
        assert_eq!(normalise(3, 3), None);
        assert_eq!(normalise(-4, 3), None);
        assert_eq!(normalise(i64::MIN, 3), None);
    }
}
