//! Findings that hang on `--initializers-as-constants` say so. With the option, inference uses
//! the stored values of initializers that are also main-graph inputs, which from IR 4 on are
//! defaults a caller may override (ONNX IR.md, "Graphs"). A finding at a node that such an
//! input can reach gets a note in its help, so a reader knows the finding holds for the stored
//! values only.
//!
//! Reachability is taken coarsely, never missing a dependent finding: every node fed (through
//! any chain of nodes) by such an input, every node holding subgraphs (their bodies may capture
//! it), and every finding inside a subgraph or function body.

use crate::diag::{Code, Finding};
use crate::model::Model;

/// Appends the note (`assuming initializers ... keep their values`) to the help of each finding that may depend on the assumption.
pub(super) fn note(model: &Model, findings: &mut [Finding]) {
    // Before IR 4 such inputs are constants whatever the option says: nothing is assumed.
    if model.ir_version < 4 {
        return;
    }
    let Some(main) = model.main() else {
        return;
    };
    let mut reached = vec![false; main.values.len()];
    let mut assumed = false;
    for input in &main.inputs {
        let stored = main
            .value(*input)
            .is_some_and(|value| value.initializer().is_some());
        if let (true, Some(slot)) = (stored, reached.get_mut(input.0 as usize)) {
            *slot = true;
            assumed = true;
        }
    }
    if !assumed {
        return;
    }
    let mut dependent = vec![false; main.nodes.len()];
    for &index in &main.order {
        let Some(node) = main.nodes.get(index) else {
            continue;
        };
        let fed = !node.subgraphs().is_empty()
            || node
                .inputs()
                .iter()
                .flatten()
                .any(|v| reached.get(v.0 as usize).copied().unwrap_or(false));
        if !fed {
            continue;
        }
        if let Some(slot) = dependent.get_mut(index) {
            *slot = true;
        }
        for output in node.outputs().iter().flatten() {
            if let Some(slot) = reached.get_mut(output.0 as usize) {
                *slot = true;
            }
        }
    }
    for finding in findings.iter_mut() {
        // Structure and unsupported operators do not depend on any value.
        if matches!(finding.code, Code::E3 | Code::I1) {
            continue;
        }
        let Some(site) = &finding.node else {
            continue;
        };
        let depends = if site.graph == main.path {
            dependent.get(site.index).copied().unwrap_or(true)
        } else {
            true
        };
        if depends {
            finding.assume_constant_initializers();
        }
    }
}
