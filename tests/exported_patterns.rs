//! Shape arithmetic that exporters write again and again (issue 38), each as a small graph built
//! here and linted whole: the dims the engine must know after it, and the findings it must not
//! raise. Each graph reproduces the pattern's ops and values, not the exporter's whole model.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use onnx_bcast_lint::proto::{
    attribute_proto, tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use onnx_bcast_lint::{lint_model, LintReport, Options};

const FLOAT: i32 = 1;
const INT64: i32 = 7;

fn node(op: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(format!("{op}_{}", outputs.first().unwrap_or(&""))),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        attribute: attrs,
        ..Default::default()
    }
}

fn int_attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn ints_attr(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}

/// A float graph input whose dims are written as strings: integers static, others symbols.
fn input(name: &str, dims: &[&str]) -> ValueInfoProto {
    use tensor_shape_proto::dimension::Value;
    let dim = |d: &&str| tensor_shape_proto::Dimension {
        value: Some(
            d.parse::<i64>()
                .map_or_else(|_| Value::DimParam((*d).to_string()), Value::DimValue),
        ),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(FLOAT),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn int64s(name: &str, data: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: vec![i64::try_from(data.len()).unwrap()],
        data_type: Some(INT64),
        int64_data: data.to_vec(),
        ..Default::default()
    }
}

fn floats(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(FLOAT),
        float_data: data.to_vec(),
        ..Default::default()
    }
}

fn lint(
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
) -> LintReport {
    let graph = GraphProto {
        name: Some("pattern".into()),
        node: nodes,
        input: inputs,
        initializer: initializers,
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(graph),
        ..Default::default()
    };
    lint_model(model, &Options::default()).unwrap()
}

fn shape(report: &LintReport, name: &str) -> String {
    report.shape(name).expect("the value exists").to_string()
}

fn codes(report: &LintReport) -> Vec<String> {
    report
        .findings()
        .iter()
        .map(|f| f.code.to_string())
        .collect()
}

/// wav2vec2/HuBERT's positional convolution: the hidden states `[batch, 2, samples/5-1]` plus
/// the same convolved, padded by one and sliced back, `[batch, 2, max(samples/5-1, 0)]`. Both
/// are tensors that exist, so `samples/5-1 >= 0` and the sum is `[batch, 2, samples/5-1]`,
/// valid for every input the first `Conv` accepts (the `Conv`'s own `W4` stays).
#[test]
fn size_plus_its_clamp_at_zero_is_the_size() {
    let nodes = vec![
        node(
            "Conv",
            &["x", "w"],
            &["f"],
            vec![ints_attr("kernel_shape", &[10]), ints_attr("strides", &[5])],
        ),
        node("Pad", &["f", "pads"], &["fp"], vec![]),
        node("Slice", &["fp", "st", "en", "axs"], &["q"], vec![]),
        node("Add", &["f", "q"], &["y"], vec![]),
    ];
    let inits = vec![
        floats("w", &[2, 1, 10], &[0.5; 20]),
        int64s("pads", &[0, 0, 0, 0, 0, 1]),
        int64s("st", &[0]),
        int64s("en", &[-1]),
        int64s("axs", &[2]),
    ];
    let report = lint(nodes, vec![input("x", &["batch", "1", "samples"])], inits);
    assert_eq!(shape(&report, "q"), "[batch, 2, max(samples/5-1, 0)]");
    assert_eq!(shape(&report, "y"), "[batch, 2, samples/5-1]");
    assert_eq!(codes(&report), ["W4"], "{:?}", report.findings());
}

/// tf2onnx's transpose optimizer reorders a `Pad`'s pads with `Split` -> `Concat`: the pads
/// `[0, 1, 0, 1]` made from the constant `[0, 0, 1, 1]` widen `[N, 4]` to `[N, 6]`, exactly as
/// the same pads made with `Slice` do.
#[test]
fn pads_reordered_through_split() {
    let split = |st: &str| {
        vec![
            node(
                "Split",
                &["c"],
                &["a", "b", "c2", "d"],
                vec![int_attr("axis", 0), int_attr("num_outputs", 4)],
            ),
            node(
                "Concat",
                &["a", "c2", "b", "d"],
                &[st],
                vec![int_attr("axis", 0)],
            ),
        ]
    };
    let mut nodes = split("pads");
    nodes.push(node("Pad", &["x", "pads"], &["y"], vec![]));
    let report = lint(
        nodes,
        vec![input("x", &["N", "4"])],
        vec![int64s("c", &[0, 0, 1, 1])],
    );
    assert_eq!(shape(&report, "y"), "[N, 6]");
    assert!(codes(&report).is_empty(), "{:?}", report.findings());
}

