//! The library as a converter calls it (issue 19 items 2 and 3), through its public surface
//! only: shapes reflect the caller's bindings, errors read as sentences, the protobuf types come
//! from the crate itself, and every accessor of a report gives what the model holds.

use std::path::Path;
use std::time::Instant;

use onnx_bcast_lint::diag::Facts;
use onnx_bcast_lint::proto::{Message, ModelProto};
use onnx_bcast_lint::report::{json, FileReport};
use onnx_bcast_lint::{
    lint_bytes, lint_model, lint_path, lint_path_timed, unknown_dims, Code, Dim, Fingerprint,
    Limits, LintReport, LoadError, Options, Severity, Shape, Stats,
};

fn model(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
}

#[test]
fn shapes_reflect_the_callers_bindings() {
    // w1_symbolic adds x: [batch, seq] to y: [.., 77]: valid only if seq is 1 or 77.
    let unbound = lint_path(&model("w1_symbolic.onnx"), &Options::new()).unwrap();
    let x = unbound.shape("x").unwrap().to_string();
    assert!(x.contains("seq"), "unbound x is {x}");
    assert!(unbound.findings().iter().any(|f| f.code == Code::W1));

    let options = Options::new().with_dim("batch", 2).with_dim("seq", 77);
    let bound = lint_path(&model("w1_symbolic.onnx"), &options).unwrap();
    assert_eq!(bound.shape("x").unwrap().to_string(), "[2, 77]");
    for (name, shape) in bound.main_shapes() {
        let text = shape.to_string();
        assert!(
            !text.contains("seq") && !text.contains("batch"),
            "{name}: {text}"
        );
    }
    assert!(bound.findings().is_empty(), "{:?}", bound.findings());

    let breaking = Options::new().with_dim("seq", 5);
    let report = lint_path(&model("w1_symbolic.onnx"), &breaking).unwrap();
    assert!(report.has_errors());
    assert!(report.findings().iter().any(|f| f.code == Code::E1));
}

#[test]
fn load_errors_display_the_sentence_a_person_reads() {
    let missing = model("no_such_model.onnx");
    let error = lint_path(&missing, &Options::new()).unwrap_err();
    let text = error.to_string();
    assert!(text.starts_with("cannot read "), "{text}");
    assert!(text.contains("no_such_model.onnx"), "{text}");
    assert!(!text.contains("Io {"), "Debug text leaked: {text}");
}

#[test]
fn lint_model_takes_a_model_decoded_with_the_crates_own_prost() {
    let bytes = std::fs::read(model("e1_static_mismatch.onnx")).unwrap();
    let proto = ModelProto::decode(bytes.as_slice()).unwrap();
    let report = lint_model(proto, &Options::new()).unwrap();
    assert!(report.findings().iter().any(|f| f.code == Code::E1));
}

#[test]
fn declared_dims_are_the_main_inputs_symbols_before_binding() {
    let options = Options::new().with_dim("seq", 77);
    let report = lint_path(&model("w1_symbolic.onnx"), &options).unwrap();
    let declared: Vec<&str> = report.declared_dims().iter().map(String::as_str).collect();
    assert_eq!(declared, ["batch", "seq"]);
    // Bound, `seq` is gone from the shapes, though still declared.
    assert_eq!(
        report.shape("x").and_then(Shape::dims),
        Some(
            &[
                Dim::Sym(onnx_bcast_lint::Expr::symbol("batch")),
                Dim::Known(77)
            ][..]
        )
    );
}

#[test]
fn stats_count_the_model_as_the_json_output_does() {
    // ok_subgraphs: If (then, else with a nested If of two branches), Loop and Scan bodies.
    let path = model("ok_subgraphs.onnx");
    let report = lint_path(&path, &Options::new()).unwrap();
    let stats: Stats = report.stats();
    assert_eq!(
        (stats.graphs, stats.nodes, stats.initializers, stats.values),
        (7, 3, 3, 9)
    );
    assert_eq!((stats.sparse_initializers, stats.value_info), (0, 0));
    let files = [FileReport {
        path: "ok_subgraphs.onnx".into(),
        outcome: Ok(report),
    }];
    let document: serde_json::Value = serde_json::from_str(&json::render(&files, false)).unwrap();
    let counted = &document["files"][0]["stats"];
    assert_eq!(counted["graphs"], stats.graphs);
    assert_eq!(counted["nodes"], stats.nodes);
    assert_eq!(counted["values"], stats.values);
}

