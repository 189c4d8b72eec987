//! `Attention` and `QAttention` (com.microsoft): one input projected by merged Q/K/V weights,
//! optionally with a past state (ContribOperators.md; the checks follow onnxruntime's
//! `AttentionBase::CheckInputs`, observed on its CPU kernel).
//!
//! input is `(B, S, H_in)`, weights `(H_in, H + H + H_v)` (sizes from `qkv_hidden_sizes`, else
//! three equal thirds), bias `(H + H + H_v)`; output is `(B, S, H_v)`; past and present are
//! `(2, B, N, P, H/N)` and `(2, B, N, P + S, H/N)` (one buffer of past's shape with
//! `past_present_share_buffer`). The raw mask is added to the `(B, [S,] T)` scores with
//! `T = P + S`: recorded as a unidirectional broadcast onto that shape (onnxruntime also accepts
//! a `(B, 1)` mask, which that rule allows); a 1-D mask index has `B`, `2B` or `3B + 2` entries.
//! `attention_bias` is added to the `(B, N, S, T)` scores.

use super::super::constraint::{Constraint, Pending};
use super::super::{spec, Ctx, Inferred, Output, RuleError};
use super::activation::{require_equal, require_rank};
use super::heads::divisible;
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// Input slots of the two ops.
struct Slots {
    input: usize,
    weights: usize,
    bias: usize,
    mask: usize,
    past: usize,
    attention_bias: Option<usize>,
    /// The input whose element type the outputs take: the input's, or `QAttention`'s
    /// `input_scale` (its outputs are float).
    out_elem: usize,
}

/// `Attention(input, weights, bias, mask_index, past, attention_bias, past_sequence_length)`.
pub(crate) fn attention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let slots = Slots {
        input: 0,
        weights: 1,
        bias: 2,
        mask: 3,
        past: 4,
        attention_bias: Some(5),
        out_elem: 0,
    };
    infer(ctx, &slots)
}

/// `QAttention(input, weight, bias, input_scale, weight_scale, mask_index, input_zero_point,
/// weight_zero_point, past)`: `Attention` on quantized operands, float output.
pub(crate) fn qattention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(2)?;
    let slots = Slots {
        input: 0,
        weights: 1,
        bias: 2,
        mask: 5,
        past: 8,
        attention_bias: None,
        out_elem: 3,
    };
    infer(ctx, &slots)
}

fn dim(shape: &Shape, axis: usize) -> Dim {
    shape
        .dims()
        .and_then(|d| d.get(axis).cloned())
        .unwrap_or(Dim::Unknown)
}

