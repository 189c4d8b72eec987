//! Resource limits: each one gives a clean error or a bounded result, through `lint_bytes` (wire
//! pre-scan), `lint_model` (no pre-scan) and `lint_path_timed` alike, and no case may materialise a tensor the model
//! only describes (`Range` of 10^12 elements, `ConstantOfShape` of 2^40).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stderr
)]

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use onnx_bcast_lint::proto::{
    tensor_shape_proto, type_proto, AttributeProto, FunctionProto, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use onnx_bcast_lint::{
    lint_bytes, lint_model, lint_path_timed, Limits, LintReport, LoadError, Options,
};
use onnx_bcast_lint::{Dim, Shape};
use prost::Message;

/// A hang detector, not a speed test: the models here are linted in well under a second by a
/// release build, and an unbounded walk would never end. Ten times the slowest entry point of
/// this file measured in the debug build on a loaded 2-core machine (17 s at load 14, with every
/// test of the file in parallel beside two other builds; issue 31), so that no load CI meets
/// makes it fail, while a walk that does not end still does. `LIMITS_TRACE=1` prints each time.
const BOUND: Duration = Duration::from_secs(180);

fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(format!("{op}_{}", outputs.first().unwrap_or(&""))),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        ..Default::default()
    }
}

fn dim(value: tensor_shape_proto::dimension::Value) -> tensor_shape_proto::Dimension {
    tensor_shape_proto::Dimension {
        value: Some(value),
        ..Default::default()
    }
}

fn input(name: &str, elem: i32, dims: Vec<tensor_shape_proto::Dimension>) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape: Some(TensorShapeProto { dim: dims }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn static_input(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    input(
        name,
        elem,
        dims.iter()
            .map(|&d| dim(tensor_shape_proto::dimension::Value::DimValue(d)))
            .collect(),
    )
}

fn int64s(name: &str, dims: Vec<i64>, data: Vec<i64>) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims,
        data_type: Some(7),
        int64_data: data,
        ..Default::default()
    }
}

fn model(graph: GraphProto) -> ModelProto {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(graph),
        ..Default::default()
    }
}

/// The model through every entry point that takes limits: `lint_bytes` (wire pre-scan),
/// `lint_model` (no pre-scan) and `lint_path_timed` (the command's, from a file).
fn every_entry(model: &ModelProto, options: &Options) -> [Result<LintReport, LoadError>; 3] {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let encoded = model.encode_to_vec();
    let file = std::env::temp_dir().join(format!(
        "onnx-bcast-lint-limits-{}-{}.onnx",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&file, &encoded).unwrap();
    keep_for_the_bench(&encoded);
    let outcomes = [
        within_bound(|| lint_bytes(Bytes::from(encoded), Path::new("limits.onnx"), options)),
        within_bound(|| lint_model(model.clone(), options)),
        within_bound(|| lint_path_timed(&file, options).0),
    ];
    std::fs::remove_file(&file).unwrap();
    outcomes
}

/// `report`'s findings apart from its I2s, and the limit each I2 names, once per node it was
/// reached at (an I2 lists its nodes and counts them): the caps these models reach are
/// reported (`tests/cap_reached.rs`), beside the findings they bound.
fn beside_caps(report: &LintReport) -> (Vec<&onnx_bcast_lint::Finding>, Vec<String>) {
    let (caps, others): (Vec<_>, Vec<_>) = report
        .findings()
        .iter()
        .partition(|f| f.code == onnx_bcast_lint::Code::I2);
    let limits = caps
        .iter()
        .flat_map(|f| match &f.facts {
            onnx_bcast_lint::diag::Facts::CapReached { limit, count, .. } => {
                vec![limit.clone(); (*count).max(1)]
            }
            facts => panic!("I2 with {facts:?}"),
        })
        .collect();
    (others, limits)
}

/// With `LIMITS_WRITE_DIR` set, writes each model a test lints there as `<test>.<n>.onnx`, so
/// that `bench/hostile.sh` times the command on every hostile model of this file exactly as the
/// tests build it (multi-MB models are not committed).
fn keep_for_the_bench(encoded: &[u8]) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let Some(dir) = std::env::var_os("LIMITS_WRITE_DIR") else {
        return;
    };
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("unnamed").replace("::", "-");
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::fs::write(Path::new(&dir).join(format!("{test}.{n}.onnx")), encoded).unwrap();
}

/// Runs one entry point, failing when it takes longer than [`BOUND`].
fn within_bound<T>(entry: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let outcome = entry();
    let elapsed = start.elapsed();
    assert!(elapsed <= BOUND, "took {elapsed:?}");
    if std::env::var_os("LIMITS_TRACE").is_some() {
        eprintln!(
            "{:>8} ms {}",
            elapsed.as_millis(),
            std::thread::current().name().unwrap_or("?")
        );
    }
    outcome
}

fn limit_error(outcome: &Result<LintReport, LoadError>, what: &str) {
    match outcome {
        Err(error @ LoadError::Limit { what: w, .. }) => {
            assert_eq!(error.code(), "load/limit");
            assert!(w.contains(what), "{what} expected, got {error}");
        }
        Err(error) => panic!("load/limit ({what}) expected, got {error}"),
        Ok(_) => panic!("load/limit ({what}) expected, got a report"),
    }
}

fn nested_ifs(depth: usize) -> ModelProto {
    let mut graph = GraphProto {
        node: vec![node("Identity", &["x"], &["y"])],
        output: vec![static_input("y", 1, &[1])],
        ..Default::default()
    };
    for _ in 0..depth {
        let mut if_node = node("If", &["cond"], &["y"]);
        for branch in ["then_branch", "else_branch"] {
            if_node.attribute.push(AttributeProto {
                name: Some(branch.into()),
                r#type: Some(5),
                g: Some(Box::new(graph.clone())),
                ..Default::default()
            });
        }
        graph = GraphProto {
            node: vec![if_node],
            output: vec![static_input("y", 1, &[1])],
            ..Default::default()
        };
    }
    graph.input = vec![static_input("cond", 9, &[]), static_input("x", 1, &[1])];
    model(graph)
}

