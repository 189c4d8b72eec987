//! Typed findings: each code's facts on the fixture models (tests/models/README.md lists what
//! each one holds), and the message each finding prints says what its facts say.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use onnx_bcast_lint::diag::{Facts, Mismatch, Structure};
use onnx_bcast_lint::{lint_path, Code, Finding, Options};
use onnx_bcast_lint::{Dim, Shape};

fn findings(name: &str) -> Vec<Finding> {
    findings_with(name, &Options::new())
}

fn findings_with(name: &str, options: &Options) -> Vec<Finding> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name);
    lint_path(&path, options).unwrap().into_findings()
}

/// The only finding of `code` in `name`.
fn only(name: &str, code: Code) -> Finding {
    let mut of_code: Vec<Finding> = findings(name)
        .into_iter()
        .filter(|f| f.code == code)
        .collect();
    assert_eq!(of_code.len(), 1, "{name}: {of_code:#?}");
    of_code.remove(0)
}

fn binding(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[test]
fn e1_gives_the_axis_and_each_inputs_size_there() {
    let finding = only("e1_static_mismatch.onnx", Code::E1);
    let Facts::BroadcastClash {
        axis,
        sizes,
        operands,
        target,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts);
    };
    assert_eq!(*axis, Some(1));
    let at: Vec<(&str, usize, &Dim)> = sizes
        .iter()
        .map(|s| (s.input.as_str(), s.axis, &s.size))
        .collect();
    assert_eq!(
        at,
        [("x", 1, &Dim::Known(3)), ("y", 0, &Dim::Known(4))],
        "x [2, 3] against y [4]"
    );
    assert_eq!(operands.len(), 2);
    assert_eq!(operands[0].shape, Shape::from_known(&[2, 3]));
    assert_eq!(*target, None);
    assert!(finding.message.ends_with("axis 1 is 3 vs 4"));
}

#[test]
fn e1_under_the_unidirectional_rule_names_the_target() {
    let finding = only("e1_gemm_c.onnx", Code::E1);
    let Facts::BroadcastClash {
        target,
        operands,
        fix,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts);
    };
    assert_eq!(
        target.as_ref().and_then(|t| t.whole()),
        Some(&Shape::from_known(&[2, 4]))
    );
    assert_eq!(operands[1].name, "C");
    assert!(fix.as_deref().unwrap().starts_with("reshape `C`"));
    assert_eq!(
        finding.message,
        "Gemm node `gemm`: `C` [3] cannot broadcast to [2, 4]: axis 1 is 4 vs 3"
    );
}

#[test]
fn e1_under_a_binding_gives_the_bound_sizes() {
    // `--dim seq=65` makes the position table's clash static: 65 positions against 64 rows.
    let options = Options::new().with_dim("seq", 65);
    let finding = findings_with("w1_position_table.onnx", &options)
        .into_iter()
        .find(|f| f.code == Code::E1)
        .unwrap();
    let Facts::BroadcastClash { axis, sizes, .. } = &finding.facts else {
        panic!("{:?}", finding.facts);
    };
    assert_eq!(*axis, Some(1));
    let at: Vec<(&str, &Dim)> = sizes.iter().map(|s| (s.input.as_str(), &s.size)).collect();
    assert_eq!(
        at,
        [("words", &Dim::Known(65)), ("positions", &Dim::Known(64))]
    );
    // The 65 is the binding's, and the message says so (issue 32).
    assert!(
        finding
            .message
            .ends_with("axis 1 is 65 vs 64 (seq = 65, bound by --dim)"),
        "{}",
        finding.message
    );
}

#[test]
fn w1_gives_the_plain_condition_and_the_smallest_breaking_binding() {
    let finding = only("w1_position_table.onnx", Code::W1);
    let Facts::ConditionalBroadcast {
        condition,
        counterexample,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts);
    };
    assert_eq!(condition, "seq ≤ 64");
    assert_eq!(counterexample.as_ref(), Some(&binding(&[("seq", 65)])));
    assert!(finding.message.ends_with(condition.as_str()));
}

#[test]
fn w1_forced_value_names_the_symbol_its_value_and_the_nodes() {
    let finding = only("w1_forced_one.onnx", Code::W1);
    let Facts::ForcedValue {
        symbol,
        value,
        nodes,
        conditions,
        constraints_only,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts);
    };
    assert_eq!((symbol.as_str(), *value), ("n", 1));
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["add_three", "add_four"]);
    assert_eq!(conditions, &["n ∈ {1, 3}", "n ∈ {1, 4}"]);
    assert!(!constraints_only);
}

#[test]
fn w2_gives_declared_and_inferred_shapes() {
    let finding = only("w2_declared_mismatch.onnx", Code::W2);
    let Facts::DeclaredMismatch {
        value,
        declared,
        inferred,
        mismatch,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts);
    };
    assert_eq!(value, "r");
    assert_eq!(*declared, Shape::from_known(&[2, 5]));
    assert_eq!(*inferred, Shape::from_known(&[2, 3]));
    assert_eq!(
        *mismatch,
        Mismatch::Dim {
            axis: 1,
            inferred: Dim::Known(3),
            declared: Dim::Known(5)
        }
    );
}

