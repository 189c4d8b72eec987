//! The `ai.onnx.ml` domain, as scikit-learn exports use it: classifiers give labels `[N]` and
//! scores `[N, classes]`, regressors `[N, targets]`, with N the input's first dim (ONNX-ML
//! operator docs); transformers keep or extend X's shape; map and sequence values stay unknown.

use crate::model::dtype::elem::{self, FLOAT, STRING};
use crate::ops::constraint::Constraint;
use crate::ops::overflow::sized;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The model family of a classifier or regressor row, which names its attributes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Model {
    /// `LinearClassifier`, `LinearRegressor`.
    Linear,
    /// `SVMClassifier`, `SVMRegressor`.
    Svm,
    /// `TreeEnsembleClassifier`, `TreeEnsembleRegressor`, `TreeEnsemble`.
    TreeEnsemble,
}

/// The output element type of a shape-keeping transformer row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum OutElem {
    /// `Normalizer`, `Scaler`: always float.
    Float,
    /// `LabelEncoder`: set by the value attributes, not read here.
    Unknown,
    /// `Binarizer`, `Imputer`: X's type.
    Kept,
}

/// The batch size: dim 0 of a 2-D input. A 1-D input is read as one sample by some runtimes
/// and as a batch by others, so it gives nothing.
fn batch(x: &Shape) -> Dim {
    match x.dims() {
        Some([n, _]) => n.clone(),
        _ => Dim::Unknown,
    }
}

/// The number of entries of a list attribute, if present.
fn count(ctx: &Ctx<'_>, ints: &str, strings: &str) -> Result<Option<i64>, RuleError> {
    let attrs = ctx.attrs();
    if let Some(v) = attrs.ints(ints)? {
        return Ok(i64::try_from(v.len()).ok());
    }
    Ok(attrs
        .get(strings)
        .and_then(|a| i64::try_from(a.value.strings().map_or(0, <[_]>::len)).ok())
        .filter(|&n| n > 0))
}

/// Labels `[N]` typed by the label list, and scores `[N, classes]`. With two classes or fewer
/// runtimes differ (one score column or two), so that width stays unknown.
pub(crate) fn classifier(ctx: &Ctx<'_>, model: Model) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let ints = if model == Model::TreeEnsemble {
        "classlabels_int64s"
    } else {
        "classlabels_ints"
    };
    let classes = count(ctx, ints, "classlabels_strings")?;
    let label_elem = if ctx.attrs().get(ints).is_some() {
        elem::INT64
    } else {
        STRING
    };
    let n = batch(x.shape);
    let width = classes.filter(|&c| c > 2).map_or(Dim::Unknown, Dim::known);
    Ok(Inferred::many(vec![
        Output::shape(Shape::Ranked(vec![n.clone()])).elem(Some(label_elem)),
        Output::shape(Shape::Ranked(vec![n, width])).elem(Some(FLOAT)),
    ]))
}

/// `[N, targets]`: `targets` (`LinearRegressor`), `n_targets` (tree ensembles), 1 (SVM).
pub(crate) fn regressor(ctx: &Ctx<'_>, model: Model) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let targets = match model {
        Model::Linear => Some(ctx.int("targets", 1)?),
        Model::Svm => Some(1),
        // `n_targets` is optional in every version of the tree ensembles: without it the
        // width is not known here, which is no fault of the model.
        Model::TreeEnsemble => ctx.attrs().int("n_targets")?,
    };
    let shape = Shape::Ranked(vec![
        batch(x.shape),
        targets.map_or(Dim::Unknown, Dim::known),
    ]);
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// Element-wise transformers keep X's shape.
pub(crate) fn same_shape(ctx: &Ctx<'_>, out: OutElem) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let elem = match out {
        OutElem::Float => Some(FLOAT),
        OutElem::Unknown => None,
        OutElem::Kept => x.elem,
    };
    Ok(Inferred::single(Output::shape(x.shape.clone()).elem(elem)))
}

/// `OneHotEncoder`: X's shape with one more axis, the number of categories.
pub(crate) fn one_hot(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    // "One and only one of the 'cats_*' attributes must be defined."
    let attrs = ctx.attrs();
    let given = (attrs.get("cats_int64s"), attrs.get("cats_strings"));
    if given.0.is_some() == given.1.is_some() {
        return Err(Constraint::new(
            "OneHotEncoder requires exactly one of `cats_int64s` and `cats_strings`",
            if given.0.is_some() {
                "both are set"
            } else {
                "neither is set"
            },
            &[],
        )
        .unmet());
    }
    let categories = count(ctx, "cats_int64s", "cats_strings")?.map_or(Dim::Unknown, Dim::known);
    let shape = match x.shape.dims() {
        Some(d) => Shape::Ranked(d.iter().cloned().chain([categories]).collect()),
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(Some(FLOAT))))
}