#[test]
fn every_graph_is_named_by_path_and_its_shapes_read_by_it() {
    let report = lint_path(&model("ok_subgraphs.onnx"), &Options::new()).unwrap();
    let paths: Vec<&str> = report.graph_paths().collect();
    assert_eq!(paths.len(), report.stats().graphs);
    assert_eq!(paths.first(), Some(&"main"));
    for path in [
        "main/if/then_branch",
        "main/if/else_branch/nested_if/then_branch",
        "main/loop/body",
        "main/scan/body",
    ] {
        assert!(paths.contains(&path), "{path} missing from {paths:?}");
    }
    // then_branch adds the outer x: [2, 3] and w: [3].
    let then_out = report.shape_in("main/if/then_branch", "then_out").unwrap();
    assert_eq!(then_out, &Shape::from_known(&[2, 3]));
    let shapes: Vec<(&str, &Shape)> = report
        .graph_shapes("main/if/then_branch")
        .unwrap()
        .collect();
    assert!(shapes.contains(&("then_out", then_out)), "{shapes:?}");
    // A value of a branch is not one of the main graph's, and a made-up path names nothing.
    assert_eq!(report.shape("then_out"), None);
    assert!(report.graph_shapes("main/nowhere").is_none());
    assert_eq!(report.shape_in("main/nowhere", "x"), None);
    // The main graph's shapes, by path and by the shortcut, agree.
    let main: Vec<_> = report.graph_shapes("main").unwrap().collect();
    assert_eq!(main, report.main_shapes().collect::<Vec<_>>());
    assert_eq!(main.len(), report.stats().values);
    assert_eq!(report.shape("if_out"), Some(&Shape::from_known(&[2, 3])));
}

#[test]
fn findings_carry_typed_facts_severity_and_a_stable_fingerprint() {
    let bytes = std::fs::read(model("e1_static_mismatch.onnx")).unwrap();
    let first = lint_bytes(bytes.clone().into(), Path::new("a.onnx"), &Options::new()).unwrap();
    let again = lint_bytes(bytes.into(), Path::new("b.onnx"), &Options::new()).unwrap();
    let finding = &first.findings()[0];
    assert_eq!(
        (finding.code, finding.severity()),
        (Code::E1, Severity::Error)
    );
    assert!(matches!(
        finding.facts,
        Facts::BroadcastClash { axis: Some(1), .. }
    ));
    let print = finding.fingerprint();
    assert_eq!(print, again.findings()[0].fingerprint());
    assert_eq!(Fingerprint::parse(print.as_str()), Some(print));
    let codes: Vec<Code> = first.findings().iter().map(|f| f.code).collect();
    let owned: Vec<Code> = first.into_findings().iter().map(|f| f.code).collect();
    assert_eq!(codes, owned);
}

#[test]
fn allowed_codes_are_not_reported() {
    let report = lint_path(
        &model("e1_static_mismatch.onnx"),
        &Options::new().allow(Code::E1),
    )
    .unwrap();
    assert!(report.findings().iter().all(|f| f.code != Code::E1));
    assert!(!report.has_errors());
}

#[test]
fn limits_builders_replace_one_limit_each() {
    let base = Limits::default();
    let limits = base.with_max_rank(3).with_max_depth(7).with_max_nodes(9);
    assert_eq!(
        (limits.max_rank, limits.max_depth, limits.max_nodes),
        (3, 7, 9)
    );
    assert_eq!(base.with_max_rank(3).max_nodes, base.max_nodes);
    // The timed entry point honours them: x: [2, 3] has rank 2.
    let options = Options::new().with_limits(base.with_max_rank(1));
    let (outcome, _) = lint_path_timed(&model("e1_static_mismatch.onnx"), &options);
    let error = outcome.unwrap_err();
    assert_eq!(error.code(), "load/limit", "{error}");
}

#[test]
fn timings_account_for_no_more_than_the_run() {
    let start = Instant::now();
    let (outcome, timings) = lint_path_timed(&model("w1_symbolic.onnx"), &Options::new());
    let wall = start.elapsed();
    assert!(outcome
        .unwrap()
        .findings()
        .iter()
        .any(|f| f.code == Code::W1));
    let stages = timings.read()
        + timings.scan()
        + timings.decode()
        + timings.graph()
        + timings.infer()
        + timings.settle()
        + timings.check();
    assert!(stages <= wall, "{stages:?} > {wall:?}");
}

