//! Settling, the stage between inference and the checks' final run: re-inference with the branch
//! of an `If` forced where the other branch leads every run into a failure. The orchestrator
//! (`lint.rs`) runs it after the first inference; it reads what the checks find on each trial
//! (the keys `check::tally` collects, no finding built) and hands one [`Inference`] on, which
//! the checks then only read.
//!
//! `If` nodes whose branches give different shapes, where taking one branch leads every run into
//! a failure: every run the model accepts takes the other branch, so the model is inferred and
//! checked with that branch taken.
//!
//! ONNX `If` runs `then_branch` when its condition is true and `else_branch` otherwise. A node of
//! the main graph runs once per inference, and so does a node of an `If` branch, when the branch
//! runs (a loop body may run any number of times: its nodes are left alone). If, with such an
//! `If` taking branch A, its own graph certainly fails (a node whose outputs reach the graph's
//! outputs has an error-severity E1 or E4 finding, which holds for every input, or is an `If`
//! whose branches that can run all certainly fail), then no run reaching the `If` and taking A
//! succeeds. Shapes inferred with branch B taken are then right for every input the model accepts
//! (the bar: a dim is right for every accepted input, or unknown).
//!
//! The case is `TorchScript`'s export of modules that take batched and unbatched inputs:
//! silero-vad squeezes its frame axis away in `If(Equal(T, 1))`, and through the branch that
//! keeps it the LSTM after gets a 5-D input and fails.
//!
//! Only an `If` whose branches give outputs known to differ is tried (an unknown dim differs
//! from nothing), and under a `--dim` binding a branch with errors or warnings of its own is
//! never settled away: its failure may be this deployment's only, and the user asked about it
//! (issue 32: silero-vad's 16 kHz branch fails for 150 samples, and its E4 vanished).

use std::collections::{HashMap, HashSet};

use crate::check::tally::{self, Paths, Tally};
use crate::check::{branch, CheckOptions};
use crate::diag::{Code, Finding, Severity};
use crate::error::Limits;
use crate::infer::{self, known_condition, Assumptions, Inference};
use crate::limits::{CapHit, Limit};
use crate::model::{Graph, GraphId, Model, Origin, Value, ValueId};
use crate::shape::{Dim, Shape};

/// How many `If` nodes are tried, each costing two more inference and check runs.
const MAX_TRIED: usize = crate::limits::SETTLE_TRIED;

