//! The command: exit codes 0/1/2, batches that mix good, failing and unreadable files, stdin,
//! and the JSON and SARIF contracts (SARIF validated against the 2.1.0 schema).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;

mod common;
use common::{command, run, stderr, stdout};

fn model(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
        .display()
        .to_string()
}

fn json(args: &[&str]) -> (serde_json::Value, i32) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = run(&all);
    let value = serde_json::from_slice(&out.stdout).unwrap();
    (value, out.status.code().unwrap())
}

#[test]
fn exit_0_on_a_clean_model() {
    let out = run(&[&model("ok_symbolic_batch.onnx")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("0 errors"), "{stdout}");
}

#[test]
fn exit_1_on_a_broadcast_error() {
    let out = run(&[&model("e1_static_mismatch.onnx")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("E1"), "{stdout}");
    assert!(stdout.contains("1 error"), "{stdout}");
}

#[test]
fn exit_2_on_unreadable_input_and_on_usage_errors() {
    for name in [
        "load_garbage.onnx",
        "load_empty.onnx",
        "load_directory.onnx",
    ] {
        let out = run(&[&model(name)]);
        assert_eq!(out.status.code(), Some(2), "{name}");
    }
    assert_eq!(
        run(&["--format", "yaml", &model("ok_symbolic_batch.onnx")])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&[]).status.code(), Some(2));
}

#[test]
fn warnings_fail_only_with_deny_warnings() {
    let path = model("w1_symbolic.onnx");
    assert_eq!(run(&[&path]).status.code(), Some(0));
    assert_eq!(run(&["--deny", "warnings", &path]).status.code(), Some(1));
    assert_eq!(
        run(&["--deny", "warnings", "--allow", "W1", &path])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn dim_bindings_make_conditions_definite() {
    let path = model("w1_symbolic.onnx");
    let (bad, code) = json(&["--dim", "seq=5", &path]);
    assert_eq!(code, 1);
    assert_eq!(bad["files"][0]["diagnostics"][0]["code"], "E1");
    let (good, code) = json(&["--dim", "seq=77", &path]);
    assert_eq!(code, 0);
    assert_eq!(good["files"][0]["diagnostics"].as_array().unwrap().len(), 0);
}

#[test]
fn operator_constraints_are_errors_or_conditions() {
    let (k, code) = json(&[&model("e4_matmul_k.onnx")]);
    assert_eq!(code, 1);
    assert_eq!(k["files"][0]["diagnostics"][0]["code"], "E4");
    assert_eq!(k["files"][0]["diagnostics"][0]["severity"], "error");
    let path = model("w4_matmul_symbolic_k.onnx");
    let (w, code) = json(&[&path]);
    assert_eq!(code, 0);
    assert_eq!(w["files"][0]["diagnostics"][0]["code"], "W4");
    let (bad, code) = json(&["--dim", "k=63", &path]);
    assert_eq!(code, 1);
    assert_eq!(bad["files"][0]["diagnostics"][0]["code"], "E4");
    let (good, code) = json(&["--dim", "k=64", &path]);
    assert_eq!(code, 0);
    assert_eq!(good["files"][0]["diagnostics"].as_array().unwrap().len(), 0);
    let (allowed, code) = json(&["--allow", "E4", &model("e4_matmul_k.onnx")]);
    assert_eq!(code, 0);
    assert_eq!(
        allowed["files"][0]["diagnostics"].as_array().unwrap().len(),
        0
    );
}

#[test]
fn a_fault_is_reported_once_at_its_root() {
    // The Attention's outputs are unknown once its constraint fails: the Add it feeds says
    // nothing more.
    let (report, code) = json(&[&model("e4_attention_no_heads.onnx")]);
    assert_eq!(code, 1);
    let found = report["files"][0]["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["node"]["name"], "attn");
}

#[test]
fn a_mixed_batch_reports_every_file_in_order() {
    let files = [
        model("ok_symbolic_batch.onnx"),
        model("e1_static_mismatch.onnx"),
        model("load_truncated.onnx"),
    ];
    let (doc, code) = json(&[&files[0], &files[1], &files[2]]);
    assert_eq!(code, 2, "an unreadable file wins over errors");
    let reported: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        reported,
        files.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(doc["files"][0]["status"], "ok");
    assert_eq!(doc["files"][1]["diagnostics"][0]["code"], "E1");
    assert_eq!(doc["files"][2]["status"], "error");
    assert_eq!(doc["files"][2]["error"]["code"], "load/decode");
}

#[test]
fn json_contract_has_every_field() {
    let (doc, _) = json(&["--shapes", &model("e1_static_mismatch.onnx")]);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["tool"]["name"], "onnx-bcast-lint");
    let file = &doc["files"][0];
    for key in ["path", "status", "error", "diagnostics", "shapes"] {
        assert!(file.get(key).is_some(), "missing {key}");
    }
    let diagnostic = &file["diagnostics"][0];
    for key in ["code", "severity", "message", "node", "inputs"] {
        assert!(diagnostic.get(key).is_some(), "missing {key}");
    }
    for key in ["graph", "index", "name", "op_type", "domain"] {
        assert!(diagnostic["node"].get(key).is_some(), "missing node.{key}");
    }
    assert_eq!(diagnostic["severity"], "error");
    let inputs = diagnostic["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 2);
    assert!(inputs[0]["shape"].is_array());
    assert!(file["shapes"].as_object().unwrap().len() >= 3);
}

#[test]
fn json_shapes_are_symbolic_where_the_model_is() {
    let (doc, _) = json(&["--shapes", &model("ok_symbolic_batch.onnx")]);
    let shapes = doc["files"][0]["shapes"].as_object().unwrap();
    let symbolic = shapes
        .values()
        .filter_map(|s| s.as_array())
        .flatten()
        .filter(|d| d.is_string())
        .count();
    assert!(symbolic > 0, "{shapes:?}");
}

#[test]
fn declared_counts_are_adopted_and_narrowing_casts_keep_only_what_fits() {
    let (doc, code) = json(&[
        "--shapes",
        &model("ok_declared_counts.onnx"),
        &model("ok_narrowing_cast.onnx"),
    ]);
    assert_eq!(code, 0, "{doc}");
    let counts = &doc["files"][0]["shapes"];
    // NonZero's declared [2, 3] is adopted and flows on; Unique's `k` names the shared count.
    assert_eq!(counts["nz_t"], serde_json::json!([3, 2]));
    assert_eq!(counts["u_counts"], serde_json::json!(["k"]));
    // A 3-long condition keeps at most 3 slices: the declared 5 is not adopted.
    let kept = counts["kept"][0].as_str().unwrap();
    assert!(kept.contains("Compress#"), "{kept}");
    let casts = &doc["files"][1]["shapes"];
    assert_eq!(casts["e32"], serde_json::json!(["batch", "seq"]));
    assert_eq!(casts["e16"], serde_json::json!([null, null]));
    assert_eq!(casts["zeros"], serde_json::json!([44]));
}

#[test]
fn initializers_as_constants_recovers_dims_and_says_findings_depend_on_it() {
    let path = model("ok_initializer_inputs.onnx");
    let (plain, code) = json(&["--shapes", &path]);
    assert_eq!(code, 0, "{plain}");
    assert_eq!(
        plain["files"][0]["shapes"]["y"],
        serde_json::json!([null, null])
    );
    assert_eq!(plain["files"][0]["diagnostics"], serde_json::json!([]));
    let (assumed, code) = json(&["--shapes", "--initializers-as-constants", &path]);
    assert_eq!(code, 0, "{assumed}");
    let file = &assumed["files"][0];
    assert_eq!(file["shapes"]["y"], serde_json::json!(["2*batch", 3]));
    let diagnostics = file["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "W1");
    let help = diagnostics[0]["help"].as_str().unwrap();
    assert!(
        help.ends_with(
            "assuming initializers that are also graph inputs keep their values \
             (--initializers-as-constants)"
        ),
        "{help}"
    );
    // A finding no such input reaches (here: a model without any) gets no note.
    let (other, _) = json(&["--initializers-as-constants", &model("w1_symbolic.onnx")]);
    let help = other["files"][0]["diagnostics"][0]["help"]
        .as_str()
        .unwrap();
    assert!(!help.contains("initializers-as-constants"), "{help}");
}

#[test]
fn reads_standard_input() {
    let bytes = std::fs::read(model("e1_static_mismatch.onnx")).unwrap();
    let mut child = command()
        .args(["--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["path"], "-");
}

#[test]
fn sarif_output_validates_against_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let out = run(&[
        "--format",
        "sarif",
        &model("e1_static_mismatch.onnx"),
        &model("w1_symbolic.onnx"),
        &model("i1_custom_op.onnx"),
        &model("load_garbage.onnx"),
    ]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "E1"));
    let region = &results[0]["locations"][0]["physicalLocation"]["region"];
    assert!(region["byteLength"].as_u64().unwrap() > 0);
}

#[test]
fn output_is_deterministic() {
    let path = model("ok_symbolic_batch.onnx");
    let first = run(&["--format", "json", "--shapes", &path, &path]);
    let second = run(&["--format", "json", "--shapes", &path, &path]);
    assert_eq!(first.stdout, second.stdout);
}

// Issue 16, item 8: the command line, tried as a new user would.

#[test]
fn bound_dims_reach_messages_labels_and_shapes() {
    let path = model("w1_symbolic.onnx");
    let (doc, code) = json(&["--shapes", "--dim", "seq=5", &path]);
    assert_eq!(code, 1);
    let finding = &doc["files"][0]["diagnostics"][0];
    assert_eq!(finding["code"], "E1");
    assert!(
        finding["message"].as_str().unwrap().contains("5 vs 77"),
        "{finding}"
    );
    assert_eq!(
        finding["inputs"][0]["shape"],
        serde_json::json!(["batch", 5])
    );
    assert_eq!(
        doc["files"][0]["shapes"]["x"],
        serde_json::json!(["batch", 5])
    );
    let human = stdout(&run(&["--shapes", "--dim", "seq=77", &path]));
    assert!(human.contains("x: [batch, 77]"), "{human}");
}

#[test]
fn a_partial_binding_never_yields_a_counterexample_contradicting_it() {
    // `n = m ∨ n = 1 ∨ m = 1`: with n bound to 3 the counterexample may only choose m.
    let path = model("w1_two_symbols.onnx");
    let (doc, code) = json(&["--dim", "n=3", &path]);
    assert_eq!(code, 0);
    let finding = &doc["files"][0]["diagnostics"][0];
    assert_eq!(finding["code"], "W1");
    let text = format!("{} {}", finding["message"], finding["help"]);
    assert!(text.contains("m ∈ {1, 3}"), "{text}");
    assert!(text.contains("fails when m="), "{text}");
    assert!(!text.contains("n="), "{text}");
}

/// A float tensor `name` with these dims (`None`: neither a size nor a name).
fn tensor_info(name: &str, dims: Vec<Option<i64>>) -> onnx_bcast_lint::proto::ValueInfoProto {
    use onnx_bcast_lint::proto::tensor_shape_proto::{dimension, Dimension};
    use onnx_bcast_lint::proto::{type_proto, TensorShapeProto, TypeProto, ValueInfoProto};
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .into_iter()
                        .map(|d| Dimension {
                            value: d.map(dimension::Value::DimValue),
                            ..Default::default()
                        })
                        .collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Writes an opset-18 model of `graph` to `file` under the test target directory.
fn write_model(graph: onnx_bcast_lint::proto::GraphProto, file: &str) -> String {
    use onnx_bcast_lint::proto::{ModelProto, OperatorSetIdProto};
    use prost::Message;
    let model = ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(graph),
        ..Default::default()
    };
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(file);
    std::fs::write(&path, model.encode_to_vec()).unwrap();
    path.display().to_string()
}

/// A model whose input `x` has an axis declared with neither a size nor a name (`x:0`).
fn anonymous_axis_model() -> String {
    use onnx_bcast_lint::proto::{GraphProto, NodeProto};
    let graph = GraphProto {
        name: Some("g".into()),
        node: vec![NodeProto {
            op_type: Some("Add".into()),
            name: Some("add".into()),
            input: vec!["x".into(), "y".into()],
            output: vec!["z".into()],
            ..Default::default()
        }],
        input: vec![
            tensor_info("x", vec![None, Some(3)]),
            tensor_info("y", vec![Some(4), Some(3)]),
        ],
        output: vec![tensor_info("z", vec![None, Some(3)])],
        ..Default::default()
    };
    write_model(graph, "cli_anonymous_axis.onnx")
}

#[test]
fn a_dim_no_input_declares_is_exit_2_naming_the_closest_declared_ones() {
    let path = model("w1_symbolic.onnx");
    let out = run(&["--dim", "sq=5", &path]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("`sq`"), "{err}");
    assert!(err.contains("did you mean `seq`?"), "{err}");
    assert!(err.contains("declared: `batch`, `seq`"), "{err}");
    assert!(stdout(&out).is_empty(), "no report for a usage error");
    // Declared by one model of the batch is enough.
    let out = run(&["--dim", "seq=77", &path, &model("e1_static_mismatch.onnx")]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // `input:axis` names an axis declared without a size or a name.
    let anonymous = anonymous_axis_model();
    let (doc, code) = json(&[&anonymous]);
    assert_eq!(code, 0);
    assert_eq!(doc["files"][0]["diagnostics"][0]["code"], "W1");
    let (doc, code) = json(&["--dim", "x:0=5", &anonymous]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["files"][0]["diagnostics"][0]["code"], "E1");
    let out = run(&["--dim", "x:1=5", &anonymous]);
    assert_eq!(out.status.code(), Some(2), "x:1 is declared as 3");
    assert!(
        stderr(&out).contains("did you mean `x:0`?"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn allow_takes_comma_lists_as_well_as_repeats() {
    let files = [model("w1_symbolic.onnx"), model("i1_custom_op.onnx")];
    let codes = |args: &[&str]| -> Vec<String> {
        let mut all = args.to_vec();
        all.extend(files.iter().map(String::as_str));
        let (doc, _) = json(&all);
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["diagnostics"].as_array().unwrap().clone())
            .map(|d| d["code"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(codes(&[]), ["W1", "I1", "E1"]);
    assert_eq!(codes(&["--allow", "W1,I1"]), ["E1"]);
    assert_eq!(codes(&["--allow", "W1", "--allow", "I1"]), ["E1"]);
    assert_eq!(codes(&["--allow", "w1, i1"]), ["E1"]);
    assert_eq!(run(&["--allow", "W1,X9", &files[0]]).status.code(), Some(2));
}

#[test]
fn quiet_with_deny_warnings_still_prints_the_failing_warnings() {
    let path = model("w1_symbolic.onnx");
    let out = run(&["-q", "--deny", "warnings", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("W1") && text.contains("broadcasting is valid only if"),
        "{text}"
    );
    let quiet = stdout(&run(&["-q", &path]));
    assert!(!quiet.contains("valid only if"), "{quiet}");
}

#[test]
fn the_summary_counts_infos_too() {
    let text = stdout(&run(&[
        &model("i1_custom_op.onnx"),
        &model("w1_symbolic.onnx"),
    ]));
    assert_eq!(
        text.lines().last(),
        Some("1 error, 1 warning, 1 info in 2 files"),
        "{text}"
    );
}

#[test]
fn a_directory_without_models_says_so() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_no_models");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("README.txt"), "not a model").unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("warning: no *.onnx model found under"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("in 0 files"), "{}", stdout(&out));
    // Beside a model, the model is still linted.
    let out = run(&[dir.to_str().unwrap(), &model("e1_static_mismatch.onnx")]);
    assert_eq!(out.status.code(), Some(1));
}

// Issue 16, item 4: `--explain CODE`.

#[test]
fn explain_documents_every_code() {
    for code in [
        "E1",
        "W1",
        "E2",
        "E3",
        "E4",
        "W4",
        "W2",
        "I1",
        "load/io",
        "load/directory",
        "load/empty",
        "load/decode",
        "load/limit",
        "load/dims",
        "load/lfs-pointer",
    ] {
        let out = run(&["--explain", code]);
        assert_eq!(out.status.code(), Some(0), "{code}");
        let text = stdout(&out);
        assert!(text.starts_with(&format!("{code} (")), "{text}");
        // W2's model runs, E2 is retired, I1 loses knowledge: none of them fails a run.
        let why = match code {
            "W2" | "E2" => "What happens at run time",
            "I1" => "What is lost",
            _ => "Why it fails at run time",
        };
        for section in ["What it means", why, "Example", "How to fix it", "Spec"] {
            assert!(
                text.contains(&format!("\n{section}\n")),
                "{code}: {section}"
            );
        }
    }
    let retired = stdout(&run(&["--explain", "E2"]));
    assert!(
        retired.starts_with("E2 (retired; was error): "),
        "{retired}"
    );
    assert!(!retired.contains("Why it fails"), "{retired}");
    // Any case, as `--allow` takes codes.
    assert_eq!(run(&["--explain", "w4"]).status.code(), Some(0));
    let example = stdout(&run(&["--explain", "E1"]));
    assert!(example.contains("z = Add (x, y)"), "{example}");
}

#[test]
fn explain_of_an_unknown_code_is_exit_2_naming_the_known_ones() {
    let out = run(&["--explain", "E9"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("unknown code `E9`"), "{err}");
    assert!(
        err.contains("E1, W1, E2, E3, E4, W4, W2, W5, I1, I2, load/io"),
        "{err}"
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn sarif_rules_carry_the_explain_texts() {
    let out = run(&["--format", "sarif", &model("e1_static_mismatch.onnx")]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), 10);
    let explained = stdout(&run(&["--explain", "E1"]));
    let e1 = &rules[0];
    assert_eq!(e1["id"], "E1");
    assert_eq!(e1["help"]["text"].as_str().unwrap(), explained);
    let meaning = e1["fullDescription"]["text"].as_str().unwrap();
    assert!(
        meaning.starts_with("inputs of a broadcasting node"),
        "{meaning}"
    );
}

/// Output is written as it is made (a model can have millions of findings): each format still
/// ends with exactly one newline, the human summary comes before the `--shapes` listing, and a
/// batch larger than the files rendered in parallel at a time keeps its order.
#[test]
fn streamed_output_keeps_its_framing_and_order() {
    let failing = model("e1_static_mismatch.onnx");
    let clean = model("ok_symbolic_batch.onnx");
    for args in [
        vec!["--format", "json", failing.as_str()],
        vec!["--format", "sarif", failing.as_str()],
        vec![failing.as_str()],
        vec!["--shapes", failing.as_str()],
    ] {
        let out = run(&args);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.ends_with('\n') && !stdout.ends_with("\n\n"),
            "{args:?}: {stdout:?}"
        );
    }
    let out = run(&["--shapes", &failing]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let summary = stdout.find("1 error").unwrap();
    assert!(stdout.find("E1").unwrap() < summary, "{stdout}");
    // The shapes stand between the findings and the summary, which ends the output.
    assert!(stdout.find("z: ").unwrap() < summary, "{stdout}");
    assert_eq!(stdout[summary..].lines().count(), 1, "{stdout}");

    let batch: Vec<&str> = (0..40)
        .map(|i| {
            if i % 3 == 0 {
                failing.as_str()
            } else {
                clean.as_str()
            }
        })
        .collect();
    let (doc, code) = json(&batch);
    assert_eq!(code, 1);
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), batch.len());
    for (file, path) in files.iter().zip(&batch) {
        assert_eq!(file["path"], *path);
        let errors = file["diagnostics"].as_array().unwrap().len();
        assert_eq!(errors > 0, *path == failing, "{path}");
    }
}

/// Regression (hostile-input hunt): miette lays labels out with format widths, which stop at
/// 65,535 columns; a node whose output is named with 70,000 characters put its label past them
/// and the human output panicked. The listing is left out; the finding is still reported.
#[test]
fn a_listing_line_too_wide_to_draw_is_left_out_not_a_panic() {
    use onnx_bcast_lint::proto::{GraphProto, NodeProto};
    let graph = GraphProto {
        node: vec![NodeProto {
            op_type: Some("Add".into()),
            name: Some("add".into()),
            input: vec!["x".into(), "z".into()],
            output: vec!["y".repeat(70_000)],
            ..Default::default()
        }],
        input: vec![
            tensor_info("x", vec![Some(3)]),
            tensor_info("z", vec![Some(4)]),
        ],
        ..Default::default()
    };
    let path = write_model(graph, "cli_wide_listing.onnx");
    let out = run(&[&path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "cli_wide_listing.onnx: Add node `add`: inputs cannot broadcast: axis 0 is 3 vs 4"
        ),
        "{text}"
    );
    assert!(text.contains("1 error"), "{text}");
}

/// With `--shapes` the summary line still ends the output, after the shapes (issue 32, item 12).
#[test]
fn the_summary_ends_the_output_with_shapes_too() {
    let text = stdout(&run(&["--shapes", &model("w1_symbolic.onnx")]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.last(),
        Some(&"0 errors, 1 warning, 0 infos in 1 file"),
        "{text}"
    );
    let summaries = lines.iter().filter(|l| l.contains(" in 1 file")).count();
    assert_eq!(summaries, 1, "{text}");
    // The shapes come before it, after the finding.
    let finding = text.find("W1").unwrap();
    let shape = text.find("z: [batch,").unwrap();
    assert!(finding < shape, "{text}");
}

/// Every flag `--help` shows is in the README's options table and the table lists no flag the
/// command lacks (issue 32, item 12: the two had drifted).
#[test]
fn the_readme_options_table_lists_the_flags_of_help() {
    let help = stdout(&run(&["--help"]));
    let flags_in = |text: &str, line_starts: &str| -> std::collections::BTreeSet<String> {
        text.lines()
            .filter(|line| line.trim_start().starts_with(line_starts))
            .flat_map(|line| {
                line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .filter(|word| word.starts_with("--") && word.len() > 2)
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let table: String = readme
        .lines()
        .filter(|line| line.starts_with("| `-"))
        .map(|line| line.split(" | ").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let documented = flags_in(&table, "|");
    let shown = flags_in(&help, "-");
    assert!(!shown.is_empty() && shown.contains("--jobs"), "{help}");
    assert_eq!(shown, documented, "--help against the README's table");
}

/// What users read cites only what they can open: no path of this project's own workspace
/// (`../shared/spec/` was cited in the README, `--explain` and SARIF's rule help; issue 32,
/// item 12).
#[test]
fn user_facing_texts_cite_public_specs_only() {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let sarif = stdout(&run(&[
        "--format",
        "sarif",
        &model("e1_static_mismatch.onnx"),
    ]));
    let mut texts = vec![
        ("README.md".to_owned(), readme),
        ("SARIF".to_owned(), sarif),
    ];
    for code in ["E1", "W1", "E3", "E4", "W4", "W2", "I1", "load/decode"] {
        texts.push((code.to_owned(), stdout(&run(&["--explain", code]))));
    }
    for (what, text) in &texts {
        assert!(
            !text.contains("shared/"),
            "{what} cites the workspace's shared/"
        );
    }
    let e1 = &texts.iter().find(|(what, _)| what == "E1").unwrap().1;
    assert!(
        e1.contains("mlir.llvm.org/docs/Traits/Broadcastable"),
        "{e1}"
    );
}

/// The README's sample runs on the committed fixtures are what the command prints at the
/// default width (issue 32, item 12: the samples had lost the `fingerprint:` lines). A sample
/// may leave lines out with `...`; the runs of lines between are looked for in order. `$ echo $?`
/// after a sample gives the exit code.
#[test]
fn readme_samples_are_what_the_command_prints() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut checked = 0;
    for block in readme.split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let mut lines = block.lines();
        let Some(args) = lines
            .next()
            .and_then(|line| line.strip_prefix("$ onnx-bcast-lint "))
        else {
            continue;
        };
        let args: Vec<&str> = args.split_whitespace().collect();
        if !args.iter().any(|arg| arg.starts_with("tests/models/")) {
            continue;
        }
        let shown: Vec<&str> = lines.collect();
        let (printed, exit) = match shown.iter().position(|line| *line == "$ echo $?") {
            Some(at) => (
                &shown[..at],
                shown.get(at + 1).map(|code| code.parse::<i32>().unwrap()),
            ),
            None => (&shown[..], None),
        };
        let out = command()
            .args(&args)
            .current_dir(&root)
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        if let Some(exit) = exit {
            assert_eq!(out.status.code(), Some(exit), "{args:?}");
        }
        let actual = stdout(&out);
        let mut from = 0;
        for run in printed.split(|line| *line == "...") {
            if run.is_empty() {
                continue;
            }
            let expected = format!("{}\n", run.join("\n"));
            let found = actual[from..].find(&expected);
            assert!(
                found.is_some(),
                "README sample `{args:?}`: not printed in this order:\n{expected}\nprinted:\n{actual}"
            );
            from += found.unwrap() + expected.len();
        }
        if !printed.contains(&"...") {
            assert_eq!(
                from,
                actual.len(),
                "{args:?}: more printed than shown:\n{actual}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} samples checked");
}

/// Issue 35, item 4: a run of many files shows no progress line when standard error is piped
/// (as here): no carriage return, no `files,` count, and the JSON on standard output is whole.
#[test]
fn no_progress_line_when_piped() {
    let out = run(&["--format", "json", "tests/models"]);
    let err = stderr(&out);
    assert!(!err.contains('\r'), "{err:?}");
    assert!(!err.contains(" files, "), "{err:?}");
    let document: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(document["files"].as_array().unwrap().len() >= 20);
}