/// A `Shape`-derived vector tiled carries its elements: `Tile(Shape(y[M]), [2])` is `[M, M]`.
#[test]
fn shape_values_through_tile() {
    let nodes = vec![
        node("Shape", &["y"], &["s"], vec![]),
        node("Tile", &["s", "two"], &["t"], vec![]),
        node("ConstantOfShape", &["t"], &["z"], vec![]),
    ];
    let report = lint(nodes, vec![input("y", &["M"])], vec![int64s("two", &[2])]);
    assert_eq!(shape(&report, "z"), "[M, M]");
}

/// torchvision's detection transform pads to a multiple of 32: `ceil(ReduceMax(Concat(Cast(h),
/// Cast(w))) / 32) * 32 - h`, cast back to int64, as the `Pad` after it reads it.
fn pad_to_32(image: &[&str]) -> LintReport {
    let nodes = vec![
        node("Shape", &["img"], &["sh"], vec![]),
        node("Gather", &["sh", "i2"], &["h"], vec![]),
        node("Gather", &["sh", "i3"], &["w"], vec![]),
        node("Cast", &["h"], &["hf"], vec![int_attr("to", 1)]),
        node("Cast", &["w"], &["wf"], vec![int_attr("to", 1)]),
        node(
            "Concat",
            &["hf", "wf"],
            &["sizes"],
            vec![int_attr("axis", 0)],
        ),
        node(
            "ReduceMax",
            &["sizes"],
            &["largest"],
            vec![int_attr("keepdims", 1)],
        ),
        node("Div", &["largest", "f32"], &["blocks"], vec![]),
        node("Ceil", &["blocks"], &["up"], vec![]),
        node("Cast", &["up"], &["upi"], vec![int_attr("to", 7)]),
        node("Mul", &["upi", "i32"], &["side"], vec![]),
        node("Sub", &["side", "h"], &["extra"], vec![]),
        node(
            "Concat",
            &["zeros6", "extra", "zero1"],
            &["pads"],
            vec![int_attr("axis", 0)],
        ),
        node("Pad", &["img", "pads"], &["padded"], vec![]),
    ];
    let inits = vec![
        int64s("i2", &[2]),
        int64s("i3", &[3]),
        floats("f32", &[], &[32.0]),
        int64s("i32", &[32]),
        int64s("zeros6", &[0, 0, 0, 0, 0, 0]),
        int64s("zero1", &[0]),
    ];
    lint(nodes, vec![input("img", image)], inits)
}

#[test]
fn torchvision_pads_to_a_multiple_of_32() {
    // Static 320x300: the largest side, 320, is a multiple of 32, so the pad is 0 (ORT: [1, 3,
    // 320, 300]); a 70x45 image would be padded to 96 rows.
    let report = pad_to_32(&["1", "3", "320", "300"]);
    assert_eq!(shape(&report, "padded"), "[1, 3, 320, 300]");
    let report = pad_to_32(&["1", "3", "70", "45"]);
    assert_eq!(shape(&report, "padded"), "[1, 3, 96, 45]");
    // Symbolic: the pads hold 32*ceil(max(H, W)/32) - H exactly.
    let report = pad_to_32(&["1", "3", "H", "W"]);
    assert_eq!(
        shape(&report, "padded"),
        "[1, 3, 32*((max(H, W)+31)/32), W]"
    );
    assert!(codes(&report).is_empty(), "{:?}", report.findings());
}

/// A `ViT` exported with dynamic height and width reshapes its position table to a grid whose
/// side is `Cast(Pow(num_positions, 0.5))` of two float constants: 16 positions, side 4.
#[test]
fn vit_grid_side_from_pow_of_constants() {
    let nodes = vec![
        node("Pow", &["npos", "half"], &["root"], vec![]),
        node("Cast", &["root"], &["side"], vec![int_attr("to", 7)]),
        node("Unsqueeze", &["side", "i0"], &["side1"], vec![]),
        node(
            "Concat",
            &["one", "side1", "side1", "m1"],
            &["grid"],
            vec![int_attr("axis", 0)],
        ),
        node("Reshape", &["table", "grid"], &["y"], vec![]),
    ];
    let inits = vec![
        floats("npos", &[], &[16.0]),
        floats("half", &[], &[0.5]),
        int64s("i0", &[0]),
        int64s("one", &[1]),
        int64s("m1", &[-1]),
    ];
    let report = lint(nodes, vec![input("table", &["1", "16", "8"])], inits);
    assert_eq!(shape(&report, "y"), "[1, 4, 4, 8]");
}

