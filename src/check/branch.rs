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

use super::tally::{self, Key, Paths, Tally};
use super::CheckOptions;
use crate::diag::{Code, Facts, Finding, NodeName};
use crate::infer::Inference;
use crate::model::{Graph, Model, Node};

/// One of the two runs settling made of an `If`: its branch, inference and findings' keys.
pub(crate) struct Trial<'a> {
    /// Whether the `If` took its then branch.
    pub taken: bool,
    /// The inference with that branch forced.
    pub facts: &'a Inference,
    /// The keys of every check's findings on it (`tally.rs`).
    pub tally: &'a Tally,
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
    pub runs_once: &'a HashSet<&'a str>,
}

/// What the two functions below read besides the runs: the model, its paths and the options
/// the checks ran with (to build the one finding reported).
pub(crate) struct Reader<'a> {
    /// The model.
    pub model: &'a Model,
    /// Its graphs by path.
    pub paths: &'a Paths<'a>,
    /// The options the checks ran with.
    pub options: &'a CheckOptions,
}

/// The W1 / W4 at the first node outside the `If`'s branches that has an error in the `failing`
/// run and none in the `holding` run, when the `If`'s output has another rank in each.
pub(crate) fn one_branch(
    reader: &Reader<'_>,
    home: &Graph,
    node: &Node,
    bodies: &Bodies<'_>,
    failing: &Trial<'_>,
    holding: &Trial<'_>,
) -> Option<Finding> {
    let ranks = ranks(home, node, failing, holding)?;
    // Sets, not lists: settling's runs are not capped, and a model of many errors beside such
    // an `If` would make each lookup a scan of them all.
    let held = errors(holding.tally, reader.paths, bodies).collect::<HashSet<_>>();
    let mut failed: Vec<Key> = errors(failing.tally, reader.paths, bodies)
        .filter(|key| !held.contains(key))
        .collect();
    reader.paths.sort(&mut failed);
    build(reader, home, node, failing, ranks, false, &failed)
}

/// The E1 / E4 at the first node outside the `If`'s branches that has an error in both runs
/// and none in `merged` (the inference with the branches merged, on which the report is made),
/// when the `If`'s output has another rank in each.
pub(crate) fn every_branch(
    reader: &Reader<'_>,
    home: &Graph,
    node: &Node,
    bodies: &Bodies<'_>,
    then_run: &Trial<'_>,
    else_run: &Trial<'_>,
    merged: &Tally,
) -> Option<Finding> {
    let ranks = ranks(home, node, then_run, else_run)?;
    let in_else = errors(else_run.tally, reader.paths, bodies).collect::<HashSet<_>>();
    let reported = errors(merged, reader.paths, bodies).collect::<HashSet<_>>();
    let mut failed: Vec<Key> = errors(then_run.tally, reader.paths, bodies)
        .filter(|key| in_else.contains(key) && !reported.contains(key))
        .collect();
    reader.paths.sort(&mut failed);
    build(reader, home, node, then_run, ranks, true, &failed)
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

/// The keys of the E1 and E4 findings outside the `If`'s branches, in the order offered.
fn errors<'f>(
    tally: &'f Tally,
    paths: &'f Paths<'_>,
    bodies: &'f Bodies<'_>,
) -> impl Iterator<Item = Key> + 'f {
    tally.keys.iter().copied().filter(move |key| {
        let graph = paths.path(key.graph);
        matches!(key.code, Code::E1 | Code::E4)
            && !inside(graph, bodies.then_path)
            && !inside(graph, bodies.else_path)
            && bodies.runs_once.contains(graph)
    })
}

fn inside(graph: &str, body: &str) -> bool {
    graph == body
        || graph
            .strip_prefix(body)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The finding at the first of `failed` (keys in graph order), the other nodes named in it,
/// with the provenance of the run in which it fails. Only that first failure is built (the
/// checks run again on the failing run's facts); the others are named from the model, as the
/// checks name a node (`site.rs`: its op type and its name, or `<op>_<index>` for none).
fn build(
    reader: &Reader<'_>,
    home: &Graph,
    node: &Node,
    failing: &Trial<'_>,
    (then_rank, else_rank): (usize, usize),
    every_branch: bool,
    failed: &[Key],
) -> Option<Finding> {
    let (first, others) = failed.split_first()?;
    let mut failure = tally::finding_at(
        reader.paths,
        reader.model,
        failing.facts,
        reader.options,
        *first,
    )?;
    let site = failure.node.clone()?;
    // Named within `finding-nodes`; every other node is still counted: one `If` beside 100,000
    // failing nodes must not make a finding of 100,000 names.
    let mut also_at: Vec<NodeName> = Vec::new();
    let mut also_at_left_out = 0;
    let mut named: HashSet<(&str, &str)> = HashSet::new();
    for other in others {
        if (other.graph, other.index) == (first.graph, first.index) {
            continue;
        }
        let Some(graph) = reader.model.graph(other.graph) else {
            continue;
        };
        let Some(at) = graph.node(other.index) else {
            continue;
        };
        let (op_type, name) = (at.op_type().as_str(), graph.text(at.name));
        if named.insert((op_type, name)) {
            if also_at.len() < crate::limits::FINDING_NODES {
                also_at.push(NodeName::new(op_type.to_owned(), name.to_owned()));
            } else {
                also_at_left_out += 1;
            }
        }
    }
    let facts = Facts::BranchFailure {
        if_node: NodeName::new(node.op_type().to_string(), home.text(node.name).to_owned()),
        failing_branch: if failing.taken { "then" } else { "else" }.to_owned(),
        every_branch,
        then_rank,
        else_rank,
        broadcast: first.code == Code::E1,
        failure: Box::new(failure.facts.clone()),
        also_at,
        also_at_left_out,
    };
    // The shapes the finding shows are the failing run's, so their provenance is too: attached
    // to the failure as its check made it, which the walk knows how to read.
    crate::provenance::attach(
        reader.model,
        failing.facts,
        std::slice::from_mut(&mut failure),
    );
    Some(Finding::new(facts, Some(site), failure.inputs))
}
