//! The inputs of `RNN`, `GRU` and `LSTM` against the shapes their docs give (ONNX LSTM-1/7/14/22,
//! GRU-1/3/7/14/22, RNN-1/7/14/22; `layout` from 14): X is 3-D, W is `[num_directions,
//! gates*hidden_size, input_size]`, R `[num_directions, gates*hidden_size, hidden_size]`, B
//! `[num_directions, 2*gates*hidden_size]`, `sequence_lens` `[batch_size]`, the initial states
//! `[num_directions, batch_size, hidden_size]` (batch first with `layout=1`) and LSTM's P
//! `[num_directions, 3*hidden_size]`, with 4 gates for LSTM, 3 for GRU, 1 for RNN.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::Ctx;
use crate::ops::RuleError;
use crate::shape::{Dim, Shape};

/// The cell of a recurrent op, captured in its registry row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cell {
    /// `RNN`.
    Rnn,
    /// `GRU`.
    Gru,
    /// `LSTM`: a cell state output `Y_c`, and `initial_c` and P inputs.
    Lstm,
}

impl Cell {
    /// The op's name, for constraint texts.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cell::Rnn => "RNN",
            Cell::Gru => "GRU",
            Cell::Lstm => "LSTM",
        }
    }

    /// Gates stacked in W: one per gate of the cell.
    pub(crate) fn gates(self) -> i64 {
        match self {
            Cell::Lstm => 4,
            Cell::Gru => 3,
            Cell::Rnn => 1,
        }
    }
}

/// The sizes a recurrent node is built on.
pub(crate) struct Geometry {
    /// `num_directions`.
    pub(super) directions: Dim,
    pub(super) seq: Dim,
    pub(super) batch: Dim,
    pub(super) input_size: Dim,
    /// The hidden size for the outputs: declared, else read from the weights.
    pub(super) hidden: Dim,
    /// The hidden size the inputs are checked against: `hidden_size` or R's last dim, never
    /// derived from W (whose dim 1 is what is checked).
    pub(super) declared: Dim,
    /// 1 when X and the states are batch-first (opset 14 `layout`).
    pub(super) layout: i64,
}

/// Reads `direction`, `layout` (`layout_attribute`: from opset 14), X's dims and the hidden
/// size.
pub(crate) fn geometry(
    ctx: &Ctx<'_>,
    cell: Cell,
    layout_attribute: bool,
    x: &Shape,
) -> Result<Geometry, RuleError> {
    let op = cell.name();
    let directions = match ctx.attrs().string("direction")?.unwrap_or("forward") {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        other => {
            return Err(Constraint::new(
                format!("{op}'s direction must be forward, reverse or bidirectional"),
                format!("direction is `{other}`"),
                &[],
            )
            .fix("use one of the three directions")
            .unmet())
        }
    };
    let layout = if layout_attribute {
        ctx.int("layout", 0)?
    } else {
        0
    };
    let (seq, batch, input_size) = match (x.dims(), layout) {
        (Some([seq, batch, input]), 0) | (Some([batch, seq, input]), _) => {
            (seq.clone(), batch.clone(), input.clone())
        }
        (None, _) => (Dim::Unknown, Dim::Unknown, Dim::Unknown),
        (Some(dims), _) => {
            // onnx.shape_inference: "Input 0 expected to have rank 3".
            return Err(Constraint::new(
                format!("{op}'s X must be 3-D: [seq_length, batch_size, input_size] (or batch first with layout=1)"),
                format!("X has rank {}", dims.len()),
                &[0],
            )
            .fix("Reshape or Unsqueeze X to 3-D")
            .unmet());
        }
    };
    let gates = cell.gates();
    let from_weights = ctx.shape(1)?.dims().and_then(|d| d.get(1));
    if let Some(rows) = from_weights.and_then(Dim::as_known) {
        if rows.checked_rem(gates).is_some_and(|rest| rest != 0) {
            return Err(Constraint::new(
                format!("{op}'s W must be [num_directions, {gates}*hidden_size, input_size]"),
                format!("W's dim 1 is {rows}, not a multiple of {gates}"),
                &[1],
            )
            .fix(format!("stack the {gates} gates' weights along W's dim 1"))
            .unmet());
        }
    }
    // hidden_size is optional in the doc: R's last dim is then the hidden size, else W's dim 1
    // over the gate count (exact: checked above).
    let declared = match ctx.attrs().int("hidden_size")? {
        Some(h) => Some(Dim::known(h)),
        None => ctx.shape(2)?.dims().and_then(|d| d.get(2)).cloned(),
    };
    let hidden = declared
        .clone()
        .unwrap_or_else(|| from_weights.map_or(Dim::Unknown, |d| d.floor_div(&Dim::known(gates))));
    Ok(Geometry {
        directions: Dim::known(directions),
        seq,
        batch,
        input_size,
        hidden,
        declared: declared.unwrap_or(Dim::Unknown),
        layout,
    })
}

