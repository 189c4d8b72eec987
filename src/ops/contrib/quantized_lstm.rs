//! `DynamicQuantizeLSTM`, the LSTM that `onnxruntime.quantization.quantize_dynamic` writes
//! (ContribOperators.md): ONNX LSTM's inputs and outputs (sequence first, no `layout`) with W
//! and R stored transposed and quantized, `W (num_directions, input_size, 4*hidden_size)`,
//! `R (num_directions, hidden_size, 4*hidden_size)`, and their scales and zero points per
//! direction `(num_directions)` or per column `(num_directions, 4*hidden_size)`. onnxruntime's
//! kernel (`dynamic_quantize_lstm.cc`, `deep_cpu_lstm.h`) checks each input's shape when the node
//! runs ("Input W must have shape {1,3,16}. Actual:{1,16,3}"); its schema infers only the
//! outputs, so each check here is an operator constraint (E4 / W4).

use super::super::constraint::{Constraint, Pending};
use super::super::ranks::same_shape;
use super::super::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

const OP: &str = "DynamicQuantizeLSTM";

/// `num_directions` from `direction`.
fn directions(ctx: &Ctx<'_>) -> Result<i64, RuleError> {
    match ctx.attrs().string("direction")?.unwrap_or("forward") {
        "forward" | "reverse" => Ok(1),
        "bidirectional" => Ok(2),
        other => Err(Constraint::new(
            format!("{OP}'s direction must be forward, reverse or bidirectional"),
            format!("direction is `{other}`"),
            &[],
        )
        .unmet()),
    }
}

/// `DynamicQuantizeLSTM(X, W, R, B, sequence_lens, initial_h, initial_c, P, W_scale,
/// W_zero_point, R_scale, R_zero_point)`: `Y (seq, num_directions, batch, hidden)`, `Y_h` and
/// `Y_c (num_directions, batch, hidden)`. The hidden size is `hidden_size`, else R's dim 1.
pub(crate) fn dynamic_quantize_lstm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let dirs = Dim::known(directions(ctx)?);
    let (seq, batch, input) = match x.shape.dims() {
        None => (Dim::Unknown, Dim::Unknown, Dim::Unknown),
        Some([s, b, i]) => (s.clone(), b.clone(), i.clone()),
        Some(d) => {
            return Err(Constraint::new(
                format!("{OP}'s X must be 3-D (seq_length, batch_size, input_size)"),
                format!("X has rank {}", d.len()),
                &[0],
            )
            .unmet())
        }
    };
    let hidden = match ctx.attrs().int("hidden_size")? {
        Some(h) => Dim::known(h),
        None => ctx
            .input(2)
            .and_then(|r| r.shape.dims()?.get(1).cloned())
            .unwrap_or(Dim::Unknown),
    };
    let columns = hidden.mul(&Dim::known(4));
    let state = vec![dirs.clone(), batch.clone(), hidden.clone()];
    let specs = [
        (
            1,
            "W must be (num_directions, input_size, 4*hidden_size)",
            vec![dirs.clone(), input, columns.clone()],
        ),
        (
            2,
            "R must be (num_directions, hidden_size, 4*hidden_size)",
            vec![dirs.clone(), hidden.clone(), columns.clone()],
        ),
        (
            3,
            "B must be (num_directions, 8*hidden_size)",
            vec![dirs.clone(), hidden.mul(&Dim::known(8))],
        ),
        (4, "sequence_lens must be (batch_size)", vec![batch.clone()]),
        (
            5,
            "initial_h must be (num_directions, batch_size, hidden_size)",
            state.clone(),
        ),
        (
            6,
            "initial_c must be (num_directions, batch_size, hidden_size)",
            state.clone(),
        ),
        (
            7,
            "P must be (num_directions, 3*hidden_size)",
            vec![dirs.clone(), hidden.mul(&Dim::known(3))],
        ),
    ];
    let mut pending = Pending::default();
    for (slot, requires, wanted) in &specs {
        if let Some(input) = ctx.input(*slot) {
            let requires = format!("{OP}'s {requires}");
            same_shape(&mut pending, input.shape, wanted, &requires, &[*slot])?;
        }
    }
    for (slot, name) in [
        (8, "W_scale"),
        (9, "W_zero_point"),
        (10, "R_scale"),
        (11, "R_zero_point"),
    ] {
        quantization_params(ctx, &mut pending, slot, name, &dirs, &columns)?;
    }
    let elem = x.elem;
    Ok(Inferred::many(vec![
        Output::shape(Shape::Ranked(vec![
            seq,
            dirs.clone(),
            batch.clone(),
            hidden.clone(),
        ]))
        .elem(elem),
        Output::shape(Shape::Ranked(state.clone())).elem(elem),
        Output::shape(Shape::Ranked(state)).elem(elem),
    ])
    .with_conditions(pending.into_checks()))
}

