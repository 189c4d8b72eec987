//! String ops (ONNX defs section `text`): `RegexFullMatch` keeps its input's shape,
//! `StringConcat` broadcasts multidirectionally, `StringSplit` adds an axis of substrings,
//! `StringNormalizer` keeps `[C]` or `[1, C]` but may drop stopwords. A length that depends on
//! the strings is a fresh named size, bounded where the doc bounds it; the requirements are
//! `onnx.shape_inference`'s.

use crate::model::dtype::elem;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// `RegexFullMatch(X)`: a BOOL tensor of X's shape.
pub(crate) fn regex_full_match_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(Some(elem::BOOL)),
    ))
}

/// `StringConcat(X, Y)`: the multidirectional broadcast of X and Y.
pub(crate) fn string_concat_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let y = ctx.required(1)?;
    let outcome = ctx.broadcasts().multidirectional(&[x.shape, y.shape]);
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

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn same_shape_and_broadcast_text_ops() {
        assert_eq!(
            shape(&run("RegexFullMatch", 20, &[dims(&["2", "3"])], vec![])),
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
}
