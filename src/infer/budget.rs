//! The budgets that bound inference by the file: nesting depth, work in graph bodies (function
//! calls, loop passes) and value elements copied. Past one, shapes still propagate and what the
//! budget guards (a body's outputs, carried values) becomes unknown.

use std::cell::Cell;

use super::ValueFacts;
use crate::limits::{CapHit, Limit};
use crate::model::{declared, Graph, GraphId};
use crate::shape::SharedShape;

/// Limits nested inference through subgraphs and function calls (recursive functions).
pub(super) const MAX_INFER_DEPTH: usize = crate::limits::INFER_DEPTH;

/// Nodes and values inferred in graph bodies beyond a model's own size. Each call of a function
/// and each pass over a loop body infers the body again: functions calling functions ten times
/// over ten levels, a function calling itself twice, or nested loops (three passes each) make the
/// work exponential in a file of a few kilobytes. Once a model has cost
/// `BODY_WORK_FACTOR * size + BODY_WORK_SLACK`, further calls and control-flow nodes get unknown
/// outputs.
pub(super) const BODY_WORK_FACTOR: usize = crate::limits::BODY_WORK_FACTOR;
pub(super) const BODY_WORK_SLACK: usize = crate::limits::BODY_WORK_SLACK;

/// What running `graph` once costs: its nodes, and its values with their declared dims (each
/// run parses them again).
pub(super) fn graph_cost(graph: &Graph) -> usize {
    let values = graph
        .values
        .iter()
        .map(|value| {
            let rank = match value
                .initializer()
                .and_then(|i| graph.initializers.get(i as usize))
            {
                Some(tensor) if value.is_initializer() => tensor.dims.len(),
                _ => declared::shape_rank(value.declared.as_deref()),
            };
            1 + rank
        })
        .fold(0usize, usize::saturating_add);
    graph.nodes.len().saturating_add(values).saturating_add(1)
}

/// The body budget of a model whose graphs cost `costs` ([`graph_cost`]).
pub(super) fn body_budget(costs: &[usize]) -> usize {
    let size = costs.iter().copied().fold(0usize, usize::saturating_add);
    size.saturating_mul(BODY_WORK_FACTOR)
        .saturating_add(BODY_WORK_SLACK)
}

/// Most value elements data propagation may copy in a whole model (rule inputs and stored
/// outputs). Each value holds at most a few thousand elements, but a small file can make many
/// of them (thousands of `Identity` of one large value, a node reading it thousands of times):
/// past this budget shapes still propagate, values no longer do, so memory and time stay
/// proportional to the input.
pub(super) const MAX_VALUE_WORK: usize = crate::limits::VALUE_WORK;

/// The value elements a run copied, against [`MAX_VALUE_WORK`], and whether a copy was refused
/// (the `value-work` cap fired).
#[derive(Debug, Default)]
pub(super) struct ValueWork {
    spent: Cell<usize>,
    reached: Cell<bool>,
}

impl ValueWork {
    /// Whether `elements` more fit the budget; a refusal is recorded.
    pub(super) fn affords(&self, elements: usize) -> bool {
        let fits = self.spent.get().saturating_add(elements) <= MAX_VALUE_WORK;
        if !fits {
            self.reached.set(true);
        }
        fits
    }

    /// Charges `elements` when they fit; `false` (nothing charged, the refusal recorded) when
    /// they do not.
    pub(super) fn charge(&self, elements: usize) -> bool {
        let fits = self.affords(elements);
        if fits {
            self.spent.set(self.spent.get().saturating_add(elements));
        }
        fits
    }

    /// The cap hits of the run: `value-work` in the main graph, when a copy was refused.
    pub(super) fn hits(&self) -> Option<CapHit> {
        self.reached.get().then_some(CapHit {
            graph: 0,
            node: None,
            limit: Limit::ValueWork,
        })
    }
}

/// The `infer-depth` or `body-work` hit at `node` of `graph`, whose body is not inferred.
pub(super) fn body_hit(graph: GraphId, node: usize, too_deep: bool) -> CapHit {
    CapHit {
        graph: graph.0,
        node: Some(node),
        limit: if too_deep {
            Limit::InferDepth
        } else {
            Limit::BodyWorkFactor
        },
    }
}

/// Charges `facts`' value to the work budget, dropping the value once the budget is spent,
/// and bounds its rank.
pub(super) fn bounded(work: &ValueWork, max_rank: usize, mut facts: ValueFacts) -> ValueFacts {
    if facts
        .value
        .as_ref()
        .is_some_and(|value| !work.charge(value.data.len()))
    {
        facts.value = None;
    }
    if facts
        .real
        .as_ref()
        .is_some_and(|real| !work.charge(real.data.len()))
    {
        facts.real = None;
    }
    if facts.shape.rank().is_some_and(|rank| rank > max_rank) {
        facts.shape = SharedShape::unranked();
    }
    facts
}
