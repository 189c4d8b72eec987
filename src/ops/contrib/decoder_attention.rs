//! The one-token decoder attention ops (com.microsoft `DecoderMaskedMultiHeadAttention`,
//! `DecoderAttention`): output shapes as in onnxruntime's `MultiHeadAttentionTypeAndShapeInference`
//! (called with `past_key` at slot 5) and `DecoderAttentionTypeAndShapeInference`
//! (`bert_defs.cc`). `DecoderMaskedMultiHeadAttention` has a CPU kernel in onnxruntime 1.31
//! and is checked against it (`tools/contrib_rules_check.py`); `DecoderAttention` runs on CUDA
//! only and follows the inference function and the schema doc.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

use super::heads::{dims, divisible, heads};

/// `DecoderMaskedMultiHeadAttention(query, key, value, mask_index, attention_bias, past_key,
/// past_value, past_sequence_length, beam_width, cache_indirection, bias)`. Output
/// `(B, S, H_v)`: `H_v` is a 3-D value's last dim, or heads × head size of a 4-D (cross
/// attention) value; packed QKV `(B, S, N, 3, h)` gives `N*h`; a packed 3-D query without key
/// and value leaves `H_v` unknown (its split is the kernel's). Present key/value are the past's
/// shape with a shared buffer (`past_present_share_buffer`), else the past's with
/// `P + L` on axis 2 for a 3-D value `(B, L, H_v)`; `qk` is `(B, N, S, T)`.
pub(crate) fn decoder_masked_mha(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let qd = query.shape.dims();
    let (kd, vd) = (dims(ctx, 1), dims(ctx, 2));
    let (batch, seq) = (dim_at(qd, 0), dim_at(qd, 1));
    let hidden = match (qd.map(<[Dim]>::len), vd.map(<[Dim]>::len)) {
        (Some(5), _) => dim_at(qd, 2).mul(&dim_at(qd, 4)),
        (Some(3), Some(3)) => dim_at(vd, 2),
        (Some(3), Some(4)) => dim_at(vd, 1).mul(&dim_at(vd, 3)),
        (Some(3) | None, _) => Dim::Unknown,
        (Some(r), _) => {
            let requires = format!("{op}'s query must be 3-D, or 5-D packed Q/K/V");
            return Err(Constraint::new(requires, format!("its rank is {r}"), &[0]).unmet());
        }
    };
    let mut pending = Pending::default();
    if let Some([_, s, _]) = qd {
        // "Input sequence length should be 1 to use DecoderMaskedMultiHeadAttention".
        let requires = format!("{op}'s query must have sequence length 1");
        equal(
            &mut pending,
            s,
            &Dim::known(1),
            &requires,
            "query's dim 1",
            &[0],
        )?;
    }
    let head = match (qd, kd) {
        (Some([_, _, hidden]), Some([_, _, _])) => {
            divisible(op, hidden, num, 0)?;
            hidden.div_exact(&Dim::known(num))
        }
        _ => Dim::Unknown,
    };
    let share = ctx.int("past_present_share_buffer", 0)? != 0;
    let past = match ctx.input(5) {
        Some(p) => {
            let requires = format!(
                "{op}'s past_key must be 4-D (batch, heads, past or max length, head size)"
            );
            exact(p.shape, 4, &requires, 5)?
        }
        None => None,
    };
    check_pasts(ctx, op, num, &head, &mut pending)?;
    // The length attended to: the past plus this step's keys (self attention), or a 4-D key's
    // length (cross attention); a shared buffer's filled length is a run-time value.
    let total = match (kd, past) {
        (Some([_, kv, _]), Some(p)) if !share => dim_at(Some(p), 2).add(kv),
        (Some([_, kv, _]), None) | (Some([_, _, kv, _]), _) => kv.clone(),
        _ => Dim::Unknown,
    };
    let present = match (past, vd) {
        (Some(_), _) if share => ctx.input(5).map_or(Shape::Unranked, |p| p.shape.clone()),
        (Some([b, n, _, h]), Some([_, _, _])) => {
            Shape::Ranked(vec![b.clone(), n.clone(), total.clone(), h.clone()])
        }
        _ => Shape::Unranked,
    };
    if let (Some([_, _, _]), Some([_, _, _]), Some(bias)) = (qd, kd, ctx.input(10)) {
        let bias = exact(bias.shape, 1, &format!("{op}'s bias must be 1-D"), 10)?;
        let want = dim_at(qd, 2).add(&dim_at(kd, 2)).add(&dim_at(vd, 2));
        let requires = format!("{op}'s bias must have hidden + hidden + v_hidden entries");
        equal(
            &mut pending,
            &dim_at(bias, 0),
            &want,
            &requires,
            "its length",
            &[0, 1, 2, 10],
        )?;
    }
    let scores = Shape::Ranked(vec![batch.clone(), Dim::known(num), seq.clone(), total]);
    let mut inferred = Inferred::many(vec![
        Output::shape(Shape::Ranked(vec![batch, seq, hidden])).elem(query.elem),
        Output::shape(present.clone()).elem(query.elem),
        Output::shape(present).elem(query.elem),
        Output::shape(scores.clone()),
    ]);
    if let Some(bias) = ctx.input(4) {
        let outcome = ctx.broadcasts().unidirectional(&scores, bias.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 4], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

/// The kernel reads both pasts as `(B, N, length, h)`, V's head size equal to Q's: it
/// rejects a past value of another head size at run time.
fn check_pasts(
    ctx: &Ctx<'_>,
    op: &str,
    num: i64,
    head: &Dim,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    for (slot, name) in [(5, "past_key"), (6, "past_value")] {
        let Some([_, n, _, h]) = dims(ctx, slot) else {
            continue;
        };
        let requires = format!("{op}'s {name} must have num_heads heads of the query's head size");
        equal(
            pending,
            n,
            &Dim::known(num),
            &requires,
            &format!("{name}'s dim 1"),
            &[slot],
        )?;
        if *head != Dim::Unknown {
            let what = format!("{name}'s dim 3");
            equal(pending, h, head, &requires, &what, &[0, slot])?;
        }
    }
    Ok(())
}

/// `DecoderAttention(query, key, q_weight, kv_weight, bias, key_padding_mask, key_cache,
/// value_cache, static_kv, use_past, has_layer_state, has_key_padding_mask)`: query
/// `(S, B, H)` and key `(T, B, H)` (sequence first), `q_weight` `(H, H)`, `kv_weight`
/// `(H, 2H)`, bias `(3H)`. Output has query's shape; the new caches keep the old ones' batch,
/// heads and head size, and a length that depends on `use_past` and `static_kv` (run-time
/// values): unknown, as onnxruntime's inference leaves it.
pub(crate) fn decoder_attention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let qd = exact(query.shape, 3, &format!("{op}'s query must be 3-D"), 0)?;
    let key = ctx.required(1)?;
    let kd = exact(key.shape, 3, &format!("{op}'s key must be 3-D"), 1)?;
    let hidden = dim_at(qd, 2);
    divisible(op, &hidden, num, 0)?;
    let mut pending = Pending::default();
    let requires = format!("{op}'s key must have the query's batch and hidden sizes");
    equal(
        &mut pending,
        &dim_at(kd, 1),
        &dim_at(qd, 1),
        &requires,
        "key's dim 1",
        &[0, 1],
    )?;
    equal(
        &mut pending,
        &dim_at(kd, 2),
        &hidden,
        &requires,
        "key's dim 2",
        &[0, 1],
    )?;
    let two = hidden.mul(&Dim::known(2));
    let three = hidden.mul(&Dim::known(3));
    for (slot, name, rows, cols) in [
        (2, "q_weight", &hidden, &hidden),
        (3, "kv_weight", &hidden, &two),
    ] {
        let Some(wd) = ctx.input(slot) else { continue };
        let wd = exact(wd.shape, 2, &format!("{op}'s {name} must be 2-D"), slot)?;
        let requires = format!(
            "{op}'s {name} must be (hidden, {})",
            if slot == 2 { "hidden" } else { "2 * hidden" }
        );
        equal(
            &mut pending,
            &dim_at(wd, 0),
            rows,
            &requires,
            "dim 0",
            &[0, slot],
        )?;
        equal(
            &mut pending,
            &dim_at(wd, 1),
            cols,
            &requires,
            "dim 1",
            &[0, slot],
        )?;
    }
    if let Some(bias) = ctx.input(4) {
        let b = exact(bias.shape, 1, &format!("{op}'s bias must be 1-D"), 4)?;
        let requires = format!("{op}'s bias must have 3 * hidden entries");
        equal(
            &mut pending,
            &dim_at(b, 0),
            &three,
            &requires,
            "its length",
            &[0, 4],
        )?;
    }
    let cache = match ctx.input(6) {
        Some(c) => {
            let requires = format!("{op}'s key and value caches must be 4-D");
            match exact(c.shape, 4, &requires, 6)? {
                Some([b, n, _, h]) => {
                    Shape::Ranked(vec![b.clone(), n.clone(), Dim::Unknown, h.clone()])
                }
                _ => Shape::Unranked,
            }
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::many(vec![
        Output::shape(query.shape.clone()).elem(query.elem),
        Output::shape(cache.clone()).elem(query.elem),
        Output::shape(cache).elem(query.elem),
    ])
    .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims as s, int_attr, output_shapes, run_microsoft as ms};

    #[test]
    fn dmmha_self_attention_grows_the_past_by_one() {
        let r = ms(
            "DecoderMaskedMultiHeadAttention",
            &[
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                None,
                None,
                s(&["b", "4", "p", "8"]),
                s(&["b", "4", "p", "8"]),
            ],
            vec![int_attr("num_heads", 4)],
            4,
        )
        .unwrap();
        assert_eq!(
            output_shapes(&r),
            [
                "[b, 1, 32]",
                "[b, 4, p+1, 8]",
                "[b, 4, p+1, 8]",
                "[b, 4, 1, p+1]"
            ]
        );
    }

    #[test]
    fn dmmha_shared_buffer_and_cross_attention() {
        let shared = ms(
            "DecoderMaskedMultiHeadAttention",
            &[
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                None,
                None,
                s(&["b", "4", "m", "8"]),
                s(&["b", "4", "m", "8"]),
            ],
            vec![
                int_attr("num_heads", 4),
                int_attr("past_present_share_buffer", 1),
            ],
            3,
        )
        .unwrap();
        assert_eq!(output_shapes(&shared)[1], "[b, 4, m, 8]");
        let cross = ms(
            "DecoderMaskedMultiHeadAttention",
            &[
                s(&["b", "1", "32"]),
                s(&["b", "4", "l", "8"]),
                s(&["b", "4", "l", "8"]),
            ],
            vec![int_attr("num_heads", 4)],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&cross)[0], "[b, 1, 32]");
        assert_eq!(output_shapes(&cross)[3], "[b, 4, 1, l]");
    }

    #[test]
    fn dmmha_checks_heads_bias_and_ranks() {
        let qkv = || {
            [
                s(&["b", "1", "30"]),
                s(&["b", "1", "30"]),
                s(&["b", "1", "30"]),
            ]
        };
        let attrs = || vec![int_attr("num_heads", 4)];
        assert!(unmet(&ms(
            "DecoderMaskedMultiHeadAttention",
            &qkv(),
            attrs(),
            1
        )));
        let mut inputs = vec![
            s(&["b", "1", "32"]),
            s(&["b", "1", "32"]),
            s(&["b", "1", "32"]),
        ];
        inputs.extend([None, None, None, None, None, None, None, s(&["95"])]);
        assert!(unmet(&ms(
            "DecoderMaskedMultiHeadAttention",
            &inputs,
            attrs(),
            1
        )));
        assert!(unmet(&ms(
            "DecoderMaskedMultiHeadAttention",
            &[s(&["b", "32"])],
            attrs(),
            1
        )));
        let two = ms(
            "DecoderMaskedMultiHeadAttention",
            &[
                s(&["b", "2", "32"]),
                s(&["b", "2", "32"]),
                s(&["b", "2", "32"]),
            ],
            attrs(),
            1,
        );
        assert!(unmet(&two));
        let head = ms(
            "DecoderMaskedMultiHeadAttention",
            &[
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                None,
                None,
                s(&["b", "4", "p", "8"]),
                s(&["b", "4", "p", "4"]),
            ],
            attrs(),
            3,
        );
        assert!(unmet(&head));
        let past = ms(
            "DecoderMaskedMultiHeadAttention",
            &[
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                s(&["b", "1", "32"]),
                None,
                None,
                s(&["b", "4", "8"]),
            ],
            attrs(),
            3,
        );
        assert!(unmet(&past));
    }

    #[test]
    fn decoder_attention_keeps_query_shape_and_checks_weights() {
        let inputs = |kv: &str| {
            vec![
                s(&["s", "b", "32"]),
                s(&["t", "b", "32"]),
                s(&["32", "32"]),
                s(&["32", kv]),
                s(&["96"]),
                None,
                s(&["b", "4", "t", "8"]),
                s(&["b", "4", "t", "8"]),
            ]
        };
        let r = ms(
            "DecoderAttention",
            &inputs("64"),
            vec![int_attr("num_heads", 4)],
            3,
        );
        assert_eq!(
            output_shapes(&r.unwrap()),
            ["[s, b, 32]", "[b, 4, ?, 8]", "[b, 4, ?, 8]"]
        );
        assert!(unmet(&ms(
            "DecoderAttention",
            &inputs("32"),
            vec![int_attr("num_heads", 4)],
            1
        )));
        let sym = ms(
            "DecoderAttention",
            &[s(&["s", "b", "32"]), s(&["t", "c", "32"])],
            vec![int_attr("num_heads", 4)],
            1,
        );
        assert_eq!(conditions(&sym), ["c = b"]);
    }
}
