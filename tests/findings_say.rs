//! What findings say (issue 32): the human listing numbers its lines as SARIF does, an error
//! whose sizes come from `--dim` says so, a binding never silences a branch that warned, advice
//! names what can be bound, and one fault gives one finding.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use onnx_bcast_lint::diag::Facts;
use onnx_bcast_lint::report::{human, json, sarif, FileReport};
use onnx_bcast_lint::{lint_path, Code, Finding, Options};

fn report_of(name: &str, options: &Options) -> FileReport {
    let path = format!("tests/models/{name}");
    FileReport {
        outcome: lint_path(Path::new(&path), options),
        path,
    }
}

fn findings(name: &str, options: &Options) -> Vec<Finding> {
    report_of(name, options).outcome.unwrap().into_findings()
}

/// Each finding's `(graph):line` in the human output's snippet headers, and each numbered
/// listing line's number, in order.
fn human_lines(report: &FileReport) -> (Vec<usize>, Vec<Vec<usize>>) {
    let text = human::render(
        std::slice::from_ref(report),
        human::Style {
            color: false,
            width: 200,
            quiet: false,
        },
    );
    let mut headers = Vec::new();
    let mut numbered: Vec<Vec<usize>> = Vec::new();
    for line in text.lines() {
        if let Some(at) = line.find("╭─[") {
            // `╭─[path (main):6:17]`: the first snippet of a finding is its node's.
            let inner = line[at..].trim_end_matches(']');
            let mut parts = inner.rsplit(':');
            let _column = parts.next();
            let number: usize = parts.next().unwrap().parse().unwrap();
            headers.push(number);
            numbered.push(Vec::new());
        } else if let Some((number, _)) = line.split_once(" │ ") {
            if let Ok(n) = number.trim().parse::<usize>() {
                numbered.last_mut().unwrap().push(n);
            }
        }
    }
    (headers, numbered)
}

/// SARIF's `startLine` of each result, in order.
fn sarif_lines(report: &FileReport) -> Vec<usize> {
    let log: serde_json::Value =
        serde_json::from_str(&sarif::render(std::slice::from_ref(report))).unwrap();
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            usize::try_from(
                r["locations"][0]["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap(),
            )
            .unwrap()
        })
        .collect()
}

#[test]
fn the_listing_numbers_lines_as_sarif_does() {
    for name in ["w1_conv_frames.onnx", "w1_position_table.onnx"] {
        let report = report_of(name, &Options::new());
        let (headers, snippets) = human_lines(&report);
        // The last snippet of each finding is its node's; its header gives the node's line.
        let sarif = sarif_lines(&report);
        for line in &sarif {
            assert!(headers.contains(line), "{name}: {headers:?} vs {sarif:?}");
        }
        // Within a snippet the numbers are consecutive: a gap parts the snippets.
        for snippet in &snippets {
            assert!(
                snippet.windows(2).all(|w| w[0] + 1 == w[1]),
                "{name}: {snippets:?}"
            );
        }
    }
    // The position table's Add is node 4 (line 6), its Slice node 2 (line 4): one snippet, as
    // the node between them is shown.
    let (headers, snippets) = human_lines(&report_of("w1_position_table.onnx", &Options::new()));
    assert_eq!(headers, [6]);
    assert_eq!(snippets, [vec![4, 5, 6, 7]]);
}

#[test]
fn an_error_whose_sizes_come_from_dim_says_so() {
    let options = Options::new().with_dim("seq", 77);
    let found = findings("w1_position_table.onnx", &options);
    let [finding] = &found[..] else {
        panic!("{found:#?}")
    };
    assert_eq!(finding.code, Code::E1);
    assert!(
        finding
            .message
            .ends_with("axis 1 is 77 vs 64 (seq = 77, bound by --dim)"),
        "{}",
        finding.message
    );
    let Facts::BroadcastClash { binding, .. } = &finding.facts else {
        panic!("{:?}", finding.facts)
    };
    assert_eq!(binding.get("seq"), Some(&77));
    assert!(finding.help.as_deref().unwrap().contains("this deployment"));
    // The binding is in the JSON facts; without one, the field is left out.
    let document = json::render(&[report_of("w1_position_table.onnx", &options)], true);
    assert!(document.contains("\"binding\": {\n"), "{document}");
    let unbound = json::render(
        &[report_of("e1_static_mismatch.onnx", &Options::new())],
        true,
    );
    assert!(!unbound.contains("\"binding\""), "{unbound}");
}

