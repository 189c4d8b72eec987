//! Text ops (ONNX defs section `text`, and `ai.onnx.ml`'s `CategoryMapper`): `RegexFullMatch`
//! and `CategoryMapper` keep their input's shape, `StringConcat` broadcasts multidirectionally,
//! `StringSplit` adds an axis of substrings, `StringNormalizer` keeps `[C]` or `[1, C]` but may
//! drop stopwords, `TfIdfVectorizer` maps the last axis to `max(ngram_indexes) + 1`, and
//! `ImageDecoder` gives a rank-3 image. A length that depends on the strings or the image bytes
//! is a fresh named size, bounded where the doc bounds it; the requirements are
//! `onnx.shape_inference`'s.

use crate::model::dtype::elem;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::{self, Rule};
use crate::shape::{Dim, Shape};

/// `RegexFullMatch(X)`: a BOOL tensor of X's shape.
pub(crate) fn regex_full_match_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(Some(elem::BOOL)),
    ))
}

/// `CategoryMapper(X)`: Y has X's shape (strings to integers or back).
pub(crate) fn category_mapper(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let to = match x.elem {
        Some(elem::STRING) => Some(elem::INT64),
        Some(elem::INT64) => Some(elem::STRING),
        _ => None,
    };
    Ok(Inferred::single(Output::shape(x.shape.clone()).elem(to)))
}

/// `StringConcat(X, Y)`: the multidirectional broadcast of X and Y.
pub(crate) fn string_concat_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let y = ctx.required(1)?;
    let outcome = broadcast::multidirectional(&[x.shape, y.shape]);
    Ok(
        Inferred::single(Output::shape(outcome.shape.clone()).elem(x.elem)).with_check(
            Rule::Multidirectional,
            vec![0, 1],
            outcome,
        ),
    )
}

/// `StringSplit(X)`: `Y` is X's shape plus an axis as long as the most substrings of any
/// element (at most `maxsplit + 1` when set); `Z` (the counts) is X's shape.
pub(crate) fn string_split_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let at_most = ctx
        .attrs()
        .int("maxsplit")?
        .and_then(|m| m.checked_add(1))
        .map(Dim::known)
        .into_iter()
        .collect();
    let y = match x.shape.dims() {
        Some(d) => {
            let mut dims = d.to_vec();
            dims.push(ctx.fresh_dim("StringSplit", at_most));
            Shape::Ranked(dims)
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::many(vec![
        Output::shape(y).elem(x.elem),
        Output::shape(x.shape.clone()).elem(Some(elem::INT64)),
    ]))
}

