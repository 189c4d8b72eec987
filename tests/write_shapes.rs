//! `--write-shapes OUT.onnx`: the copy holds every inferred shape in `value_info` (symbolic dims
//! as `dim_param` expressions), its weights and external data references are the input's byte
//! for byte, and the input file is never modified. (The harness's
//! `conformance.write_shapes` checks the copies of every harness model against onnxruntime.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::PathBuf;
mod common;
use common::command;

use onnx_bcast_lint::proto::tensor_shape_proto::dimension::Value as DimValue;
use onnx_bcast_lint::proto::type_proto::Value as TypeValue;
use onnx_bcast_lint::proto::ModelProto;
use prost::Message;

fn model(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
}

/// A fresh output path under the system's temporary directory.
fn out_path(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("obl-write-shapes-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("annotated.onnx")
}

fn write(input: &PathBuf, out: &PathBuf) -> i32 {
    command()
        .args(["-q", "--write-shapes"])
        .arg(out)
        .arg(input)
        .output()
        .unwrap()
        .status
        .code()
        .unwrap()
}

/// `name -> dims` of the copy's `value_info`, dims as text (`batch`, `8`, `?`).
fn written(m: &ModelProto) -> Vec<(String, Vec<String>)> {
    let graph = m.graph.as_ref().unwrap();
    graph
        .value_info
        .iter()
        .map(|vi| {
            let Some(TypeValue::TensorType(t)) = vi.r#type.as_ref().unwrap().value.as_ref() else {
                panic!("not a tensor type");
            };
            let dims = t
                .shape
                .as_ref()
                .unwrap()
                .dim
                .iter()
                .map(|d| match &d.value {
                    Some(DimValue::DimValue(v)) => v.to_string(),
                    Some(DimValue::DimParam(p)) => p.clone(),
                    None => "?".to_owned(),
                })
                .collect();
            (vi.name.clone().unwrap(), dims)
        })
        .collect()
}

#[test]
fn symbolic_shapes_are_written_and_weights_kept() {
    let input = model("ok_symbolic_batch.onnx");
    let before = std::fs::read(&input).unwrap();
    let out = out_path("symbolic");
    assert_eq!(write(&input, &out), 0);
    assert_eq!(std::fs::read(&input).unwrap(), before, "input modified");
    let copy = ModelProto::decode(std::fs::read(&out).unwrap().as_slice()).unwrap();
    let original = ModelProto::decode(before.as_slice()).unwrap();
    let shapes = written(&copy);
    let scores = shapes.iter().find(|(n, _)| n == "scores").unwrap();
    assert_eq!(scores.1, ["batch", "2", "seq", "seq"]);
    let q_split = shapes.iter().find(|(n, _)| n == "q_split").unwrap();
    assert_eq!(q_split.1, ["batch", "seq", "2", "4"]);
    let (g0, g1) = (original.graph.unwrap(), copy.graph.clone().unwrap());
    assert_eq!(g0.initializer, g1.initializer);
    assert_eq!(g0.node, g1.node);
    assert_eq!(g0.input, g1.input);
    assert_eq!(g0.output, g1.output);
    // Every initializer payload appears verbatim in the copy's bytes.
    let bytes = std::fs::read(&out).unwrap();
    for init in &g0.initializer {
        let raw = init.raw_data.as_deref().unwrap_or_default();
        if raw.len() > 8 {
            assert!(
                bytes.windows(raw.len()).any(|w| w == raw),
                "{:?}",
                init.name
            );
        }
    }
}

#[test]
fn derived_dims_are_expressions() {
    let out = out_path("stride");
    assert_eq!(write(&model("w1_stride_divisibility.onnx"), &out), 0);
    let copy = ModelProto::decode(std::fs::read(&out).unwrap().as_slice()).unwrap();
    let shapes = written(&copy);
    let c2 = shapes.iter().find(|(n, _)| n == "c2").unwrap();
    assert_eq!(c2.1, ["1", "4", "((H+1)/2+1)/2", "8"]);
}

#[test]
fn external_data_references_stay() {
    let input = model("ok_external_data.onnx");
    let out = out_path("external");
    assert_eq!(write(&input, &out), 0);
    let copy = ModelProto::decode(std::fs::read(&out).unwrap().as_slice()).unwrap();
    let original = ModelProto::decode(std::fs::read(&input).unwrap().as_slice()).unwrap();
    let (g0, g1) = (original.graph.unwrap(), copy.graph.unwrap());
    assert_eq!(g0.initializer, g1.initializer);
    assert!(g1.initializer.iter().all(|t| !t.external_data.is_empty()));
}

#[test]
fn the_input_is_never_overwritten_and_one_model_only() {
    let dir = out_path("same").parent().unwrap().to_path_buf();
    let copy = dir.join("model.onnx");
    std::fs::copy(model("w1_symbolic.onnx"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    assert_eq!(write(&copy, &copy), 2);
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    let out = dir.join("two.onnx");
    let two = command()
        .args(["--write-shapes"])
        .arg(&out)
        .arg(model("w1_symbolic.onnx"))
        .arg(model("e1_where.onnx"))
        .output()
        .unwrap();
    assert_eq!(two.status.code(), Some(2));
    assert!(!out.exists());
    // The error names what was wrong: two models, not standard input (issue 32, item 12).
    let said = String::from_utf8_lossy(&two.stderr);
    assert!(said.contains("exactly one model file (2 given)"), "{said}");
    assert!(!said.contains("standard input"), "{said}");
}

/// Success is said on standard error, naming the copy (issue 32, item 12: it printed nothing).
#[test]
fn a_written_copy_is_announced() {
    let out = out_path("announced");
    let input = model("w1_symbolic.onnx");
    let done = command()
        .args(["--format", "json", "--write-shapes"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(0));
    let said = String::from_utf8_lossy(&done.stderr);
    assert!(
        said.contains(&format!("wrote {}", out.display()))
            && said.contains(&input.display().to_string()),
        "{said}"
    );
    // Standard output stays the JSON document alone.
    serde_json::from_slice::<serde_json::Value>(&done.stdout).unwrap();
    assert!(out.exists());
}
