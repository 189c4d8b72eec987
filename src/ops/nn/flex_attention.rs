//! `FlexAttention-1` (`ai.onnx.preview`): scaled dot-product attention over rank-4 inputs with
//! optional `score_mod` / `prob_mod` subgraphs that keep the scores' shape. Q is
//! `(batch_size, q_num_heads, q_sequence_length, head_size)`, K `(batch_size, kv_num_heads,
//! kv_sequence_length, head_size)`, V `(batch_size, kv_num_heads, kv_sequence_length,
//! v_head_size)`; Y is `(batch_size, q_num_heads, q_sequence_length, v_head_size)`, and
//! "`q_num_heads` must be a multiple of `kv_num_heads`". `onnx.shape_inference` checks each of
//! these ("Query and key must share the same embedding dimension", "Key and value must share the
//! same sequence length", the batch by unification), so each is an operator constraint here.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Condition, Dim, Shape};

const RANK4: &str =
    "FlexAttention requires rank-4 inputs: Q (B, Hq, L, E), K (B, Hkv, S, E), V (B, Hkv, S, Ev)";

/// `FlexAttention(Q, K, V)`: `Y` is `(B, Hq, L, Ev)`.
pub(crate) fn flex_attention_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let q_in = ctx.required(0)?;
    let q = exact(q_in.shape, 4, RANK4, 0)?;
    let k = exact(ctx.shape(1)?, 4, RANK4, 1)?;
    let v = exact(ctx.shape(2)?, 4, RANK4, 2)?;
    let mut pending = Pending::default();
    let batch = dim_at(q, 0);
    for (dims, slot, what) in [(k, 1, "K"), (v, 2, "V")] {
        let requires = format!("FlexAttention's {what} must have Q's batch size");
        equal(
            &mut pending,
            &dim_at(dims, 0),
            &batch,
            &requires,
            "batch",
            &[0, slot],
        )?;
    }
    let requires = "FlexAttention's Q and K must share the same embedding dimension";
    equal(
        &mut pending,
        &dim_at(k, 3),
        &dim_at(q, 3),
        requires,
        "K's head size",
        &[0, 1],
    )?;
    let requires = "FlexAttention's K and V must share the same sequence length";
    equal(
        &mut pending,
        &dim_at(v, 2),
        &dim_at(k, 2),
        requires,
        "V's length",
        &[1, 2],
    )?;
    let requires = "FlexAttention's K and V must share the same number of heads";
    equal(
        &mut pending,
        &dim_at(v, 1),
        &dim_at(k, 1),
        requires,
        "V's heads",
        &[1, 2],
    )?;
    let (hq, hkv) = (dim_at(q, 1), dim_at(k, 1));
    if !matches!(hq, Dim::Unknown) && !matches!(hkv, Dim::Unknown) {
        // "q_num_heads must be a multiple of kv_num_heads": a symbolic divisor has no modulo
        // form, so only a known kv_num_heads is checked.
        let rem = hq.modulo(&hkv);
        if !matches!(rem, Dim::Unknown) {
            pending.holds_if(&Condition::eq(&rem, &Dim::known(0)), || {
                Constraint::new(
                    "FlexAttention's q_num_heads must be a multiple of kv_num_heads",
                    format!("Q has {hq} heads, K {hkv}"),
                    &[0, 1],
                )
            })?;
        }
    }
    let y = Shape::Ranked(vec![batch, hq, dim_at(q, 2), dim_at(v, 3)]);
    Ok(Inferred::single(Output::shape(y).elem(q_in.elem)).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, output_shapes, run_in};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    fn run(
        q: &[&str],
        k: &[&str],
        v: &[&str],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        run_in(
            "ai.onnx.preview",
            "FlexAttention",
            1,
            &[dims(q), dims(k), dims(v)],
            vec![],
            1,
        )
    }

    #[test]
    fn output_is_query_with_the_value_head_size() {
        let r = run(
            &["B", "4", "L", "8"],
            &["B", "2", "S", "8"],
            &["B", "2", "S", "6"],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[B, 4, L, 6]"]);
        assert!(r.constraints.is_empty());
    }

    #[test]
    fn what_onnx_rejects_is_unmet() {
        let q = ["2", "4", "5", "8"];
        for (k, v) in [
            (["2", "3", "7", "8"], ["2", "3", "7", "6"]),
            (["2", "2", "7", "9"], ["2", "2", "7", "6"]),
            (["2", "2", "7", "8"], ["2", "2", "6", "6"]),
            (["3", "2", "7", "8"], ["2", "2", "7", "6"]),
            (["2", "2", "7", "8"], ["2", "1", "7", "6"]),
        ] {
            assert!(unmet(&run(&q, &k, &v)), "{k:?} {v:?}");
        }
        assert!(unmet(&run(
            &["4", "5", "8"],
            &["2", "2", "7", "8"],
            &["2", "2", "7", "6"]
        )));
    }

    #[test]
    fn symbolic_heads_must_be_a_multiple() {
        let r = run(
            &["2", "h", "5", "8"],
            &["2", "2", "7", "8"],
            &["2", "2", "7", "6"],
        );
        assert_eq!(conditions(&r).len(), 1);
    }
}