/// `StringNormalizer(X)`: X is `[C]` or `[1, C]` ("Input shape must have either [C] or [1,C]
/// dimensions where C > 0"); Y has X's rank with C replaced by the count left after removing
/// stopwords (at most C).
pub(crate) fn string_normalizer_10(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let requires = "StringNormalizer's input must be [C] or [1, C] with C > 0";
    let shape = match x.shape.dims() {
        Some([c]) => Shape::Ranked(vec![ctx.fresh_dim("StringNormalizer", vec![c.clone()])]),
        Some([one, c]) if one.as_known().is_none_or(|n| n == 1) => Shape::Ranked(vec![
            Dim::known(1),
            ctx.fresh_dim("StringNormalizer", vec![c.clone()]),
        ]),
        Some(d) => {
            return Err(
                Constraint::new(requires, format!("its shape is {}", x.shape), &[0])
                    .fix(if d.len() == 2 {
                        "Reshape X to [C] or [1, C]"
                    } else {
                        "Reshape X to [C]"
                    })
                    .unmet(),
            )
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `TfIdfVectorizer(X)`: `[C]` gives `[max(ngram_indexes) + 1]`, `[N, C]` gives
/// `[N, max(ngram_indexes) + 1]`.
pub(crate) fn tf_idf_vectorizer_9(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let width = ctx
        .attrs()
        .ints("ngram_indexes")?
        .and_then(|i| i.iter().copied().max())
        .and_then(|m| m.checked_add(1))
        .map_or(Dim::Unknown, Dim::known);
    let shape = match x.shape.dims() {
        Some([_]) => Shape::Ranked(vec![width]),
        Some([n, _]) => Shape::Ranked(vec![n.clone(), width]),
        Some(d) => {
            return Err(Constraint::new(
                "TfIdfVectorizer's input must be [C] or [N, C]",
                format!("it has rank {}", d.len()),
                &[0],
            )
            .unmet())
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(
        Output::shape(shape).elem(Some(elem::FLOAT)),
    ))
}

/// `ImageDecoder(encoded_stream)`: a `[H, W, C]` image, H and W read from the bytes (fresh
/// sizes), C 1 for `Grayscale` and 3 for `RGB` / `BGR`.
pub(crate) fn image_decoder_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    let channels = match ctx.attrs().string("pixel_format")?.unwrap_or("RGB") {
        "Grayscale" => Dim::known(1),
        "RGB" | "BGR" => Dim::known(3),
        other => {
            return Err(Constraint::new(
                "ImageDecoder's pixel_format must be RGB, BGR or Grayscale",
                format!("pixel_format is {other:?}"),
                &[],
            )
            .unmet())
        }
    };
    let shape = Shape::Ranked(vec![
        ctx.fresh_dim("height", Vec::new()),
        ctx.fresh_dim("width", Vec::new()),
        channels,
    ]);
    Ok(Inferred::single(
        Output::shape(shape).elem(Some(elem::UINT8)),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints_attr, output_shapes, run, run_in, string_attr};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn same_shape_and_broadcast_text_ops() {
        assert_eq!(
            shape(&run("RegexFullMatch", 20, &[dims(&["2", "3"])], vec![])),
            "[2, 3]"
        );
        assert_eq!(
            shape(&run_in(
                "ai.onnx.ml",
                "CategoryMapper",
                1,
                &[dims(&["2", "3"])],
                vec![],
                1
            )),
            "[2, 3]"
        );
        let r = run(
            "StringConcat",
            20,
            &[dims(&["2", "3"]), dims(&["3"])],
            vec![],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[2, 3]"]);
        let r = run(
            "StringConcat",
            20,
            &[dims(&["2", "3"]), dims(&["4"])],
            vec![],
        )
        .unwrap();
        assert!(r.checks.iter().any(|c| c.outcome.is_invalid()));
    }

    #[test]
    fn split_and_normalize_have_data_dependent_lengths() {
        let r = run(
            "StringSplit",
            20,
            &[dims(&["2", "3"])],
            vec![int_attr("maxsplit", 2)],
        )
        .unwrap();
        let shapes = output_shapes(&r);
        assert!(
            shapes[0].starts_with("[2, 3, ") && shapes[0].contains("StringSplit#"),
            "{shapes:?}"
        );
        assert_eq!(shapes[1], "[2, 3]");
        let r = run("StringNormalizer", 10, &[dims(&["1", "3"])], vec![]);
        assert!(shape(&r).starts_with("[1, "), "{}", shape(&r));
        assert!(unmet(&run(
            "StringNormalizer",
            10,
            &[dims(&["2", "3"])],
            vec![]
        )));
    }

    #[test]
    fn tf_idf_width_is_the_largest_index_plus_one() {
        let attrs = || {
            vec![
                ints_attr("ngram_indexes", &[0, 4, 2]),
                string_attr("mode", "TF"),
            ]
        };
        assert_eq!(
            shape(&run("TfIdfVectorizer", 9, &[dims(&["6"])], attrs())),
            "[5]"
        );
        assert_eq!(
            shape(&run("TfIdfVectorizer", 9, &[dims(&["n", "6"])], attrs())),
            "[n, 5]"
        );
        assert!(unmet(&run(
            "TfIdfVectorizer",
            9,
            &[dims(&["1", "2", "6"])],
            attrs()
        )));
    }

    #[test]
    fn image_decoder_is_rank_3() {
        let r = run(
            "ImageDecoder",
            20,
            &[dims(&["100"])],
            vec![string_attr("pixel_format", "Grayscale")],
        );
        assert!(shape(&r).ends_with(", 1]"), "{}", shape(&r));
        assert!(unmet(&run(
            "ImageDecoder",
            20,
            &[dims(&["100"])],
            vec![string_attr("pixel_format", "CMYK")]
        )));
    }
}