#[test]
fn subgraph_nesting_beyond_the_limit_is_a_limit_error() {
    let options = Options::new().with_limits(Limits::default().with_max_depth(12));
    // Two branches per level: keep the tree small.
    let deep = nested_ifs(13);
    for outcome in every_entry(&deep, &options) {
        limit_error(&outcome, "depth");
    }
    let shallow = nested_ifs(2);
    for outcome in every_entry(&shallow, &options) {
        assert!(outcome.is_ok());
    }
}

#[test]
fn node_count_beyond_the_limit_is_a_limit_error() {
    let options = Options::new().with_limits(Limits::default().with_max_nodes(10));
    let mut graph = GraphProto {
        input: vec![static_input("v0", 1, &[2])],
        ..Default::default()
    };
    for i in 0..11 {
        graph
            .node
            .push(node("Relu", &[&format!("v{i}")], &[&format!("v{}", i + 1)]));
    }
    for outcome in every_entry(&model(graph.clone()), &options) {
        limit_error(&outcome, "node count");
    }
    graph.node.pop();
    for outcome in every_entry(&model(graph), &options) {
        assert!(outcome.is_ok());
    }
}

#[test]
fn declared_rank_beyond_the_limit_is_a_limit_error() {
    let options = Options::new().with_limits(Limits::default().with_max_rank(8));
    let graph = GraphProto {
        node: vec![node("Relu", &["x"], &["y"])],
        input: vec![static_input("x", 1, &[1; 9])],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &options) {
        limit_error(&outcome, "rank");
    }
}

#[test]
fn initializer_rank_beyond_the_limit_is_a_limit_error() {
    let options = Options::new().with_limits(Limits::default().with_max_rank(8));
    let graph = GraphProto {
        node: vec![node("Relu", &["w"], &["y"])],
        initializer: vec![int64s("w", vec![1; 9], vec![0])],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &options) {
        limit_error(&outcome, "rank");
    }
}

/// `Reshape` to a computed target of 100 ones: a rank the data allows but the limit does not.
#[test]
fn inferred_rank_beyond_the_limit_becomes_unknown() {
    let options = Options::new().with_limits(Limits::default().with_max_rank(64));
    let graph = GraphProto {
        node: vec![
            node("ConstantOfShape", &["len"], &["ones"]),
            node("Reshape", &["x", "ones"], &["y"]),
        ],
        input: vec![static_input("x", 1, &[1])],
        initializer: vec![int64s("len", vec![1], vec![100])],
        ..Default::default()
    };
    let mut graph = graph;
    graph.node[0].attribute.push(AttributeProto {
        name: Some("value".into()),
        r#type: Some(4),
        t: Some(Box::new(int64s("", vec![1], vec![1]))),
        ..Default::default()
    });
    for outcome in every_entry(&model(graph), &options) {
        let report = outcome.unwrap();
        let rank = report.shape("y").and_then(Shape::rank);
        assert!(rank.is_none_or(|r| r <= 64), "rank {rank:?}");
    }
}

#[test]
fn range_of_ten_to_the_twelve_is_not_materialised() {
    let graph = GraphProto {
        node: vec![node("Range", &["start", "limit", "delta"], &["r"])],
        initializer: vec![
            int64s("start", vec![], vec![0]),
            int64s("limit", vec![], vec![1_000_000_000_000]),
            int64s("delta", vec![], vec![1]),
        ],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &Options::new()) {
        let report = outcome.unwrap();
        assert_eq!(
            report.shape("r"),
            Some(&Shape::Ranked(vec![Dim::known(1_000_000_000_000)]))
        );
    }
}

#[test]
fn constant_of_shape_two_to_the_forty_is_not_materialised() {
    let mut fill = node("ConstantOfShape", &["shape"], &["c"]);
    fill.attribute.push(AttributeProto {
        name: Some("value".into()),
        r#type: Some(4),
        t: Some(Box::new(int64s("", vec![1], vec![7]))),
        ..Default::default()
    });
    let graph = GraphProto {
        node: vec![fill],
        initializer: vec![int64s("shape", vec![2], vec![1 << 20, 1 << 20])],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &Options::new()) {
        let report = outcome.unwrap();
        assert_eq!(
            report.shape("c"),
            Some(&Shape::Ranked(vec![
                Dim::known(1 << 20),
                Dim::known(1 << 20)
            ]))
        );
    }
}

/// The shape input of `ConstantOfShape` is declared `[2^40]` with unknown elements: the output's
/// rank would be 2^40, which must not be allocated as 2^40 unknown dims.
#[test]
fn constant_of_shape_with_a_declared_length_of_two_to_the_forty_is_bounded() {
    let graph = GraphProto {
        node: vec![node("ConstantOfShape", &["shape"], &["c"])],
        input: vec![static_input("shape", 7, &[1 << 40])],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &Options::new()) {
        let report = outcome.unwrap();
        assert_eq!(report.shape("c"), Some(&Shape::Unranked));
    }
}

/// `Tile` by repeats of 2^40 on a Shape-derived value must not build the tiled value.
#[test]
fn tile_and_expand_of_huge_values_are_not_materialised() {
    let graph = GraphProto {
        node: vec![
            node("Shape", &["x"], &["s"]),
            node("Tile", &["s", "reps"], &["t"]),
            node("Expand", &["s", "big"], &["e"]),
        ],
        input: vec![static_input("x", 1, &[2, 3, 4])],
        initializer: vec![
            int64s("reps", vec![1], vec![1 << 40]),
            int64s("big", vec![2], vec![1 << 30, 3]),
        ],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &Options::new()) {
        let report = outcome.unwrap();
        assert_eq!(
            report.shape("t"),
            Some(&Shape::Ranked(vec![Dim::known(3 << 40)]))
        );
    }
}