/// W, R, B, `sequence_lens`, `initial_h`, and for LSTM `initial_c` and P, against the doc's
/// shapes.
pub(crate) fn check_inputs(
    ctx: &Ctx<'_>,
    cell: Cell,
    g: &Geometry,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let gates = cell.gates();
    let dirs = &g.directions;
    let rows = g.declared.mul(&Dim::known(gates));
    let (state, state_doc) = if g.layout == 0 {
        (
            vec![dirs.clone(), g.batch.clone(), g.declared.clone()],
            "[num_directions, batch_size, hidden_size]",
        )
    } else {
        (
            vec![g.batch.clone(), dirs.clone(), g.declared.clone()],
            "[batch_size, num_directions, hidden_size]",
        )
    };
    let w_doc = format!("[num_directions, {gates}*hidden_size, input_size]");
    let r_doc = format!("[num_directions, {gates}*hidden_size, hidden_size]");
    let b_doc = format!("[num_directions, {}*hidden_size]", 2 * gates);
    let mut specs = vec![
        (
            1,
            "W",
            w_doc.as_str(),
            vec![dirs.clone(), rows.clone(), g.input_size.clone()],
        ),
        (
            2,
            "R",
            r_doc.as_str(),
            vec![dirs.clone(), rows.clone(), g.declared.clone()],
        ),
        (
            3,
            "B",
            b_doc.as_str(),
            vec![dirs.clone(), rows.mul(&Dim::known(2))],
        ),
        (4, "sequence_lens", "[batch_size]", vec![g.batch.clone()]),
        (5, "initial_h", state_doc, state.clone()),
    ];
    if cell == Cell::Lstm {
        let peepholes = vec![dirs.clone(), g.declared.mul(&Dim::known(3))];
        specs.push((6, "initial_c", state_doc, state));
        specs.push((7, "P", "[num_directions, 3*hidden_size]", peepholes));
    }
    for (slot, what, doc, wanted) in &specs {
        expect(ctx, *slot, what, doc, wanted, pending)?;
    }
    Ok(())
}