/// `inference` (the model inferred with no branch forced) settled: each main-graph `If` whose
/// other branch certainly fails takes the branch that does not, and the model is inferred again
/// under those forced branches. The checks run here only to decide; the caller runs them on the
/// result, adding the findings returned beside it: a node after an `If` whose branches differ
/// in rank that fails in the runs of one branch or of both (`branch.rs`).
pub(crate) fn settle(
    model: &Model,
    limits: &Limits,
    assumptions: Assumptions,
    options: &CheckOptions,
    mut inference: Inference,
) -> (Inference, Vec<Finding>) {
    let mut found: Vec<Finding> = Vec::new();
    let mut once: HashSet<&str> = HashSet::new();
    let paths = Paths::new(model);
    let reader = branch::Reader {
        model,
        paths: &paths,
        options,
    };
    let mut forced: Vec<(GraphId, usize, bool)> = Vec::new();
    let mut tried: Vec<(GraphId, usize)> = Vec::new();
    // Candidates are found again after each settled `If`: settling one can make the condition of
    // another known (an exporter's rank test on the settled output), and such an `If` must run
    // the branch its condition picks, never a given one.
    while tried.len() < MAX_TRIED {
        let next = diverging_ifs(model, &inference)
            .into_iter()
            .find(|candidate| !tried.contains(candidate));
        let Some((graph, index)) = next else {
            break;
        };
        tried.push((graph, index));
        if once.is_empty() {
            once = model
                .graphs
                .iter()
                .filter(|graph| runs_once(model, graph))
                .map(|graph| graph.path.as_str())
                .collect();
        }
        let Some(home) = model.graph(graph) else {
            continue;
        };
        let Some(node) = home.node(index) else {
            continue;
        };
        let [then_run, else_run] = [true, false].map(|taken| {
            let mut trial = forced.clone();
            trial.push((graph, index, taken));
            let facts = infer::infer_forcing(model, limits, assumptions, &trial);
            let findings = tally::collect(&paths, model, &facts, options);
            let fails = Failures::new(model, &facts, &findings, &trial).graph_fails(home, 0);
            let body =
                branches(node).map(|(then_id, else_id)| if taken { then_id } else { else_id });
            let reported = body
                .and_then(|id| model.graph(id))
                .is_some_and(|body| reports_inside(&findings, &paths, &body.path));
            (trial, facts, fails, reported, findings)
        });
        // Under a `--dim` binding a branch may fail for this deployment only: its findings are
        // what the user asked for, and settling on the other branch would leave it unchecked.
        let bound = !options.binding.is_empty();
        let then_trial = trial(true, &then_run.1, &then_run.4);
        let else_trial = trial(false, &else_run.1, &else_run.4);
        let bodies = body_paths(model, node, &once);
        let (left, chosen) = match (then_run.2, else_run.2) {
            (false, true) if !(bound && else_run.3) => {
                let left = bodies.as_ref().and_then(|bodies| {
                    branch::one_branch(&reader, home, node, bodies, &else_trial, &then_trial)
                });
                (left, then_run)
            }
            (true, false) if !(bound && then_run.3) => {
                let left = bodies.as_ref().and_then(|bodies| {
                    branch::one_branch(&reader, home, node, bodies, &then_trial, &else_trial)
                });
                (left, else_run)
            }
            (true, true) => {
                // Unsettled, the report is made on `inference`: what it already finds is not
                // this `If`'s to add.
                let merged = tally::collect(&paths, model, &inference, options);
                found.extend(bodies.as_ref().and_then(|bodies| {
                    branch::every_branch(
                        &reader,
                        home,
                        node,
                        bodies,
                        &then_trial,
                        &else_trial,
                        &merged,
                    )
                }));
                continue;
            }
            _ => continue,
        };
        found.extend(left);
        forced = chosen.0;
        inference = chosen.1;
    }
    // The next `If` left untried is where the cap stopped settling.
    if tried.len() == MAX_TRIED {
        let untried = diverging_ifs(model, &inference)
            .into_iter()
            .find(|candidate| !tried.contains(candidate));
        if let Some((graph, index)) = untried {
            inference.caps.push(CapHit {
                graph: graph.0,
                node: Some(index),
                limit: Limit::SettleTried,
            });
            inference.caps.sort_unstable();
        }
    }
    (inference, found)
}

fn trial<'a>(taken: bool, facts: &'a Inference, tally: &'a Tally) -> branch::Trial<'a> {
    branch::Trial {
        taken,
        facts,
        tally,
    }
}

/// The graph paths of an `If` node's two branches.
fn body_paths<'m>(
    model: &'m Model,
    node: &crate::model::Node,
    runs_once: &'m HashSet<&'m str>,
) -> Option<branch::Bodies<'m>> {
    let (then_id, else_id) = branches(node)?;
    Some(branch::Bodies {
        then_path: &model.graph(then_id)?.path,
        else_path: &model.graph(else_id)?.path,
        runs_once,
    })
}

/// [`settle`] with the default limits, assumptions and check options, as a lint without options
/// runs it: the stage benchmark's settling stage.
#[cfg(feature = "bench")]
pub fn settle_default(model: &Model, inference: Inference) -> Inference {
    settle(
        model,
        &Limits::default(),
        Assumptions::default(),
        &CheckOptions::default(),
        inference,
    )
    .0
}

