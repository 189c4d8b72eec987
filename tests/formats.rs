//! Issue 32 (items 8, 10, 12): the one-line formats (`concise`, `github`, `junit`) through the
//! command, with the same exit codes as the others; the human listing kept to the width on
//! models with exporters' long names; Git LFS pointers, standard input and `load/io` as load
//! errors say them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

mod common;
use common::{command, stdout};

fn model(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
        .display()
        .to_string()
}

/// Runs the command in `dir` with a fixed width and no colour.
fn run_in(dir: &Path, columns: usize, args: &[&str]) -> Output {
    command()
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", columns.to_string())
        .output()
        .unwrap()
}

fn run(args: &[&str]) -> Output {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), common::WIDTH, args)
}

/// A fresh directory under the test target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_format_has_the_same_exit_codes() {
    let bad = model("e1_static_mismatch.onnx");
    let clean = model("ok_symbolic_batch.onnx");
    let unreadable = model("load_garbage.onnx");
    for format in [
        "human", "json", "sarif", "concise", "github", "junit", "html",
    ] {
        for (models, code) in [
            (vec![clean.as_str()], 0),
            (vec![bad.as_str(), clean.as_str()], 1),
            (vec![bad.as_str(), unreadable.as_str()], 2),
        ] {
            let mut args = vec!["--format", format];
            args.extend(&models);
            let out = run(&args);
            assert_eq!(out.status.code(), Some(code), "{format} {models:?}");
            assert!(!out.stdout.is_empty(), "{format}");
        }
    }
}

