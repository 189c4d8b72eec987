//! Provenance (issue 17, item 2): where each dim a finding shows comes from. For the offending
//! dims of a finding's inputs, the producers are walked backward from the finding's node,
//! breadth-first, to the nearest graph input, initializer or `Constant` whose dim the shown dim
//! is, or is computed from: `seq` is axis 1 of graph input `input_ids`; `min(seq, 64)` is axis 0
//! of initializer `position_embeddings.weight` (64) through Slice `/embeddings/Slice`.
//!
//! Every step of a chain is true by the operator's definition: the producer's output dim equals
//! the input dim it is traced to (an element-wise op, a Transpose through its `perm`), or the
//! operator computes it from that dim (a Conv's spatial axis from the input's, a Slice's from the
//! data's). A dim with no such chain within the budget gets no provenance: nothing is guessed.
//! The walk is lazy (only findings' dims) and bounded, so a large model is not slowed.

mod attributes;
mod axes;
mod text;
mod traced;
mod walk;

// The chain's types are data of a finding: they stand in `diag`, below the walk that fills them.
use crate::diag::Finding;
pub(crate) use crate::diag::{Declared, DimProvenance, Source, SourceKind, Step};
use crate::infer::{GraphFacts, Inference};
use crate::model::{GraphId, Model};

/// Most states (value, axis) one dim's walk visits before giving up.
const MAX_VISITS_PER_DIM: usize = crate::limits::PROVENANCE_VISITS_PER_DIM;
/// Most states all walks of one model visit together: past it, later findings get none.
const MAX_VISITS_PER_MODEL: usize = crate::limits::PROVENANCE_VISITS_PER_MODEL;

/// Fills the provenance of the offending dims of every finding, within the model's budget, and
/// the declared sizes they hang on (within a budget of their own, so that provenance is the
/// same whether or not a model declares sizes inference takes).
pub(crate) fn attach(model: &Model, inference: &Inference, findings: &mut [Finding]) {
    let mut budget = MAX_VISITS_PER_MODEL;
    // Most models have no dim a declaration gave: their findings need no second walk.
    let mut declared_budget = if inference.graphs.iter().any(GraphFacts::adopts) {
        MAX_VISITS_PER_MODEL
    } else {
        0
    };
    for finding in findings.iter_mut() {
        if matches!(finding.facts, crate::diag::Facts::BranchFailure { .. }) {
            // Settling attached it from the run in which the node fails, whose shapes it shows.
            continue;
        }
        declarations(model, inference, finding, &mut declared_budget);
        for (input, start) in starts(model, finding) {
            if budget == 0 {
                return;
            }
            let allowance = budget.min(MAX_VISITS_PER_DIM);
            let (found, used) = walk::trace(model, inference, start, allowance);
            budget = budget.saturating_sub(used);
            if let (Some(found), Some(site)) = (found, finding.inputs.get_mut(input)) {
                site.provenance.push(found);
            }
        }
    }
}

/// Where the walks of `finding`'s offending dims start: each dim's input (its index in
/// `finding.inputs`) and the value and axis it is in the finding's node's graph.
fn starts(model: &Model, finding: &Finding) -> Vec<(usize, walk::Start)> {
    let Some(site) = &finding.node else {
        return Vec::new();
    };
    let Some(graph) = model.graphs.iter().find(|g| g.path == site.graph) else {
        return Vec::new();
    };
    let Some(node) = graph.node(site.index) else {
        return Vec::new();
    };
    traced::axes(finding)
        .into_iter()
        .filter_map(|(input, axis)| {
            let slot = finding.inputs.get(input)?.slot;
            let value = node.inputs().get(slot).copied().flatten()?;
            let start = walk::Start {
                graph: graph.id,
                value,
                axis,
            };
            Some((input, start))
        })
        .collect()
}

/// Fills `InputSite::declared` of `finding`'s offending dims, and names the declarations in
/// its help.
fn declarations(model: &Model, inference: &Inference, finding: &mut Finding, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    let mut found_any = false;
    for (input, start) in starts(model, finding) {
        if *budget == 0 {
            break;
        }
        let (found, used) =
            walk::declared(model, inference, start, (*budget).min(MAX_VISITS_PER_DIM));
        *budget = budget.saturating_sub(used);
        if let (Some(found), Some(site)) = (found, finding.inputs.get_mut(input)) {
            site.declared.push(found);
            found_any = true;
        }
    }
    if found_any {
        finding.hangs_on_declarations();
    }
}

/// The graph path of `id` (empty if foreign).
fn graph_path(model: &Model, id: GraphId) -> String {
    model.graph(id).map(|g| g.path.clone()).unwrap_or_default()
}