#[test]
fn e3_gives_the_structural_problem() {
    let cycle = only("e3_cycle.onnx", Code::E3);
    assert!(
        matches!(
            &cycle.facts,
            Facts::Structure {
                problem: Structure::Cycle { nodes: 2 },
                ..
            }
        ),
        "{:?}",
        cycle.facts
    );
    let undefined = only("e3_undefined_input.onnx", Code::E3);
    let Facts::Structure {
        problem: Structure::UndefinedInput { name },
        ..
    } = &undefined.facts
    else {
        panic!("{:?}", undefined.facts);
    };
    assert_eq!(name, "ghost");
}

#[test]
fn i1_gives_the_operator_domain_and_version() {
    let custom = only("i1_custom_op.onnx", Code::I1);
    let Facts::Unsupported {
        op_type,
        domain,
        version,
        nodes,
        count,
        ..
    } = &custom.facts
    else {
        panic!("{:?}", custom.facts);
    };
    assert_eq!(
        (op_type.as_str(), domain.as_str()),
        ("FancyNorm", "com.example")
    );
    assert_eq!(
        (*version, nodes.as_slice(), *count),
        (None, &["fancy".to_owned()][..], 1)
    );
    let future = only("i1_future_opset.onnx", Code::I1);
    let Facts::Unsupported {
        op_type,
        version,
        reason,
        ..
    } = &future.facts
    else {
        panic!("{:?}", future.facts);
    };
    assert_eq!((op_type.as_str(), *version), ("Add", Some(99)));
    assert!(reason.as_deref().unwrap().contains("99"));
}

#[test]
fn e4_gives_the_constraint_and_what_was_found() {
    let finding = only("e4_matmul_k.onnx", Code::E4);
    let Facts::ConstraintUnmet {
        constraint,
        found,
        binding,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts);
    };
    assert!(constraint.contains("(K)"), "{constraint}");
    assert_eq!(found, "K is 3 in A, 4 in B");
    assert_eq!(*binding, None);
    let initializer = only("e4_initializer_vs_input.onnx", Code::E4);
    let Facts::InitializerMismatch {
        input,
        declared,
        stored,
        ..
    } = &initializer.facts
    else {
        panic!("{:?}", initializer.facts);
    };
    assert_eq!(input, "w");
    assert_eq!(*declared, Shape::from_known(&[3, 4]));
    assert_eq!(*stored, Shape::from_known(&[4, 3]));
}

#[test]
fn w4_gives_the_constraint_condition_and_counterexample() {
    let finding = only("w4_matmul_symbolic_k.onnx", Code::W4);
    let Facts::ConditionalConstraint {
        condition,
        counterexample,
        ..
    } = &finding.facts
    else {
        panic!("{:?}", finding.facts);
    };
    assert_eq!(condition, "k = 64");
    assert_eq!(counterexample.as_ref(), Some(&binding(&[("k", 1)])));
}

/// Every finding of every fixture: the code is the facts' code, and the values the facts hold
/// appear in the message (conditions, shapes, names), so text and data agree.
#[test]
fn every_fixture_finding_states_its_facts() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "onnx") || path.is_dir() {
            continue;
        }
        let Ok(report) = lint_path(&path, &Options::new()) else {
            continue;
        };
        for finding in report.findings() {
            seen += 1;
            assert_eq!(finding.code, finding.facts.code(), "{}", path.display());
            let m = &finding.message;
            match &finding.facts {
                Facts::ConditionalBroadcast { condition, .. }
                | Facts::ConditionalConstraint { condition, .. } => {
                    assert!(m.ends_with(condition.as_str()), "{m}");
                }
                Facts::DeclaredMismatch {
                    value,
                    declared,
                    inferred,
                    ..
                } => {
                    let stated =
                        format!("`{value}` is declared {declared} but inferred {inferred}");
                    assert!(m.contains(&stated), "{m}");
                }
                Facts::BroadcastClash { sizes, .. } => {
                    for s in sizes {
                        assert!(m.contains(&s.size.to_string()), "{m}");
                    }
                }
                Facts::Unsupported { op_type, .. } => assert!(m.contains(op_type.as_str()), "{m}"),
                _ => {}
            }
        }
    }
    assert!(seen > 20, "only {seen} findings in the fixtures");
}

/// The JSON of every fixture (with `--shapes`) validates against tests/json-schema-v1.json,
/// whose `facts` kinds are tied to their codes; a document with the facts' kind changed fails.
#[test]
fn json_with_facts_validates_against_the_schema() {
    use onnx_bcast_lint::report::{json, FileReport};
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/json-schema-v1.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("tests/models")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "onnx") {
            files.push(FileReport {
                path: path.display().to_string(),
                outcome: lint_path(&path, &Options::new()),
            });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut document: serde_json::Value =
        serde_json::from_str(&json::render(&files, true)).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let kinds: std::collections::BTreeSet<String> = document["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap().iter())
        .map(|d| d["facts"]["kind"].as_str().unwrap().to_owned())
        .collect();
    for kind in [
        "broadcast_clash",
        "conditional_broadcast",
        "conditional_constraint",
        "forced_value",
        "declared_mismatch",
        "structure",
        "unsupported",
        "constraint_unmet",
        "initializer_mismatch",
    ] {
        assert!(kinds.contains(kind), "no fixture gives {kind}: {kinds:?}");
    }
    // The schema ties kinds to codes: an E1 claiming W1 facts is rejected.
    let first_e1 = document["files"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|f| f["diagnostics"].as_array_mut().unwrap().iter_mut())
        .find(|d| d["code"] == "E1")
        .unwrap();
    first_e1["facts"]["kind"] = "conditional_broadcast".into();
    assert!(!validator.is_valid(&document));
}