/// A `dim_param` expression far beyond the algebra's size bound stays a bounded result.
#[test]
fn huge_symbolic_expressions_stay_bounded() {
    let long_sum = (0..20_000)
        .map(|i| format!("s{i}"))
        .collect::<Vec<_>>()
        .join("+");
    let long_product = (0..20_000)
        .map(|i| format!("p{i}"))
        .collect::<Vec<_>>()
        .join("*");
    let deep = format!("{}n{}", "(".repeat(50_000), ")".repeat(50_000));
    let graph = GraphProto {
        node: vec![
            node("Add", &["a", "b"], &["ab"]),
            node("Mul", &["ab", "c"], &["abc"]),
        ],
        input: vec![
            input(
                "a",
                1,
                vec![dim(tensor_shape_proto::dimension::Value::DimParam(
                    long_sum,
                ))],
            ),
            input(
                "b",
                1,
                vec![dim(tensor_shape_proto::dimension::Value::DimParam(
                    long_product,
                ))],
            ),
            input(
                "c",
                1,
                vec![dim(tensor_shape_proto::dimension::Value::DimParam(deep))],
            ),
        ],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &Options::new()) {
        outcome.unwrap();
    }
}

/// Repeated doubling of a symbolic shape value: expressions must hit the size bound and become
/// unknown rather than grow without end.
#[test]
fn expressions_grown_by_a_chain_of_nodes_stay_bounded() {
    let mut graph = GraphProto {
        input: vec![input(
            "x",
            1,
            vec![
                dim(tensor_shape_proto::dimension::Value::DimParam("a".into())),
                dim(tensor_shape_proto::dimension::Value::DimParam("b".into())),
            ],
        )],
        node: vec![node("Shape", &["x"], &["s0"])],
        ..Default::default()
    };
    for i in 0..2000 {
        let (prev, next) = (format!("s{i}"), format!("s{}", i + 1));
        let op = if i % 2 == 0 { "Mul" } else { "Add" };
        graph.node.push(node(op, &[&prev, &prev], &[&next]));
    }
    graph
        .node
        .push(node("ConstantOfShape", &["s2000"], &["out"]));
    for outcome in every_entry(&model(graph), &Options::new()) {
        outcome.unwrap();
    }
}

/// One node reading the same 4096-element shape value 20,000 times: facts must not be copied
/// per input slot (memory proportional to the input, not input x value size).
#[test]
fn a_node_with_many_inputs_of_a_large_value_stays_bounded() {
    let names: Vec<String> = std::iter::repeat_n("big".to_owned(), 20_000).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut fill = node("ConstantOfShape", &["len"], &["big"]);
    fill.attribute.push(AttributeProto {
        name: Some("value".into()),
        r#type: Some(4),
        t: Some(Box::new(int64s("", vec![1], vec![1]))),
        ..Default::default()
    });
    let graph = GraphProto {
        node: vec![fill, node("Sum", &refs, &["total"])],
        initializer: vec![int64s("len", vec![1], vec![4096])],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &Options::new()) {
        outcome.unwrap();
    }
}

/// Regression (hostile mutation "every dim 2^62" of `e1_reshape_upstream.onnx`): `Reshape` whose
/// shape input has unknown elements but a declared length of 2^62 took that length as the output
/// rank and aborted allocating 2^62 unknown dims.
#[test]
fn reshape_to_a_declared_length_of_two_to_the_sixty_two_is_bounded() {
    let graph = GraphProto {
        node: vec![node("Reshape", &["x", "shape"], &["y"])],
        input: vec![
            static_input("x", 1, &[2, 3]),
            static_input("shape", 7, &[1 << 62]),
        ],
        ..Default::default()
    };
    for outcome in every_entry(&model(graph), &Options::new()) {
        let report = outcome.unwrap();
        assert_eq!(report.shape("y"), Some(&Shape::Unranked));
    }
}

/// A function whose body calls `callee` `fanout` times in a chain.
fn caller(name: &str, callee: &str, fanout: usize) -> FunctionProto {
    let mut body = Vec::new();
    for i in 0..fanout {
        let (from, to) = (format!("t{i}"), format!("t{}", i + 1));
        let mut call = node(callee, &[&from], &[&to]);
        call.domain = Some("local".into());
        body.push(call);
    }
    FunctionProto {
        name: Some(name.into()),
        domain: Some("local".into()),
        input: vec!["t0".into()],
        output: vec![format!("t{fanout}")],
        node: body,
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        ..Default::default()
    }
}

/// Functions calling functions: `F10` calls `F9` ten times, ..., `F1` calls `Relu`-like `F0`.
/// Inferring every call site separately is 10^10 body runs for a file of a few kilobytes; the
/// work must stay proportional to the file.
#[test]
fn nested_function_calls_do_not_blow_up_exponentially() {
    let mut functions = vec![caller("F0", "Relu", 1)];
    if let Some(relu) = functions[0].node.first_mut() {
        relu.domain = None;
    }
    for level in 1..=10 {
        functions.push(caller(&format!("F{level}"), &format!("F{}", level - 1), 10));
    }
    let mut call = node("F10", &["x"], &["y"]);
    call.domain = Some("local".into());
    let mut model = model(GraphProto {
        node: vec![call],
        input: vec![static_input("x", 1, &[2, 3])],
        ..Default::default()
    });
    model.functions = functions;
    model.opset_import.push(OperatorSetIdProto {
        domain: Some("local".into()),
        version: Some(1),
    });
    for outcome in every_entry(&model, &Options::new()) {
        outcome.unwrap();
    }
}

/// A function that calls itself twice: recursion is cut at a depth, but without a bound on the
/// total, 2^depth calls would still run.
#[test]
fn recursive_functions_do_not_blow_up_exponentially() {
    let mut model = model(GraphProto {
        node: vec![{
            let mut call = node("F", &["x"], &["y"]);
            call.domain = Some("local".into());
            call
        }],
        input: vec![static_input("x", 1, &[2, 3])],
        ..Default::default()
    });
    model.functions = vec![caller("F", "F", 2)];
    for outcome in every_entry(&model, &Options::new()) {
        outcome.unwrap();
    }
}

/// A float input whose dims are the symbols `dims`.
fn symbolic_input(name: &str, dims: &[String]) -> ValueInfoProto {
    let dims = dims
        .iter()
        .map(|d| dim(tensor_shape_proto::dimension::Value::DimParam(d.clone())))
        .collect();
    input(name, 1, dims)
}