/// A scale or zero point: `(num_directions)` per direction or `(num_directions,
/// 4*hidden_size)` per column. Other ranks are left to the kernel (a scalar is not rejected by
/// the schema).
fn quantization_params(
    ctx: &Ctx<'_>,
    pending: &mut Pending,
    slot: usize,
    name: &str,
    dirs: &Dim,
    columns: &Dim,
) -> Result<(), RuleError> {
    let Some(input) = ctx.input(slot) else {
        return Ok(());
    };
    let requires = format!(
        "{OP}'s {name} must be (num_directions) per tensor or (num_directions, 4*hidden_size) per channel"
    );
    match input.shape.dims() {
        Some([_]) => same_shape(
            pending,
            input.shape,
            std::slice::from_ref(dirs),
            &requires,
            &[slot],
        ),
        Some([_, _]) => same_shape(
            pending,
            input.shape,
            &[dirs.clone(), columns.clone()],
            &requires,
            &[slot],
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, int_attr, output_shapes, run_in, string_attr, Fact};
    use crate::ops::{Inferred, RuleError};

    fn unmet(r: &Result<Inferred, RuleError>) -> bool {
        matches!(r, Err(RuleError::Unmet(_)))
    }

    // Cases run in onnxruntime 1.31 (CPU) with hidden_size 4, input_size 3, seq 3, batch 2:
    // the passing ones with these outputs, the failing ones with the message quoted.
    fn lstm(inputs: &[Option<Fact>], bidirectional: bool) -> Result<Inferred, RuleError> {
        let mut attrs = vec![int_attr("hidden_size", 4)];
        if bidirectional {
            attrs.push(string_attr("direction", "bidirectional"));
        }
        run_in("com.microsoft", "DynamicQuantizeLSTM", 1, inputs, attrs, 3)
    }

    fn with(changes: &[(usize, Option<Fact>)]) -> Vec<Option<Fact>> {
        let mut inputs = vec![
            s(&["S", "B", "3"]),
            s(&["1", "3", "16"]),
            s(&["1", "4", "16"]),
            None,
            None,
            None,
            None,
            None,
            s(&["1"]),
            s(&["1"]),
            s(&["1"]),
            s(&["1"]),
        ];
        for (slot, fact) in changes {
            if let Some(input) = inputs.get_mut(*slot) {
                input.clone_from(fact);
            }
        }
        inputs
    }

    #[test]
    fn outputs_are_lstms_sequence_first() {
        let r = lstm(&with(&[]), false).unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[S, 1, B, 4]", "[1, B, 4]", "[1, B, 4]"]
        );
        assert!(r.constraints.is_empty());
        let per_channel = s(&["1", "16"]);
        let full = with(&[
            (3, s(&["1", "32"])),
            (4, s(&["B"])),
            (5, s(&["1", "B", "4"])),
            (6, s(&["1", "B", "4"])),
            (7, s(&["1", "12"])),
            (8, per_channel.clone()),
            (9, per_channel.clone()),
            (10, per_channel.clone()),
            (11, per_channel),
        ]);
        assert!(lstm(&full, false).unwrap().constraints.is_empty());
        let both = with(&[
            (1, s(&["2", "3", "16"])),
            (2, s(&["2", "4", "16"])),
            (8, s(&["2"])),
            (9, s(&["2"])),
            (10, s(&["2"])),
            (11, s(&["2"])),
        ]);
        let r = lstm(&both, true).unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[S, 2, B, 4]", "[2, B, 4]", "[2, B, 4]"]
        );
    }

    #[test]
    fn each_input_is_checked_as_the_kernel_does() {
        // "Input W must have shape {1,3,16}. Actual:{1,16,3}": W is stored transposed.
        assert!(unmet(&lstm(&with(&[(1, s(&["1", "16", "3"]))]), false)));
        assert!(unmet(&lstm(&with(&[(2, s(&["1", "4", "20"]))]), false)));
        assert!(unmet(&lstm(&with(&[(3, s(&["1", "33"]))]), false)));
        assert!(unmet(&lstm(&with(&[(7, s(&["1", "13"]))]), false)));
        // "Input W_zero_point must have shape {1} ... or shape {1, 4*4} ...".
        assert!(unmet(&lstm(&with(&[(9, s(&["2"]))]), false)));
        assert!(unmet(&lstm(&with(&[(8, s(&["1", "17"]))]), false)));
        // "Input X must have 3 dimensions only".
        assert!(unmet(&lstm(&with(&[(0, s(&["3", "3"]))]), false)));
        // A batch that may differ from X's is a condition (W4): "initial_h must have shape
        // {1,2,4}. Actual:{1,3,4}" at a binding where they differ.
        let r = lstm(&with(&[(5, s(&["1", "C", "4"]))]), false).unwrap();
        assert_eq!(r.constraints.len(), 1);
        // A scale and its zero point may be of different granularity (runs in onnxruntime).
        let r = lstm(&with(&[(8, s(&["1", "16"])), (9, s(&["1"]))]), false).unwrap();
        assert!(r.constraints.is_empty());
    }
}