/// Input `slot` (named `what`), when present and ranked, has the shape `wanted` (`doc` in the
/// operator doc's words). onnxruntime checks each when the node runs ("Input W must have shape
/// {1,16,3}. Actual:{1,12,3}"); `onnx.shape_inference` does not.
fn expect(
    ctx: &Ctx<'_>,
    slot: usize,
    what: &str,
    doc: &str,
    wanted: &[Dim],
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let Some(dims) = ctx.input(slot).and_then(|input| input.shape.dims()) else {
        return Ok(());
    };
    let op = ctx.node().op_type().as_str();
    let expected = Shape::Ranked(wanted.to_vec());
    let found = Shape::Ranked(dims.to_vec());
    let constraint = || {
        Constraint::new(
            format!("{op}'s {what} must be {doc}"),
            format!("{what} is {found}, expected {expected}"),
            &[0, slot],
        )
        .fix(format!(
            "check hidden_size, direction and layout, or re-export {what}"
        ))
    };
    if dims.len() != wanted.len() {
        return Err(constraint().unmet());
    }
    for (have, want) in dims.iter().zip(wanted) {
        pending.equal(have, want, constraint)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::unmet;
    use crate::ops::testing::{dims as s, int_attr, run_in, Fact};
    use crate::ops::{Inferred, RuleError};
    use crate::proto::AttributeProto;

    fn lstm(inputs: &[Option<Fact>], attrs: Vec<AttributeProto>) -> Result<Inferred, RuleError> {
        run_in("", "LSTM", 22, inputs, attrs, 3)
    }

    #[test]
    fn lstm_weights_follow_hidden_size_and_input_size() {
        let x = || s(&["5", "2", "3"]);
        let h = || vec![int_attr("hidden_size", 4)];
        let ok = lstm(
            &[
                x(),
                s(&["1", "16", "3"]),
                s(&["1", "16", "4"]),
                s(&["1", "32"]),
            ],
            h(),
        )
        .unwrap();
        assert!(ok.checks.is_empty());
        let c = unmet(lstm(
            &[x(), s(&["1", "16", "4"]), s(&["1", "16", "4"])],
            h(),
        ));
        assert_eq!(c.found, "W is [1, 16, 4], expected [1, 16, 3]");
        assert_eq!(
            c.requires,
            "LSTM's W must be [num_directions, 4*hidden_size, input_size]"
        );
        let c = unmet(lstm(
            &[x(), s(&["1", "16", "3"]), s(&["1", "16", "5"])],
            h(),
        ));
        assert_eq!(c.found, "R is [1, 16, 5], expected [1, 16, 4]");
        let c = unmet(lstm(
            &[
                x(),
                s(&["1", "16", "3"]),
                s(&["1", "16", "4"]),
                s(&["1", "16"]),
            ],
            h(),
        ));
        assert_eq!(c.found, "B is [1, 16], expected [1, 32]");
        // Without hidden_size, R's last dim gives it.
        let c = unmet(lstm(
            &[x(), s(&["1", "12", "3"]), s(&["1", "16", "4"])],
            vec![],
        ));
        assert_eq!(c.found, "W is [1, 12, 3], expected [1, 16, 3]");
        let c = unmet(lstm(
            &[x(), s(&["1", "14", "3"]), s(&["1", "14", "4"])],
            vec![],
        ));
        assert_eq!(c.found, "W's dim 1 is 14, not a multiple of 4");
    }

    #[test]
    fn symbolic_dims_give_conditions() {
        let r = run_in(
            "",
            "GRU",
            14,
            &[
                s(&["seq", "batch", "k"]),
                s(&["1", "12", "3"]),
                s(&["1", "12", "4"]),
            ],
            vec![int_attr("hidden_size", 4)],
            2,
        )
        .unwrap();
        let conditions: Vec<String> = r
            .constraints
            .iter()
            .filter_map(|c| c.condition().map(ToString::to_string))
            .collect();
        assert_eq!(conditions, ["k = 3"]);
        let c = unmet(run_in(
            "",
            "GRU",
            14,
            &[
                s(&["seq", "batch", "3"]),
                s(&["1", "12", "3"]),
                s(&["1", "12", "4"]),
                s(&["1", "12"]),
            ],
            vec![],
            2,
        ));
        assert_eq!(c.found, "B is [1, 12], expected [1, 24]");
        let c = unmet(run_in(
            "",
            "RNN",
            14,
            &[s(&["5", "2", "3"]), s(&["4", "3"]), s(&["1", "4", "4"])],
            vec![],
            2,
        ));
        assert_eq!(c.found, "W is [4, 3], expected [1, 4, 3]");
    }
}
