//! The shape requirements of ONNX `Attention` (23 on) between its inputs, as onnxruntime's
//! kernel checks them (`core/providers/cpu/llm/attention_helper.h`, 1.31): Q, K and V of one rank;
//! a packed (3-D) hidden size divisible by its head count; one batch; K and V with one sequence
//! length and head count; Q's head count a multiple of K/V's (grouped-query attention); Q's head
//! size equal to K's; past key and value `(batch, kv heads, past, head size)` of K and V, with one
//! past length; from Attention-24, `nonpad_kv_seqlen` of shape `(batch,)` and never beside a
//! past. `onnx.shape_inference` (1.23) checks none of these: onnxruntime rejects each at
//! run time, so a known violation is an E4 and a symbolic one a W4.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::equal;
use crate::ops::{Ctx, RuleError};
use crate::shape::{Dim, Shape};

/// One of Q, K, V as `(batch, heads, seq, head_size)`.
pub(super) struct Side<'a> {
    pub(super) batch: &'a Dim,
    pub(super) heads: &'a Dim,
    pub(super) seq: &'a Dim,
    pub(super) head_size: &'a Dim,
}

/// Q, K and V must all be 3-D or all 4-D ("Q and K must have the same rank").
pub(super) fn same_rank(ctx: &Ctx<'_>) -> Result<(), RuleError> {
    let ranks: Vec<(usize, usize)> = (0..3)
        .filter_map(|slot| Some((slot, ctx.input(slot)?.shape.dims()?.len())))
        .collect();
    let Some(&(first, rank)) = ranks.first() else {
        return Ok(());
    };
    match ranks.iter().find(|&&(_, r)| r != rank) {
        None => Ok(()),
        Some(&(slot, other)) => Err(Constraint::new(
            "Attention's Q, K and V must all be 3-D or all 4-D",
            format!(
                "{} has rank {rank}, {} rank {other}",
                name(first),
                name(slot)
            ),
            &[first, slot],
        )
        .unmet()),
    }
}

fn name(slot: usize) -> &'static str {
    match slot {
        0 => "Q",
        1 => "K",
        2 => "V",
        4 => "past_key",
        5 => "past_value",
        _ => "nonpad_kv_seqlen",
    }
}

/// A 3-D input's hidden size must be a multiple of its head count (`heads`, already known
/// positive).
pub(super) fn packed_divides(
    pending: &mut Pending,
    shape: &Shape,
    heads: Option<i64>,
    slot: usize,
) -> Result<(), RuleError> {
    let (Some([_, _, hidden]), Some(heads)) = (shape.dims(), heads) else {
        return Ok(());
    };
    let attr = if slot == 0 {
        "q_num_heads"
    } else {
        "kv_num_heads"
    };
    let who = name(slot);
    equal(
        pending,
        &hidden.modulo(&Dim::known(heads)),
        &Dim::known(0),
        &format!("Attention's 3-D {who} hidden size must be a multiple of `{attr}`"),
        &format!("{who}'s hidden size {hidden} % {heads}"),
        &[slot],
    )
}

/// The agreements between Q, K and V.
pub(super) fn agree(
    pending: &mut Pending,
    q: &Side<'_>,
    k: &Side<'_>,
    v: &Side<'_>,
) -> Result<(), RuleError> {
    let batch = "Attention's Q, K and V must have one batch size";
    equal(pending, k.batch, q.batch, batch, "K's batch", &[0, 1])?;
    equal(pending, v.batch, q.batch, batch, "V's batch", &[0, 2])?;
    let seq = "Attention's K and V must have one sequence length";
    equal(pending, v.seq, k.seq, seq, "V's sequence length", &[1, 2])?;
    let heads = "Attention's K and V must have one head count (kv_num_heads)";
    equal(pending, v.heads, k.heads, heads, "V's head count", &[1, 2])?;
    let head = "Attention's Q and K must have one head size";
    equal(
        pending,
        k.head_size,
        q.head_size,
        head,
        "K's head size",
        &[0, 1],
    )?;
    equal(
        pending,
        &q.heads.modulo(k.heads),
        &Dim::known(0),
        "Attention's Q head count must be a multiple of K and V's (q_num_heads % kv_num_heads == 0)",
        &format!("{} % {}", q.heads, k.heads),
        &[0, 1],
    )
}

/// `past_key` and `past_value` (slots 4 and 5) are `(batch, kv heads, past, head size)` of K and
/// of V, with one past length.
pub(super) fn past(
    ctx: &Ctx<'_>,
    pending: &mut Pending,
    key: &Side<'_>,
    value: &Side<'_>,
) -> Result<(), RuleError> {
    let mut lengths = Vec::new();
    for (slot, of) in [(4, key), (5, value)] {
        let Some(dims) = ctx.input(slot).and_then(|p| p.shape.dims()) else {
            continue;
        };
        let who = name(slot);
        let requires = format!(
            "Attention's {who} must be (batch, kv_num_heads, past_sequence_length, head_size) of {}",
            if slot == 4 { "K" } else { "V" }
        );
        if dims.len() != 4 {
            return Err(Constraint::new(
                requires,
                format!("{who} has rank {}", dims.len()),
                &[slot],
            )
            .unmet());
        }
        let [batch, heads, _, head] = [0, 1, 2, 3].map(|axis| dim_at(Some(dims), axis));
        let peer = slot - 3;
        equal(
            pending,
            &batch,
            of.batch,
            &requires,
            "its batch",
            &[peer, slot],
        )?;
        equal(
            pending,
            &heads,
            of.heads,
            &requires,
            "its head count",
            &[peer, slot],
        )?;
        equal(
            pending,
            &head,
            of.head_size,
            &requires,
            "its head size",
            &[peer, slot],
        )?;
        lengths.push(dim_at(Some(dims), 2));
    }
    if let [key_length, value_length] = lengths.as_slice() {
        equal(
            pending,
            value_length,
            key_length,
            "Attention's past_key and past_value must have one past sequence length",
            "past_value's length",
            &[4, 5],
        )?;
    }
    Ok(())
}

/// `nonpad_kv_seqlen` (slot 6, Attention-24 on) is "a vector of integers of shape
/// `(batch_size,)`" and "should not be used together with `past_key` and `past_value`" (the
/// doc). onnxruntime 1.31 rejects both at run time (`attention_helper.h`: "`nonpad_kv_seqlen`
/// must have shape `[batch_size]`", "should not be used together with `past_key` and
/// `past_value` inputs"); `onnx.shape_inference` checks neither.
pub(super) fn nonpad(ctx: &Ctx<'_>, pending: &mut Pending, batch: &Dim) -> Result<(), RuleError> {
    let Some(lengths) = ctx.input(6) else {
        return Ok(());
    };
    if let Some(slot) = [4, 5].into_iter().find(|&slot| ctx.input(slot).is_some()) {
        return Err(Constraint::new(
            "Attention's nonpad_kv_seqlen cannot be given with past_key and past_value",
            format!("both nonpad_kv_seqlen and {} are given", name(slot)),
            &[slot, 6],
        )
        .fix("drop past_key and past_value, or nonpad_kv_seqlen")
        .unmet());
    }
    let requires = "Attention's nonpad_kv_seqlen must have shape (batch_size,)";
    match lengths.shape.dims() {
        None => Ok(()),
        Some([length]) => equal(
            pending,
            length,
            batch,
            requires,
            "nonpad_kv_seqlen's length",
            &[0, 6],
        ),
        Some(dims) => Err(Constraint::new(
            requires,
            format!("nonpad_kv_seqlen has rank {}", dims.len()),
            &[6],
        )
        .unmet()),
    }
}
