//! Inference beside the builder gives the output of inference after it: every fixture, and
//! models built to take each way the builder ends the pipeline early, linted with the pipeline
//! forced on (a chunk every few nodes) and off, give the same JSON with shapes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use bytes::Bytes;
use prost::Message;

use crate::lint::{lint_bytes_pipelined, Options, Pipeline};
use crate::proto::{
    tensor_shape_proto, type_proto, AttributeProto, FunctionProto, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use crate::report::{json, FileReport};

/// Lints `bytes` under `pipeline`: the JSON with shapes, and whether the pipeline completed.
fn lint(bytes: &Bytes, pipeline: Pipeline) -> (String, bool) {
    let options = Options::new().with_pipeline(pipeline);
    let (outcome, pipelined) =
        lint_bytes_pipelined(bytes.clone(), Path::new("model.onnx"), &options);
    let report = FileReport {
        path: "model.onnx".into(),
        outcome,
    };
    (json::render(&[report], true), pipelined)
}

/// Lints `bytes` with the pipeline off and forced at several chunk sizes; asserts the outputs
/// are equal and returns whether the pipeline completed at each size.
fn same_both_ways(bytes: &Bytes, what: &str) -> Vec<bool> {
    let (off, pipelined) = lint(bytes, Pipeline::Off);
    assert!(!pipelined, "{what}: pipelined while off");
    [1, 2, 3, 7, 64]
        .into_iter()
        .map(|batch| {
            let (on, pipelined) = lint(bytes, Pipeline::Forced { batch });
            assert_eq!(on, off, "{what}: chunks of {batch} nodes");
            pipelined
        })
        .collect()
}

#[test]
fn every_fixture_lints_the_same_beside_the_build_and_after_it() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "onnx") && path.is_file())
        .collect();
    paths.sort();
    assert!(paths.len() > 40, "{} fixtures", paths.len());
    let mut completed = 0;
    for path in &paths {
        let bytes = Bytes::from(std::fs::read(path).unwrap());
        let ways = same_both_ways(&bytes, &path.display().to_string());
        if ways.iter().all(|&pipelined| pipelined) {
            completed += 1;
        }
    }
    // Most fixtures have no body, late input or duplicate: the pipeline ran to its end.
    assert!(
        completed * 2 > paths.len(),
        "{completed} of {}",
        paths.len()
    );
}

fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        ..Default::default()
    }
}

