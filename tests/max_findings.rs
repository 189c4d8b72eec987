//! The findings cap (`--max-findings`, `max-findings`, `Options::with_max_findings`): the first
//! findings in graph order are kept, the others counted exactly per code in every format, they
//! still fail the run, the gate sees them all, and the output of a model of many findings stays
//! bounded.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use bytes::Bytes;
use onnx_bcast_lint::proto::{GraphProto, ModelProto, NodeProto, OperatorSetIdProto};
use onnx_bcast_lint::{lint_bytes, lint_model, Code, LintReport, Options, DEFAULT_MAX_FINDINGS};
use prost::Message;

mod common;
use common::{command, run, stdout};

/// A node with no op type: one `E3` each, with a fingerprint of its own (its name).
fn empty_node(i: usize) -> NodeProto {
    NodeProto {
        name: Some(format!("empty_{i}")),
        ..Default::default()
    }
}

/// A node of an op no opset defines: one `I1` per op type, so each its own.
fn unknown_op(i: usize) -> NodeProto {
    NodeProto {
        op_type: Some(format!("NoSuchOp{i}")),
        name: Some(format!("unknown_{i}")),
        output: vec![format!("u{i}")],
        ..Default::default()
    }
}

fn model(nodes: Vec<NodeProto>) -> ModelProto {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: nodes,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `count` empty nodes (`count` `E3` findings).
fn empty_nodes(count: usize) -> ModelProto {
    model((0..count).map(empty_node).collect())
}

/// `infos` unknown ops, then `errors` empty nodes: the infos come first in graph order.
fn infos_then_errors(infos: usize, errors: usize) -> ModelProto {
    let mut nodes: Vec<NodeProto> = (0..infos).map(unknown_op).collect();
    nodes.extend((0..errors).map(empty_node));
    model(nodes)
}

fn lint(model: &ModelProto, options: &Options) -> LintReport {
    lint_model(model.clone(), options).unwrap()
}

/// The model written to a file of its own in a directory of its own (for a configuration
/// beside it), which the returned guard removes.
struct Written {
    dir: PathBuf,
    path: String,
}

impl Written {
    fn new(name: &str, model: &ModelProto) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "onnx-bcast-lint-max-findings-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("model.onnx");
        std::fs::write(&path, model.encode_to_vec()).unwrap();
        Written {
            path: path.display().to_string(),
            dir,
        }
    }

    fn config(&self, text: &str) {
        std::fs::write(self.dir.join("onnx-bcast-lint.toml"), text).unwrap();
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn json(args: &[&str]) -> (serde_json::Value, i32) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = run(&all);
    let value = serde_json::from_slice(&out.stdout).unwrap();
    (value, out.status.code().unwrap())
}

fn schema_valid(doc: &serde_json::Value) -> bool {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-v1.json"),
        )
        .unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).unwrap().is_valid(doc)
}

#[test]
fn the_library_keeps_the_default_number_and_counts_the_rest_per_code() {
    let model = empty_nodes(DEFAULT_MAX_FINDINGS + 1_500);
    let capped = lint(&model, &Options::new());
    assert_eq!(Options::new().max_findings(), Some(DEFAULT_MAX_FINDINGS));
    assert_eq!(capped.findings().len(), DEFAULT_MAX_FINDINGS);
    assert_eq!(capped.omitted().of(Code::E3), 1_500);
    assert_eq!(capped.omitted().total(), 1_500);
    assert_eq!(
        capped.omitted().iter().collect::<Vec<_>>(),
        [(Code::E3, 1_500)]
    );
    let all = lint(&model, &Options::new().with_max_findings(0));
    assert_eq!(Options::new().with_max_findings(0).max_findings(), None);
    assert_eq!(all.findings().len(), DEFAULT_MAX_FINDINGS + 1_500);
    assert!(all.omitted().is_empty());
    // The kept ones are the first in graph order, with the same text and provenance.
    assert_eq!(
        capped.findings(),
        &all.findings()[..DEFAULT_MAX_FINDINGS],
        "the capped run keeps a prefix of the full run"
    );
}

#[test]
fn under_the_cap_nothing_is_omitted() {
    let report = lint(&empty_nodes(7), &Options::new().with_max_findings(7));
    assert_eq!(report.findings().len(), 7);
    assert!(report.omitted().is_empty());
    assert_eq!(report.omitted().total(), 0);
}