/// SDPA exports' `repeat_kv`: `[batch, kv, seq, 8]` unsqueezed, expanded to a target built from
/// `Shape -> Gather -> Concat` with the constant `n_rep`, and reshaped to `kv * n_rep` heads
/// (a `Mul` of shape values). A pin: main already knows these dims.
#[test]
fn repeat_kv_expands_and_merges_heads() {
    let mut nodes = vec![node("Shape", &["x"], &["sh"], vec![])];
    for i in 0..4 {
        let (g, d) = (format!("g{i}"), format!("d{i}"));
        nodes.push(node("Gather", &["sh", &g], &[&d], vec![]));
    }
    nodes.extend([
        node("Unsqueeze", &["x", "ax2"], &["xu"], vec![]),
        node(
            "Concat",
            &["d0", "d1", "nrep", "d2", "d3"],
            &["target"],
            vec![int_attr("axis", 0)],
        ),
        node("Expand", &["xu", "target"], &["xe"], vec![]),
        node("Mul", &["d1", "nrep"], &["heads"], vec![]),
        node(
            "Concat",
            &["d0", "heads", "d2", "d3"],
            &["merged"],
            vec![int_attr("axis", 0)],
        ),
        node("Reshape", &["xe", "merged"], &["y"], vec![]),
    ]);
    let mut inits: Vec<TensorProto> = (0..4).map(|i| int64s(&format!("g{i}"), &[i])).collect();
    inits.extend([int64s("ax2", &[2]), int64s("nrep", &[3])]);
    let report = lint(nodes, vec![input("x", &["batch", "kv", "seq", "8"])], inits);
    assert_eq!(shape(&report, "xe"), "[batch, kv, 3, seq, 8]");
    assert_eq!(shape(&report, "y"), "[batch, 3*kv, seq, 8]");
    assert!(codes(&report).is_empty(), "{:?}", report.findings());
}

/// `x.view(-1, n, 2)` on an `[n, 3]` tensor: the `-1` would be 3n / 2n, never a whole number
/// for a non-empty input (onnxruntime: "cannot be reshaped to the requested shape" at n = 2
/// and n = 4), so an error at the `Reshape`. And a `TopK` whose k is another input's dim `m`
/// over an axis of `n`: a warning that reads as a person writes it, `m ≤ n`.
#[test]
fn minus_one_beside_a_symbolic_dim_and_top_k_between_two_symbols() {
    let nodes = vec![
        node("Shape", &["x"], &["sh"], vec![]),
        node("Gather", &["sh", "g0"], &["n"], vec![]),
        node(
            "Concat",
            &["minus", "n", "two"],
            &["target"],
            vec![int_attr("axis", 0)],
        ),
        node("Reshape", &["x", "target"], &["y"], vec![]),
        node("Shape", &["k_of"], &["shk"], vec![]),
        node("Gather", &["shk", "g0"], &["m"], vec![]),
        node(
            "TopK",
            &["x", "m"],
            &["values", "indices"],
            vec![int_attr("axis", 0)],
        ),
    ];
    let inits = vec![
        int64s("g0", &[0]),
        int64s("minus", &[-1]),
        int64s("two", &[2]),
    ];
    let report = lint(
        nodes,
        vec![input("x", &["n", "3"]), input("k_of", &["m"])],
        inits,
    );
    assert_eq!(codes(&report), ["E4", "W4"], "{:?}", report.findings());
    let [reshape, top_k] = report.findings() else {
        panic!("two findings");
    };
    assert!(
        reshape.message.contains("Reshape") && reshape.message.contains("every non-empty input"),
        "{}",
        reshape.message
    );
    assert!(
        top_k.message.contains("TopK") && top_k.message.ends_with("holds only if m ≤ n"),
        "{}",
        top_k.message
    );
}
