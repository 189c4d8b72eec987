//! The padding-free BERT ops (com.microsoft `RemovePadding`, `RestorePadding`,
//! `PackedAttention`, `PackedMultiHeadAttention`): tokens of a batch packed into one
//! `(token_count, hidden)` tensor, with `token_offset` `(B, S)` and the cumulative sequence
//! lengths `(B + 1)`. Shapes as in onnxruntime's `RemovePaddingTypeAndShapeInference`,
//! `RestorePaddingTypeAndShapeInference`, `PackedAttentionTypeAndShapeInference` and
//! `PackedMultiHeadAttentionTypeAndShapeInference` (`bert_defs.cc`) and the schema docs; all
//! four run on CUDA only in onnxruntime 1.31, so they follow those texts, not a CPU run.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

use super::heads::{divisible, heads};

/// `RemovePadding(input, sequence_token_count)`: input `(B, S, H)` gives the real tokens
/// `(total_tokens, H)` (a data-dependent count, at most `B*S`: a fresh named size),
/// `token_offset` `(B, S)`, `cumulated_seq_len` `(B + 1)` and `max_seq_len` `(1)`.
pub(crate) fn remove_padding(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let input = ctx.required(0)?;
    let requires = format!("{op}'s input must be 3-D (batch, sequence, hidden)");
    let xd = exact(input.shape, 3, &requires, 0)?;
    let mut pending = Pending::default();
    if let Some(count) = ctx.input(1) {
        let requires = format!("{op}'s sequence_token_count must be 1-D (batch)");
        let c = exact(count.shape, 1, &requires, 1)?;
        let requires = format!("{op}'s sequence_token_count must have one entry per sequence");
        equal(
            &mut pending,
            &dim_at(c, 0),
            &dim_at(xd, 0),
            &requires,
            "its length",
            &[0, 1],
        )?;
    }
    let Some([batch, seq, hidden]) = xd else {
        return Ok(Inferred::many(vec![
            Output::shape(Shape::Ranked(vec![Dim::Unknown, Dim::Unknown])).elem(input.elem),
            Output::shape(Shape::Ranked(vec![Dim::Unknown, Dim::Unknown])),
            Output::shape(Shape::Ranked(vec![Dim::Unknown])),
            Output::shape(Shape::Ranked(vec![Dim::known(1)])),
        ])
        .with_conditions(pending.into_checks()));
    };
    let tokens = ctx.fresh_dim("total_tokens", vec![batch.mul(seq)]);
    let offsets = ctx.input(1).and_then(|c| c.elem);
    Ok(Inferred::many(vec![
        Output::shape(Shape::Ranked(vec![tokens, hidden.clone()])).elem(input.elem),
        Output::shape(Shape::Ranked(vec![batch.clone(), seq.clone()])).elem(offsets),
        Output::shape(Shape::Ranked(vec![batch.add(&Dim::known(1))])).elem(offsets),
        Output::shape(Shape::Ranked(vec![Dim::known(1)])).elem(offsets),
    ])
    .with_conditions(pending.into_checks()))
}

/// `RestorePadding(input, token_offset)`: `(T, H)` and `(B, S)` give `(B, S, H)`.
pub(crate) fn restore_padding(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let input = ctx.required(0)?;
    let xd = exact(
        input.shape,
        2,
        &format!("{op}'s input must be 2-D (tokens, hidden)"),
        0,
    )?;
    let offsets = ctx.required(1)?;
    let requires = format!("{op}'s token_offset must be 2-D (batch, sequence)");
    let t = exact(offsets.shape, 2, &requires, 1)?;
    let shape = Shape::Ranked(vec![dim_at(t, 0), dim_at(t, 1), dim_at(xd, 1)]);
    Ok(Inferred::single(Output::shape(shape).elem(input.elem)))
}

/// The packing inputs both packed attentions take: `token_offset` `(B, S)` at `slot` and the
/// cumulative lengths `(B + 1)` after it; `(B, S)`, as far as known.
fn packing(
    ctx: &Ctx<'_>,
    op: &str,
    slot: usize,
    pending: &mut Pending,
) -> Result<(Dim, Dim), RuleError> {
    let requires = format!("{op}'s token_offset must be 2-D (batch, sequence)");
    let t = match ctx.input(slot) {
        Some(t) => exact(t.shape, 2, &requires, slot)?,
        None => None,
    };
    let (batch, seq) = (dim_at(t, 0), dim_at(t, 1));
    if let Some(c) = ctx.input(slot + 1) {
        let requires = format!("{op}'s cumulative_sequence_length must be 1-D (batch + 1)");
        let c = exact(c.shape, 1, &requires, slot + 1)?;
        if batch != Dim::Unknown {
            let requires = format!("{op}'s cumulative_sequence_length must have batch + 1 entries");
            let want = batch.add(&Dim::known(1));
            equal(
                pending,
                &dim_at(c, 0),
                &want,
                &requires,
                "its length",
                &[slot, slot + 1],
            )?;
        }
    }
    Ok((batch, seq))
}