fn typed(name: &str, dims: &[&str]) -> ValueInfoProto {
    let dim = |d: &&str| tensor_shape_proto::Dimension {
        value: Some(match d.parse::<i64>() {
            Ok(size) => tensor_shape_proto::dimension::Value::DimValue(size),
            Err(_) => tensor_shape_proto::dimension::Value::DimParam((*d).into()),
        }),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn encode(graph: GraphProto, functions: Vec<FunctionProto>) -> Bytes {
    encode_importing(graph, functions, "local")
}

/// The model of `graph` and `functions`, importing ai.onnx 18 and `domain` version 1.
fn encode_importing(graph: GraphProto, functions: Vec<FunctionProto>, domain: &str) -> Bytes {
    let model = ModelProto {
        ir_version: Some(10),
        opset_import: vec![
            OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(18),
            },
            OperatorSetIdProto {
                domain: Some(domain.into()),
                version: Some(1),
            },
        ],
        graph: Some(graph),
        functions,
        ..Default::default()
    };
    Bytes::from(model.encode_to_vec())
}

/// A chain of `count` element-wise nodes over `x` and `y` (`[batch, 4]` and `[1, 4]`), with a
/// broadcast that fails (`[3]` against `[4]`) in the middle, so the output has findings and
/// shapes to compare.
fn chain(count: usize) -> Vec<NodeProto> {
    let mut nodes = Vec::new();
    let mut last = "x".to_owned();
    for i in 0..count {
        let out = format!("t{i}");
        let other = if i == count / 2 { "z" } else { "y" };
        let op = if i % 2 == 0 { "Add" } else { "Mul" };
        nodes.push(node(op, &[&last, other], &[&out]));
        last = out;
    }
    nodes
}

fn chain_graph(nodes: Vec<NodeProto>) -> GraphProto {
    let last = nodes
        .last()
        .and_then(|n| n.output.first().cloned())
        .unwrap_or_default();
    GraphProto {
        node: nodes,
        input: vec![
            typed("x", &["batch", "4"]),
            typed("y", &["1", "4"]),
            typed("z", &["3"]),
        ],
        output: vec![typed(&last, &["batch", "4"])],
        ..Default::default()
    }
}

#[test]
fn a_long_chain_with_declarations_is_inferred_beside_the_build() {
    let mut nodes = chain(300);
    // A Constant whose output only an output declaration types, and a node output that both
    // value_info and an output declare (the output wins, as after the build).
    let mut constant = node("Constant", &[], &["c"]);
    constant.attribute = vec![AttributeProto {
        name: Some("value_float".into()),
        r#type: Some(1),
        f: Some(1.0),
        ..Default::default()
    }];
    nodes.push(constant);
    nodes.push(node("Add", &["t299", "c"], &["sum"]));
    let mut graph = chain_graph(nodes);
    graph.value_info = vec![typed("t10", &["batch", "4"]), typed("sum", &["7", "4"])];
    graph.output.push(typed("c", &[]));
    graph.output.push(typed("sum", &["batch", "4"]));
    // An input without a type, typed by value_info only.
    graph.input.push(ValueInfoProto {
        name: Some("w".into()),
        ..Default::default()
    });
    graph.value_info.push(typed("w", &["2"]));
    graph.node.push(node("Relu", &["w"], &["w_out"]));
    let ways = same_both_ways(&encode(graph, Vec::new()), "chain");
    assert!(ways.iter().all(|&pipelined| pipelined), "{ways:?}");
}

#[test]
fn a_node_holding_a_body_ends_the_pipeline_with_the_same_output() {
    let mut nodes = chain(40);
    let branch = |name: &str| GraphProto {
        name: Some(name.into()),
        node: vec![node("Identity", &["y"], &[&format!("{name}_out")])],
        output: vec![typed(&format!("{name}_out"), &["1", "4"])],
        ..Default::default()
    };
    let mut when = node("If", &["cond"], &["branched"]);
    when.attribute = ["then_branch", "else_branch"]
        .map(|name| AttributeProto {
            name: Some(name.into()),
            r#type: Some(5),
            g: Some(Box::new(branch(name))),
            ..Default::default()
        })
        .into();
    nodes.insert(20, when);
    let mut graph = chain_graph(nodes);
    graph.input.push(typed("cond", &[]));
    let ways = same_both_ways(&encode(graph, Vec::new()), "body");
    assert!(ways.iter().all(|&pipelined| !pipelined), "{ways:?}");
}

#[test]
fn an_input_defined_later_in_the_file_ends_the_pipeline_with_the_same_output() {
    // Node 30 reads what node 35 writes: resolved only once the later batch is indexed (or at
    // the end), after the chunk holding node 30 could have been sealed.
    let mut nodes = chain(60);
    nodes.push(node("Neg", &["late"], &["late_out"]));
    nodes.swap(30, 60);
    nodes.insert(36, node("Abs", &["t3"], &["late"]));
    let graph = chain_graph(nodes);
    let ways = same_both_ways(&encode(graph, Vec::new()), "late input");
    assert!(ways.iter().all(|&pipelined| !pipelined), "{ways:?}");
}

#[test]
fn an_undefined_input_ends_the_pipeline_with_the_same_output() {
    let mut nodes = chain(50);
    nodes.insert(10, node("Abs", &["nowhere"], &["lost"]));
    let graph = chain_graph(nodes);
    let bytes = encode(graph, Vec::new());
    let ways = same_both_ways(&bytes, "undefined input");
    assert!(ways.iter().all(|&pipelined| !pipelined), "{ways:?}");
    assert!(lint(&bytes, Pipeline::Off).0.contains("nowhere"));
}

#[test]
fn a_duplicate_producer_ends_the_pipeline_with_the_same_output() {
    // Written twice: once early, once many chunks later.
    let mut nodes = chain(50);
    nodes.push(node("Abs", &["t40"], &["t5"]));
    nodes.push(node("Neg", &["t5"], &["after"]));
    let graph = chain_graph(nodes);
    let ways = same_both_ways(&encode(graph, Vec::new()), "duplicate producer");
    assert!(ways.iter().all(|&pipelined| !pipelined), "{ways:?}");
}

#[test]
fn a_model_with_functions_is_inferred_after_the_build() {
    let mut nodes = chain(30);
    let mut call = node("Double", &["t29"], &["doubled"]);
    call.domain = Some("local".into());
    nodes.push(call);
    let function = FunctionProto {
        name: Some("Double".into()),
        domain: Some("local".into()),
        input: vec!["a".into()],
        output: vec!["b".into()],
        node: vec![node("Add", &["a", "a"], &["b"])],
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        ..Default::default()
    };
    let bytes = encode(chain_graph(nodes), vec![function]);
    let ways = same_both_ways(&bytes, "function call");
    assert!(ways.iter().all(|&pipelined| !pipelined), "{ways:?}");
    assert!(lint(&bytes, Pipeline::Off).0.contains("doubled"));
}

#[test]
fn a_graph_too_small_to_gain_is_not_pipelined_by_default() {
    let bytes = encode(chain_graph(chain(100)), Vec::new());
    assert!(!lint(&bytes, Pipeline::Auto).1);
    assert!(lint(&bytes, Pipeline::Forced { batch: 10 }).1);
}

/// Every model under `$PIPELINE_MODELS` (the harness models, which are not committed) lints
/// the same with the pipeline forced at a chunk of 16 nodes and off:
/// `PIPELINE_MODELS=/path cargo test --release --lib pipeline_tests -- --ignored`.
#[test]
#[ignore = "needs the harness models"]
#[allow(clippy::print_stderr, reason = "the count is the measurement")]
fn every_harness_model_lints_the_same_beside_the_build_and_after_it() {
    let dir = PathBuf::from(std::env::var("PIPELINE_MODELS").unwrap());
    let mut stack = vec![dir];
    let (mut models, mut completed) = (0, 0);
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "onnx") {
                let bytes = Bytes::from(std::fs::read(&path).unwrap());
                let (off, _) = lint(&bytes, Pipeline::Off);
                let (on, pipelined) = lint(&bytes, Pipeline::Forced { batch: 16 });
                assert_eq!(on, off, "{}", path.display());
                models += 1;
                completed += usize::from(pipelined);
            }
        }
    }
    eprintln!("{models} models, {completed} pipelined to the end");
    assert!(models > 0);
}