#[test]
fn concise_github_and_junit_through_the_command() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = |format| {
        vec![
            "--format",
            format,
            "tests/models/e1_static_mismatch.onnx",
            "tests/models/w1_symbolic.onnx",
        ]
    };
    let concise = stdout(&run_in(dir, 1000, &args("concise")));
    let lines: Vec<&str> = concise.lines().collect();
    assert_eq!(lines.len(), 3, "{concise}");
    assert!(
        lines[0].starts_with("tests/models/e1_static_mismatch.onnx:2:1: E1 "),
        "{concise}"
    );
    assert!(
        lines[1].starts_with("tests/models/w1_symbolic.onnx:2:1: W1 "),
        "{concise}"
    );
    assert_eq!(lines[2], "1 error, 1 warning, 0 infos in 2 files");
    // --quiet keeps what fails the run, as it does for the human report.
    let mut quiet = args("concise");
    quiet.push("-q");
    assert_eq!(stdout(&run_in(dir, 1000, &quiet)).lines().count(), 2);

    let github = stdout(&run_in(dir, 1000, &args("github")));
    assert!(
        github.starts_with(
            "::error file=tests/models/e1_static_mismatch.onnx,line=2,col=1,title=E1::"
        ),
        "{github}"
    );
    assert!(
        github.contains("\n::warning file=tests/models/w1_symbolic.onnx,line=2,col=1,title=W1::"),
        "{github}"
    );
    // One annotation a line: the help and fingerprint are escaped into it.
    assert_eq!(github.lines().count(), 3, "{github}");

    let junit = stdout(&run_in(dir, 1000, &args("junit")));
    assert!(junit.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert!(
        junit.contains(r#"tests="2" failures="1" errors="0""#),
        "{junit}"
    );
    assert!(junit.contains(r#"<failure type="E1" "#), "{junit}");
    assert!(junit.trim_end().ends_with("</testsuites>"), "{junit}");
}

/// A float tensor `name` with these dims.
fn tensor_info(name: &str, dims: &[i64]) -> onnx_bcast_lint::proto::ValueInfoProto {
    use onnx_bcast_lint::proto::tensor_shape_proto::{dimension, Dimension};
    use onnx_bcast_lint::proto::{type_proto, TensorShapeProto, TypeProto, ValueInfoProto};
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| Dimension {
                            value: Some(dimension::Value::DimValue(*d)),
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

/// A model as exporters name them: values and nodes named by module path, 35-60 characters
/// each, with an Add whose inputs cannot broadcast (its line in a listing: 200+ columns).
fn exporter_model(path: &Path) {
    use onnx_bcast_lint::proto::{GraphProto, ModelProto, NodeProto, OperatorSetIdProto};
    use prost::Message;
    let hidden = "/model/decoder/layers.11/self_attn/rotary_emb/Unsqueeze_output_0";
    let bias = "/model/decoder/layers.11/self_attn/rotary_emb/Constant_12_output_0";
    let sum = "/model/decoder/layers.11/self_attn/rotary_emb/Add_output_0";
    let graph = GraphProto {
        name: Some("main_graph".into()),
        node: vec![NodeProto {
            op_type: Some("Add".into()),
            name: Some("/model/decoder/layers.11/self_attn/rotary_emb/Add".into()),
            input: vec![hidden.into(), bias.into()],
            output: vec![sum.into()],
            ..Default::default()
        }],
        input: vec![tensor_info(hidden, &[1, 32, 128]), tensor_info(bias, &[64])],
        output: vec![tensor_info(sum, &[1, 32, 128])],
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
    std::fs::write(path, model.encode_to_vec()).unwrap();
}

#[test]
fn long_exporter_names_stay_within_the_width() {
    let dir = scratch("formats_long_names");
    let segments = ["exported", "speech_to_text_decoder_v2", "onnx_fp32"];
    let nested = dir.join(segments[..2].join("/"));
    std::fs::create_dir_all(&nested).unwrap();
    let relative = format!("{}/{}.onnx", segments[..2].join("/"), segments[2]);
    exporter_model(&dir.join(&relative));
    for columns in [80, 100, 120] {
        let out = run_in(&dir, columns, &[&relative]);
        assert_eq!(out.status.code(), Some(1));
        let text = stdout(&out);
        // The listing's node line was 200 columns: every line now fits.
        for line in text.lines() {
            assert!(
                line.chars().count() <= columns,
                "{} columns at width {columns}: {line}\n{text}",
                line.chars().count()
            );
        }
        // The headline breaks the path only between segments: each is whole on one line.
        let headline: Vec<String> = text
            .lines()
            .skip_while(|l| !l.starts_with("  × "))
            .take_while(|l| !l.trim_start().starts_with('╭'))
            .map(|l| l.chars().skip(4).collect())
            .collect();
        assert!(headline.len() > 1, "{text}");
        for segment in segments {
            assert!(
                headline.iter().any(|l| l.contains(segment)),
                "`{segment}` broken at width {columns}: {headline:#?}"
            );
        }
        assert!(text.contains("E1"), "{text}");
        // The shortened tokens keep their end; the labels give the whole name.
        assert!(text.contains("Constant_12_outp"), "{text}");
        assert!(text.contains("[64]"), "{text}");
        assert!(text.contains('…'), "{text}");
    }
}

fn lfs_pointer(size: u64) -> String {
    format!(
        "version https://git-lfs.github.com/spec/v1\n\
         oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n\
         size {size}\n"
    )
}

#[test]
fn a_git_lfs_pointer_says_to_fetch_the_model() {
    let dir = scratch("formats_lfs");
    let path = dir.join("model.onnx");
    std::fs::write(&path, lfs_pointer(48_213_004)).unwrap();
    let path = path.display().to_string();
    let out = run(&[&path]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("load/lfs-pointer"), "{text}");
    assert!(
        text.contains(
            "is a Git LFS pointer file, not the model: the model (48213004 bytes) was not fetched"
        ),
        "{text}"
    );
    assert!(text.contains("git lfs pull"), "{text}");
    assert!(text.contains("lfs: true"), "{text}");
    assert!(!text.contains("invalid field tag"), "{text}");
    let out = run(&["--format", "json", &path]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["error"]["code"], "load/lfs-pointer");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-v1.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&doc));
    let out = run(&["--explain", "load/lfs-pointer"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("git lfs pull"));
}

/// Runs the command on `input` as standard input.
fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn standard_input_is_named_dash_in_findings_and_in_load_errors() {
    let bad = std::fs::read(model("e1_static_mismatch.onnx")).unwrap();
    let found = stdout(&run_stdin(&["--format", "concise", "-"], &bad));
    assert!(found.starts_with("-:2:1: E1 "), "{found}");
    for input in [&b""[..], lfs_pointer(10).as_bytes(), b"garbage"] {
        let out = run_stdin(&["--format", "json", "-"], input);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let file = &doc["files"][0];
        assert_eq!(file["path"], "-");
        let message = file["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("- ") || message.starts_with("-: "),
            "{message}"
        );
        assert!(!message.contains("<stdin>"), "{message}");
    }
}

#[test]
fn an_unreadable_file_gives_the_os_error_once() {
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("formats_missing.onnx");
    let out = run(&[&missing.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("load/io"), "{text}");
    assert_eq!(text.matches("os error 2").count(), 1, "{text}");
}