/// `count` nodes `n{i}`: `z{i} = Add(x, y)`.
fn adds_of_x_and_y(count: usize) -> Vec<NodeProto> {
    (0..count)
        .map(|i| {
            let mut add = node("Add", &["x", "y"], &[&format!("z{i}")]);
            add.name = Some(format!("n{i}"));
            add
        })
        .collect()
}

/// One condition met at 2,000 nodes is one W1 at the first, whose help names the first 64
/// (`finding-nodes`) of the 1,999 others in node order and counts the rest. Its help was rendered again at each of them, which was quadratic (100k such
/// nodes, a 3 MB file, ran past two minutes).
#[test]
fn one_condition_at_many_nodes_is_one_finding_naming_the_others_in_order() {
    let model = model(GraphProto {
        node: adds_of_x_and_y(2000),
        input: vec![
            symbolic_input("x", &["a".into(), "b".into()]),
            symbolic_input("y", &["c".into()]),
        ],
        ..Default::default()
    });
    for outcome in every_entry(&model, &Options::new()) {
        let report = outcome.unwrap();
        let conditional: Vec<_> = report
            .findings()
            .iter()
            .filter(|finding| finding.code == onnx_bcast_lint::Code::W1)
            .collect();
        assert_eq!(conditional.len(), 1);
        let help = conditional[0].help.as_deref().unwrap();
        let named: Vec<&str> = help
            .split("; the same condition is needed at ")
            .skip(1)
            .collect();
        // The first `finding-nodes` (64) in order, the others counted.
        let mut expected: Vec<String> = (1..=64).map(|i| format!("Add `n{i}`")).collect();
        expected.push(format!("… and {} more nodes", 1999 - 64));
        assert_eq!(named, expected);
    }
}

/// `broadcast-work`: a run states conditions for at most 16,384 axes where different symbolic
/// sizes meet; past it a broadcast states none and one I2 names the nodes. Each `Add` of
/// `[a0..a6]` and `[3; 7]` is seven such axes (below 8 symbolic sizes no outcome is kept, so
/// every node takes its own): the first 2,340 nodes share one W1, the 2,341st runs out midway
/// and the 10 after it find nothing left. The full-size case, rotations of one rank-1000 shape
/// (990 `Add`s, 36 s and 1.5 GB before), is `bench/hostile.sh`'s.
#[test]
fn symbolic_broadcasts_past_the_allowance_state_no_condition_and_say_so() {
    let symbols = |prefix: &str| (0..7).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>();
    let model = model(GraphProto {
        node: adds_of_x_and_y(2_351),
        input: vec![
            symbolic_input("x", &symbols("a")),
            static_input("y", 1, &[3; 7]),
        ],
        ..Default::default()
    });
    for outcome in every_entry(&model, &Options::new()) {
        let report = outcome.unwrap();
        let (findings, caps) = beside_caps(&report);
        assert_eq!(caps, vec!["broadcast-work".to_string(); 11]);
        let [w1] = &findings[..] else {
            panic!("{findings:?}");
        };
        assert_eq!(w1.code, onnx_bcast_lint::Code::W1);
        let help = w1.help.as_deref().unwrap();
        // The first `finding-nodes` (64) named, the others counted.
        let also = help.split("; the same condition is needed at ").count() - 1;
        assert_eq!(also, 64 + 1);
        let more = format!("needed at … and {} more nodes", 16_384 / 7 - 1 - 64);
        assert!(help.ends_with(&more), "{help}");
        let i2 = report
            .findings()
            .iter()
            .find(|f| f.code == onnx_bcast_lint::Code::I2)
            .unwrap();
        assert!(
            i2.message.contains("at 11 nodes (`n2340`, `n2341`"),
            "{}",
            i2.message
        );
    }
}

/// Nodes over the same two wide inputs whose axes pair distinct symbols: each node's broadcast
/// states a condition of 300 clauses, the same at every node. Recomputed, solved and written
/// out at each node, 1,000 `MatMul`s of this form in a 57 KB file took 47 s and 2.2 GB (issue
/// 19 hunt); the outcome is now worked out once and the nodes share it.
#[test]
fn many_nodes_over_the_same_wide_symbolic_inputs_share_one_outcome() {
    let symbols = |prefix: &str| (0..300).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>();
    let model = model(GraphProto {
        node: adds_of_x_and_y(400),
        input: vec![
            symbolic_input("x", &symbols("a")),
            symbolic_input("y", &symbols("b")),
        ],
        ..Default::default()
    });
    for outcome in every_entry(&model, &Options::new()) {
        let report = outcome.unwrap();
        // Each Add's condition (900 atoms) is past `condition-work`: one I2 naming all 400.
        let (findings, caps) = beside_caps(&report);
        assert_eq!(caps, vec!["condition-work"; 400]);
        let [finding] = findings[..] else {
            panic!("one finding expected, got {}", findings.len());
        };
        assert_eq!(finding.code, onnx_bcast_lint::Code::W1);
        assert!(finding.message.contains("(b0 = a0 ∨ a0 = 1 ∨ b0 = 1)"));
        // Stated up to `condition-clauses` (64), the rest counted.
        assert!(
            finding.message.contains(" ∧ … and 236 more clauses"),
            "{}",
            finding.message
        );
        assert!(!finding.message.contains("b299"), "{}", finding.message);
        let help = finding.help.as_deref().unwrap();
        // The first `finding-nodes` (64) of the other 399 named, the rest counted.
        assert_eq!(help.matches("Add `n").count(), 64, "{help}");
        assert!(help.ends_with("… and 335 more nodes"), "{help}");
    }
}

