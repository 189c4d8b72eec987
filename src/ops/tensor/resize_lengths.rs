//! The length rule of `Resize`'s and `Upsample`'s `scales` and `sizes`: one value per input
//! dimension, or per listed axis with Resize-18 `axes` ("Number of elements of input 'scales'
//! must be same as rank of input 'X'"). An empty list stands for an absent input (Resize-11
//! passes an empty `scales` beside `sizes`).

use crate::ops::constraint::Constraint;
use crate::ops::RuleError;

/// Requires `given` (the list's length, when known) to be 0 or `expected`.
pub(crate) fn require(
    op: &str,
    what: &str,
    given: Option<usize>,
    expected: usize,
) -> Result<(), RuleError> {
    match given {
        Some(n) if n != 0 && n != expected => Err(Constraint::new(
            format!("{op}'s {what} must have one value per resized axis (the input's rank, or the length of `axes`)"),
            format!("{what} has {n} values, {expected} expected"),
            &[0],
        )
        .fix(format!("give {expected} {what}"))
        .unmet()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing;
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn nchw() -> Option<testing::Fact> {
        testing::dims(&["1", "1", "4", "4"])
    }

    #[test]
    fn scales_and_sizes_have_one_value_per_axis() {
        // Non-integral scales are not read, but their count is checked.
        let three = testing::shape(Shape::from_known(&[3]));
        let r = testing::run("Resize", 13, &[nchw(), None, three.clone()], vec![]);
        assert!(unmet(&r));
        let sizes = ValueTensor::vector(vec![Dim::known(1), Dim::known(1), Dim::known(8)]).unwrap();
        let r = testing::run(
            "Resize",
            13,
            &[nchw(), None, None, testing::ints(sizes)],
            vec![],
        );
        assert!(unmet(&r));
        let r = testing::run("Upsample", 9, &[nchw(), three], vec![]);
        assert!(unmet(&r));
        // Resize-11: an empty scales beside sizes.
        let empty = testing::shape(Shape::from_known(&[0]));
        let sizes = ValueTensor::vector(vec![
            Dim::known(1),
            Dim::known(1),
            Dim::known(8),
            Dim::known(8),
        ])
        .unwrap();
        let r = testing::run(
            "Resize",
            11,
            &[nchw(), None, empty, testing::ints(sizes)],
            vec![],
        );
        assert_eq!(shape(&r), "[1, 1, 8, 8]");
        assert!(unmet(&testing::run("Upsample", 7, &[nchw()], vec![])));
    }
}
