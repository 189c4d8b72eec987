//! Recurrent ops `RNN`, `GRU`, `LSTM` (ONNX LSTM-14 doc): X is `(seq, batch, input)`, or
//! `(batch, seq, input)` with `layout=1`; `direction` gives `num_directions`. Outputs `Y`,
//! `Y_h` and (LSTM) `Y_c`.

use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::{Dim, Shape};

/// The rule for a recurrent op, if `op_type` is one.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    match op_type {
        "RNN" | "GRU" | "LSTM" => Some(infer),
        _ => None,
    }
}

/// Gates stacked in W: one per gate of the cell.
fn gates(op: &str) -> i64 {
    match op {
        "LSTM" => 4,
        "GRU" => 3,
        _ => 1,
    }
}

/// The recurrent rule.
fn infer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let w = ctx.shape(1)?;
    let op = ctx.node().op_type.as_str();
    let directions = match ctx.attrs().string("direction")?.unwrap_or("forward") {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        other => return Err(RuleError::Invalid(format!("unknown direction `{other}`"))),
    };
    // Without the attribute, W is (num_directions, gates * hidden, input); an accepted model
    // has its second dim divisible by the gate count, so the division is exact.
    let hidden = match ctx.attrs().int("hidden_size")? {
        Some(h) => Dim::known(h),
        None => w
            .dims()
            .and_then(|d| d.get(1))
            .map_or(Dim::Unknown, |d| d.floor_div(&Dim::known(gates(op)))),
    };
    let layout = if ctx.opset() >= 14 {
        ctx.int("layout", 0)?
    } else {
        0
    };
    let (seq, batch) = match (x.shape.dims(), layout) {
        (Some([s, b, _]), 0) | (Some([b, s, _]), _) => (s.clone(), b.clone()),
        (None, _) => (Dim::Unknown, Dim::Unknown),
        (Some(d), _) => {
            return Err(RuleError::Invalid(format!(
                "{op} input must be 3-D, got rank {}",
                d.len()
            )))
        }
    };
    let dirs = Dim::known(directions);
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
    if op == "LSTM" {
        outputs.push(Output::shape(Shape::Ranked(state)).elem(x.elem));
    }
    Ok(Inferred::many(outputs))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, output_shapes as shapes};
    use crate::ops::testing::{int_attr, run_in, string_attr};

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
}