/// Whether an error or a warning is reported in the graph at `path` or a graph nested in it.
fn reports_inside(findings: &Tally, paths: &Paths<'_>, path: &str) -> bool {
    findings
        .keys
        .iter()
        .filter(|key| key.code.severity() != Severity::Info)
        .map(|key| paths.path(key.graph))
        .any(|graph| {
            graph == path
                || graph
                    .strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
}

/// `If` nodes that run at most once per inference (in the main graph or in `If` branches), in
/// graph and file order, whose condition is not known and whose branches both give an output of
/// known rank where the two shapes differ.
fn diverging_ifs(model: &Model, inference: &Inference) -> Vec<(GraphId, usize)> {
    let outputs = |id: GraphId| {
        let graph = model.graph(id)?;
        let facts = inference.graph(id)?;
        Some(
            graph
                .outputs
                .iter()
                .map(|value| facts.values.get(value.0 as usize).map(|f| &f.shape))
                .collect::<Vec<_>>(),
        )
    };
    let mut found = Vec::new();
    for graph in model.graphs.iter().filter(|graph| runs_once(model, graph)) {
        let Some(facts) = inference.graph(graph.id) else {
            continue;
        };
        for node in graph.nodes.iter().filter(|node| is_if(node)) {
            let cond = node.inputs().first().copied().flatten();
            let cond = cond.and_then(|value| facts.values.get(value.0 as usize));
            if known_condition(cond).is_some() {
                continue;
            }
            let Some((then_id, else_id)) = branches(node) else {
                continue;
            };
            let (Some(then_out), Some(else_out)) = (outputs(then_id), outputs(else_id)) else {
                continue;
            };
            let diverge = then_out.iter().zip(&else_out).any(|pair| match pair {
                (Some(a), Some(b)) => differ(a, b),
                _ => false,
            });
            if diverge {
                found.push((graph.id, node.index()));
            }
        }
    }
    found
}

/// Whether two branch outputs are known to differ: in rank, or in two dims on one axis that are
/// both known. An unknown dim differs from nothing: a branch whose node fails leaves its outputs
/// unknown (the declared rank kept, as silero-vad's branches declare theirs), and taking that for
/// a difference settled the `If` on the other branch, leaving the failing one unchecked.
fn differ(a: &Shape, b: &Shape) -> bool {
    match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() != y.len() => true,
        (Some(x), Some(y)) => x
            .iter()
            .zip(y)
            .any(|(p, q)| *p != Dim::Unknown && *q != Dim::Unknown && p != q),
        _ => false,
    }
}

/// Whether the nodes of `graph` run at most once per inference: it is the main graph, or a
/// branch of an `If` whose graph is.
fn runs_once(model: &Model, graph: &Graph) -> bool {
    let mut current = graph;
    for _ in 0..=model.graphs.len() {
        if current.id == GraphId(0) {
            return true;
        }
        let (Some(parent), Some(owner)) = (current.parent, current.owner) else {
            // A function body: it runs once per call.
            return false;
        };
        let Some(parent) = model.graph(parent) else {
            return false;
        };
        if !parent.node(owner).is_some_and(is_if) {
            return false;
        }
        current = parent;
    }
    false
}

fn is_if(node: &crate::model::Node) -> bool {
    node.op_type() == "If" && node.domain().is_empty()
}

/// An `If` node's `(then_branch, else_branch)`.
fn branches(node: &crate::model::Node) -> Option<(GraphId, GraphId)> {
    Some((
        branch(node.subgraphs(), "then_branch")?,
        branch(node.subgraphs(), "else_branch")?,
    ))
}

fn branch(subgraphs: &[(String, GraphId)], attribute: &str) -> Option<GraphId> {
    subgraphs
        .iter()
        .find(|(name, _)| name == attribute)
        .map(|(_, id)| *id)
}

/// Which graphs certainly fail when they run, from one inference's error findings.
struct Failures<'a> {
    model: &'a Model,
    inference: &'a Inference,
    forced: &'a [(GraphId, usize, bool)],
    /// Nodes with an E1 or E4 error: `(graph, node index)`.
    errors: Vec<(GraphId, usize)>,
    /// Values of a graph that the subgraphs of one of its nodes read: `(graph, node) -> values`.
    captured: HashMap<(GraphId, usize), Vec<ValueId>>,
}

impl<'a> Failures<'a> {
    fn new(
        model: &'a Model,
        inference: &'a Inference,
        findings: &Tally,
        forced: &'a [(GraphId, usize, bool)],
    ) -> Self {
        let mut errors: Vec<(GraphId, usize)> = findings
            .keys
            .iter()
            .filter(|key| matches!(key.code, Code::E1 | Code::E4))
            .map(|key| (key.graph, key.index))
            .collect();
        errors.sort_unstable();
        Failures {
            model,
            inference,
            forced,
            errors,
            captured: captured_values(model),
        }
    }

