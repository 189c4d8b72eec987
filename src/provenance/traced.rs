//! Which dims of a finding get a provenance: the ones it is about (`crate::diag`'s
//! `offending_axes`, which a long shape's cut keeps too). Where two or more offending
//! inputs have shapes, the axes (aligned from the right, as broadcasting aligns them) on which
//! their sizes differ: `seq` against `min(seq, 64)`, 3 against 4 (for a broadcast, sizes of 1
//! are left out: they stretch). A lone offending
//! input (a Squeeze's data) gets its symbolic dims that the message names. Inputs shown by
//! their elements (a Reshape target, Squeeze axes) and unknown dims are not traced.

use crate::diag::Finding;

/// `(index into finding.inputs, axis)` of every dim to trace, in input then axis order: the
/// dims the finding is about, of those its shapes state.
pub(super) fn axes(finding: &Finding) -> Vec<(usize, usize)> {
    crate::diag::offending_axes(&finding.inputs, finding.code, &finding.message)
}

#[cfg(test)]
mod tests {
    use super::axes;
    use crate::diag::{Code, Finding, InputSite};
    use crate::shape::{Dim, Shape};

    fn input(name: &str, dims: Vec<Dim>, slot: usize) -> InputSite {
        InputSite {
            name: name.into(),
            shape: Shape::Ranked(dims).into(),
            value: None,
            slot,
            offending: true,
            provenance: Vec::new(),
            declared: Vec::new(),
        }
    }

    fn finding(message: &str, inputs: Vec<InputSite>) -> Finding {
        // The walk reads the code, the inputs and the message's symbols; the facts are a
        // placeholder (the message is set by hand rather than rendered from them).
        Finding {
            code: Code::W1,
            message: message.into(),
            help: None,
            node: None,
            inputs,
            facts: crate::diag::Facts::Structure {
                problem: crate::diag::Structure::NoGraph,
            },
            assumes_constant_initializers: false,
        }
    }

    #[test]
    fn the_axes_where_sizes_differ_are_traced_and_stretching_ones_are_not() {
        let f = finding(
            "Add node `a`: broadcasting is valid only if seq ≤ 64",
            vec![
                input(
                    "x",
                    vec![Dim::sym("batch"), Dim::sym("seq"), Dim::known(8)],
                    0,
                ),
                input("y", vec![Dim::known(1), Dim::sym("n"), Dim::known(8)], 1),
            ],
        );
        // Axis 0 is batch against 1 (a stretch), axis 2 agrees: only axis 1 is about the finding.
        assert_eq!(axes(&f), vec![(0, 1), (1, 1)]);
    }

    #[test]
    fn an_operator_constraint_traces_a_clashing_one_too() {
        let mut f = finding(
            "Concat node `c`: Concat inputs must agree on dim 2",
            vec![
                input("x", vec![Dim::sym("n"), Dim::sym("h")], 0),
                input("y", vec![Dim::sym("n"), Dim::known(1)], 1),
            ],
        );
        f.code = Code::W4;
        assert_eq!(axes(&f), vec![(0, 1), (1, 1)]);
    }

    #[test]
    fn inputs_of_lower_rank_align_from_the_right() {
        let f = finding(
            "E1",
            vec![
                input("x", vec![Dim::known(2), Dim::known(3)], 0),
                input("y", vec![Dim::known(4)], 1),
            ],
        );
        assert_eq!(axes(&f), vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn a_lone_input_traces_the_symbolic_dims_the_message_names() {
        let f = finding(
            "Squeeze node `s`: Squeeze may only remove dims of size 1, which holds only if 96 ≤ len",
            vec![input(
                "x",
                vec![Dim::sym("batch"), Dim::known(128), Dim::sym("len")],
                0,
            )],
        );
        assert_eq!(axes(&f), vec![(0, 2)]);
    }

    #[test]
    fn inputs_shown_by_their_elements_are_not_traced() {
        let mut target = input("t", vec![Dim::known(2)], 1);
        target.value = Some("[2, 5]".into());
        let f = finding(
            "Expand node `e`: n",
            vec![input("x", vec![Dim::sym("n"), Dim::known(3)], 0), target],
        );
        assert_eq!(axes(&f), vec![(0, 0)]);
    }
}
