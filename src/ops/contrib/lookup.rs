//! Embedding lookups (com.microsoft): `TorchEmbedding` (the indices' shape with the embedding
//! size appended, as onnxruntime's inference writes it; training kernels only) and
//! `WordConvEmbedding` (CPU kernel: a character convolution over each word of a
//! `(sequence, word_length)` input, `(sequence, filters)` out). The latter's kernel checks its
//! weights (`ValidateInputShape`): the conv weight is `(filters, 1, window, char_embedding)`,
//! the bias `(filters)`, the char embedding's width the conv kernel's, and the optional
//! `conv_window_size` / `char_embedding_size` attributes agree with them.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `TorchEmbedding(weight, indices, padding_idx, scale_grad_by_freq)`: `indices.shape + [M]`
/// for an `N x M` weight.
pub(crate) fn torch_embedding(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let weight = ctx.required(0)?;
    let indices = ctx.required(1)?;
    let w = exact(
        weight.shape,
        2,
        "TorchEmbedding's weight must be 2-D (N, M)",
        0,
    )?;
    let shape = match indices.shape.dims() {
        Some(d) => Shape::Ranked(d.iter().cloned().chain([dim_at(w, 1)]).collect()),
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(weight.elem)))
}

/// `WordConvEmbedding(Sequence, W, B, C)`: `(Sequence's dim 0, W's dim 0)`, float.
pub(crate) fn word_conv_embedding(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let seq = ctx.required(0)?;
    let w = exact(
        ctx.shape(1)?,
        4,
        "WordConvEmbedding's W must be 4-D (filters, 1, window, char_embedding)",
        1,
    )?;
    let b = exact(
        ctx.shape(2)?,
        1,
        "WordConvEmbedding's B must be 1-D (filters)",
        2,
    )?;
    let c = exact(
        ctx.shape(3)?,
        2,
        "WordConvEmbedding's C must be 2-D (chars, char_embedding)",
        3,
    )?;
    let mut pending = Pending::default();
    let filters = dim_at(w, 0);
    let requires = "WordConvEmbedding's conv bias B must have one entry per filter (W's dim 0)";
    equal(
        &mut pending,
        &dim_at(b, 0),
        &filters,
        requires,
        "B's length",
        &[1, 2],
    )?;
    let requires = "WordConvEmbedding's char embedding size (C's dim 1) must be W's kernel width";
    equal(
        &mut pending,
        &dim_at(c, 1),
        &dim_at(w, 3),
        requires,
        "C's dim 1",
        &[1, 3],
    )?;
    for (attr, dim, slot) in [
        ("conv_window_size", dim_at(w, 2), 1),
        ("char_embedding_size", dim_at(c, 1), 3),
    ] {
        if let Some(v) = ctx.attrs().int(attr)?.filter(|&v| v != -1) {
            let requires = format!("WordConvEmbedding's {attr} attribute must match its weights");
            equal(&mut pending, &dim, &Dim::known(v), &requires, attr, &[slot])?;
        }
    }
    let shape = match seq.shape.dims() {
        Some([]) => {
            let requires = "WordConvEmbedding's Sequence must be (sequence, word_length)";
            return Err(Constraint::new(requires, "its rank is 0", &[0]).unmet());
        }
        Some(d) => Shape::Ranked(vec![dim_at(Some(d), 0), filters]),
        None => Shape::Ranked(vec![Dim::Unknown, filters]),
    };
    Ok(
        Inferred::single(Output::shape(shape).elem(Some(crate::model::dtype::elem::FLOAT)))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, run_microsoft};

    #[test]
    fn torch_embedding_appends_the_embedding_size() {
        let r = run_microsoft(
            "TorchEmbedding",
            &[dims(&["1000", "64"]), dims(&["b", "s"])],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[b, s, 64]");
        assert!(unmet(&run_microsoft(
            "TorchEmbedding",
            &[dims(&["64"]), dims(&["b"])],
            vec![],
            1
        )));
    }

    #[test]
    fn word_conv_embedding_is_words_by_filters() {
        let run = |b: &[&str], c: &[&str]| {
            run_microsoft(
                "WordConvEmbedding",
                &[
                    dims(&["s", "7"]),
                    dims(&["16", "1", "2", "8"]),
                    dims(b),
                    dims(c),
                ],
                vec![],
                1,
            )
        };
        // onnxruntime 1.31: (5, 7) words give (5, 16).
        assert_eq!(shape(&run(&["16"], &["30", "8"])), "[s, 16]");
        assert!(unmet(&run(&["12"], &["30", "8"])));
        assert!(unmet(&run(&["16"], &["30", "6"])));
    }
}