/// Nodes whose sizes are non-linear in their symbols, each over symbols of its own: no bounded
/// search can prove such a condition false, and the one run for a witness (4,096 tries, each
/// evaluating polynomials of dozens of terms) took 18 ms a node (here 34 s in all in a debug
/// build), so a 1 MB file ran for minutes
/// and a 5 KB function called 10,000 times for hours (issue 19 hunt). It is no longer run.
#[test]
fn non_linear_conditions_at_many_nodes_are_bounded() {
    let mut inputs = Vec::new();
    let nodes = (0..1000)
        .map(|i| {
            inputs.push(symbolic_input(
                &format!("x{i}"),
                &[format!("(a{i}+b{i}+c{i})**3+5")],
            ));
            inputs.push(symbolic_input(&format!("y{i}"), &[format!("g{i}*h{i}+7")]));
            node(
                "Add",
                &[&format!("x{i}"), &format!("y{i}")],
                &[&format!("z{i}")],
            )
        })
        .collect();
    let model = model(GraphProto {
        node: nodes,
        input: inputs,
        ..Default::default()
    });
    for outcome in every_entry(&model, &Options::new()) {
        let report = outcome.unwrap();
        let codes: Vec<_> = report.findings().iter().map(|f| f.code).collect();
        assert_eq!(codes, vec![onnx_bcast_lint::Code::W1; 1000]);
    }
}

/// A function whose body concatenates 600 copies of its rank-300 input and calls itself twice:
/// each run is one node and a few values to the static cost of the body, but 180,000 dims of
/// work. Charged only its static cost, the recursion ran thousands of times (an 8 KB file of
/// this form ran for minutes); each run is now charged its input dims.
#[test]
fn recursion_over_a_wide_node_of_high_rank_is_bounded() {
    let symbolic = input(
        "x",
        1,
        (0..300)
            .map(|i| {
                dim(tensor_shape_proto::dimension::Value::DimParam(format!(
                    "d{i}"
                )))
            })
            .collect(),
    );
    let mut function = caller("F", "F", 2);
    let copies = vec!["t0"; 600];
    let mut concat = node("Concat", &copies, &["wide"]);
    concat.attribute.push(AttributeProto {
        name: Some("axis".into()),
        r#type: Some(2),
        i: Some(0),
        ..Default::default()
    });
    function.node.insert(0, concat);
    let mut call = node("F", &["x"], &["y"]);
    call.domain = Some("local".into());
    let mut model = model(GraphProto {
        node: vec![call],
        input: vec![symbolic],
        ..Default::default()
    });
    model.functions = vec![function];
    model.opset_import.push(OperatorSetIdProto {
        domain: Some("local".into()),
        version: Some(1),
    });
    for outcome in every_entry(&model, &Options::new()) {
        outcome.unwrap();
    }
}

/// Regression (structured fuzzer, a 4 s unit in release): a function whose body holds an `If`
/// whose branches call the function again, every value declared with rank-5 symbolic shapes.
/// Each of the thousands of body runs the budget allowed re-parsed every declared dim, which the
/// budget did not count.
#[test]
fn recursion_through_if_branches_with_declared_symbolic_shapes_is_bounded() {
    let symbolic = |name: &str| {
        input(
            name,
            1,
            ["batch % 3", "(seq+1)/2", "2*batch", "n*m", "min(n, m)"]
                .iter()
                .map(|p| dim(tensor_shape_proto::dimension::Value::DimParam((*p).into())))
                .collect(),
        )
    };
    let branch = |out: &str| {
        let mut call = node("F", &["t0"], &[out]);
        call.domain = Some("local".into());
        GraphProto {
            node: vec![call],
            output: vec![symbolic(out)],
            value_info: (0..20).map(|i| symbolic(&format!("pad{i}"))).collect(),
            ..Default::default()
        }
    };
    let mut if_node = node("If", &["c"], &["t1"]);
    for (name, out) in [("then_branch", "a"), ("else_branch", "b")] {
        if_node.attribute.push(AttributeProto {
            name: Some(name.into()),
            r#type: Some(5),
            g: Some(Box::new(branch(out))),
            ..Default::default()
        });
    }
    let mut function = caller("F", "Relu", 0);
    function.node = vec![node("Identity", &["t0"], &["c"]), if_node];
    function.output = vec!["t1".into()];
    let mut call = node("F", &["x"], &["y"]);
    call.domain = Some("local".into());
    let mut model = model(GraphProto {
        node: vec![call],
        input: vec![symbolic("x")],
        ..Default::default()
    });
    model.functions = vec![function];
    for outcome in every_entry(&model, &Options::new()) {
        outcome.unwrap();
    }
}

/// A chain of 100,000 nodes, each reading the previous one, linted on a thread with a 256 KiB
/// stack: nothing may recurse once per node of the longest path (petgraph's recursive Tarjan
/// SCC did, and the 1M-node benchmark model overflowed a rayon worker's stack with `-j 1`).
#[test]
fn a_deep_chain_of_nodes_needs_no_deep_stack() {
    const DEPTH: usize = 100_000;
    let mut graph = GraphProto {
        input: vec![static_input("v0", 1, &[2, 3])],
        output: vec![static_input(&format!("v{DEPTH}"), 1, &[2, 3])],
        ..Default::default()
    };
    for i in 0..DEPTH {
        let (prev, next) = (format!("v{i}"), format!("v{}", i + 1));
        graph.node.push(node("Relu", &[&prev], &[&next]));
    }
    let model = model(graph);
    keep_for_the_bench(&model.encode_to_vec());
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let bytes = Bytes::from(model.encode_to_vec());
            let report = lint_bytes(bytes, Path::new("chain.onnx"), &Options::new()).unwrap();
            let last = format!("v{DEPTH}");
            report.shape(&last).map(ToString::to_string)
        })
        .unwrap();
    assert_eq!(worker.join().unwrap().as_deref(), Some("[2, 3]"));
}

