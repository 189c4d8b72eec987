//! `--dim` bindings applied to a model's declarations before inference, so that one deployment's
//! sizes are what every stage sees: inferred shapes (`--shapes`), messages, labels, and the
//! conditions the checks solve (a bound symbol no longer appears in them, so no counterexample
//! can contradict the binding).
//!
//! A `dim_param` names one value across the model (ONNX IR, "Static tensor shapes"), so it is
//! replaced in every declaration of every graph; `input:axis` names the axis of a main-graph
//! input declared without a size or a name, as inference names it.

use std::collections::BTreeSet;

use crate::model::declared::{declared_dims, dim_of};
use crate::model::{Model, Origin};
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::{type_proto, TypeProto};
use crate::shape::{Binding, Dim};

/// The dims of a declared tensor type, if it declares a shape.
fn dims_mut(declared: &mut TypeProto) -> Option<&mut Vec<Dimension>> {
    match declared.value.as_mut()? {
        type_proto::Value::TensorType(t) => t.shape.as_mut().map(|s| &mut s.dim),
        type_proto::Value::SparseTensorType(t) => t.shape.as_mut().map(|s| &mut s.dim),
        _ => None,
    }
}

/// Every symbol the main graph's inputs declare: the names in their `dim_param`s, and
/// `input:axis` for each axis declared without a size or a name. What `--dim` may bind.
pub(crate) fn declared_symbols(model: &Model) -> BTreeSet<String> {
    input_axis_symbols(model)
        .into_iter()
        .flat_map(|(_, _, symbols)| symbols)
        .collect()
}

/// What `--dim` may bind on each declared axis of the main graph's inputs, as
/// `(input, axis, symbols)`: the symbols of a `dim_param` expression, or `input:axis` for an axis
/// declared without a size or a name; axes of a known size are left out.
pub(crate) fn input_axis_symbols(model: &Model) -> Vec<(String, usize, Vec<String>)> {
    let mut axes = Vec::new();
    let Some(main) = model.main() else {
        return axes;
    };
    for value in main
        .inputs
        .iter()
        .filter_map(|id| main.values.get(id.0 as usize))
    {
        let Some(dims) = value.declared.as_deref().and_then(declared_dims) else {
            continue;
        };
        let name = main.text(value.name);
        for (axis, dim) in dims.iter().enumerate() {
            let symbols = match dim_of(dim.value.as_ref()) {
                Dim::Known(_) => continue,
                Dim::Unknown => vec![format!("{name}:{axis}")],
                symbolic @ Dim::Sym(_) => symbolic.symbols().into_iter().collect(),
            };
            axes.push((name.to_owned(), axis, symbols));
        }
    }
    axes
}

/// Replaces bound symbols by their values in every declared shape of `model`.
pub(crate) fn bind(model: &mut Model, binding: &Binding) {
    if binding.is_empty() {
        return;
    }
    for graph in &mut model.graphs {
        let main = graph.parent.is_none() && graph.path == "main";
        for value in &mut graph.values {
            let input = main && value.origin == Origin::Input;
            let name = graph.texts.get(value.name).to_owned();
            let Some(dims) = value.declared.as_deref_mut().and_then(dims_mut) else {
                continue;
            };
            for (axis, dim) in dims.iter_mut().enumerate() {
                if let Some(bound) = bound_value(&name, axis, input, dim, binding) {
                    dim.value = Some(bound);
                }
            }
        }
    }
}

/// The new declaration of one dim under `binding`, if it changes.
fn bound_value(
    input: &str,
    axis: usize,
    is_main_input: bool,
    dim: &Dimension,
    binding: &Binding,
) -> Option<dimension::Value> {
    match dim_of(dim.value.as_ref()) {
        Dim::Known(_) => None,
        Dim::Unknown => {
            let value = *binding.get(&format!("{input}:{axis}"))?;
            is_main_input.then_some(dimension::Value::DimValue(value))
        }
        symbolic @ Dim::Sym(_) => {
            if symbolic.symbols().iter().all(|s| !binding.contains_key(s)) {
                return None;
            }
            match symbolic.substitute(binding) {
                Dim::Known(value) => Some(dimension::Value::DimValue(value)),
                // Partly bound (`a*b` with `a` bound): written back only when it reads back
                // as the same expression. Otherwise (a symbol whose name the expression reader
                // splits) the declaration keeps its symbols and its conditions stay conditions:
                // the binding is applied here only, nowhere later.
                partial @ Dim::Sym(_) => {
                    let text = partial.to_string();
                    (Dim::parse_dim_param(&text) == partial)
                        .then_some(dimension::Value::DimParam(text))
                }
                Dim::Unknown => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::model::load_path;
    use crate::Limits;

    fn model(name: &str) -> Model {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/models")
            .join(name);
        load_path(&path, Limits::default()).unwrap()
    }

    #[test]
    fn declared_symbols_are_dim_params_and_unnamed_axes() {
        let symbols = declared_symbols(&model("w1_symbolic.onnx"));
        assert!(
            symbols.contains("seq") && symbols.contains("batch"),
            "{symbols:?}"
        );
    }

    #[test]
    fn a_bound_dim_param_becomes_a_size() {
        let mut m = model("w1_symbolic.onnx");
        bind(&mut m, &Binding::from([("seq".to_owned(), 5)]));
        assert!(!declared_symbols(&m).contains("seq"));
        assert!(declared_symbols(&m).contains("batch"));
    }
}