/// `PackedAttention(input, weights, bias, token_offset, cumulative_sequence_length,
/// attention_bias)`: input `(T, H_in)`, weights `(H_in, H + H + H_v)` (sizes from
/// `qkv_hidden_sizes`, else three equal thirds), bias one entry per column; output
/// `(T, H_v)`. `attention_bias` is added to the `(B, N, S, S)` scores.
pub(crate) fn packed_attention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let input = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let xd = exact(
        input.shape,
        2,
        &format!("{op}'s input must be 2-D (tokens, hidden)"),
        0,
    )?;
    let weights = ctx.required(1)?;
    let wd = exact(weights.shape, 2, &format!("{op}'s weights must be 2-D"), 1)?;
    let mut pending = Pending::default();
    let requires = format!("{op}'s weights must have the input's hidden size as rows");
    equal(
        &mut pending,
        &dim_at(wd, 0),
        &dim_at(xd, 1),
        &requires,
        "weights' dim 0",
        &[0, 1],
    )?;
    let width = dim_at(wd, 1);
    let (hidden, v_hidden) = match ctx.attrs().ints("qkv_hidden_sizes")? {
        Some(&[qd, kd, vd]) if qd == kd => (Dim::known(qd), Dim::known(vd)),
        Some(sizes) => {
            let requires = format!("{op}'s qkv_hidden_sizes must be three sizes, Q's equal to K's");
            return Err(
                Constraint::new(requires, format!("qkv_hidden_sizes is {sizes:?}"), &[]).unmet(),
            );
        }
        None => {
            if let Some(c) = width.as_known().filter(|c| c % 3 != 0) {
                let requires =
                    format!("{op}'s weights must have 3 equal parts (Q, K, V) as columns");
                return Err(Constraint::new(requires, format!("{c} columns"), &[1]).unmet());
            }
            let third = width.div_exact(&Dim::known(3));
            (third.clone(), third)
        }
    };
    divisible(op, &hidden, num, 1)?;
    let requires = format!("{op}'s weights must have hidden + hidden + v_hidden columns");
    let total = hidden.add(&hidden).add(&v_hidden);
    equal(
        &mut pending,
        &width,
        &total,
        &requires,
        "weights' dim 1",
        &[1],
    )?;
    if let Some(bias) = ctx.input(2) {
        let b = exact(bias.shape, 1, &format!("{op}'s bias must be 1-D"), 2)?;
        let requires = format!("{op}'s bias must have one entry per column of the weights");
        equal(
            &mut pending,
            &dim_at(b, 0),
            &width,
            &requires,
            "its length",
            &[1, 2],
        )?;
    }
    let (batch, seq) = packing(ctx, op, 3, &mut pending)?;
    let output = Shape::Ranked(vec![dim_at(xd, 0), v_hidden]);
    let mut inferred = Inferred::single(Output::shape(output).elem(input.elem));
    if let Some(bias) = ctx.input(5) {
        let scores = Shape::Ranked(vec![batch, Dim::known(num), seq.clone(), seq]);
        let outcome = ctx.broadcasts().unidirectional(&scores, bias.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![3, 5], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

/// `PackedMultiHeadAttention(query, key, value, bias, token_offset,
/// cumulative_sequence_length, attention_bias)`: query `(T, H)` with key `(T, H)` and value
/// `(T, H_v)` gives `(T, H_v)`; packed QKV `(T, N, 3, h)` gives `(T, N*h)`; packed KV (a 4-D
/// key, no value) keeps the query's shape.
pub(crate) fn packed_multi_head(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let qd = query.shape.dims();
    let kd = ctx.input(1).and_then(|kd| kd.shape.dims());
    let vd = ctx.input(2).and_then(|vd| vd.shape.dims());
    let mut pending = Pending::default();
    let output = match (qd, kd, vd) {
        (Some([t, n, _, h]), _, _) => Shape::Ranked(vec![t.clone(), n.mul(h)]),
        (Some([t, hidden]), Some([kt, kh]), Some([vt, vh])) => {
            divisible(op, hidden, num, 0)?;
            let requires = format!("{op}'s key and value must have the query's token count");
            equal(&mut pending, kt, t, &requires, "key's dim 0", &[0, 1])?;
            equal(&mut pending, vt, t, &requires, "value's dim 0", &[0, 2])?;
            let requires = format!("{op}'s key must have the query's hidden size");
            equal(&mut pending, kh, hidden, &requires, "key's dim 1", &[0, 1])?;
            if let Some(bias) = ctx.input(3) {
                let b = exact(bias.shape, 1, &format!("{op}'s bias must be 1-D"), 3)?;
                let requires = format!("{op}'s bias must have hidden + hidden + v_hidden entries");
                let want = hidden.add(kh).add(vh);
                equal(
                    &mut pending,
                    &dim_at(b, 0),
                    &want,
                    &requires,
                    "its length",
                    &[0, 1, 2, 3],
                )?;
            }
            Shape::Ranked(vec![t.clone(), vh.clone()])
        }
        (Some([_, _]), Some([_, _, _, _]), None) => query.shape.clone(),
        (Some([t, _]), _, _) => Shape::Ranked(vec![t.clone(), Dim::Unknown]),
        (Some(d), _, _) => {
            let requires = format!("{op}'s query must be 2-D (tokens, hidden) or 4-D packed Q/K/V");
            return Err(
                Constraint::new(requires, format!("its rank is {}", d.len()), &[0]).unmet(),
            );
        }
        (None, _, _) => Shape::Unranked,
    };
    let (batch, seq) = packing(ctx, op, 4, &mut pending)?;
    let mut inferred = Inferred::single(Output::shape(output).elem(query.elem));
    if let Some(bias) = ctx.input(6) {
        let scores = Shape::Ranked(vec![batch, Dim::known(num), seq.clone(), seq]);
        let outcome = ctx.broadcasts().unidirectional(&scores, bias.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![4, 6], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims as s, int_attr, output_shapes, run_microsoft as ms};

    #[test]
    fn remove_then_restore_padding() {
        let r = ms(
            "RemovePadding",
            &[s(&["b", "s", "32"]), s(&["b"])],
            vec![],
            4,
        )
        .unwrap();
        let shapes = output_shapes(&r);
        assert!(shapes[0].starts_with("[`total_tokens#"), "{shapes:?}");
        assert_eq!(shapes[1..], ["[b, s]", "[b+1]", "[1]"]);
        assert!(unmet(&ms(
            "RemovePadding",
            &[s(&["b", "32"]), s(&["b"])],
            vec![],
            4
        )));
        assert_eq!(
            conditions(&ms(
                "RemovePadding",
                &[s(&["b", "s", "32"]), s(&["c"])],
                vec![],
                4
            )),
            ["c = b"]
        );
        let back = ms(
            "RestorePadding",
            &[s(&["t", "32"]), s(&["b", "s"])],
            vec![],
            1,
        );
        assert_eq!(output_shapes(&back.unwrap()), ["[b, s, 32]"]);
        assert!(unmet(&ms(
            "RestorePadding",
            &[s(&["t", "32"]), s(&["b"])],
            vec![],
            1
        )));
    }

    #[test]
    fn packed_attention_projects_tokens() {
        let inputs = |w: &str, cum: &str| {
            [
                s(&["t", "32"]),
                s(&["32", w]),
                s(&[w]),
                s(&["2", "s"]),
                s(&[cum]),
                s(&["1", "4", "s", "s"]),
            ]
        };
        let heads = || vec![int_attr("num_heads", 4)];
        let r = ms("PackedAttention", &inputs("96", "3"), heads(), 1);
        let r = r.unwrap();
        assert_eq!(output_shapes(&r), ["[t, 32]"]);
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        assert!(r.constraints.is_empty());
        assert!(unmet(&ms(
            "PackedAttention",
            &inputs("95", "3"),
            heads(),
            1
        )));
        assert!(unmet(&ms(
            "PackedAttention",
            &inputs("90", "3"),
            heads(),
            1
        )));
        assert_eq!(
            conditions(&ms("PackedAttention", &inputs("96", "c"), heads(), 1)),
            ["c = 3"]
        );
    }

    #[test]
    fn packed_mha_output_by_layout() {
        let heads = || vec![int_attr("num_heads", 4)];
        let r = ms(
            "PackedMultiHeadAttention",
            &[
                s(&["t", "32"]),
                s(&["t", "32"]),
                s(&["t", "16"]),
                s(&["80"]),
            ],
            heads(),
            1,
        );
        assert_eq!(output_shapes(&r.unwrap()), ["[t, 16]"]);
        let packed = ms(
            "PackedMultiHeadAttention",
            &[s(&["t", "4", "3", "8"])],
            heads(),
            1,
        );
        assert_eq!(output_shapes(&packed.unwrap()), ["[t, 32]"]);
        assert!(unmet(&ms(
            "PackedMultiHeadAttention",
            &[
                s(&["t", "32"]),
                s(&["t", "32"]),
                s(&["t", "16"]),
                s(&["96"])
            ],
            heads(),
            1,
        )));
        assert!(unmet(&ms(
            "PackedMultiHeadAttention",
            &[s(&["t", "30"]), s(&["t", "30"]), s(&["t", "16"])],
            heads(),
            1,
        )));
    }
}