/// W1 conditions are combined per group of nodes sharing symbols: `a` is forced to 1 by two
/// nodes together, while 500 nodes on their own symbols `b0..b499` each keep their own W1 (one
/// global conjunction made this quadratic in the number of conditional nodes).
#[test]
fn conditions_are_combined_within_groups_of_shared_symbols() {
    use onnx_bcast_lint::Code;
    const INDEPENDENT: usize = 500;
    let sym = |name: &str| dim(tensor_shape_proto::dimension::Value::DimParam(name.into()));
    let mut graph = GraphProto {
        input: vec![input("a", 1, vec![sym("a")])],
        initializer: vec![
            TensorProto {
                name: Some("c3".into()),
                data_type: Some(1),
                dims: vec![3],
                float_data: vec![0.0; 3],
                ..Default::default()
            },
            TensorProto {
                name: Some("c4".into()),
                data_type: Some(1),
                dims: vec![4],
                float_data: vec![0.0; 4],
                ..Default::default()
            },
        ],
        node: vec![
            node("Add", &["a", "c3"], &["a3"]),
            node("Add", &["a", "c4"], &["a4"]),
        ],
        ..Default::default()
    };
    for i in 0..INDEPENDENT {
        graph
            .input
            .push(input(&format!("b{i}"), 1, vec![sym(&format!("b{i}"))]));
        graph
            .node
            .push(node("Add", &[&format!("b{i}"), "c3"], &[&format!("y{i}")]));
    }
    for outcome in every_entry(&model(graph), &Options::new()) {
        let report = outcome.unwrap();
        let w1: Vec<&str> = report
            .findings()
            .iter()
            .filter(|f| f.code == Code::W1)
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(w1.len(), 1 + INDEPENDENT, "{w1:?}");
        assert!(w1.iter().any(|m| m.starts_with("a must be 1")), "{w1:?}");
        assert!(w1.iter().any(|m| m.contains("b499 ∈ {1, 3}")), "{w1:?}");
    }
}

/// The value budget pays for elements rules read, not for weights handed to them: a float
/// weight shared by thousands of nodes that never read it (an ALBERT-like model) spent the
/// budget on every hand-over, and the shapes computed from values after it were lost
/// (issue 19: the 10k-node benchmark had 1,784 unknown dims, the 1M-node one 2.1 million).
#[test]
fn a_shared_weight_no_rule_reads_does_not_spend_the_value_budget() {
    // 1,200 Adds of one [4096] float weight: 4.9M elements handed over, the budget is 4M.
    let adds = 1_200;
    let mut nodes = Vec::new();
    let mut previous = "x".to_string();
    for i in 0..adds {
        let out = format!("a{i}");
        nodes.push(node("Add", &[&previous, "w"], &[&out]));
        previous = out;
    }
    // Then a target computed from values: Reshape to [Shape(x)[0], -1].
    let axis_0 = |op: &str, inputs: &[&str], outputs: &[&str]| NodeProto {
        attribute: vec![AttributeProto {
            name: Some("axis".into()),
            i: Some(0),
            r#type: Some(2),
            ..Default::default()
        }],
        ..node(op, inputs, outputs)
    };
    nodes.push(node("Shape", &[&previous], &["shape"]));
    nodes.push(axis_0("Gather", &["shape", "zero"], &["rows"]));
    nodes.push(axis_0("Concat", &["rows", "minus_one"], &["target"]));
    nodes.push(node("Reshape", &[&previous, "target"], &["y"]));
    let graph = GraphProto {
        node: nodes,
        name: Some("shared_weight".into()),
        input: vec![input(
            "x",
            1,
            vec![
                dim(tensor_shape_proto::dimension::Value::DimParam("n".into())),
                dim(tensor_shape_proto::dimension::Value::DimValue(4096)),
            ],
        )],
        output: vec![ValueInfoProto {
            name: Some("y".into()),
            ..Default::default()
        }],
        initializer: vec![
            TensorProto {
                name: Some("w".into()),
                dims: vec![4096],
                data_type: Some(1),
                float_data: vec![0.5; 4096],
                ..Default::default()
            },
            int64s("zero", vec![1], vec![0]),
            int64s("minus_one", vec![1], vec![-1]),
        ],
        ..Default::default()
    };
    let model = model(graph);
    for outcome in every_entry(&model, &Options::new()) {
        let report = outcome.unwrap();
        let y = report.shape("y").unwrap().to_string();
        assert_eq!(y, "[n, 4096]", "the Reshape target's values were lost");
    }
}

/// A `Sum` of 400 inputs whose one dim is each its own symbol: stating that every pair agree
/// made 79,800 clauses, built by copying the condition at each (a 7 KB file of 240 inputs took
/// 26 s in release). With one size that is never 1 (`h+2`), the same condition is stated in 399
/// clauses, each symbol against it; with none, the axis is left to the run-time check.
#[test]
fn a_variadic_operator_of_many_symbolic_dims_states_a_bounded_condition() {
    let count = 400;
    let names: Vec<String> = (0..count).map(|i| format!("x{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let sum = |first: &str| {
        let inputs = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let symbol = if i == 0 {
                    first.to_owned()
                } else {
                    format!("d{i}")
                };
                let symbol = tensor_shape_proto::dimension::Value::DimParam(symbol);
                input(name, 1, vec![dim(symbol)])
            })
            .collect();
        model(GraphProto {
            node: vec![node("Sum", &refs, &["y"])],
            input: inputs,
            ..Default::default()
        })
    };
    for outcome in every_entry(&sum("h+2"), &Options::new()) {
        let report = outcome.unwrap();
        let (findings, caps) = beside_caps(&report);
        assert_eq!(caps, ["condition-work"]);
        let [finding] = findings[..] else {
            panic!("one finding expected: {findings:?}");
        };
        assert_eq!(finding.code, onnx_bcast_lint::Code::W1);
        // 399 clauses, stated up to `condition-clauses` (64) and the rest counted.
        let more = format!(" ∧ … and {} more clauses", count - 1 - 64);
        let stated = finding.message.split(&more).next().unwrap_or_default();
        assert!(finding.message.contains(&more), "{}", finding.message);
        assert_eq!(stated.matches('∧').count() + 1, 64, "{}", finding.message);
    }
    for outcome in every_entry(&sum("d0"), &Options::new()) {
        let report = outcome.unwrap();
        assert!(report.findings().is_empty(), "{:?}", report.findings());
    }
}

