//! Provenance of the dims findings show (issue 17, item 2), on the committed fixtures: the
//! chains named in the issue, and, for every finding of every fixture, that each chain agrees
//! with the inferred shapes (a chain is true or absent, never guessed).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use onnx_bcast_lint::diag::{DimProvenance, SourceKind};
use onnx_bcast_lint::Dim;
use onnx_bcast_lint::{lint_path, Code, LintReport, Options};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
}

fn lint(name: &str) -> LintReport {
    lint_path(&fixture(name), &Options::new()).unwrap()
}

/// The provenance of input `input` of the only finding of `code`.
fn provenance_of<'r>(report: &'r LintReport, code: Code, input: &str) -> &'r [DimProvenance] {
    let finding = report
        .findings()
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("no {code}: {:?}", report.findings()));
    &finding
        .inputs
        .iter()
        .find(|i| i.name == input)
        .unwrap()
        .provenance
}

#[test]
fn the_position_table_row_count_comes_from_the_initializer_through_the_slice() {
    let report = lint("w1_position_table.onnx");
    let [words] = provenance_of(&report, Code::W1, "words") else {
        panic!("one traced dim of words")
    };
    assert_eq!((words.axis, words.dim.to_string()), (1, "seq".into()));
    assert_eq!(words.source.kind, SourceKind::GraphInput);
    assert_eq!(
        (words.source.name.as_str(), words.source.axis),
        ("input_ids", 1)
    );
    assert!(words.steps.is_empty(), "a Gather passes seq on unchanged");
    assert_eq!(words.nodes, 1);

    let [positions] = provenance_of(&report, Code::W1, "positions") else {
        panic!("one traced dim of positions")
    };
    assert_eq!(positions.source.kind, SourceKind::Initializer);
    assert_eq!(positions.source.name, "position_embeddings.weight");
    assert_eq!(
        (positions.source.axis, &positions.source.dim),
        (0, &Dim::known(64))
    );
    let [slice] = &positions.steps[..] else {
        panic!("one step: the Slice")
    };
    assert_eq!(
        (slice.op_type.as_str(), slice.name.as_str()),
        ("Slice", "/embeddings/Slice")
    );
    assert!(
        slice.attributes.contains(&("ends".into(), "[seq]".into())),
        "{:?}",
        slice.attributes
    );
    assert_eq!(
        positions.note("positions"),
        "min(seq, 64) (axis 0 of `positions`) is axis 0 of initializer \
         `position_embeddings.weight` (64) through Slice `/embeddings/Slice` \
         (starts = [0], ends = [seq], axes = [0])"
    );
}

#[test]
fn the_frame_count_comes_from_the_samples_through_three_strided_convolutions() {
    let report = lint("w1_conv_frames.onnx");
    let [pairs] = provenance_of(&report, Code::W1, "pairs") else {
        panic!("one traced dim of pairs")
    };
    assert_eq!(
        (pairs.source.name.as_str(), pairs.source.axis),
        ("input_values", 1)
    );
    let ops: Vec<&str> = pairs.steps.iter().map(|s| s.op_type.as_str()).collect();
    assert_eq!(ops, ["Conv", "Conv", "Conv", "Pad"]);
    let strides: Vec<&str> = pairs
        .steps
        .iter()
        .filter_map(|s| s.attributes.iter().find(|(n, _)| n == "strides"))
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(strides, ["[5]", "[2]", "[2]"]);
    let note = pairs.note("pairs");
    assert!(
        note.contains("3 Conv (kernel_shape = [5], [2], [2]; strides = [5], [2], [2])"),
        "{note}"
    );
    // The Unsqueeze moved samples from axis 1 to axis 2 without changing it: counted, not shown.
    assert_eq!(pairs.nodes, 5);
}

