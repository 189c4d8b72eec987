//! Attention ops on separate Q, K and V: `MultiHeadAttention`, `GroupQueryAttention`, and the
//! `RotaryEmbedding` applied to their inputs (ContribOperators.md; output shapes as in
//! onnxruntime's `MultiHeadAttentionTypeAndShapeInference` and
//! `BaseGroupQueryAttentionTypeAndShapeInference`, `bert_defs.cc`, carried over symbolic dims).

use super::super::constraint::{Constraint, Pending};
use super::super::{spec, Ctx, Inferred, Output, RuleError};
use super::activation::{require_equal, require_rank};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// Dims of input `slot`, `None` when absent or unranked.
pub(super) fn dims<'a>(ctx: &Ctx<'a>, slot: usize) -> Option<&'a [Dim]> {
    ctx.input(slot).and_then(|i| i.shape.dims())
}

/// E4 when a known hidden size is not a multiple of the head count (`slot` holds it).
pub(super) fn divisible(op: &str, hidden: &Dim, num: i64, slot: usize) -> Result<(), RuleError> {
    if let Some(h) = hidden.as_known().filter(|h| h % num != 0) {
        let requires = format!("{op}'s hidden size must be a multiple of num_heads");
        return Err(Constraint::new(requires, format!("{h} vs {num} heads"), &[slot]).unmet());
    }
    Ok(())
}

pub(super) fn heads(ctx: &Ctx<'_>, attr: &str) -> Result<i64, RuleError> {
    let op = ctx.node().op_type().as_str();
    let n = ctx
        .attrs()
        .int(attr)?
        .ok_or_else(|| spec::missing_attr(op, attr))?;
    if n <= 0 {
        let requires = format!("{op}'s {attr} must be positive");
        return Err(Constraint::new(requires, format!("{attr} is {n}"), &[]).unmet());
    }
    Ok(n)
}

/// Dim `i` of `d`, unknown when absent.
fn at(d: Option<&[Dim]>, i: usize) -> Dim {
    d.and_then(|d| d.get(i).cloned()).unwrap_or(Dim::Unknown)
}

/// `MultiHeadAttention`'s output shape from the query's, key's and value's layouts.
fn mha_output(ctx: &Ctx<'_>, query: &Shape) -> Result<Shape, RuleError> {
    let q_dims = query.dims();
    let (k_dims, v_dims) = (dims(ctx, 1), dims(ctx, 2));
    let (batch, seq) = (at(q_dims, 0), at(q_dims, 1));
    Ok(
        match (
            q_dims.map(<[Dim]>::len),
            v_dims.map(<[Dim]>::len),
            k_dims.map(<[Dim]>::len),
        ) {
            (Some(5), _, _) => Shape::Ranked(vec![
                batch.clone(),
                seq.clone(),
                at(q_dims, 2).mul(&at(q_dims, 4)),
            ]),
            (Some(3), Some(3), _) => Shape::Ranked(vec![batch.clone(), seq.clone(), at(v_dims, 2)]),
            (Some(3), Some(4), _) => Shape::Ranked(vec![
                batch.clone(),
                seq.clone(),
                at(v_dims, 1).mul(&at(v_dims, 3)),
            ]),
            (Some(3), None, Some(5)) if ctx.input(2).is_none() => query.clone(),
            (Some(r), _, _) if r != 3 => {
                let requires = "MultiHeadAttention's query must be 3-D, or 5-D packed Q/K/V";
                return Err(Constraint::new(requires, format!("its rank is {r}"), &[0]).unmet());
            }
            _ => Shape::Unranked,
        },
    )
}

