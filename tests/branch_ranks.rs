//! An `If` whose condition is not known and whose branches give outputs of different ranks, read
//! by a node that needs one rank (issue 37, item 3): a node failing in the runs of one branch
//! is a W1 / W4 naming that branch, one failing in both an error, one fine in both nothing; a
//! known condition runs one branch only. onnxruntime 1.31 on these models: the Gemm fails at
//! run time with the condition picking the rank-3 branch (its `GemmHelper` wants A of rank 1
//! or 2) and runs with the other; both conditions fail when both branches give rank 3 or 4;
//! with a constant condition it folds the `If` and refuses the model at load when the taken
//! branch gives rank 3.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use onnx_bcast_lint::diag::Facts;
use onnx_bcast_lint::proto::{
    tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use onnx_bcast_lint::{lint_model, Code, Finding, LintReport, Options};

const FLOAT: i32 = 1;
const INT64: i32 = 7;
const BOOL: i32 = 9;

fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        ..Default::default()
    }
}

/// A value of element type `elem`; `dims` of `None` leaves its shape out.
fn value(name: &str, elem: i32, dims: Option<&[&str]>) -> ValueInfoProto {
    let shape = dims.map(|dims| TensorShapeProto {
        dim: dims
            .iter()
            .map(|d| tensor_shape_proto::Dimension {
                value: Some(match d.parse::<i64>() {
                    Ok(size) => tensor_shape_proto::dimension::Value::DimValue(size),
                    Err(_) => tensor_shape_proto::dimension::Value::DimParam((*d).into()),
                }),
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

fn floats(name: &str, dims: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(FLOAT),
        float_data: vec![1.0; dims.iter().product::<i64>().try_into().unwrap()],
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

/// A branch giving `x` with `added` leading axes of size 1 (axis -1 when `last`).
fn branch(tag: &str, added: usize, last: bool) -> GraphProto {
    let mut nodes = Vec::new();
    let mut current = "x".to_owned();
    for i in 0..added {
        let next = format!("{tag}_u{i}");
        let axes = if last { "minus_one" } else { "zero" };
        nodes.push(node(
            "Unsqueeze",
            &format!("/{tag}/unsqueeze{i}"),
            &[&current, axes],
            &[&next],
        ));
        current = next;
    }
    if nodes.is_empty() {
        let next = format!("{tag}_id");
        nodes.push(node(
            "Identity",
            &format!("/{tag}/id"),
            &[&current],
            &[&next],
        ));
        current = next;
    }
    GraphProto {
        name: Some(tag.into()),
        node: nodes,
        output: vec![value(&current, FLOAT, None)],
        ..Default::default()
    }
}

/// What the `If`'s condition is.
enum Condition {
    /// A graph input: nothing tells which branch runs.
    Input,
    /// A constant.
    Constant(bool),
}

/// `y = If(c)` over branches adding `then_added` and `else_added` axes to `x` ([n, 8], or
/// [2, 8] when `x_static`), then each of `consumers` reading `y` and an initializer of
/// `operand` dims.
struct Case {
    then_added: usize,
    else_added: usize,
    last: bool,
    condition: Condition,
    x_static: bool,
    consumers: &'static [(&'static str, &'static str)],
    operand: &'static [i64],
}

impl Case {
    fn model(&self) -> ModelProto {
        let mut if_node = node("If", "If_3", &["c"], &["y"]);
        for (attribute, added, tag) in [
            ("then_branch", self.then_added, "then"),
            ("else_branch", self.else_added, "else"),
        ] {
            if_node.attribute.push(AttributeProto {
                name: Some(attribute.into()),
                r#type: Some(5),
                g: Some(Box::new(branch(tag, added, self.last))),
                ..Default::default()
            });
        }
        let x_dims: &[&str] = if self.x_static {
            &["2", "8"]
        } else {
            &["n", "8"]
        };
        let mut inputs = vec![value("x", FLOAT, Some(x_dims))];
        let mut initializer = vec![
            int64s("zero", &[0]),
            int64s("minus_one", &[-1]),
            floats("w", self.operand),
        ];
        match self.condition {
            Condition::Input => inputs.push(value("c", BOOL, Some(&[]))),
            Condition::Constant(taken) => initializer.push(TensorProto {
                name: Some("c".into()),
                data_type: Some(BOOL),
                int32_data: vec![i32::from(taken)],
                ..Default::default()
            }),
        }
        let mut nodes = vec![if_node];
        let mut outputs = Vec::new();
        for (k, (op, name)) in self.consumers.iter().enumerate() {
            let out = format!("z{k}");
            nodes.push(node(op, name, &["y", "w"], &[&out]));
            outputs.push(value(&out, FLOAT, None));
        }
        ModelProto {
            ir_version: Some(8),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(17),
            }],
            graph: Some(GraphProto {
                name: Some("branch_ranks".into()),
                node: nodes,
                input: inputs,
                output: outputs,
                initializer,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn lint(&self) -> LintReport {
        lint_model(self.model(), &Options::new()).unwrap()
    }
}

const GEMM: &[(&str, &str)] = &[("Gemm", "/cell")];

fn gemm(then_added: usize, else_added: usize, condition: Condition) -> Case {
    Case {
        then_added,
        else_added,
        last: false,
        condition,
        x_static: false,
        consumers: GEMM,
        operand: &[8, 4],
    }
}

fn only(report: &LintReport) -> &Finding {
    match report.findings() {
        [finding] => finding,
        other => panic!("one finding expected: {other:#?}"),
    }
}

fn shape_of(report: &LintReport, name: &str) -> String {
    report
        .main_shapes()
        .find(|(value, _)| *value == name)
        .map(|(_, shape)| shape.to_string())
        .unwrap()
}

#[test]
fn a_gemm_failing_only_after_the_rank_3_else_branch_is_a_w4_naming_it() {
    let report = gemm(0, 1, Condition::Input).lint();
    let finding = only(&report);
    assert_eq!(finding.code, Code::W4);
    assert_eq!(finding.node.as_ref().unwrap().name, "/cell");
    assert_eq!(
        finding.message,
        "Gemm node `/cell`: Gemm's A and B must be 2-D (A has rank 3), which fails when `If_3` \
         takes its else branch (rank 3); holds when it takes its then branch (rank 2)"
    );
    let help = finding.help.as_deref().unwrap();
    assert!(
        help.starts_with("Flatten or Reshape the operand to 2-D"),
        "{help}"
    );
    assert!(
        help.contains("every run in which it takes its else branch fails here"),
        "{help}"
    );
    // The input shown is the one the Gemm fails on, the else branch's.
    assert_eq!(finding.inputs[0].shape.to_string(), "[1, n, 8]");
    let Facts::BranchFailure {
        if_node,
        failing_branch,
        every_branch,
        then_rank,
        else_rank,
        broadcast,
        failure,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts)
    };
    assert_eq!(
        (if_node.name.as_str(), failing_branch.as_str()),
        ("If_3", "else")
    );
    assert_eq!((*every_branch, *then_rank, *else_rank), (false, 2, 3));
    assert!(!broadcast);
    assert!(matches!(**failure, Facts::ConstraintUnmet { .. }));
    // Every run the model accepts takes the then branch: downstream shapes are that branch's.
    assert_eq!(shape_of(&report, "y"), "[n, 8]");
    assert_eq!(shape_of(&report, "z0"), "[n, 4]");
}

#[test]
fn the_failing_branch_named_is_the_then_branch_when_that_one_gives_rank_3() {
    let report = gemm(1, 0, Condition::Input).lint();
    let finding = only(&report);
    assert_eq!(finding.code, Code::W4);
    assert!(
        finding.message.ends_with(
            "which fails when `If_3` takes its then branch (rank 3); holds when it takes its \
             else branch (rank 2)"
        ),
        "{}",
        finding.message
    );
}

#[test]
fn a_gemm_failing_after_either_branch_is_an_error() {
    let report = gemm(1, 2, Condition::Input).lint();
    let finding = only(&report);
    assert_eq!(finding.code, Code::E4);
    assert!(report.has_errors());
    assert!(
        finding
            .message
            .ends_with("which fails whichever branch `If_3` takes (then: rank 3; else: rank 4)"),
        "{}",
        finding.message
    );
    assert!(matches!(
        finding.facts,
        Facts::BranchFailure {
            every_branch: true,
            broadcast: false,
            ..
        }
    ));
}

#[test]
fn a_matmul_fine_after_either_branch_raises_nothing() {
    let case = Case {
        consumers: &[("MatMul", "/proj")],
        ..gemm(0, 1, Condition::Input)
    };
    let report = case.lint();
    assert!(report.findings().is_empty(), "{:#?}", report.findings());
    // Neither branch is ruled out: the rank stays unknown.
    assert_eq!(shape_of(&report, "y"), "[...]");
}

#[test]
fn a_constant_condition_runs_only_the_branch_it_picks() {
    let report = gemm(0, 1, Condition::Constant(true)).lint();
    assert!(report.findings().is_empty(), "{:#?}", report.findings());
    assert_eq!(shape_of(&report, "y"), "[n, 8]");
    let report = gemm(0, 1, Condition::Constant(false)).lint();
    let finding = only(&report);
    assert_eq!(finding.code, Code::E4);
    assert!(matches!(finding.facts, Facts::ConstraintUnmet { .. }));
    assert!(!finding.message.contains("branch"), "{}", finding.message);
}

#[test]
fn a_broadcast_failing_only_after_the_rank_2_branch_is_a_w1() {
    // [2, 8] + [8, 3] clashes (2 vs 8); [2, 8, 1] + [8, 3] broadcasts to [2, 8, 3].
    let case = Case {
        then_added: 0,
        else_added: 1,
        last: true,
        condition: Condition::Input,
        x_static: true,
        consumers: &[("Add", "/bias")],
        operand: &[8, 3],
    };
    let report = case.lint();
    let finding = only(&report);
    assert_eq!(finding.code, Code::W1);
    assert!(
        finding.message.ends_with(
            "which fails when `If_3` takes its then branch (rank 2); holds when it takes its \
             else branch (rank 3)"
        ),
        "{}",
        finding.message
    );
    assert!(matches!(
        finding.facts,
        Facts::BranchFailure {
            broadcast: true,
            every_branch: false,
            ..
        }
    ));
    assert_eq!(shape_of(&report, "z0"), "[2, 8, 3]");
}

#[test]
fn two_readers_failing_in_the_same_runs_are_one_finding() {
    let case = Case {
        consumers: &[("Gemm", "/cell"), ("Gemm", "/cell2")],
        ..gemm(0, 1, Condition::Input)
    };
    let report = case.lint();
    let finding = only(&report);
    assert_eq!(finding.node.as_ref().unwrap().name, "/cell");
    let help = finding.help.as_deref().unwrap();
    assert!(
        help.ends_with("; those runs also fail at Gemm `/cell2`"),
        "{help}"
    );
}

#[test]
fn the_other_nodes_failing_in_the_same_runs_are_named_up_to_the_limit_and_counted() {
    // 70 readers: the finding is at the first, the next 64 are named, the last 5 counted.
    let readers: Vec<(&'static str, &'static str)> = (0..70)
        .map(|k| {
            let name: &'static str = Box::leak(format!("/cell{k}").into_boxed_str());
            ("Gemm", name)
        })
        .collect();
    let case = Case {
        consumers: Box::leak(readers.into_boxed_slice()),
        ..gemm(0, 1, Condition::Input)
    };
    let report = case.lint();
    let finding = only(&report);
    assert_eq!(finding.node.as_ref().unwrap().name, "/cell0");
    let facts = serde_json::to_value(&finding.facts).unwrap();
    let also_at = facts["also_at"].as_array().unwrap();
    assert_eq!(also_at.len(), 64);
    assert_eq!(also_at[63]["name"], "/cell64");
    assert_eq!(facts["also_at_left_out"], 5);
    let help = finding.help.as_deref().unwrap();
    assert!(
        help.ends_with(
            "; those runs also fail at Gemm `/cell64`; those runs also fail at … and 5 more nodes"
        ),
        "{help}"
    );
}
