//! The cuBLASLt-ordered int8 ops (com.microsoft; CUDA kernels only, so these follow onnxruntime's
//! schemas in `quantization_defs.cc` and their docs, not a run): `QOrderedMatMul` (numpy matmul
//! of A and B, a bias over Y's columns and an optional C added to Y), `QOrderedLayerNormalization`
//! (Y is X's shape, gamma and beta applied over it), `QOrderedAttention` (`(B, S, hidden)` from
//! separate Q/K/V weights), and `QuantizeWithOrder` / `DequantizeWithOrder` (the input's shape,
//! int8 or the scale's float type).

use super::heads::heads;
use super::multiple::require_multiple;
use crate::model::dtype::elem;
use crate::ops::constraint::Pending;
use crate::ops::math::linalg::matmul_of;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// `QOrderedMatMul(A, scale_A, B, scale_B, scale_Y, bias, C, scale_C)`: `A @ B`; the bias has
/// one entry per column of Y, and C (2-D or 3-D, batch 1 or A's) is added to Y (a
/// unidirectional broadcast onto it).
pub(crate) fn qordered_mat_mul(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(2)?;
    let mut inferred = matmul_of(ctx.broadcasts(), a.shape, b.shape, [0, 2], a.elem)?;
    let y = inferred.outputs.first().map(|o| o.shape.clone());
    let Some(y) = y.filter(|y| y.rank().is_some()) else {
        return Ok(inferred);
    };
    let mut pending = Pending::default();
    if let Some(bias) = ctx.input(5) {
        let requires = "QOrderedMatMul's bias must be 1-D with one entry per column of Y";
        if let Some(d) = exact(bias.shape, 1, requires, 5)? {
            let cols = y
                .dims()
                .and_then(<[Dim]>::last)
                .cloned()
                .unwrap_or(Dim::Unknown);
            equal(
                &mut pending,
                &dim_at(Some(d), 0),
                &cols,
                requires,
                "bias' length",
                &[2, 5],
            )?;
        }
    }
    if let Some(c) = ctx.input(6) {
        let outcome = ctx.broadcasts().unidirectional(&y, c.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 6], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

/// `QOrderedLayerNormalization(X, scale_X, scale, B, scale_Y)`: Y is X's shape; gamma and beta
/// are applied element-wise over it (unidirectional broadcasts onto X).
pub(crate) fn qordered_layer_normalization(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    ctx.required(2)?;
    let mut inferred = Inferred::single(Output::shape(x.shape.clone()).elem(x.elem));
    if x.shape.rank().is_some() {
        for slot in [2, 3] {
            if let Some(param) = ctx.input(slot) {
                let outcome = ctx.broadcasts().unidirectional(x.shape, param.shape);
                inferred = inferred.with_check(Rule::Unidirectional, vec![0, slot], outcome);
            }
        }
    }
    Ok(inferred)
}

/// `QOrderedAttention(input, scale_input, scale_Q_gemm, scale_K_gemm, scale_V_gemm, Q_weight,
/// K_weight, V_weight, scale_Q_weight, scale_K_weight, scale_V_weight, Q_bias, K_bias, V_bias,
/// ...)`: the input is `(B, S, H_in)`, each weight `(H_in, hidden)` and each bias `(hidden)`
/// with `hidden` a multiple of `num_heads`; the output is `(B, S, hidden)`, as the doc and the
/// kernel's output allocation say (onnxruntime's inference copies the input's shape, the same
/// shape whenever `hidden` is the input's hidden size, as in every model its tools write).
pub(crate) fn qordered_attention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let x = exact(
        input.shape,
        3,
        "QOrderedAttention's input must be 3-D (batch, sequence, hidden)",
        0,
    )?;
    let in_hidden = dim_at(x, 2);
    let mut pending = Pending::default();
    let mut hidden = Dim::Unknown;
    let mut rows = in_hidden;
    for (slot, name) in [(5, "Q_weight"), (6, "K_weight"), (7, "V_weight")] {
        let requires =
            format!("QOrderedAttention's {name} must be 2-D (input_hidden_size, hidden_size)");
        let Some(w) = exact(ctx.shape(slot)?, 2, &requires, slot)? else {
            continue;
        };
        // The first weight is compared with the input, the others with it: one condition on a
        // symbolic input size, not three.
        equal(
            &mut pending,
            &dim_at(Some(w), 0),
            &rows,
            &requires,
            &format!("{name}'s dim 0"),
            &[0, slot],
        )?;
        let cols = dim_at(Some(w), 1);
        if matches!(hidden, Dim::Unknown) {
            hidden = cols;
            rows = dim_at(Some(w), 0);
        } else {
            let requires = "QOrderedAttention's Q, K and V weights must have the same hidden size";
            equal(
                &mut pending,
                &cols,
                &hidden,
                requires,
                &format!("{name}'s dim 1"),
                &[5, slot],
            )?;
        }
    }
    let requires = "QOrderedAttention's hidden size must be a multiple of num_heads";
    require_multiple(&mut pending, &hidden, num, requires, &[5])?;
    for (slot, name) in [(11, "Q_bias"), (12, "K_bias"), (13, "V_bias")] {
        let requires = format!("QOrderedAttention's {name} must be 1-D (hidden_size)");
        if let Some(b) = exact(ctx.shape(slot)?, 1, &requires, slot)? {
            equal(
                &mut pending,
                &dim_at(Some(b), 0),
                &hidden,
                &requires,
                &format!("{name}'s length"),
                &[5, slot],
            )?;
        }
    }
    let shape = match x {
        Some(_) => Shape::Ranked(vec![dim_at(x, 0), dim_at(x, 1), hidden]),
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(input.elem))
        .with_conditions(pending.into_checks()))
}