#[test]
fn a_transposed_initializer_names_the_axis_it_had() {
    let report = lint("e1_transposed_table.onnx");
    let [dim] = provenance_of(&report, Code::E1, "wt") else {
        panic!("one traced dim of wt")
    };
    // wt = Transpose(w): its axis 0 is w's axis 1 (4), not w's axis 0 (3).
    assert_eq!((dim.source.name.as_str(), dim.source.axis), ("w", 1));
    assert_eq!(dim.source.dim, Dim::known(4));
    assert_eq!((dim.nodes, dim.steps.len()), (1, 0));
}

#[test]
fn a_dim_set_by_a_reshape_target_gets_no_provenance() {
    // m [2, 4, 3]: its 3 is element 1 of the Reshape target [2, 3, 4] moved by a Transpose;
    // dim chains do not follow a target's elements, so nothing is said rather than a guess.
    let report = lint("e1_reshape_upstream.onnx");
    assert!(provenance_of(&report, Code::E1, "m").is_empty());
    let [bias] = provenance_of(&report, Code::E1, "bias") else {
        panic!("one traced dim of bias")
    };
    assert_eq!(bias.source.kind, SourceKind::Initializer);
    assert_eq!(bias.nodes, 0);
}

/// Every chain of every fixture agrees with inference: the source's dim is that value's
/// inferred dim, each step makes the dim its output has there, and the chain ends at the dim
/// the input shows.
#[test]
fn every_chain_of_every_fixture_agrees_with_the_inferred_shapes() {
    let mut chains = 0;
    for entry in std::fs::read_dir(fixture("")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "onnx") || path.is_dir() {
            continue;
        }
        let Ok(report) = lint_path(&path, &Options::new()) else {
            continue;
        };
        for finding in report.findings() {
            for input in &finding.inputs {
                for dim in &input.provenance {
                    chains += 1;
                    assert_eq!(input.shape.dim(dim.axis), Some(&dim.dim), "{path:?}");
                    if dim.source.graph == "main" {
                        let source = report.shape(&dim.source.name).unwrap();
                        assert_eq!(
                            source.dims().unwrap().get(dim.source.axis),
                            Some(&dim.source.dim),
                            "{path:?}: {dim:?}"
                        );
                    }
                    for step in dim.steps.iter().filter(|s| s.graph == "main") {
                        let made = report.shape(&step.output).unwrap();
                        assert_eq!(made.dims().unwrap().get(step.axis), Some(&step.dim));
                    }
                    if let Some(last) = dim.steps.last() {
                        assert_eq!(last.dim, dim.dim, "{path:?}: the last step makes it");
                    } else {
                        assert_eq!(dim.source.dim, dim.dim, "{path:?}: no step, no change");
                    }
                    assert!(dim.nodes >= dim.steps.len());
                }
            }
        }
    }
    assert!(chains >= 10, "only {chains} chains over the fixtures");
}

/// SARIF carries the chains as `relatedLocations` and `codeFlows`, and stays schema-valid.
#[test]
fn sarif_code_flows_follow_the_chain_and_validate() {
    use onnx_bcast_lint::report::{sarif, FileReport};
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("../sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let files: Vec<FileReport> = ["w1_conv_frames.onnx", "w1_position_table.onnx"]
        .into_iter()
        .map(|name| FileReport {
            path: format!("tests/models/{name}"),
            outcome: lint_path(&fixture(name), &Options::new()),
        })
        .collect();
    let log: serde_json::Value = serde_json::from_str(&sarif::render_relative(
        &files,
        Path::new(env!("CARGO_MANIFEST_DIR")),
    ))
    .unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The Add's W1 (the Convs before it carry their own W4s on the sample count).
    let conv = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "W1")
        .unwrap();
    // Three Convs, the Slice and the Pad: each chain node once.
    let related = conv["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 5, "{related:#?}");
    let flows = conv["codeFlows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    let steps = flows[1]["threadFlows"][0]["locations"].as_array().unwrap();
    // The source, three Convs, the Pad, then the Add itself.
    assert_eq!(steps.len(), 6);
    assert_eq!(
        steps[0]["location"]["message"]["text"],
        "axis 1 of graph input `input_values`"
    );
    assert_eq!(
        steps[5]["location"]["logicalLocations"][0]["name"],
        "/encoder/Add"
    );
}