/// `ArrayFeatureExtractor(X, Y)`: X's last axis replaced by the number of indices. The operator
/// doc does not say what a 1-D X gives; ONNX's reference implementation
/// (`onnx/reference/ops/aionnxml/op_array_feature_extractor.py`) and onnxruntime both make it
/// one row, `[1, indices]` (scikit-learn exports pick class labels that way).
pub(crate) fn feature_extractor(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let indices = ctx.shape(1)?;
    let picked = match indices.dims() {
        Some(d) => sized("the number of indices (Y's element count)", &[1]).product(d)?,
        None => Dim::Unknown,
    };
    let shape = match x.shape.dims() {
        Some([_]) => Shape::Ranked(vec![Dim::known(1), picked]),
        Some([lead @ .., _]) if !lead.is_empty() => {
            Shape::Ranked(lead.iter().cloned().chain([picked]).collect())
        }
        _ => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `FeatureVectorizer`: `[N, sum(inputdimensions)]`; a 1-D first input counts as `[1, C]`.
pub(crate) fn feature_vectorizer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let n = match x.shape.dims() {
        Some([_]) => Dim::known(1),
        _ => batch(x.shape),
    };
    let width = ctx
        .attrs()
        .ints("inputdimensions")?
        .and_then(|d| d.iter().try_fold(0i64, |acc, v| acc.checked_add(*v)))
        .map_or(Dim::Unknown, Dim::known);
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(vec![n, width])).elem(Some(FLOAT)),
    ))
}

/// Maps and sequences of maps, whose shapes the engine does not track.
pub(crate) fn opaque(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    Ok(Inferred::single(Output::shape(Shape::Unranked)))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::dims as s;
    use crate::ops::testing::{self, int_attr, ints_attr, run_in};
    use crate::proto::attribute_proto::AttributeType;
    use crate::proto::AttributeProto;

    fn strings_attr(name: &str, values: &[&str]) -> AttributeProto {
        AttributeProto {
            name: Some(name.into()),
            r#type: Some(AttributeType::Strings as i32),
            strings: values
                .iter()
                .map(|v| v.as_bytes().to_vec().into())
                .collect(),
            ..AttributeProto::default()
        }
    }

    fn ml(op: &str, inputs: &[Option<testing::Fact>], attrs: Vec<AttributeProto>) -> Vec<String> {
        run_in("ai.onnx.ml", op, 3, inputs, attrs, 2).map_or_else(
            |e| vec![format!("error: {e}")],
            |r| r.outputs.iter().map(|o| o.shape.to_string()).collect(),
        )
    }

    #[test]
    fn tree_classifier_labels_and_probabilities() {
        let got = ml(
            "TreeEnsembleClassifier",
            &[s(&["N", "4"])],
            vec![ints_attr("classlabels_int64s", &[0, 1, 2])],
        );
        assert_eq!(got, ["[N]", "[N, 3]"]);
    }

    #[test]
    fn binary_classifier_score_width_is_unknown() {
        let got = ml(
            "LinearClassifier",
            &[s(&["N", "4"])],
            vec![strings_attr("classlabels_strings", &["a", "b"])],
        );
        assert_eq!(got, ["[N]", "[N, ?]"]);
    }

    #[test]
    fn regressors_give_targets() {
        let got = ml(
            "TreeEnsembleRegressor",
            &[s(&["N", "4"])],
            vec![int_attr("n_targets", 2)],
        );
        assert_eq!(got, ["[N, 2]"]);
        assert_eq!(ml("SVMRegressor", &[s(&["N", "4"])], vec![]), ["[N, 1]"]);
        assert_eq!(ml("LinearRegressor", &[s(&["5"])], vec![]), ["[?, 1]"]);
    }

    #[test]
    fn transformers_keep_or_extend_shape() {
        assert_eq!(ml("Scaler", &[s(&["N", "4"])], vec![]), ["[N, 4]"]);
        let got = ml(
            "OneHotEncoder",
            &[s(&["N", "1"])],
            vec![ints_attr("cats_int64s", &[1, 2, 3])],
        );
        assert_eq!(got, ["[N, 1, 3]"]);
        assert_eq!(
            ml(
                "ArrayFeatureExtractor",
                &[s(&["N", "10"]), s(&["3"])],
                vec![]
            ),
            ["[N, 3]"]
        );
        // A 1-D X (the class labels) gives one row of the picked labels.
        assert_eq!(
            ml(
                "ArrayFeatureExtractor",
                &[s(&["3"]), s(&["N", "1"])],
                vec![]
            ),
            ["[1, N]"]
        );
        let got = ml(
            "FeatureVectorizer",
            &[s(&["N", "2"]), s(&["N", "3"])],
            vec![ints_attr("inputdimensions", &[2, 3])],
        );
        assert_eq!(got, ["[N, 5]"]);
        assert_eq!(ml("ZipMap", &[s(&["N", "3"])], vec![]), ["[...]"]);
    }

    #[test]
    fn optional_n_targets_and_one_category_list() {
        let got = ml("TreeEnsembleRegressor", &[s(&["N", "4"])], vec![]);
        assert_eq!(got, ["[N, ?]"]);
        let got = ml("OneHotEncoder", &[s(&["N"])], vec![]);
        assert!(got[0].starts_with("error: OneHotEncoder requires exactly one"));
        let both = vec![
            ints_attr("cats_int64s", &[1, 2]),
            strings_attr("cats_strings", &["a"]),
        ];
        assert!(ml("OneHotEncoder", &[s(&["N"])], both)[0].starts_with("error:"));
        let got = ml(
            "OneHotEncoder",
            &[s(&["N"])],
            vec![ints_attr("cats_int64s", &[1, 2, 3])],
        );
        assert_eq!(got, ["[N, 3]"]);
    }
}