fn infer(ctx: &Ctx<'_>, s: &Slots) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let input = ctx.required(s.input)?;
    let weights = ctx.required(s.weights)?;
    let heads = ctx
        .attrs()
        .int("num_heads")?
        .ok_or_else(|| spec::missing_attr(op, "num_heads"))?;
    if heads <= 0 {
        let found = format!("num_heads is {heads}");
        return Err(
            Constraint::new(format!("{op}'s num_heads must be positive"), found, &[]).unmet(),
        );
    }
    require_rank(
        input.shape,
        3,
        &format!("{op}'s input must be 3-D (batch, sequence, hidden)"),
        s.input,
    )?;
    require_rank(
        weights.shape,
        2,
        &format!("{op}'s weights must be 2-D"),
        s.weights,
    )?;
    let (batch, seq) = (dim(input.shape, 0), dim(input.shape, 1));
    let mut pending = Pending::default();
    let (hidden, v_hidden) = projection(ctx, s, &mut pending)?;
    divisible(op, &hidden, heads, s.weights)?;
    let head_size = hidden.div_exact(&Dim::known(heads));
    let share = ctx.int("past_present_share_buffer", 0)? != 0;
    let past = ctx.input(s.past);
    let past_len = match past {
        Some(p) => {
            require_rank(
                p.shape,
                5,
                &format!("{op}'s past must be 5-D (2, batch, heads, past, head size)"),
                s.past,
            )?;
            dim(p.shape, 3)
        }
        None => Dim::known(0),
    };
    // With a shared buffer the past axis is the maximum length, not the past one.
    let total_seq = if share {
        Dim::Unknown
    } else {
        past_len.add(&seq)
    };
    let present = match past {
        Some(p) if share => p.shape.clone(),
        _ => Shape::Ranked(vec![
            Dim::known(2),
            batch.clone(),
            Dim::known(heads),
            total_seq.clone(),
            head_size,
        ]),
    };
    let output = Shape::Ranked(vec![batch.clone(), seq.clone(), v_hidden]);
    let elem = if s.out_elem == s.input {
        input.elem
    } else {
        ctx.input(s.out_elem).and_then(|scale| scale.elem)
    };
    let mut inferred = Inferred::many(vec![
        Output::shape(output).elem(elem),
        Output::shape(present).elem(elem),
    ]);
    if let Some(mask) = ctx.input(s.mask) {
        inferred = check_mask(
            ctx,
            inferred,
            mask.shape,
            &batch,
            &seq,
            &total_seq,
            [s.input, s.mask],
        )?;
    }
    if let Some(slot) = s.attention_bias {
        if let Some(bias) = ctx.input(slot) {
            let scores = Shape::Ranked(vec![batch, Dim::known(heads), seq, total_seq]);
            let outcome = ctx.broadcasts().unidirectional(&scores, bias.shape);
            inferred = inferred.with_check(Rule::Unidirectional, vec![s.input, slot], outcome);
        }
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

/// The projection's sizes `(H, H_v)`, checking that the weights have the input's hidden size as
/// rows and `H + H + H_v` columns, and the bias one entry per column.
fn projection(ctx: &Ctx<'_>, s: &Slots, pending: &mut Pending) -> Result<(Dim, Dim), RuleError> {
    let op = ctx.node().op_type().as_str();
    let input = ctx.required(s.input)?;
    let weights = ctx.required(s.weights)?;
    let width = dim(weights.shape, 1);
    require_equal(
        pending,
        &dim(input.shape, 2),
        &dim(weights.shape, 0),
        &format!("{op}'s weights must have the input's hidden size as rows"),
        &[s.input, s.weights],
    )?;
    let (hidden, v_hidden) = hidden_sizes(ctx, op, &width, s.weights)?;
    let total = hidden.add(&hidden).add(&v_hidden);
    require_equal(
        pending,
        &width,
        &total,
        &format!("{op}'s weights must have hidden + hidden + v_hidden columns"),
        &[s.weights],
    )?;
    if let Some(bias) = ctx.input(s.bias) {
        require_rank(bias.shape, 1, &format!("{op}'s bias must be 1-D"), s.bias)?;
        require_equal(
            pending,
            &width,
            &dim(bias.shape, 0),
            &format!("{op}'s bias must have one entry per column of the weights"),
            &[s.weights, s.bias],
        )?;
    }
    Ok((hidden, v_hidden))
}

/// `(H, H_v)`: from `qkv_hidden_sizes` (Q's size equal to K's), else a third of the weights'
/// columns each, which must divide by 3.
fn hidden_sizes(
    ctx: &Ctx<'_>,
    op: &str,
    width: &Dim,
    slot: usize,
) -> Result<(Dim, Dim), RuleError> {
    Ok(match ctx.attrs().ints("qkv_hidden_sizes")? {
        Some(&[q, k, v]) if q == k => (Dim::known(q), Dim::known(v)),
        Some(sizes) => {
            let found = format!("qkv_hidden_sizes is {sizes:?}");
            let requires = format!("{op}'s qkv_hidden_sizes must be three sizes, Q's equal to K's");
            return Err(Constraint::new(requires, found, &[]).unmet());
        }
        None => {
            if let Some(w) = width.as_known().filter(|w| w % 3 != 0) {
                let requires =
                    format!("{op}'s weights must have 3 equal parts (Q, K, V) as columns");
                return Err(Constraint::new(requires, format!("{w} columns"), &[slot]).unmet());
            }
            let third = width.div_exact(&Dim::known(3));
            (third.clone(), third)
        }
    })
}

/// The mask against the scores it is added to: `(B, T)` or `(B, S, T)` as a unidirectional
/// broadcast; a 1-D index of `B`, `2B` or `3B + 2` entries (static sizes only: the choice of
/// three is no single condition); a 4-D mask is left to the run.
fn check_mask(
    ctx: &Ctx<'_>,
    inferred: Inferred,
    mask: &Shape,
    batch: &Dim,
    seq: &Dim,
    total: &Dim,
    slots: [usize; 2],
) -> Result<Inferred, RuleError> {
    let target = match mask.dims() {
        Some([n]) => {
            if let (Some(n), Some(b)) = (n.as_known(), batch.as_known()) {
                if n != b && n != 2 * b && n != 3 * b + 2 {
                    let requires = "a 1-D attention mask index must have batch, 2 * batch or 3 * batch + 2 entries";
                    let found = format!("{n} entries, batch {b}");
                    return Err(Constraint::new(requires, found, &slots).unmet());
                }
            }
            return Ok(inferred);
        }
        Some([_, _]) => vec![batch.clone(), total.clone()],
        Some([_, _, _]) => vec![batch.clone(), seq.clone(), total.clone()],
        _ => return Ok(inferred),
    };
    let outcome = ctx
        .broadcasts()
        .unidirectional(&Shape::Ranked(target), mask);
    Ok(inferred.with_check(Rule::Unidirectional, slots.to_vec(), outcome))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{
        conditions, dims as s, int_attr, output_shapes, run_in, unmet, Fact,
    };
    use crate::ops::{Inferred, RuleError};

    fn attention(inputs: &[Option<Fact>]) -> Result<Inferred, RuleError> {
        run_in(
            "com.microsoft",
            "Attention",
            1,
            inputs,
            vec![int_attr("num_heads", 4)],
            2,
        )
    }

    #[test]
    fn bert_attention_with_a_mask_index() {
        let r = attention(&[
            s(&["b", "s", "32"]),
            s(&["32", "96"]),
            s(&["96"]),
            s(&["b"]),
        ])
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 32]", "[2, b, 4, s, 8]"]);
        assert!(r.checks.is_empty());
    }

    #[test]
    fn gpt2_attention_with_past_grows_the_present() {
        let past = s(&["2", "b", "4", "p", "8"]);
        let r = attention(&[
            s(&["b", "s", "32"]),
            s(&["32", "96"]),
            s(&["96"]),
            None,
            past,
        ])
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 32]", "[2, b, 4, p+s, 8]"]);
    }

    #[test]
    fn raw_masks_broadcast_onto_the_scores() {
        let x = || s(&["b", "s", "32"]);
        let ok = attention(&[x(), s(&["32", "96"]), s(&["96"]), s(&["b", "s"])]).unwrap();
        assert!(ok.checks.iter().all(|c| c.outcome.is_valid()));
        let one = attention(&[x(), s(&["32", "96"]), s(&["96"]), s(&["b", "1"])]).unwrap();
        assert!(one.checks.iter().all(|c| c.outcome.is_valid()));
        let bad = attention(&[
            s(&["2", "5", "32"]),
            s(&["32", "96"]),
            s(&["96"]),
            s(&["2", "6"]),
        ])
        .unwrap();
        assert_eq!(
            bad.checks[0].outcome.violation().unwrap().to_string(),
            "axis 1 is 5 vs 6"
        );
        let index = unmet(attention(&[
            s(&["2", "5", "32"]),
            s(&["32", "96"]),
            None,
            s(&["3"]),
        ]));
        assert_eq!(index.found, "3 entries, batch 2");
    }

    #[test]
    fn weights_must_match_input_and_bias() {
        let k = unmet(attention(&[
            s(&["b", "s", "32"]),
            s(&["16", "96"]),
            s(&["96"]),
        ]));
        assert_eq!(k.found, "32 vs 16");
        let bias = unmet(attention(&[
            s(&["b", "s", "32"]),
            s(&["32", "96"]),
            s(&["64"]),
        ]));
        assert_eq!(bias.found, "96 vs 64");
        let sym = attention(&[s(&["b", "s", "h"]), s(&["32", "96"]), s(&["96"])]).unwrap();
        assert_eq!(conditions(&sym), ["h = 32"]);
        assert!(attention(&[s(&["b", "s", "32"]), s(&["32", "95"])]).is_err());
    }

    #[test]
    fn qattention_reads_its_own_slots() {
        let r = run_in(
            "com.microsoft",
            "QAttention",
            1,
            &[
                s(&["b", "s", "32"]),
                s(&["32", "96"]),
                s(&["96"]),
                s(&[]),
                s(&[]),
                s(&["b", "s"]),
            ],
            vec![int_attr("num_heads", 4)],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r)[0], "[b, s, 32]");
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
    }
}