#[test]
fn an_omitted_error_still_makes_the_report_fail() {
    let model = infos_then_errors(3, 2);
    let report = lint(&model, &Options::new().with_max_findings(3));
    assert!(report.findings().iter().all(|f| f.code == Code::I1));
    assert_eq!(report.omitted().of(Code::E3), 2);
    assert!(report.has_errors());
    let report = lint(&model, &Options::new().with_max_findings(3).allow(Code::E3));
    assert!(!report.has_errors());
    assert!(report.omitted().is_empty(), "allowed codes are not counted");
}

#[test]
fn which_findings_are_kept_does_not_depend_on_the_entry_point_or_the_run() {
    let model = infos_then_errors(40, 40);
    let options = Options::new().with_max_findings(50);
    let bytes = Bytes::from(model.encode_to_vec());
    let first = lint(&model, &options);
    for _ in 0..3 {
        let again = lint_bytes(bytes.clone(), Path::new("m.onnx"), &options).unwrap();
        let kept: Vec<_> = again
            .findings()
            .iter()
            .map(onnx_bcast_lint::Finding::fingerprint)
            .collect();
        let before: Vec<_> = first
            .findings()
            .iter()
            .map(onnx_bcast_lint::Finding::fingerprint)
            .collect();
        assert_eq!(kept, before);
        assert_eq!(again.omitted(), first.omitted());
    }
    assert_eq!(first.omitted().of(Code::E3), 30);
}

#[test]
fn the_human_output_says_how_many_it_did_not_show() {
    let written = Written::new("human", &infos_then_errors(2, 1_500));
    let out = run(&["--max-findings", "1000", &written.path]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "... and 502 more E3 findings in {} (--max-findings 0 shows all)",
            written.path
        )),
        "{text}"
    );
    assert!(
        text.ends_with("1500 errors (998 shown), 0 warnings, 2 infos in 1 file\n"),
        "{text}"
    );
    assert_eq!(text.matches(": node has no op_type").count(), 998);
    // The default is the same cap.
    assert_eq!(stdout(&run(&[&written.path])), text);
    // 0 shows them all, and the summary has no note.
    let all = stdout(&run(&["--max-findings", "0", &written.path]));
    assert_eq!(all.matches(": node has no op_type").count(), 1_500);
    assert!(!all.contains("more E3"));
    assert!(
        all.ends_with("1500 errors, 0 warnings, 2 infos in 1 file\n"),
        "{all}"
    );
}

#[test]
fn quiet_output_counts_omitted_errors_and_leaves_out_omitted_infos() {
    let written = Written::new("quiet", &infos_then_errors(3, 2));
    let out = run(&["-q", "--max-findings", "1", &written.path]);
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an omitted error fails the run: {text}"
    );
    assert!(text.contains("... and 2 more E3 findings in"), "{text}");
    assert!(!text.contains("more I1"), "{text}");
    assert!(
        text.ends_with("2 errors (0 shown), 0 warnings, 3 infos (1 shown) in 1 file\n"),
        "{text}"
    );
}

