//! `TfIdfVectorizer-9`: maps the last axis to `max(ngram_indexes) + 1`; the requirements are
//! `onnx.shape_inference`'s.

use crate::model::dtype::elem;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

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

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, ints_attr, run, string_attr};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

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
}
