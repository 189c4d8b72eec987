//! What settling reads of a run of the checks: the key of each finding at a node (its graph,
//! node index and code), in the order the checks offered them, with no finding built; and the
//! one finding at a given key, built by running the checks again.
//!
//! Settling runs the checks twice per `If` it tries, uncapped, to compare the runs' errors, and
//! a finding costs about a kilobyte where its key costs sixteen bytes: a 4.7 MB file of 100,000
//! static clashes beside such an `If` took 694 MB when every run built every finding (issue 34,
//! the hostile-file bound). Every question settling asks of a run (which nodes have an E1 or
//! E4, whether a branch reports an error or a warning, which errors one run has and the other
//! not, and which of those comes first in graph order) reads the keys only: the node and code
//! of a finding, its severity (a function of its code) and its graph's path. The one finding
//! settling then reports is built from the failing run's facts (`branch.rs`), and the other
//! nodes it names from the model.
//!
//! Why this is exact: nothing is capped or cut short, so no error of one run can read as absent
//! because it came past a limit; every finding's key is kept, in the order offered, which is
//! the order of equal keys in the sorted findings list; and the checks are functions of the
//! model, the inference and the options, so running them again on the failing run offers the
//! same findings in the same order, the first at a key being the one the list held first.

use std::collections::HashMap;

use super::sink::Sink;
use super::{offer_all, CheckOptions};
use crate::diag::{Code, Finding};
use crate::infer::Inference;
use crate::model::{GraphId, Model};

/// One finding's key: the graph it is in, its node's index there and its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// The graph named by the finding's path (see [`Paths`]).
    pub graph: GraphId,
    /// The node's index in that graph.
    pub index: usize,
    /// The finding's code.
    pub code: Code,
}

/// The model's graphs by path, and their place in graph order.
///
/// Findings name their graph by path, and settling compared findings by path, so two graphs
/// of one path (two `If`s of one name in a graph) were one to it: here each path stands for
/// the last graph of that path, as settling's lookup from path to graph always took it, and
/// keys of the two compare equal as their paths did.
pub(crate) struct Paths<'m> {
    model: &'m Model,
    by_path: HashMap<&'m str, GraphId>,
    /// Per graph, its rank in the findings' sort order of paths: `main` first, then by path.
    rank: Vec<usize>,
}

impl<'m> Paths<'m> {
    /// The index of `model`'s graph paths.
    pub(crate) fn new(model: &'m Model) -> Self {
        let by_path: HashMap<&str, GraphId> = model
            .graphs
            .iter()
            .map(|graph| (graph.path.as_str(), graph.id))
            .collect();
        let mut order: Vec<(bool, &str, GraphId)> = model
            .graphs
            .iter()
            .map(|graph| (graph.path != "main", graph.path.as_str(), graph.id))
            .collect();
        order.sort_unstable();
        let mut rank = vec![0; model.graphs.len()];
        for (place, &(_, _, id)) in order.iter().enumerate() {
            if let Some(slot) = rank.get_mut(id.0 as usize) {
                *slot = place;
            }
        }
        Paths {
            model,
            by_path,
            rank,
        }
    }

    /// The graph that stands for `path`.
    pub(crate) fn graph(&self, path: &str) -> Option<GraphId> {
        self.by_path.get(path).copied()
    }

    /// The path of graph `id` (empty for no graph of the model).
    pub(crate) fn path(&self, id: GraphId) -> &'m str {
        self.model.graph(id).map_or("", |graph| graph.path.as_str())
    }

    /// The key of a finding of `code` at node `at`; `None` at no node, which settling never
    /// reads.
    fn key(&self, at: Option<(&str, usize)>, code: Code) -> Option<Key> {
        let (path, index) = at?;
        Some(Key {
            graph: self.graph(path)?,
            index,
            code,
        })
    }

    /// `keys` in the findings' order: by graph path (`main` first), node index and code, keys
    /// that tie in the order they came (what the stable sort of the findings gave).
    pub(crate) fn sort(&self, keys: &mut [Key]) {
        keys.sort_by_key(|key| {
            let rank = self.rank.get(key.graph.0 as usize).copied();
            (rank, key.index, key.code)
        });
    }
}

/// The keys of one run's findings at nodes, in the order the checks offered them.
pub(crate) struct Tally {
    /// The keys, one per finding.
    pub keys: Vec<Key>,
}

/// The key of every finding the checks make on `inference`, none built and none dropped
/// (`--allow` included: settling decides on what the model does, not on what is shown).
pub(crate) fn collect(
    paths: &Paths<'_>,
    model: &Model,
    inference: &Inference,
    options: &CheckOptions,
) -> Tally {
    let mut keys = Vec::new();
    let mut record = |at: Option<(&str, usize)>, code: Code| {
        keys.extend(paths.key(at, code));
        false
    };
    let mut sink = Sink::new(None, None).with_wanted(&mut record);
    offer_all(model, inference, options, &mut sink);
    drop(sink);
    Tally { keys }
}

/// The first finding the checks make on `inference` at `key`: the one the sorted findings
/// list first among those of that key, as they come in the order offered.
pub(crate) fn finding_at(
    paths: &Paths<'_>,
    model: &Model,
    inference: &Inference,
    options: &CheckOptions,
    key: Key,
) -> Option<Finding> {
    let mut found = false;
    let mut first = |at: Option<(&str, usize)>, code: Code| {
        let wanted = !found && paths.key(at, code) == Some(key);
        found |= wanted;
        wanted
    };
    let mut sink = Sink::new(None, None).with_wanted(&mut first);
    offer_all(model, inference, options, &mut sink);
    sink.finish().0.into_iter().next()
}