#[test]
fn a_binding_never_silences_a_branch_that_warned() {
    // Unbound, each branch's framing Conv warns.
    let unbound = findings("w4_if_declared_outputs.onnx", &Options::new());
    let graphs: Vec<(&str, Code)> = unbound
        .iter()
        .map(|f| (f.node.as_ref().unwrap().graph.as_str(), f.code))
        .collect();
    assert_eq!(
        graphs,
        [
            ("main//rate/else_branch", Code::W4),
            ("main//rate/then_branch", Code::W4)
        ],
        "{unbound:#?}"
    );
    // n = 200: the 16 kHz branch fails, the 8 kHz one runs.
    let bound = findings(
        "w4_if_declared_outputs.onnx",
        &Options::new().with_dim("n", 200),
    );
    let [error] = &bound[..] else {
        panic!("{bound:#?}")
    };
    assert_eq!(error.code, Code::E4);
    assert_eq!(error.node.as_ref().unwrap().name, "/then/stft/Conv");
    // Both fail below 128; both hold from 256.
    assert_eq!(
        findings(
            "w4_if_declared_outputs.onnx",
            &Options::new().with_dim("n", 100)
        )
        .len(),
        2
    );
    assert!(findings(
        "w4_if_declared_outputs.onnx",
        &Options::new().with_dim("n", 256)
    )
    .is_empty());
}

#[test]
fn advice_names_what_can_be_bound() {
    let found = findings("w1_nonzero_count.onnx", &Options::new());
    let [finding] = &found[..] else {
        panic!("{found:#?}")
    };
    assert_eq!(finding.code, Code::W1);
    let help = finding.help.as_deref().unwrap();
    assert!(
        help.contains(
            "`NonZero#0` is a data-dependent size (made by NonZero `/nonzero` for `idx`), which --dim cannot bind"
        ),
        "{help}"
    );
    assert!(!help.contains("bind the dims with --dim"), "{help}");
    let Facts::ConditionalBroadcast { data_dependent, .. } = &finding.facts else {
        panic!("{:?}", finding.facts)
    };
    assert_eq!(data_dependent.len(), 1);
    assert_eq!(data_dependent[0].symbol, "NonZero#0");
    // A condition on an input's dim keeps the advice.
    let found = findings("w1_symbolic.onnx", &Options::new());
    assert!(found[0]
        .help
        .as_deref()
        .unwrap()
        .ends_with("bind the dims with --dim to check one deployment"));
}

#[test]
fn a_node_without_an_op_type_is_an_e3_and_nothing_more() {
    let codes: Vec<Code> = findings("e3_no_op_type.onnx", &Options::new())
        .iter()
        .map(|f| f.code)
        .collect();
    assert_eq!(codes, [Code::E3]);
}

#[test]
fn values_downstream_of_a_failure_take_no_declared_dims() {
    let unbound = findings("w4_conv_declared_downstream.onnx", &Options::new());
    let codes: Vec<Code> = unbound.iter().map(|f| f.code).collect();
    assert_eq!(codes, [Code::W4], "{unbound:#?}");
    // n = 4: the Conv fails, and that is all: the mean's declared rows meet nothing.
    let bound = findings(
        "w4_conv_declared_downstream.onnx",
        &Options::new().with_dim("n", 4),
    );
    let codes: Vec<Code> = bound.iter().map(|f| f.code).collect();
    assert_eq!(codes, [Code::E4], "{bound:#?}");
}

/// A counterexample is a binding where the node itself fails: every input of it can exist
/// there (issue 38, item 2). The smallest value outside `20 ≤ samples ≤ 79` is 1, where the
/// Pad's output `[batch, 1, samples/5/2/2-1]` would have -1 rows; the Add fails first at 80,
/// and onnxruntime fails there, at the Add (tests/models/README.md).
#[test]
fn a_counterexample_is_where_every_input_of_the_node_exists() {
    let found = findings("w1_conv_frames.onnx", &Options::new());
    let w1 = found.iter().find(|f| f.code == Code::W1).unwrap();
    let Facts::ConditionalBroadcast { counterexample, .. } = &w1.facts else {
        panic!("{:?}", w1.facts)
    };
    let binding = counterexample.as_ref().unwrap();
    assert_eq!(binding.get("samples"), Some(&80), "{binding:?}");
    for input in &w1.inputs {
        for (_, dim) in input.shape.stated() {
            assert!(dim.eval(binding).is_none_or(|v| v >= 0), "{input:?}");
        }
    }
}
