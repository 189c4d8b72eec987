//! The length rule of `Slice`'s list inputs, and the rule's constraint tests.

use crate::ops::constraint::Constraint;
use crate::ops::RuleError;

/// "`starts`, `ends`, `axes` and `steps` ... must have the same length" (onnxruntime: "Starts
/// and ends shape mismatch", "Input axes has incorrect length"); `None` is a length not known.
pub(super) fn same_lengths(lists: &[(&str, Option<usize>)]) -> Result<(), RuleError> {
    let mut known = lists.iter().filter_map(|(name, n)| n.map(|n| (*name, n)));
    let Some((first, n)) = known.next() else {
        return Ok(());
    };
    match known.find(|&(_, m)| m != n) {
        None => Ok(()),
        Some((other, m)) => Err(Constraint::new(
            "Slice's starts, ends, axes and steps must have the same length",
            format!("{first} has {n} values, {other} has {m}"),
            &[1, 2, 3, 4],
        )
        .fix("give one start, end (and axis, step) per sliced axis")
        .unmet()),
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::int_list as list;
    use crate::ops::testing::{self, dims as s, ints_attr};

    use crate::shape::Shape;

    fn slice(
        inputs: &[Option<testing::Fact>],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let mut all = vec![s(&["4", "5"])];
        all.extend_from_slice(inputs);
        testing::run("Slice", 13, &all, vec![])
    }

    #[test]
    fn lists_must_have_one_length() {
        assert!(unmet(&slice(&[list(&[0, 0]), list(&[2])])));
        assert!(unmet(&slice(&[list(&[0]), list(&[2]), list(&[0, 1])])));
        let declared = testing::shape(Shape::from_known(&[1]));
        assert!(unmet(&slice(&[list(&[0, 0]), declared])));
        assert_eq!(
            shape(&slice(&[list(&[1]), list(&[3]), list(&[1])])),
            "[4, 2]"
        );
    }

    #[test]
    fn steps_and_axes() {
        let (one, two, zero) = (|| list(&[0]), || list(&[2]), || list(&[0]));
        assert!(unmet(&slice(&[one(), two(), list(&[0]), zero()])));
        assert!(unmet(&slice(&[
            list(&[0, 0]),
            list(&[2, 2]),
            list(&[0, 0])
        ])));
        assert!(unmet(&slice(&[one(), two(), list(&[2])])));
        assert_eq!(
            shape(&slice(&[one(), two(), list(&[-1]), list(&[1])])),
            "[4, 2]"
        );
    }

    #[test]
    fn slice_1_attributes() {
        let run = |attrs| testing::run("Slice", 1, &[s(&["4", "5"])], attrs);
        assert!(unmet(&run(vec![
            ints_attr("starts", &[0, 0]),
            ints_attr("ends", &[1])
        ])));
        assert!(unmet(&run(vec![ints_attr("starts", &[0])])));
        let repeated = vec![
            ints_attr("starts", &[0, 0]),
            ints_attr("ends", &[1, 1]),
            ints_attr("axes", &[0, 0]),
        ];
        assert!(unmet(&run(repeated)));
        // Slice-1 documents no negative axes; onnxruntime accepts them.
        let negative = vec![
            ints_attr("starts", &[0]),
            ints_attr("ends", &[1]),
            ints_attr("axes", &[-1]),
        ];
        assert_eq!(shape(&run(negative)), "[4, 1]");
    }
}