/// `QuantizeWithOrder(input, scale_input)`: the input's shape, int8.
pub(crate) fn quantize_with_order(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(Some(elem::INT8)),
    ))
}

/// `DequantizeWithOrder(input, scale_input)`: the input's shape, typed like the scale.
pub(crate) fn dequantize_with_order(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let scale = ctx.required(1)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(scale.elem),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft, Fact};

    #[test]
    fn qordered_matmul_checks_k_and_the_bias() {
        let s = || dims(&[]);
        let run = |b: &[&str], bias: &[&str]| {
            let inputs = [dims(&["n", "s", "32"]), s(), dims(b), s(), s(), dims(bias)];
            run_microsoft("QOrderedMatMul", &inputs, vec![], 1)
        };
        assert_eq!(shape(&run(&["32", "64"], &["64"])), "[n, s, 64]");
        assert!(unmet(&run(&["16", "64"], &["64"])));
        assert!(unmet(&run(&["32", "64"], &["32"])));
        let c = [
            dims(&["n", "s", "32"]),
            s(),
            dims(&["32", "64"]),
            s(),
            s(),
            None,
            dims(&["n", "s", "32"]),
        ];
        let r = run_microsoft("QOrderedMatMul", &c, vec![], 1).unwrap();
        // The batch broadcast of A and B, then C onto Y: 32 columns against 64 never hold.
        let last = r.checks.last().unwrap();
        assert_eq!(last.slots, [0, 6]);
        assert!(last.outcome.is_invalid());
    }

    #[test]
    fn qordered_attention_is_batch_sequence_hidden() {
        let s = || dims(&[]);
        let run = |x: &[&str], v: &[&str]| {
            let mut inputs: Vec<Option<Fact>> = vec![dims(x), s(), s(), s(), s()];
            inputs.extend([
                dims(&["32", "64"]),
                dims(&["32", "64"]),
                dims(v),
                s(),
                s(),
                s(),
            ]);
            inputs.extend([dims(&["64"]), dims(&["64"]), dims(&["64"]), None, None, s()]);
            run_microsoft(
                "QOrderedAttention",
                &inputs,
                vec![int_attr("num_heads", 4)],
                1,
            )
        };
        assert_eq!(shape(&run(&["b", "s", "32"], &["32", "64"])), "[b, s, 64]");
        assert!(unmet(&run(&["b", "s", "32"], &["32", "48"])));
        assert!(unmet(&run(&["b", "s", "16"], &["32", "64"])));
        assert_eq!(
            conditions(&run(&["b", "s", "h"], &["32", "64"])),
            ["h = 32"]
        );
    }

    #[test]
    fn ordered_quantization_keeps_the_shape() {
        let r = run_microsoft(
            "QuantizeWithOrder",
            &[dims(&["b", "32"]), dims(&[])],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[b, 32]");
        let r = run_microsoft(
            "QOrderedLayerNormalization",
            &[
                dims(&["b", "s", "32"]),
                dims(&[]),
                dims(&["16"]),
                None,
                dims(&[]),
            ],
            vec![],
            1,
        )
        .unwrap();
        assert!(r.checks[0].outcome.is_invalid());
    }
}
