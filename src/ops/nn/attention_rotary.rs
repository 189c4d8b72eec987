//! The shape requirements of ONNX `RotaryEmbedding-23` between X, the caches and the position
//! ids, as onnxruntime 1.31's kernel checks them (`onnx.shape_inference` 1.23 checks none): a
//! 3-D X's hidden size divisible by `num_heads`; `rotary_embedding_dim` at most the head size;
//! cos and sin caches of one shape, `(max_position + 1, rotary_dim / 2)` with `position_ids
//! (batch, seq)`, else `(batch, seq, rotary_dim / 2)`. A known violation is an E4, a symbolic
//! one a W4.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, RuleError};
use crate::shape::Dim;

const OP: &str = "RotaryEmbedding";

/// Checks X against `num_heads` and the caches and position ids against X.
pub(super) fn requirements(ctx: &Ctx<'_>, pending: &mut Pending) -> Result<(), RuleError> {
    let Some(x) = ctx.input(0).and_then(|x| x.shape.dims()) else {
        return Ok(());
    };
    let (batch, seq, head) = match x {
        [b, s, hidden] => {
            let Some(heads) = ctx.attrs().int("num_heads")?.filter(|&h| h > 0) else {
                return Ok(());
            };
            let n = Dim::known(heads);
            equal(
                pending,
                &hidden.modulo(&n),
                &Dim::known(0),
                &format!("{OP}'s 3-D X hidden size must be divisible by num_heads"),
                &format!("{hidden} % {heads}"),
                &[0],
            )?;
            (b, s, hidden.floor_div(&n))
        }
        [b, _, s, head] => (b, s, head.clone()),
        _ => return Ok(()),
    };
    let rotary = match ctx.attrs().int("rotary_embedding_dim")?.filter(|&r| r > 0) {
        None => head,
        Some(r) => {
            if let Some(h) = head.as_known().filter(|&h| r > h) {
                return Err(Constraint::new(
                    format!("{OP}'s rotary_embedding_dim must be at most the head size"),
                    format!("rotary_embedding_dim is {r}, the head size {h}"),
                    &[0],
                )
                .unmet());
            }
            Dim::known(r)
        }
    };
    let half = rotary.floor_div(&Dim::known(2));
    let (requires, wanted) = if ctx.input(3).is_some() {
        (
            format!("{OP}'s cos_cache and sin_cache must be (max_position_id + 1, rotary_embedding_dim / 2) with position_ids"),
            vec![None, Some(half)],
        )
    } else {
        (
            format!("{OP}'s cos_cache and sin_cache must be (batch, sequence_length, rotary_embedding_dim / 2) without position_ids"),
            vec![Some(batch.clone()), Some(seq.clone()), Some(half)],
        )
    };
    let mut caches = Vec::new();
    for slot in [1, 2] {
        let Some(shape) = ctx.input(slot).map(|c| c.shape) else {
            continue;
        };
        let Some(dims) = exact(shape, wanted.len(), &requires, slot)? else {
            continue;
        };
        for (axis, want) in wanted.iter().enumerate() {
            if let Some(want) = want {
                let found = dim_at(Some(dims), axis);
                equal(
                    pending,
                    &found,
                    want,
                    &requires,
                    &format!("dim {axis}"),
                    &[0, slot],
                )?;
            }
        }
        caches.push(dims);
    }
    if let [cos, sin] = caches.as_slice() {
        for (axis, (c, s)) in cos.iter().zip(sin.iter()).enumerate() {
            let requires = format!("{OP}'s cos_cache and sin_cache must have one shape");
            equal(
                pending,
                s,
                c,
                &requires,
                &format!("sin_cache's dim {axis}"),
                &[1, 2],
            )?;
        }
    }
    if let Some(positions) = ctx.input(3) {
        let requires = format!("{OP}'s position_ids must be (batch, sequence_length)");
        if let Some(p) = exact(positions.shape, 2, &requires, 3)? {
            equal(
                pending,
                &dim_at(Some(p), 1),
                seq,
                &requires,
                "dim 1",
                &[0, 3],
            )?;
        }
    }
    Ok(())
}