/// `MultiHeadAttention(query, key, value, bias, key_padding_mask, attention_bias, past_key,
/// past_value, past_sequence_length, cache_indirection)`. Output: packed QKV
/// `(B, S, N, 3, h)` gives `(B, S, N*h)`; a 3-D value `(B, L, H_v)` gives `(B, S, H_v)`; a 4-D
/// value `(B, N, L, h)` gives `(B, S, N*h)`; packed KV keeps query's shape. With 3-D key and
/// value, present key/value are `(B, N, P + L, H/N)` (no past: `P = 0`); a shared past/present
/// buffer (`past_sequence_length` given) leaves them unknown. The bias has `H + H + H_v`
/// entries; a 2-D key padding mask `(B, L)` without past, and `attention_bias`
/// `(B or 1, N or 1, S, T)`, broadcast onto the scores.
pub(crate) fn multi_head(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let q_dims = query.shape.dims();
    let (k_dims, v_dims) = (dims(ctx, 1), dims(ctx, 2));
    let (batch, seq) = (at(q_dims, 0), at(q_dims, 1));
    let output = mha_output(ctx, query.shape)?;
    let mut pending = Pending::default();
    let unpacked = matches!(
        (q_dims, k_dims, v_dims),
        (Some([_, _, _]), Some([_, _, _]), Some([_, _, _]))
    );
    let kv_len = if unpacked {
        at(k_dims, 1)
    } else {
        Dim::Unknown
    };
    let past_len = match dims(ctx, 6) {
        Some([_, _, p, _]) => p.clone(),
        Some(_) => {
            let requires =
                "MultiHeadAttention's past_key must be 4-D (batch, heads, past, head size)";
            require_rank(ctx.required(6)?.shape, 4, requires, 6)?;
            Dim::Unknown
        }
        None if ctx.input(6).is_some() => Dim::Unknown,
        None => Dim::known(0),
    };
    let shared = ctx.input(8).is_some();
    let total = if shared {
        Dim::Unknown
    } else {
        past_len.add(&kv_len)
    };
    let present = |hidden: Dim| {
        if unpacked && !shared {
            Shape::Ranked(vec![
                batch.clone(),
                Dim::known(num),
                total.clone(),
                hidden.div_exact(&Dim::known(num)),
            ])
        } else {
            Shape::Unranked
        }
    };
    let mut outputs = vec![
        Output::shape(output).elem(query.elem),
        Output::shape(present(at(k_dims, 2))).elem(query.elem),
        Output::shape(present(at(v_dims, 2))).elem(query.elem),
    ];
    if ctx.node().outputs().len() > 3 {
        outputs.push(Output::shape(Shape::Unranked));
    }
    let mut inferred = Inferred::many(outputs);
    if let (true, Some(bias)) = (unpacked, ctx.input(3)) {
        let want = at(q_dims, 2).add(&at(k_dims, 2)).add(&at(v_dims, 2));
        require_rank(bias.shape, 1, "MultiHeadAttention's bias must be 1-D", 3)?;
        let requires = "MultiHeadAttention's bias must have hidden + hidden + v_hidden entries";
        require_equal(
            &mut pending,
            &want,
            &at(bias.shape.dims(), 0),
            requires,
            &[0, 1, 2, 3],
        )?;
    }
    if let (true, Some(mask), Some(0)) = (unpacked, ctx.input(4), past_len.as_known()) {
        if mask.shape.rank() == Some(2) {
            let target = Shape::Ranked(vec![batch.clone(), kv_len.clone()]);
            let outcome = ctx.broadcasts().unidirectional(&target, mask.shape);
            inferred = inferred.with_check(Rule::Unidirectional, vec![0, 4], outcome);
        }
    }
    if let (true, Some(bias)) = (unpacked, ctx.input(5)) {
        let scores = Shape::Ranked(vec![batch, Dim::known(num), seq, total]);
        let outcome = ctx.broadcasts().unidirectional(&scores, bias.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 5], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, int_attr, output_shapes, run_microsoft as ms, unmet};

    #[test]
    fn mha_cross_attention_with_past_and_mask() {
        let r = ms(
            "MultiHeadAttention",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "l", "32"]),
                s(&["b", "l", "32"]),
                s(&["96"]),
                s(&["b", "l"]),
            ],
            vec![int_attr("num_heads", 4)],
            3,
        )
        .unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[b, s, 32]", "[b, 4, l, 8]", "[b, 4, l, 8]"]
        );
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        let past = ms(
            "MultiHeadAttention",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "s", "32"]),
                s(&["b", "s", "32"]),
                None,
                None,
                None,
                s(&["b", "4", "p", "8"]),
                s(&["b", "4", "p", "8"]),
            ],
            vec![int_attr("num_heads", 4)],
            3,
        )
        .unwrap();
        assert_eq!(output_shapes(&past)[1], "[b, 4, p+s, 8]");
        let bias = unmet(ms(
            "MultiHeadAttention",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "l", "32"]),
                s(&["b", "l", "32"]),
                s(&["64"]),
            ],
            vec![int_attr("num_heads", 4)],
            1,
        ));
        assert_eq!(bias.found, "96 vs 64");
    }

    #[test]
    fn mha_packed_qkv_multiplies_heads_by_head_size() {
        let r = ms(
            "MultiHeadAttention",
            &[s(&["b", "s", "4", "3", "8"])],
            vec![int_attr("num_heads", 4)],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r)[0], "[b, s, 32]");
    }
}