/// A `Sum` of 3,000 inputs whose sizes `s`, `2*s-1`, `3*s-2`... are all 1 at `s = 1`: none is
/// provably never 1, and finding the size every legal binding gives compared each with every
/// other (2,000 such inputs took 5.8 s in release). Past 16 such sizes the axis is left to
/// run time: no finding, and an unknown dim.
#[test]
fn a_variadic_operator_of_sizes_all_1_together_is_left_to_run_time() {
    let count = 3000;
    let names: Vec<String> = (0..count).map(|i| format!("x{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let inputs = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let size = if i == 0 {
                "s".to_owned()
            } else {
                format!("{}*s-{i}", i + 1)
            };
            let size = tensor_shape_proto::dimension::Value::DimParam(size);
            input(name, 1, vec![dim(size)])
        })
        .collect();
    let model = model(GraphProto {
        node: vec![node("Sum", &refs, &["y"])],
        input: inputs,
        ..Default::default()
    });
    for outcome in every_entry(&model, &Options::new()) {
        let report = outcome.unwrap();
        assert!(report.findings().is_empty(), "{:?}", report.findings());
        let y = report.shape("y").map(ToString::to_string);
        assert_eq!(y.as_deref(), Some("[?]"));
    }
}

/// `x` of rank `rank` over the symbols `d0 ..`, `rotations - 1` Transposes each turning the
/// last one's axes by one, and an `Add` of every two of them: each Add states a condition of
/// `rank` clauses (`d_i = d_j ∨ d_i = 1 ∨ d_j = 1`), from a node of a few bytes.
fn rotations_of_one_shape(rank: usize, rotations: usize) -> ModelProto {
    let dims: Vec<String> = (0..rank).map(|i| format!("d{i}")).collect();
    let perm: Vec<i64> = (1..rank)
        .chain([0])
        .map(|i| i64::try_from(i).unwrap())
        .collect();
    let names: Vec<String> = (0..rotations)
        .map(|k| if k == 0 { "x".into() } else { format!("t{k}") })
        .collect();
    let mut nodes: Vec<NodeProto> = names
        .windows(2)
        .map(|pair| {
            let mut transpose = node("Transpose", &[&pair[0]], &[&pair[1]]);
            transpose.attribute = vec![AttributeProto {
                name: Some("perm".into()),
                r#type: Some(7),
                ints: perm.clone(),
                ..Default::default()
            }];
            transpose
        })
        .collect();
    for a in 0..rotations {
        for b in a + 1..rotations {
            nodes.push(node(
                "Add",
                &[&names[a], &names[b]],
                &[&format!("a{a}_{b}")],
            ));
        }
    }
    model(GraphProto {
        node: nodes,
        input: vec![symbolic_input("x", &dims)],
        ..Default::default()
    })
}

/// Rotations of one rank-1000 shape: 1,000 nodes in 175 KB took 55 s and 2.5 GB in release,
/// rewriting and searching each Add's thousand clauses (issue 34). Each condition's work is
/// bounded (`shape/condition/work.rs`): its counterexample is searched in its first clauses,
/// so it binds fewer symbols than the condition names. What is found stays true: every W1
/// states its condition's first `condition-clauses` (64) clauses and counts the others, and its
/// counterexample breaks a clause of it. (Ten Adds, not a
/// thousand: the debug build still pays the rank at each node to broadcast.)
#[test]
fn conditions_of_rotations_of_one_rank_1000_shape_are_bounded() {
    let (rank, rotations) = (1000usize, 5usize);
    let model = rotations_of_one_shape(rank, rotations);
    for outcome in every_entry(&model, &Options::new()) {
        let report = outcome.unwrap();
        // Each Add's 3,000 atoms are past `condition-work`, and the one I2 counts each.
        let (findings, caps) = beside_caps(&report);
        assert_eq!(findings.len(), rotations * (rotations - 1) / 2);
        assert_eq!(caps.len(), findings.len());
        assert!(
            caps.iter().all(|limit| limit == "condition-work"),
            "{caps:?}"
        );
        for finding in findings {
            let onnx_bcast_lint::diag::Facts::ConditionalBroadcast {
                condition,
                counterexample,
                operands,
                ..
            } = &finding.facts
            else {
                panic!("{:?}", finding.facts);
            };
            let more = format!(" ∧ … and {} more clauses", rank - 64);
            assert!(condition.ends_with(&more), "{condition}");
            assert_eq!(condition.matches(" ∧ ").count(), 64, "{condition}");
            // `a{a}_{b}` adds `x` turned by `a` to `x` turned by `b`: axis `i` is `d(a+i)`
            // against `d(b+i)`, and some axis of the counterexample has two sizes neither 1.
            let turn = |name: &str| {
                name.strip_prefix('t')
                    .map_or(0, |k| k.parse::<usize>().unwrap())
            };
            let [left, right] = &operands[..] else {
                panic!("{operands:?}");
            };
            let (a, b) = (turn(&left.name), turn(&right.name));
            let cx = counterexample.as_ref().expect("a counterexample");
            assert!(cx.len() < rank, "the search read the whole condition");
            let size = |i: usize| cx.get(&format!("d{}", i % rank)).copied();
            let broken = (0..rank).any(|i| match (size(a + i), size(b + i)) {
                (Some(p), Some(q)) => p != q && p != 1 && q != 1,
                _ => false,
            });
            assert!(broken, "{cx:?} breaks no clause of {condition}");
        }
    }
}

/// A value of element type `elem` with no shape.
fn unshaped(name: &str, elem: i32) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape: None,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `ifs` nodes `y{k} = If(c)`, each giving `x` ([2, 8]) in its then branch and `x` unsqueezed to
/// rank 3 in its else branch, and a `Gemm` (rank 2 only) reading each; beside them `clashes`
/// `Add`s of [2] and [3], each an E1. The Gemms' outputs are graph outputs, and the Adds' too
/// when `live` (then every run fails at them, and no branch fails more than the other).
fn ifs_beside_clashes(ifs: usize, clashes: usize, live: bool) -> ModelProto {
    let branch = |name: String, op: &str, inputs: &[&str]| GraphProto {
        name: Some(name.clone()),
        node: vec![node(op, inputs, &[&name])],
        output: vec![unshaped(&name, 1)],
        ..Default::default()
    };
    let mut nodes = Vec::new();
    let mut outputs = Vec::new();
    for k in 0..ifs {
        let (y, g) = (format!("y{k}"), format!("g{k}"));
        let mut if_node = node("If", &["c"], &[&y]);
        for (attribute, body) in [
            (
                "then_branch",
                branch(format!("then{k}"), "Identity", &["x"]),
            ),
            (
                "else_branch",
                branch(format!("else{k}"), "Unsqueeze", &["x", "zero"]),
            ),
        ] {
            if_node.attribute.push(AttributeProto {
                name: Some(attribute.into()),
                r#type: Some(5),
                g: Some(Box::new(body)),
                ..Default::default()
            });
        }
        nodes.push(if_node);
        nodes.push(node("Gemm", &[&y, "w"], &[&g]));
        outputs.push(unshaped(&g, 1));
    }
    for i in 0..clashes {
        let z = format!("z{i}");
        nodes.push(node("Add", &["a", "b"], &[&z]));
        if live {
            outputs.push(unshaped(&z, 1));
        }
    }
    model(GraphProto {
        node: nodes,
        input: vec![
            static_input("c", 9, &[]),
            static_input("x", 1, &[2, 8]),
            static_input("a", 1, &[2]),
            static_input("b", 1, &[3]),
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
            int64s("zero", vec![1], vec![0]),
        ],
        ..Default::default()
    })
}

