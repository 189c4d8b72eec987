//! Recurrent ops `RNN`, `GRU`, `LSTM` (ONNX LSTM-14 doc): X is `(seq, batch, input)`, or
//! `(batch, seq, input)` with `layout=1`; `direction` gives `num_directions`. Outputs `Y`,
//! `Y_h` and (LSTM) `Y_c`.

use crate::ops::constraint::Pending;
use crate::ops::rnn::recurrent_inputs::{check_inputs, geometry, Cell, Geometry};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Shape;

/// The recurrent rule before opset 14: X and the states are sequence-first.
pub(crate) fn recurrent_1(ctx: &Ctx<'_>, cell: Cell) -> Result<Inferred, RuleError> {
    infer(ctx, cell, false)
}

/// The recurrent rule from opset 14: `layout=1` makes X and the states batch-first.
pub(crate) fn recurrent_14(ctx: &Ctx<'_>, cell: Cell) -> Result<Inferred, RuleError> {
    infer(ctx, cell, true)
}

fn infer(ctx: &Ctx<'_>, cell: Cell, layout_attribute: bool) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let geometry = geometry(ctx, cell, layout_attribute, x.shape)?;
    let mut pending = Pending::default();
    check_inputs(ctx, cell, &geometry, &mut pending)?;
    let Geometry {
        directions: dirs,
        seq,
        batch,
        hidden,
        layout,
        ..
    } = geometry;
    let (y, state) = if layout == 0 {
        (
            vec![seq, dirs.clone(), batch.clone(), hidden.clone()],
            vec![dirs, batch, hidden],
        )
    } else {
        (
            vec![batch.clone(), seq, dirs.clone(), hidden.clone()],
            vec![batch, dirs, hidden],
        )
    };
    let mut outputs = vec![
        Output::shape(Shape::Ranked(y)).elem(x.elem),
        Output::shape(Shape::Ranked(state.clone())).elem(x.elem),
    ];
    if cell == Cell::Lstm {
        outputs.push(Output::shape(Shape::Ranked(state)).elem(x.elem));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::unmet;
    use crate::ops::testing::{dims as s, output_shapes as shapes, Fact};
    use crate::ops::testing::{int_attr, run_in, string_attr};
    use crate::ops::{Inferred, RuleError};
    use crate::proto::AttributeProto;

    #[test]
    fn lstm_bidirectional_seq_major() {
        let r = run_in(
            "",
            "LSTM",
            14,
            &[
                s(&["seq", "batch", "10"]),
                s(&["2", "80", "10"]),
                s(&["2", "80", "20"]),
            ],
            vec![
                int_attr("hidden_size", 20),
                string_attr("direction", "bidirectional"),
            ],
            3,
        )
        .unwrap();
        assert_eq!(
            shapes(&r),
            ["[seq, 2, batch, 20]", "[2, batch, 20]", "[2, batch, 20]"]
        );
    }

    #[test]
    fn gru_batch_major_hidden_from_weights() {
        let r = run_in(
            "",
            "GRU",
            14,
            &[
                s(&["batch", "seq", "10"]),
                s(&["1", "48", "10"]),
                s(&["1", "48", "16"]),
            ],
            vec![int_attr("layout", 1)],
            2,
        )
        .unwrap();
        assert_eq!(shapes(&r), ["[batch, seq, 1, 16]", "[batch, 1, 16]"]);
    }

    #[test]
    fn rnn_rejects_rank_2_and_bad_direction() {
        let w = || s(&["1", "8", "4"]);
        assert!(run_in("", "RNN", 14, &[s(&["5", "4"]), w(), w()], vec![], 2).is_err());
        let bad = vec![string_attr("direction", "sideways")];
        assert!(run_in("", "RNN", 14, &[s(&["5", "1", "4"]), w(), w()], bad, 2).is_err());
    }

    fn lstm(inputs: &[Option<Fact>], attrs: Vec<AttributeProto>) -> Result<Inferred, RuleError> {
        run_in("", "LSTM", 22, inputs, attrs, 3)
    }

    #[test]
    fn lstm_states_follow_batch_directions_and_layout() {
        let w = || s(&["2", "16", "3"]);
        let r = || s(&["2", "16", "4"]);
        let bi = |layout: i64| {
            vec![
                int_attr("hidden_size", 4),
                string_attr("direction", "bidirectional"),
                int_attr("layout", layout),
            ]
        };
        let absent = || None;
        let c = unmet(lstm(
            &[
                s(&["5", "2", "3"]),
                w(),
                r(),
                absent(),
                absent(),
                s(&["2", "3", "4"]),
            ],
            bi(0),
        ));
        assert_eq!(c.found, "initial_h is [2, 3, 4], expected [2, 2, 4]");
        assert_eq!(c.slots, vec![0, 5]);
        let c = unmet(lstm(
            &[s(&["5", "2", "3"]), w(), r(), absent(), s(&["3"])],
            bi(0),
        ));
        assert_eq!(c.found, "sequence_lens is [3], expected [2]");
        let c = unmet(lstm(
            &[
                s(&["5", "2", "3"]),
                w(),
                r(),
                absent(),
                absent(),
                absent(),
                absent(),
                s(&["2", "8"]),
            ],
            bi(0),
        ));
        assert_eq!(c.found, "P is [2, 8], expected [2, 12]");
        // layout=1 (opset 14): X is [batch, seq, input], states [batch, num_directions, hidden].
        let batch_first = [
            s(&["2", "5", "3"]),
            w(),
            r(),
            absent(),
            absent(),
            s(&["2", "2", "4"]),
            s(&["2", "2", "4"]),
        ];
        assert!(lstm(&batch_first, bi(1)).is_ok());
        let c = unmet(lstm(
            &[
                s(&["2", "5", "3"]),
                w(),
                r(),
                absent(),
                absent(),
                absent(),
                s(&["5", "2", "4"]),
            ],
            bi(1),
        ));
        assert_eq!(c.found, "initial_c is [5, 2, 4], expected [2, 2, 4]");
        // Before opset 14 there is no layout: the attribute is not read.
        assert!(run_in(
            "",
            "LSTM",
            7,
            &[
                s(&["5", "2", "3"]),
                w(),
                r(),
                absent(),
                absent(),
                s(&["2", "2", "4"])
            ],
            bi(1),
            3
        )
        .is_ok());
    }
}