/// The names and closest names of an `UnknownDims` error, or a panic naming what came instead.
#[allow(clippy::unwrap_used, clippy::panic)] // a test helper: a panic is the test failing
fn unknown(outcome: Result<LintReport, LoadError>) -> (LoadError, Vec<(String, Vec<String>)>) {
    let error = outcome.unwrap_err();
    let LoadError::UnknownDims { dims, .. } = &error else {
        panic!("not UnknownDims: {error}");
    };
    let named = dims
        .iter()
        .map(|d| (d.name.clone(), d.closest.clone()))
        .collect();
    (error, named)
}

#[test]
fn every_entry_point_refuses_a_dim_no_input_declares() {
    let path = model("w1_symbolic.onnx");
    let bytes = std::fs::read(&path).unwrap();
    let options = Options::new().with_dim("sequence", 5).with_dim("batch", 1);
    let expected = vec![("sequence".to_owned(), vec!["seq".to_owned()])];

    let (error, named) = unknown(lint_path(&path, &options));
    assert_eq!(named, expected);
    assert_eq!(error.code(), "usage/dim");
    let text = error.to_string();
    assert!(text.contains("w1_symbolic.onnx: "), "{text}");
    assert!(
        text.ends_with(
            "no graph input declares a dim named `sequence`; did you mean `seq`? \
             (declared: `batch`, `seq`)"
        ),
        "{text}"
    );
    assert_eq!(unknown(lint_path_timed(&path, &options).0).1, expected);
    let (error, named) = unknown(lint_bytes(
        bytes.clone().into(),
        Path::new("upload.onnx"),
        &options,
    ));
    assert_eq!(named, expected);
    assert!(error.to_string().starts_with("upload.onnx: "), "{error}");
    let proto = ModelProto::decode(bytes.as_slice()).unwrap();
    let (error, named) = unknown(lint_model(proto, &options));
    assert_eq!(named, expected);
    assert!(error.to_string().starts_with("<model>: "), "{error}");
}

#[test]
fn every_unknown_dim_is_named_each_on_its_line() {
    let options = Options::new()
        .with_dim("btch", 1)
        .with_dim("seq", 5)
        .with_dim("width", 3);
    let (error, named) = unknown(lint_path(&model("w1_symbolic.onnx"), &options));
    // Binding order is the binding's (sorted by name).
    assert_eq!(
        named,
        [
            ("btch".to_owned(), vec!["batch".to_owned()]),
            ("width".to_owned(), vec![]),
        ]
    );
    let text = error.to_string();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("`btch`; did you mean `batch`?"), "{text}");
    assert!(
        text.contains("`width` (declared: `batch`, `seq`)"),
        "{text}"
    );
}

#[test]
fn a_model_without_symbols_refuses_every_name() {
    let options = Options::new().with_dim("batch", 1);
    let (error, named) = unknown(lint_path(&model("e1_static_mismatch.onnx"), &options));
    assert_eq!(named, [("batch".to_owned(), vec![])]);
    assert!(
        error
            .to_string()
            .ends_with("(the inputs declare no symbolic dim)"),
        "{error}"
    );
}

#[test]
fn unchecked_dims_lint_and_the_batch_is_checked_as_the_command_does() {
    let options = Options::new().with_dim("seq", 5).with_dims_checked(false);
    assert!(!options.dims_checked() && Options::new().dims_checked());
    // e1_static_mismatch declares no `seq`: linted all the same, the binding ignored.
    let static_model = lint_path(&model("e1_static_mismatch.onnx"), &options).unwrap();
    assert!(static_model.has_errors());
    let symbolic = lint_path(&model("w1_symbolic.onnx"), &options).unwrap();
    assert!(symbolic.findings().iter().any(|f| f.code == Code::E1));
    let batch = [&static_model, &symbolic];
    let declared = || batch.iter().map(|r| r.declared_dims());
    assert!(unknown_dims(["seq"], declared()).is_empty());
    let missing = unknown_dims(["seq", "sq"], declared());
    assert_eq!(missing.len(), 1);
    assert_eq!(
        (missing[0].name.as_str(), &missing[0].closest[..]),
        ("sq", &["seq".to_owned()][..])
    );
    // Declared by neither model of the batch.
    assert_eq!(
        unknown_dims(["sq"], [static_model.declared_dims()]).len(),
        1
    );
}

#[test]
fn every_declared_dim_binds() {
    // The declared names are what `declared_dims` lists, so every one of them binds.
    let path = model("w1_symbolic.onnx");
    let declared = lint_path(&path, &Options::new())
        .unwrap()
        .declared_dims()
        .clone();
    let mut options = Options::new();
    for name in &declared {
        options = options.with_dim(name, 1);
    }
    assert!(lint_path(&path, &options).is_ok());
}
