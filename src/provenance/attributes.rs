//! The attributes and constant inputs that decide the dim a chain's node makes, written as in
//! ONNX text syntax (`strides = [2, 2]`, `ends = [seq]`): a Conv's or pool's window (ONNX
//! Operators.md, Conv: output = (input + pads - dilation * (kernel - 1) - 1) / stride + 1), a
//! Slice's starts/ends/axes/steps, a Pad's pads, a Resize's scales or sizes, a Tile's repeats,
//! a Split's sizes, a Concat's axis. Inputs are shown by their known elements only.

use crate::infer::GraphFacts;
use crate::model::{AttrValue, GraphId, Model, Node};

/// Inputs named by slot, per op whose inputs decide the dim (opset-10+ Slice, 11+ Pad, ...).
const NAMED_INPUTS: &[(&str, &[(usize, &str)])] = &[
    (
        "Slice",
        &[(1, "starts"), (2, "ends"), (3, "axes"), (4, "steps")],
    ),
    ("Pad", &[(1, "pads"), (3, "axes")]),
    ("Resize", &[(2, "scales"), (3, "sizes")]),
    ("Upsample", &[(1, "scales")]),
    ("Tile", &[(1, "repeats")]),
    ("Split", &[(1, "split")]),
];

/// Attributes shown per op, when set (and not at their default).
const NAMED_ATTRIBUTES: &[(&str, &[&str])] = &[
    (
        "Conv",
        &["kernel_shape", "strides", "pads", "dilations", "auto_pad"],
    ),
    (
        "ConvInteger",
        &["kernel_shape", "strides", "pads", "dilations", "auto_pad"],
    ),
    (
        "MaxPool",
        &[
            "kernel_shape",
            "strides",
            "pads",
            "dilations",
            "auto_pad",
            "ceil_mode",
        ],
    ),
    (
        "AveragePool",
        &[
            "kernel_shape",
            "strides",
            "pads",
            "dilations",
            "auto_pad",
            "ceil_mode",
        ],
    ),
    ("LpPool", &["kernel_shape", "strides", "pads", "auto_pad"]),
    ("Slice", &["starts", "ends", "axes"]),
    ("Pad", &["pads"]),
    ("Upsample", &["scales"]),
    ("Split", &["axis", "split"]),
    ("Concat", &["axis"]),
    ("SpaceToDepth", &["blocksize"]),
    ("DepthToSpace", &["blocksize"]),
];

/// `(name, value)` of what decides the dim `node` makes.
pub(super) fn of(
    model: &Model,
    at: GraphId,
    facts: Option<&GraphFacts>,
    node: &Node,
) -> Vec<(String, String)> {
    let op = node.op_type().as_str();
    let mut out = Vec::new();
    if let Some((_, names)) = NAMED_ATTRIBUTES.iter().find(|(o, _)| *o == op) {
        for name in *names {
            if let Some(text) = node.attrs().get(name).and_then(|a| shown(name, &a.value)) {
                out.push(((*name).to_owned(), text));
            }
        }
    }
    if let Some((_, inputs)) = NAMED_INPUTS.iter().find(|(o, _)| *o == op) {
        for &(slot, name) in *inputs {
            let Some(value) = node.inputs().get(slot).copied().flatten() else {
                continue;
            };
            let known = facts.and_then(|f| f.values.get(value.0 as usize));
            let text = known.and_then(|f| {
                if let Some(v) = f.value.as_ref().filter(|v| v.shape.len() == 1) {
                    return Some(list(v.data.iter().map(ToString::to_string)));
                }
                // An initializer read once keeps its float elements in the file (issue 19's
                // lazy decoding): read them from there, as the rule did.
                let stored;
                let reals = if let Some(reals) = f.real.as_ref() {
                    reals
                } else {
                    stored = model.stored_reals(at, value)?;
                    &stored
                };
                let reals = Some(reals).filter(|v| v.shape.len() == 1)?;
                let numbers: Option<Vec<f64>> = reals
                    .data
                    .iter()
                    .map(crate::shape::real::Real::as_num)
                    .collect();
                Some(list(numbers?.into_iter().map(|n| n.to_string())))
            });
            // An input whose elements are not known is named, so the reader can find it.
            let named = model.graph(at).map_or("", |graph| graph.value_name(value));
            let text = text.unwrap_or_else(|| format!("`{named}`"));
            out.push((name.to_owned(), text));
        }
    }
    out
}

/// An attribute's value, unless it is the default (no padding, unit dilations, NOTSET).
fn shown(name: &str, value: &AttrValue) -> Option<String> {
    match value {
        AttrValue::Ints(list_) => {
            let trivial = match name {
                "pads" => list_.iter().all(|&p| p == 0),
                "dilations" => list_.iter().all(|&d| d == 1),
                _ => false,
            };
            (!trivial).then(|| list(list_.iter().map(ToString::to_string)))
        }
        AttrValue::Int(i) => (name != "ceil_mode" || *i != 0).then(|| i.to_string()),
        AttrValue::Floats(list_) => Some(list(list_.iter().map(ToString::to_string))),
        AttrValue::String(bytes) => {
            let text = std::str::from_utf8(bytes).ok()?;
            (text != "NOTSET").then(|| format!("\"{text}\""))
        }
        _ => None,
    }
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}
