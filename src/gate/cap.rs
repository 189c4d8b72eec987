//! The findings cap around the gate. A model whose findings `ignore` or a baseline may drop is
//! linted with a test of which findings the gate drops ([`crate::lint::Gate`]): the library keeps
//! those beside the cap, so that the entries see every finding they match and are counted
//! exactly, and caps the others as it would without a gate; the gate then drops what it
//! matched, leaving at most the cap's findings and exact counts of the others. Writing a
//! baseline records every finding, so that run is linted without the cap.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use crate::config::Effective;
use crate::fingerprint::Fingerprint;
use crate::gate::baseline::Baseline;
use crate::lint::Gate;
use crate::report::FileReport;
use crate::Options;

/// The options the model at `path` is linted with: its own, with the gate's test when
/// `ignore` entries or `baseline` apply to it, and without the cap when `writing` a baseline.
pub(crate) fn lint_options(
    effective: &Effective,
    path: &Path,
    baseline: Option<&Arc<Baseline>>,
    writing: bool,
) -> Options {
    let options = effective.options.clone();
    if writing {
        return options.with_max_findings(0);
    }
    if baseline.is_none() && effective.ignore.is_empty() {
        return options;
    }
    let ignored: BTreeSet<Fingerprint> = effective
        .ignore
        .iter()
        .map(|entry| entry.fingerprint.clone())
        .collect();
    let accepted = baseline.map(|baseline| {
        // The key `apply_baseline` looks the model up by: its path as the report prints it.
        let key = baseline.key_of(&path.display().to_string());
        (Arc::clone(baseline), key)
    });
    options.with_gate(Gate(Arc::new(move |finding| {
        let fingerprint = finding.fingerprint();
        ignored.contains(&fingerprint)
            || accepted
                .as_ref()
                .is_some_and(|(baseline, key)| baseline.contains(key, &fingerprint))
    })))
}

/// Caps every report to its model's `max-findings`, once the gate has dropped what it drops
/// (a no-op on the reports the library already capped).
pub(crate) fn apply(reports: &mut [FileReport], effective: &[Effective]) {
    for (file, effective) in reports.iter_mut().zip(effective) {
        if let Ok(report) = &mut file.outcome {
            report.cap(effective.options.max_findings());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::config::Scoped;
    use crate::diag::Code;
    use crate::proto::{GraphProto, ModelProto, NodeProto, OperatorSetIdProto};

    /// `count` nodes with no op type: an E3 each, with a fingerprint of its own (its name).
    fn empty_nodes(count: usize) -> ModelProto {
        ModelProto {
            ir_version: Some(10),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(18),
            }],
            graph: Some(GraphProto {
                name: Some("g".into()),
                node: (0..count)
                    .map(|i| NodeProto {
                        name: Some(format!("empty_{i}")),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// A model of 2,000 findings under an `ignore` entry and a cap of 3: the lint holds the
    /// three it shows and the one the entry drops, not all 2,000, and counts the rest.
    #[test]
    fn a_gated_model_holds_its_cap_and_what_the_gate_drops() {
        let model = empty_nodes(2_000);
        let all = crate::lint_model(model.clone(), &Options::new().with_max_findings(0)).unwrap();
        let last = all.findings().last().unwrap().fingerprint();
        let effective = Effective {
            options: Options::new().with_max_findings(3),
            ignore: vec![Scoped {
                models: "model.onnx".into(),
                fingerprint: last.clone(),
                span: 0..0,
            }],
            ..Default::default()
        };
        let options = lint_options(&effective, Path::new("model.onnx"), None, false);
        let report = crate::lint_model(model.clone(), &options).unwrap();
        let fingerprints: Vec<Fingerprint> = report
            .findings()
            .iter()
            .map(crate::Finding::fingerprint)
            .collect();
        assert_eq!(fingerprints.len(), 4);
        assert_eq!(fingerprints.last(), Some(&last));
        // The three first in graph order, and the others counted: 2,000 less the four held.
        assert_eq!(
            &fingerprints[..3],
            &all.findings()[..3]
                .iter()
                .map(crate::Finding::fingerprint)
                .collect::<Vec<_>>()[..]
        );
        assert_eq!(report.omitted().of(Code::E3), 1_996);

        // The same through a baseline accepting the first finding.
        let mut baseline = Baseline::empty(Path::new("baseline.txt"));
        let key = baseline.key_of("model.onnx");
        let first = all.findings()[0].fingerprint();
        baseline.insert(key, first.clone());
        let plain = Effective {
            options: Options::new().with_max_findings(3),
            ..Default::default()
        };
        let options = lint_options(
            &plain,
            Path::new("model.onnx"),
            Some(&Arc::new(baseline)),
            false,
        );
        let report = crate::lint_model(model.clone(), &options).unwrap();
        assert_eq!(report.findings().len(), 4);
        assert_eq!(report.findings()[0].fingerprint(), first);
        assert_eq!(report.omitted().of(Code::E3), 1_996);

        // Writing a baseline records every finding: no cap.
        let options = lint_options(&plain, Path::new("model.onnx"), None, true);
        let report = crate::lint_model(model, &options).unwrap();
        assert_eq!(report.findings().len(), 2_000);
    }
}
