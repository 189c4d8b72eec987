//! The LLaMA-style attention ops: `GroupQueryAttention` (fewer K/V heads than Q heads, a KV
//! cache), Phi-3-small's block-sparse `SparseAttention` on a shared KV buffer, and
//! `RotaryEmbedding` on its inputs (ContribOperators.md; output shapes as in onnxruntime's
//! `BaseGroupQueryAttentionTypeAndShapeInference`, `bert_defs.cc`).

use super::super::constraint::{Constraint, Pending};
use super::super::{Ctx, Inferred, Output, RuleError};
use super::activation::{require_equal, require_rank};
use super::heads::{dims, heads};
use crate::shape::{Dim, Shape};

/// `GroupQueryAttention(query, key, value, past_key, past_value, seqlens_k,
/// total_sequence_length, cos_cache, sin_cache, position_ids, attention_bias, ...)`: output is
/// query's shape, or `(B, S, N * h)` for packed QKV of `(N + 2 * N_kv) * h` columns. Present
/// key/value are `(B, N_kv, max(P, total), h)` for a past `(B, N_kv, P, h)` when
/// `total_sequence_length`'s value is known (onnxruntime's shape inference takes the same
/// maximum); the past's head axis must be `kv_num_heads`.
pub(crate) fn group_query(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let n_kv = heads(ctx, "kv_num_heads")?;
    require_rank(query.shape, 3, "GroupQueryAttention's query must be 3-D", 0)?;
    let output = output_of(ctx, query.shape, num, n_kv);
    let total = ctx
        .input(6)
        .and_then(|t| t.value)
        .and_then(|v| match v.data.as_slice() {
            [t] => Some(t.clone()),
            _ => None,
        });
    let mut pending = Pending::default();
    let present = match (dims(ctx, 3), total) {
        (Some([batch, kv, past, head]), Some(total)) => {
            let requires = "GroupQueryAttention's past_key must have kv_num_heads heads";
            require_equal(&mut pending, kv, &Dim::known(n_kv), requires, &[3])?;
            Shape::Ranked(vec![
                batch.clone(),
                kv.clone(),
                past.max(&total),
                head.clone(),
            ])
        }
        (Some(past), _) if past.len() != 4 => {
            let requires =
                "GroupQueryAttention's past_key must be 4-D (batch, kv heads, past, head size)";
            return Err(
                Constraint::new(requires, format!("its rank is {}", past.len()), &[3]).unmet(),
            );
        }
        _ => Shape::Unranked,
    };
    let present_elem = ctx.input(3).map_or(query.elem, |p| p.elem);
    let mut outputs = vec![
        Output::shape(output).elem(query.elem),
        Output::shape(present.clone()).elem(present_elem),
        Output::shape(present).elem(present_elem),
    ];
    if ctx.node().outputs().len() > 3 {
        outputs.push(Output::shape(Shape::Unranked));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// The attention output of `GroupQueryAttention` and `SparseAttention`: the query's shape, or
/// `(B, S, N * h)` for packed QKV (no key input) of `(N + 2 * N_kv) * h` columns.
fn output_of(ctx: &Ctx<'_>, query: &Shape, num: i64, n_kv: i64) -> Shape {
    match (query.dims(), ctx.input(2)) {
        (Some(_), Some(_)) => query.clone(),
        (Some([batch, seq, width]), None) => {
            let columns = Dim::known(num.saturating_add(n_kv.saturating_mul(2)));
            let head = width.div_exact(&columns);
            Shape::Ranked(vec![batch.clone(), seq.clone(), head.mul(&Dim::known(num))])
        }
        _ => Shape::Unranked,
    }
}

/// `SparseAttention(query, key, value, past_key, past_value, block_row_indices,
/// block_col_indices, total_sequence_length, key_total_sequence_lengths, cos_cache,
/// sin_cache)`: output as `GroupQueryAttention`'s; past and present share one buffer, so the
/// presents have the pasts' shapes (onnxruntime's `BaseGroupQueryAttentionTypeAndShapeInference`
/// with `use_max_past_present_buffer = 1`). The pasts are `(B, kv_num_heads, max, h)`;
/// `num_heads` must be a multiple of the layouts (`block_row_indices`' dim 0).
pub(crate) fn sparse(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let n_kv = heads(ctx, "kv_num_heads")?;
    require_rank(query.shape, 3, "SparseAttention's query must be 3-D", 0)?;
    // onnxruntime's inference rejects it: "Packed query hidden size must be divisible by the
    // grouped head count".
    let columns = num.saturating_add(n_kv.saturating_mul(2));
    if let (None, Some([_, _, width])) = (ctx.input(2), query.shape.dims()) {
        if let Some(w) = width.as_known().filter(|w| w % columns != 0) {
            let requires = "SparseAttention's packed QKV hidden size must be divisible by num_heads + 2 * kv_num_heads";
            return Err(Constraint::new(requires, format!("{w} vs {columns}"), &[0]).unmet());
        }
    }
    let output = output_of(ctx, query.shape, num, n_kv);
    let mut pending = Pending::default();
    let mut presents = Vec::new();
    for slot in [3, 4] {
        let past = ctx.required(slot)?;
        let requires =
            "SparseAttention's past key and value must be 4-D (batch, kv heads, max length, head size)";
        require_rank(past.shape, 4, requires, slot)?;
        if let Some([_, kv, _, _]) = past.shape.dims() {
            let requires = "SparseAttention's past key and value must have kv_num_heads heads";
            require_equal(&mut pending, kv, &Dim::known(n_kv), requires, &[slot])?;
        }
        presents.push(Output::shape(past.shape.clone()).elem(past.elem));
    }
    if let Some([layouts, _]) = dims(ctx, 5) {
        if let Some(l) = layouts.as_known().filter(|&l| l <= 0 || num % l != 0) {
            let requires =
                "SparseAttention's num_heads must be a multiple of the block mask's layouts";
            let found = format!("{num} heads, {l} layouts");
            return Err(Constraint::new(requires, found, &[5]).unmet());
        }
    }
    let mut outputs = vec![Output::shape(output).elem(query.elem)];
    outputs.extend(presents);
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// `RotaryEmbedding(input, position_ids, cos_cache, sin_cache)`: output has input's shape; the
/// two caches have one shape; 2-D position ids are `(B, S)` of a 3-D input.
pub(crate) fn rotary(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let cos = ctx.required(2)?;
    let sin = ctx.required(3)?;
    let mut pending = Pending::default();
    if let (Some(c), Some(s)) = (cos.shape.dims(), sin.shape.dims()) {
        if c.len() != s.len() {
            let found = format!("ranks {} and {}", c.len(), s.len());
            return Err(Constraint::new(
                "RotaryEmbedding's cos and sin caches must have one shape",
                found,
                &[2, 3],
            )
            .unmet());
        }
        for (a, b) in c.iter().zip(s) {
            require_equal(
                &mut pending,
                a,
                b,
                "RotaryEmbedding's cos and sin caches must have one shape",
                &[2, 3],
            )?;
        }
    }
    if let (Some([b, s, _]), Some([pb, ps])) = (input.shape.dims(), dims(ctx, 1)) {
        let requires = "RotaryEmbedding's 2-D position_ids must be (batch, sequence) of the input";
        require_equal(&mut pending, b, pb, requires, &[0, 1])?;
        require_equal(&mut pending, s, ps, requires, &[0, 1])?;
    }
    Ok(
        Inferred::single(Output::shape(input.shape.clone()).elem(input.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{
        conditions, dims as s, int_attr, ints, output_shapes, run_microsoft as ms, unmet,
    };
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    #[test]
    fn gqa_present_is_the_total_sequence() {
        let total = ints(ValueTensor {
            shape: vec![],
            data: vec![Dim::sym("p").add(&Dim::sym("s"))],
        });
        let past = || s(&["b", "2", "p", "8"]);
        let attrs = || vec![int_attr("num_heads", 4), int_attr("kv_num_heads", 2)];
        let r = ms(
            "GroupQueryAttention",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "s", "16"]),
                s(&["b", "s", "16"]),
                past(),
                past(),
                s(&["b"]),
                total.clone(),
            ],
            attrs(),
            3,
        )
        .unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[b, s, 32]", "[b, 2, p+s, 8]", "[b, 2, p+s, 8]"]
        );
        let packed = ms("GroupQueryAttention", &[s(&["b", "s", "64"])], attrs(), 1).unwrap();
        assert_eq!(output_shapes(&packed)[0], "[b, s, 32]");
        let heads = unmet(ms(
            "GroupQueryAttention",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "s", "16"]),
                s(&["b", "s", "16"]),
                s(&["b", "4", "p", "8"]),
                past(),
                s(&["b"]),
                total,
            ],
            attrs(),
            3,
        ));
        assert_eq!(heads.found, "4 vs 2");
    }

    #[test]
    fn sparse_attention_presents_are_the_shared_pasts() {
        let attrs = || vec![int_attr("num_heads", 4), int_attr("kv_num_heads", 2)];
        let inputs = |kv: &str, layouts: &str| {
            [
                s(&["b", "s", "32"]),
                s(&["b", "s", "16"]),
                s(&["b", "s", "16"]),
                s(&["b", kv, "m", "8"]),
                s(&["b", "2", "m", "8"]),
                s(&[layouts, "9"]),
            ]
        };
        let r = ms("SparseAttention", &inputs("2", "2"), attrs(), 3).unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[b, s, 32]", "[b, 2, m, 8]", "[b, 2, m, 8]"]
        );
        assert_eq!(
            unmet(ms("SparseAttention", &inputs("3", "2"), attrs(), 3)).found,
            "3 vs 2"
        );
        assert!(ms("SparseAttention", &inputs("2", "3"), attrs(), 3).is_err());
        // Packed QKV of 60 columns is not (4 + 2 * 2) heads of one size.
        let mut packed = inputs("2", "2");
        packed[0] = s(&["b", "s", "60"]);
        packed[1] = None;
        packed[2] = None;
        assert_eq!(
            unmet(ms("SparseAttention", &packed, attrs(), 3)).found,
            "60 vs 8"
        );
    }

    #[test]
    fn rotary_keeps_the_shape_and_checks_caches() {
        let r = ms(
            "RotaryEmbedding",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "t"]),
                s(&["64", "4"]),
                s(&["64", "4"]),
            ],
            vec![],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 32]"]);
        assert_eq!(conditions(&r), ["t = s"]);
        let caches = unmet(ms(
            "RotaryEmbedding",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "s"]),
                s(&["64", "4"]),
                s(&["64", "8"]),
            ],
            vec![],
            1,
        ));
        assert_eq!(caches.found, "4 vs 8");
    }
}
