//! The finding settling leaves at a node after an `If` whose branches give outputs of different
//! ranks (issue 37, item 3): inferred with the branches merged, the output's rank is unknown and
//! the node raises nothing, yet with either branch forced its failure is certain. Failing in the
//! runs of one branch and holding in the other's, it is a W1 / W4 that names the branch; failing
//! in both, an E1 / E4.
//!
//! Settling (`settle.rs`) makes the two runs and calls this module: only errors outside the
//! `If`'s branches count, as a branch's own failure is settling's concern, and what fails inside
//! it is not a node reading the `If`'s output.

use std::collections::HashSet;

use crate::diag::{Code, Facts, Finding, NodeName, NodeSite};
use crate::infer::Inference;
use crate::model::{Graph, Model, Node};

/// One of the two runs settling made of an `If`: its branch, inference and findings.
pub(crate) struct Trial<'a> {
    /// Whether the `If` took its then branch.
    pub taken: bool,
    /// The inference with that branch forced.
    pub facts: &'a Inference,
    /// Every check's findings on it, in graph order.
    pub findings: &'a [Finding],
}

/// Graph paths of an `If`'s two branches, whose findings are not a reader's of its output, and
/// of the graphs whose nodes run once when they are reached.
pub(crate) struct Bodies<'a> {
    /// The then branch's path.
    pub then_path: &'a str,
    /// The else branch's path.
    pub else_path: &'a str,
    /// The main graph and the `If` branches within it: a loop body may run zero times, so its
    /// failure is no certain one.
    pub runs_once: &'a [&'a str],
}

/// The W1 / W4 at the first node outside the `If`'s branches that has an error in the `failing`
/// run and none in the `holding` run, when the `If`'s output has another rank in each.
pub(crate) fn one_branch(
    model: &Model,
    home: &Graph,
    node: &Node,
    bodies: &Bodies<'_>,
    failing: &Trial<'_>,
    holding: &Trial<'_>,
) -> Option<Finding> {
    let ranks = ranks(home, node, failing, holding)?;
    // Sets, not lists: settling's runs are not capped, and a model of many errors beside such
    // an `If` would make each lookup a scan of them all.
    let held = errors(holding.findings, bodies)
        .map(key)
        .collect::<HashSet<_>>();
    let failed: Vec<&Finding> = errors(failing.findings, bodies)
        .filter(|finding| !held.contains(&key(finding)))
        .collect();
    build(model, home, node, failing, ranks, false, &failed)
}

/// The E1 / E4 at the first node outside the `If`'s branches that has an error in both runs
/// and none in `merged` (the inference with the branches merged, on which the report is made),
/// when the `If`'s output has another rank in each.
pub(crate) fn every_branch(
    model: &Model,
    home: &Graph,
    node: &Node,
    bodies: &Bodies<'_>,
    then_run: &Trial<'_>,
    else_run: &Trial<'_>,
    merged: &[Finding],
) -> Option<Finding> {
    let ranks = ranks(home, node, then_run, else_run)?;
    let in_else = errors(else_run.findings, bodies)
        .map(key)
        .collect::<HashSet<_>>();
    let reported = errors(merged, bodies).map(key).collect::<HashSet<_>>();
    let failed: Vec<&Finding> = errors(then_run.findings, bodies)
        .filter(|finding| in_else.contains(&key(finding)) && !reported.contains(&key(finding)))
        .collect();
    build(model, home, node, then_run, ranks, true, &failed)
}

/// `(then rank, else rank)` of the first output of the `If` whose rank the two runs know and
/// differ in.
fn ranks(home: &Graph, node: &Node, a: &Trial<'_>, b: &Trial<'_>) -> Option<(usize, usize)> {
    let rank = |trial: &Trial<'_>, index: usize| {
        trial.facts.graph(home.id)?.values.get(index)?.shape.rank()
    };
    node.outputs().iter().flatten().find_map(|value| {
        let index = value.0 as usize;
        let (x, y) = (rank(a, index)?, rank(b, index)?);
        if x == y {
            return None;
        }
        Some(if a.taken { (x, y) } else { (y, x) })
    })
}

/// The E1 and E4 findings outside the `If`'s branches.
fn errors<'f>(
    findings: &'f [Finding],
    bodies: &'f Bodies<'_>,
) -> impl Iterator<Item = &'f Finding> {
    findings.iter().filter(move |finding| {
        matches!(finding.code, Code::E1 | Code::E4)
            && finding.node.as_ref().is_some_and(|site| {
                !inside(&site.graph, bodies.then_path)
                    && !inside(&site.graph, bodies.else_path)
                    && bodies.runs_once.contains(&site.graph.as_str())
            })
    })
}

fn inside(graph: &str, body: &str) -> bool {
    graph == body
        || graph
            .strip_prefix(body)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// What names one failure across runs: its node and code.
fn key(finding: &Finding) -> (Option<(&str, usize)>, Code) {
    (
        finding
            .node
            .as_ref()
            .map(|site| (site.graph.as_str(), site.index)),
        finding.code,
    )
}

fn name_of(site: &NodeSite) -> NodeName {
    NodeName::new(site.op_type.clone(), site.name.clone())
}

/// The finding at the first of `failed` (in graph order), the other nodes named in it, with
/// the provenance of the run in which it fails.
fn build(
    model: &Model,
    home: &Graph,
    node: &Node,
    failing: &Trial<'_>,
    (then_rank, else_rank): (usize, usize),
    every_branch: bool,
    failed: &[&Finding],
) -> Option<Finding> {
    let (first, others) = failed.split_first()?;
    let site = first.node.as_ref()?;
    let mut also_at: Vec<NodeName> = Vec::new();
    let mut named: HashSet<(&str, &str)> = HashSet::new();
    for other in others.iter().filter_map(|other| other.node.as_ref()) {
        if (other.graph.as_str(), other.index) != (site.graph.as_str(), site.index)
            && named.insert((other.op_type.as_str(), other.name.as_str()))
        {
            also_at.push(name_of(other));
        }
    }
    let facts = Facts::BranchFailure {
        if_node: NodeName::new(node.op_type().to_string(), home.text(node.name).to_owned()),
        failing_branch: if failing.taken { "then" } else { "else" }.to_owned(),
        every_branch,
        then_rank,
        else_rank,
        broadcast: first.code == Code::E1,
        failure: Box::new(first.facts.clone()),
        also_at,
    };
    // The shapes the finding shows are the failing run's, so their provenance is too: attached
    // to the failure as its check made it, which the walk knows how to read.
    let mut failure = (*first).clone();
    crate::provenance::attach(model, failing.facts, std::slice::from_mut(&mut failure));
    Some(Finding::new(facts, Some(site.clone()), failure.inputs))
}
