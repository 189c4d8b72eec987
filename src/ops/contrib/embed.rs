//! `EmbedLayerNormalization` and `QEmbedLayerNormalization` (com.microsoft): word, position and
//! segment embeddings looked up, summed and normalized, as BERT's first layer after
//! `optimize_model` (ContribOperators.md).

use super::super::constraint::Pending;
use super::super::{Ctx, Inferred, Output, RuleError};
use super::activation::{require_equal, require_rank};
use crate::model::dtype::elem;
use crate::shape::{Dim, Shape};

/// Which embedding layer a row names: the quantized one types its output by a scale.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Embedding {
    /// `EmbedLayerNormalization`.
    Float,
    /// `QEmbedLayerNormalization`.
    Quantized,
}

/// `EmbedLayerNormalization(input_ids, segment_ids, word_embedding, position_embedding,
/// segment_embedding, gamma, beta, mask, position_ids)`: output and `embedding_sum` are
/// `(batch, seq, hidden)` with hidden from the word embedding, `mask_index` is `(batch)`
/// int32. `QEmbedLayerNormalization` has the same first eight inputs (quantized embeddings,
/// gamma and beta), then their scales (the word embedding's at slot 8, which types the output)
/// and zero points, and no `embedding_sum`. `input_ids` is 2-D; `segment_ids` and `mask` have its shape; every embedding and gamma/beta
/// have the word embedding's hidden size (constraints the kernel checks).
pub(crate) fn embed(ctx: &Ctx<'_>, form: Embedding) -> Result<Inferred, RuleError> {
    let ids = ctx.required(0)?;
    let word = ctx.required(2)?;
    ctx.required(3)?;
    ctx.required(5)?;
    ctx.required(6)?;
    require_rank(
        ids.shape,
        2,
        "EmbedLayerNormalization's input_ids must be 2-D (batch, seq)",
        0,
    )?;
    require_rank(
        word.shape,
        2,
        "EmbedLayerNormalization's word_embedding must be 2-D",
        2,
    )?;
    let hidden = word
        .shape
        .dims()
        .map_or(Dim::Unknown, |d| d.get(1).cloned().unwrap_or(Dim::Unknown));
    let ids_dims = ids.shape.dims().unwrap_or_default();
    let mut pending = Pending::default();
    for (slot, what) in [(1, "segment_ids"), (7, "mask")] {
        let Some(input) = ctx.input(slot) else {
            continue;
        };
        let Some(dims) = input.shape.dims() else {
            continue;
        };
        if dims.len() != ids_dims.len() && !ids_dims.is_empty() {
            let requires = format!("EmbedLayerNormalization's {what} must have input_ids's shape");
            require_rank(input.shape, ids_dims.len(), &requires, slot)?;
        }
        for (a, b) in ids_dims.iter().zip(dims) {
            let requires = format!("EmbedLayerNormalization's {what} must have input_ids's shape");
            require_equal(&mut pending, a, b, &requires, &[0, slot])?;
        }
    }
    for (slot, axis, what) in [
        (3, 1, "position_embedding's hidden size"),
        (4, 1, "segment_embedding's hidden size"),
        (5, 0, "gamma's length"),
        (6, 0, "beta's length"),
    ] {
        let Some(dims) = ctx.input(slot).and_then(|i| i.shape.dims()) else {
            continue;
        };
        let Some(d) = dims.get(axis) else { continue };
        let requires =
            format!("EmbedLayerNormalization's {what} must be the word embedding's hidden size");
        require_equal(&mut pending, &hidden, d, &requires, &[2, slot])?;
    }
    let (batch, seq) = match ids_dims {
        [b, s] => (b.clone(), s.clone()),
        _ => (Dim::Unknown, Dim::Unknown),
    };
    let quantized = form == Embedding::Quantized;
    let elem = if quantized {
        ctx.required(8)?.elem
    } else {
        word.elem
    };
    let out = || {
        Output::shape(Shape::Ranked(vec![
            batch.clone(),
            seq.clone(),
            hidden.clone(),
        ]))
        .elem(elem)
    };
    let mut outputs = vec![
        out(),
        Output::shape(Shape::Ranked(vec![batch.clone()])).elem(ids.elem.or(Some(elem::INT32))),
    ];
    if !quantized {
        outputs.push(out());
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, output_shapes, run_in, unmet, Fact};
    use crate::ops::{Inferred, RuleError};

    fn ms(op: &str, inputs: &[Option<Fact>], outputs: usize) -> Result<Inferred, RuleError> {
        run_in("com.microsoft", op, 1, inputs, vec![], outputs)
    }

    #[test]
    fn embed_layer_norm_shapes_and_hidden_sizes() {
        let ids = || s(&["batch", "seq"]);
        let h = || s(&["32"]);
        let r = ms(
            "EmbedLayerNormalization",
            &[
                ids(),
                ids(),
                s(&["50", "32"]),
                s(&["64", "32"]),
                s(&["2", "32"]),
                h(),
                h(),
                ids(),
            ],
            3,
        )
        .unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[batch, seq, 32]", "[batch]", "[batch, seq, 32]"]
        );
        assert!(r.checks.is_empty());
        let bad = unmet(ms(
            "EmbedLayerNormalization",
            &[
                ids(),
                None,
                s(&["50", "32"]),
                s(&["64", "16"]),
                None,
                h(),
                h(),
            ],
            3,
        ));
        assert_eq!(bad.found, "32 vs 16");
        let mask = ms(
            "EmbedLayerNormalization",
            &[
                ids(),
                None,
                s(&["50", "32"]),
                s(&["64", "32"]),
                None,
                h(),
                h(),
                s(&["batch", "7"]),
            ],
            3,
        )
        .unwrap();
        assert_eq!(crate::ops::testing::conditions(&mask), ["seq = 7"]);
    }

    #[test]
    fn quantized_embed_layer_norm_reads_the_same_slots() {
        let ids = || s(&["batch", "seq"]);
        let q = |d: &[&str]| s(d).map(|f| Fact { elem: Some(2), ..f });
        let r = ms(
            "QEmbedLayerNormalization",
            &[
                ids(),
                ids(),
                q(&["50", "32"]),
                q(&["64", "32"]),
                q(&["2", "32"]),
                q(&["32"]),
                q(&["32"]),
                ids(),
                s(&[]),
            ],
            2,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[batch, seq, 32]", "[batch]"]);
        assert_eq!(r.outputs[0].elem, Some(1));
        let bad = unmet(ms(
            "QEmbedLayerNormalization",
            &[
                ids(),
                None,
                q(&["50", "32"]),
                q(&["64", "32"]),
                None,
                q(&["16"]),
                q(&["32"]),
                None,
                s(&[]),
            ],
            2,
        ));
        assert_eq!(bad.found, "32 vs 16");
    }
}