/// The W4s settling leaves at the Gemms after the `If`s of [`ifs_beside_clashes`]: (node,
/// failing branch, then rank, else rank).
fn branch_failures(report: &LintReport) -> Vec<(String, String, usize, usize)> {
    report
        .findings()
        .iter()
        .filter_map(|f| match &f.facts {
            onnx_bcast_lint::diag::Facts::BranchFailure {
                failing_branch,
                every_branch: false,
                then_rank,
                else_rank,
                also_at,
                ..
            } if f.code == onnx_bcast_lint::Code::W4 && also_at.is_empty() => Some((
                f.node.as_ref().unwrap().name.clone(),
                failing_branch.clone(),
                *then_rank,
                *else_rank,
            )),
            _ => None,
        })
        .collect()
}

/// An `If` whose branches differ in rank, read by a Gemm, beside many static clashes: settling
/// runs the checks with each branch forced and compares the runs' errors, and it did so by
/// building every finding of both runs, uncapped (a 4.7 MB file of 100,000 clashes took 694
/// MB, the bound being 242 MB). It now reads each finding's key only (`check/tally.rs`): a hang
/// guard here, through both ways settling ends, with every clash still counted;
/// `tests/settle_memory.rs` pins the memory with a counting allocator, which this file's
/// parallel tests would blur.
#[test]
fn an_if_beside_many_static_clashes_is_settled_and_every_clash_counted() {
    let clashes = 1000;
    for live in [false, true] {
        for outcome in every_entry(&ifs_beside_clashes(1, clashes, live), &Options::new()) {
            let report = outcome.unwrap();
            settled_beside_clashes(&report, clashes, live);
        }
    }
}

/// What [`ifs_beside_clashes`] of one `If` gives.
fn settled_beside_clashes(report: &LintReport, clashes: usize, live: bool) {
    let shape = |name: &str| report.shape(name).map(ToString::to_string);
    if live {
        // Every run fails at the Adds: neither branch is settled away, and the Gemm fails in
        // the else branch's runs only, so it is no error of every branch.
        assert_eq!(shape("y0").as_deref(), Some("[...]"));
        assert_eq!(branch_failures(report), []);
    } else {
        // Settled on the then branch: the else branch makes the Gemm fail for every input, a
        // W4 naming it; the clashes fail in both runs and are none of the If's.
        assert_eq!(shape("y0").as_deref(), Some("[2, 8]"));
        assert_eq!(shape("g0").as_deref(), Some("[2, 4]"));
        assert_eq!(
            branch_failures(report),
            [("Gemm_g0".to_owned(), "else".to_owned(), 2, 3)]
        );
    }
    // Every clash is shown or counted, and nothing else is reported.
    let shown = report
        .findings()
        .iter()
        .filter(|f| f.code == onnx_bcast_lint::Code::E1)
        .count();
    assert!(shown > 0);
    assert_eq!(
        shown + report.omitted().of(onnx_bcast_lint::Code::E1),
        clashes
    );
    assert_eq!(report.findings().len() - shown, usize::from(!live));
}

/// Settling tries at most `settle-tried` (4) `If`s: the fifth is left merged, and the I2 names
/// it; four are all settled and raise none.
#[test]
fn settling_past_settle_tried_names_the_first_if_left_untried() {
    for outcome in every_entry(&ifs_beside_clashes(4, 0, false), &Options::new()) {
        let (findings, caps) = beside_caps(outcome.as_ref().unwrap());
        assert!(caps.is_empty(), "{caps:?}");
        assert_eq!(findings.len(), 4, "{findings:?}");
    }
    for outcome in every_entry(&ifs_beside_clashes(5, 0, false), &Options::new()) {
        let report = outcome.unwrap();
        let shape = |name: &str| report.shape(name).map(ToString::to_string);
        let settled: Vec<String> = (0..4).map(|k| format!("Gemm_g{k}")).collect();
        let failures = branch_failures(&report);
        assert_eq!(
            failures.iter().map(|f| f.0.clone()).collect::<Vec<_>>(),
            settled
        );
        assert!(failures
            .iter()
            .all(|f| (f.1.as_str(), f.2, f.3) == ("else", 2, 3)));
        for k in 0..4 {
            assert_eq!(shape(&format!("y{k}")).as_deref(), Some("[2, 8]"));
        }
        // Merged, the fifth If's output has no known rank, and its Gemm raises nothing.
        assert_eq!(shape("y4").as_deref(), Some("[...]"));
        let caps: Vec<_> = report
            .findings()
            .iter()
            .filter(|f| f.code == onnx_bcast_lint::Code::I2)
            .collect();
        assert_eq!(caps.len(), 1, "{caps:?}");
        let onnx_bcast_lint::diag::Facts::CapReached {
            limit,
            nodes,
            count,
            ..
        } = &caps[0].facts
        else {
            panic!("{:?}", caps[0].facts);
        };
        assert_eq!(limit, "settle-tried");
        assert_eq!((nodes.as_slice(), *count), (&["If_y4".to_owned()][..], 1));
        assert_eq!(report.findings().len(), 5);
    }
}
