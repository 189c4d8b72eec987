//! Writes issue 34's two hostile models at the sizes the issue measured them, for
//! `bench/hostile.sh` (`tests/limits.rs` and `tests/max_findings.rs` build them smaller, since
//! the debug build lints them): a million empty nodes (4 MB, one E3 each) and rotations of one
//! rank-1000 shape (about 1,000 nodes, each `Add` a W1 of a thousand clauses), and an `If` whose
//! branches differ in rank beside 100,000 static clashes (settling's runs, which are not capped,
//! built every clash's finding and broke the memory bound in round 3, stop 5; they now keep a
//! 16-byte key per finding, `check/tally.rs`, and `tests/settle_memory.rs` guards that).
//!
//! `cargo run --release --example hostile_models -- DIR`

use std::path::{Path, PathBuf};

use onnx_bcast_lint::proto::{
    tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use prost::Message;

fn model(graph: GraphProto) -> ModelProto {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            ..graph
        }),
        ..Default::default()
    }
}

/// `count` nodes with no op type, each named: what `tests/max_findings.rs` builds at 100,000.
fn empty_nodes(count: usize) -> ModelProto {
    model(GraphProto {
        node: (0..count)
            .map(|i| NodeProto {
                name: Some(format!("empty_{i}")),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    })
}

fn node(op: &str, inputs: &[&str], output: &str) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| (*s).to_owned()).collect(),
        output: vec![output.to_owned()],
        name: Some(format!("n_{output}")),
        ..Default::default()
    }
}

/// `x` of rank `rank` over `d0 ..`, `rotations - 1` Transposes each turning the previous one's
/// axes by one, and an `Add` of every two: `rotations_of_one_shape` of `tests/limits.rs`.
fn rotations_of_one_shape(rank: usize, rotations: usize) -> ModelProto {
    let dims = (0..rank)
        .map(|i| tensor_shape_proto::Dimension {
            value: Some(tensor_shape_proto::dimension::Value::DimParam(format!(
                "d{i}"
            ))),
            ..Default::default()
        })
        .collect();
    let x = ValueInfoProto {
        name: Some("x".into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto { dim: dims }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    };
    let perm: Vec<i64> = (1..rank)
        .chain([0])
        .filter_map(|i| i64::try_from(i).ok())
        .collect();
    let names: Vec<String> = (0..rotations)
        .map(|k| if k == 0 { "x".into() } else { format!("t{k}") })
        .collect();
    let mut nodes: Vec<NodeProto> = names
        .windows(2)
        .filter_map(|pair| {
            let [from, to] = pair else { return None };
            let mut transpose = node("Transpose", &[from], to);
            transpose.attribute = vec![AttributeProto {
                name: Some("perm".into()),
                r#type: Some(7),
                ints: perm.clone(),
                ..Default::default()
            }];
            Some(transpose)
        })
        .collect();
    for (a, left) in names.iter().enumerate() {
        for (b, right) in names.iter().enumerate().skip(a + 1) {
            nodes.push(node("Add", &[left, right], &format!("a{a}_{b}")));
        }
    }
    model(GraphProto {
        node: nodes,
        input: vec![x],
        ..Default::default()
    })
}

/// A value of element type `elem` and static `dims` (no shape when `None`).
fn value(name: &str, elem: i32, dims: Option<&[i64]>) -> ValueInfoProto {
    let shape = dims.map(|dims| TensorShapeProto {
        dim: dims
            .iter()
            .map(|&size| tensor_shape_proto::Dimension {
                value: Some(tensor_shape_proto::dimension::Value::DimValue(size)),
                ..Default::default()
            })
            .collect(),
    });
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `y = If(c)`, its then branch `x` ([2, 8]) and its else branch `x` unsqueezed to rank 3, read
/// by a `Gemm` that needs rank 2; beside it `count` `Add`s of [2] and [3], each an E1.
fn if_beside_clashes(count: usize) -> ModelProto {
    let branch = |name: &str, op: &str, inputs: &[&str]| GraphProto {
        name: Some(name.into()),
        node: vec![node(op, inputs, name)],
        output: vec![value(name, 1, None)],
        ..Default::default()
    };
    let mut if_node = node("If", &["c"], "y");
    if_node.attribute = vec![
        AttributeProto {
            name: Some("then_branch".into()),
            r#type: Some(5),
            g: Some(Box::new(branch("then_x", "Identity", &["x"]))),
            ..Default::default()
        },
        AttributeProto {
            name: Some("else_branch".into()),
            r#type: Some(5),
            g: Some(Box::new(branch("else_x", "Unsqueeze", &["x", "zero"]))),
            ..Default::default()
        },
    ];
    let mut nodes = vec![if_node, node("Gemm", &["y", "w"], "g")];
    let mut outputs = vec![value("g", 1, None)];
    for i in 0..count {
        let out = format!("z{i}");
        nodes.push(node("Add", &["a", "b"], &out));
        outputs.push(value(&out, 1, None));
    }
    model(GraphProto {
        node: nodes,
        input: vec![
            value("c", 9, Some(&[])),
            value("x", 1, Some(&[2, 8])),
            value("a", 1, Some(&[2])),
            value("b", 1, Some(&[3])),
        ],
        output: outputs,
        initializer: vec![
            TensorProto {
                name: Some("w".into()),
                dims: vec![8, 4],
                data_type: Some(1),
                float_data: vec![0.0; 32],
                ..Default::default()
            },
            TensorProto {
                name: Some("zero".into()),
                dims: vec![1],
                data_type: Some(7),
                int64_data: vec![0],
                ..Default::default()
            },
        ],
        ..Default::default()
    })
}

fn write(dir: &Path, name: &str, model: &ModelProto) -> std::io::Result<()> {
    std::fs::write(dir.join(name), model.encode_to_vec())
}

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args_os().nth(1).unwrap_or_else(|| ".".into()));
    std::fs::create_dir_all(&dir)?;
    write(&dir, "empty_nodes_1m.onnx", &empty_nodes(1_000_000))?;
    // 44 Transposes and 990 Adds: the 1,034-node, 175 KB model of issue 34.
    write(
        &dir,
        "rotations_rank_1000.onnx",
        &rotations_of_one_shape(1000, 45),
    )?;
    write(
        &dir,
        "if_beside_clashes_100k.onnx",
        &if_beside_clashes(100_000),
    )?;
    Ok(())
}