#[test]
fn json_gives_the_omitted_counts_per_code() {
    let written = Written::new("json", &infos_then_errors(2, 10));
    let (doc, code) = json(&["--max-findings", "5", &written.path]);
    assert_eq!(code, 1);
    let file = &doc["files"][0];
    assert_eq!(file["diagnostics"].as_array().unwrap().len(), 5);
    assert_eq!(file["omitted"], serde_json::json!({"E3": 7}));
    assert!(schema_valid(&doc));
    // The cap keeps the first in graph order: both infos, then the first three errors.
    let codes: Vec<&str> = file["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["I1", "I1", "E3", "E3", "E3"]);
    // Under the cap the member is absent.
    let (doc, _) = json(&["--max-findings", "12", &written.path]);
    assert!(doc["files"][0].get("omitted").is_none(), "{doc}");
    assert!(schema_valid(&doc));
}

#[test]
fn sarif_notes_the_omitted_findings_per_code() {
    let written = Written::new("sarif", &infos_then_errors(4, 3));
    let out = run(&["--format", "sarif", "--max-findings", "2", &written.path]);
    assert_eq!(out.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &log["runs"][0];
    assert_eq!(run["results"].as_array().unwrap().len(), 2);
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    let counts: Vec<(&str, u64)> = notes
        .iter()
        .map(|n| {
            assert_eq!(n["level"], "note");
            assert_eq!(n["descriptor"]["id"], "max-findings");
            (
                n["properties"]["code"].as_str().unwrap(),
                n["properties"]["omitted"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counts, [("E3", 3), ("I1", 2)]);
    assert!(notes[0]["message"]["text"]
        .as_str()
        .unwrap()
        .starts_with("... and 3 more E3 findings in"));
}

#[test]
fn the_html_report_counts_what_it_does_not_show() {
    let written = Written::new("html", &empty_nodes(30));
    let out = run(&["--format", "html", "--max-findings", "10", &written.path]);
    let page = stdout(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(page.contains("<td>30 (10 shown)</td>"), "summary table");
    assert!(page.contains("30 E3 (10 shown)"), "file header");
    assert!(
        page.contains("... and 20 more E3 findings in"),
        "closing line"
    );
    assert_eq!(page.matches(r#"class="finding"#).count(), 10);
}

#[test]
fn the_configuration_sets_the_cap_and_the_flag_wins() {
    let written = Written::new("config", &empty_nodes(12));
    written.config("max-findings = 4\n");
    let (doc, _) = json(&[&written.path]);
    assert_eq!(doc["files"][0]["diagnostics"].as_array().unwrap().len(), 4);
    assert_eq!(doc["files"][0]["omitted"]["E3"], 8);
    let (doc, _) = json(&["--max-findings", "6", &written.path]);
    assert_eq!(doc["files"][0]["omitted"]["E3"], 6);
    let (doc, _) = json(&["--max-findings", "0", &written.path]);
    assert_eq!(doc["files"][0]["diagnostics"].as_array().unwrap().len(), 12);
    written.config("max-findings = -1\n");
    let out = run(&[&written.path]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a negative cap is a configuration error"
    );
}

#[test]
fn ignored_findings_do_not_use_up_the_cap() {
    let model = infos_then_errors(1, 5);
    let written = Written::new("ignore", &model);
    let all = lint(&model, &Options::new());
    let first = all.findings()[0].fingerprint();
    written.config(&format!(
        "max-findings = 3\n[ignore]\n\"model.onnx\" = [\"{first}\"]\n"
    ));
    let (doc, code) = json(&[&written.path]);
    assert_eq!(code, 1);
    let file = &doc["files"][0];
    // The ignored info is gone, three of the five errors are shown, two counted.
    let shown = file["diagnostics"].as_array().unwrap();
    assert_eq!(shown.len(), 3);
    assert!(shown.iter().all(|d| d["code"] == "E3"));
    assert_eq!(file["omitted"], serde_json::json!({"E3": 2}));
}

#[test]
fn a_baseline_holds_every_finding_not_only_the_shown_ones() {
    let written = Written::new("baseline", &empty_nodes(20));
    let baseline = written.dir.join("baseline.txt");
    let baseline = baseline.display().to_string();
    let out = run(&[
        "--max-findings",
        "5",
        "--write-baseline",
        &baseline,
        &written.path,
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&baseline)
            .unwrap()
            .lines()
            .filter(|l| l.contains("E3:"))
            .count(),
        20
    );
    let out = run(&[
        "--max-findings",
        "5",
        "--baseline",
        &baseline,
        &written.path,
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 errors"), "{text}");
    assert!(!text.contains("more E3"), "{text}");
}

/// The hostile model of issue 34 at a tenth of its size: 100,000 empty nodes. Each finding's
/// JSON is about 600 bytes, so without the cap the document is about 60 MB; with it, the
/// default's thousand findings. A bound on bytes, not on time.
#[test]
fn the_output_of_a_model_of_many_findings_is_bounded() {
    let written = Written::new("bounded", &empty_nodes(100_000));
    for format in ["json", "human", "sarif", "html"] {
        let out = command()
            .args(["--format", format, &written.path])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        let size = out.stdout.len();
        assert!(
            size < 3_000_000,
            "{format}: {size} bytes for the default cap of {DEFAULT_MAX_FINDINGS}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let says = if format == "json" {
            r#""E3": 99000"#
        } else {
            "99,000 more E3 findings"
        };
        assert!(text.contains(says), "{format}");
    }
}