/// onnxruntime's blocked-layout ops read the model's block size, a fact of the whole model
/// (`ops/contrib/nchwc_block.rs`): the weight padded to 8 channels makes `ReorderInput` pad
/// 3 channels to 8. Inference beside the build would start before that weight's Conv is
/// built and leave the 8 unknown, so such a model is inferred after the build.
#[test]
fn a_blocked_layout_op_ends_the_pipeline_with_the_same_output() {
    let mut nodes = chain(30);
    let mut reorder = node("ReorderInput", &["img"], &["blocked"]);
    reorder.domain = Some("com.microsoft.nchwc".into());
    let mut conv = node("Conv", &["blocked", "w"], &["conv"]);
    conv.domain = Some("com.microsoft.nchwc".into());
    conv.attribute = vec![AttributeProto {
        name: Some("kernel_shape".into()),
        r#type: Some(7),
        ints: vec![3, 3],
        ..Default::default()
    }];
    nodes.extend([reorder, conv]);
    let mut graph = chain_graph(nodes);
    graph.input.push(typed("img", &["1", "3", "8", "8"]));
    graph.initializer.push(TensorProto {
        name: Some("w".into()),
        dims: vec![8, 8, 3, 3],
        data_type: Some(1),
        raw_data: Some(vec![0; 8 * 8 * 3 * 3 * 4].into()),
        ..Default::default()
    });
    let bytes = encode_importing(graph, Vec::new(), "com.microsoft.nchwc");
    let (off, _) = lint(&bytes, Pipeline::Off);
    assert!(off.contains("\"blocked\""), "{off}");
    let ways = same_both_ways(&bytes, "blocked layout");
    assert!(ways.iter().all(|&pipelined| !pipelined), "{ways:?}");
}