    /// Whether `graph` certainly fails when it runs: a node on the way to its outputs does.
    fn graph_fails(&self, graph: &Graph, depth: usize) -> bool {
        if depth > self.model.graphs.len() {
            return false;
        }
        live_nodes(graph, &self.captured)
            .into_iter()
            .any(|index| self.node_fails(graph, index, depth))
    }

    fn node_fails(&self, graph: &Graph, index: usize, depth: usize) -> bool {
        if self.errors.binary_search(&(graph.id, index)).is_ok() {
            return true;
        }
        let Some(node) = graph.node(index) else {
            return false;
        };
        if !is_if(node) {
            // A loop body may run zero times; other graph attributes are not run by this rule.
            return false;
        }
        let Some((then_id, else_id)) = branches(node) else {
            return false;
        };
        let fails = |id: GraphId| {
            self.model
                .graph(id)
                .is_some_and(|body| self.graph_fails(body, depth + 1))
        };
        let given = self
            .forced
            .iter()
            .find(|&&(in_graph, node, _)| (in_graph, node) == (graph.id, index))
            .map(|&(_, _, taken)| taken);
        let cond = node.inputs().first().copied().flatten().and_then(|value| {
            self.inference
                .graph(graph.id)
                .and_then(|facts| facts.values.get(value.0 as usize))
        });
        match given.or_else(|| known_condition(cond)) {
            Some(true) => fails(then_id),
            Some(false) => fails(else_id),
            None => fails(then_id) && fails(else_id),
        }
    }
}

/// For each node holding subgraphs, the values of its own graph that those subgraphs (at any
/// depth) read.
fn captured_values(model: &Model) -> HashMap<(GraphId, usize), Vec<ValueId>> {
    let mut captured: HashMap<(GraphId, usize), Vec<ValueId>> = HashMap::new();
    for graph in &model.graphs {
        for value in &graph.values {
            let Origin::Outer {
                graph: owner,
                value,
            } = value.origin
            else {
                continue;
            };
            // The graph directly inside `owner` on the way down to this one, and its node.
            let mut inner = graph;
            let mut steps = 0;
            while inner.parent != Some(owner) && steps <= model.graphs.len() {
                match inner.parent.and_then(|parent| model.graph(parent)) {
                    Some(parent) => inner = parent,
                    None => break,
                }
                steps += 1;
            }
            if let (Some(node), true) = (inner.owner, inner.parent == Some(owner)) {
                captured.entry((owner, node)).or_default().push(value);
            }
        }
    }
    captured
}

/// Nodes of `graph` whose outputs reach its outputs, through inputs and captured values.
fn live_nodes(graph: &Graph, captured: &HashMap<(GraphId, usize), Vec<ValueId>>) -> Vec<usize> {
    let mut live = vec![false; graph.nodes.len()];
    let mut pending: Vec<ValueId> = graph.outputs.clone();
    while let Some(value) = pending.pop() {
        let Some(producer) = graph.value(value).and_then(Value::producer) else {
            continue;
        };
        let Some(seen) = live.get_mut(producer) else {
            continue;
        };
        if *seen {
            continue;
        }
        *seen = true;
        if let Some(node) = graph.node(producer) {
            pending.extend(node.inputs().iter().flatten());
        }
        if let Some(values) = captured.get(&(graph.id, producer)) {
            pending.extend(values);
        }
    }
    live.iter()
        .enumerate()
        .filter_map(|(index, &live)| live.then_some(index))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::differ;
    use crate::shape::{Dim, Shape};

    #[test]
    fn an_unknown_dim_differs_from_nothing() {
        let known = Shape::Ranked(vec![Dim::sym("batch"), Dim::known(1)]);
        let failed = Shape::Ranked(vec![Dim::Unknown, Dim::Unknown]);
        assert!(!differ(&known, &failed));
        assert!(!differ(&known, &Shape::Unranked));
        assert!(differ(&known, &Shape::Ranked(vec![Dim::sym("batch")])));
        assert!(differ(
            &known,
            &Shape::Ranked(vec![Dim::sym("batch"), Dim::known(2)])
        ));
    }
}
