//! Control flow and calls: `If` merges its branches, `Loop` and `Scan` infer their bodies from the
//! first iteration and widen loop-carried dims that change, model-local functions are inferred
//! at each call site. Also the refinement of inferred shapes by declared ones.

use super::{NodeStatus, ValueFacts};
use crate::model::dtype::elem;
use crate::model::{Graph, GraphId, Model, Node, ValueId};
use crate::ops::BroadcastCheck;
use crate::shape::{verify, Dim, Shape, SharedShape, Tri};

/// What control flow needs of the engine that runs it (`engine.rs`, which implements it): the
/// model, a run of a body, and the facts and forced branches of the run so far. A trait, so that
/// the engine calls down into control flow and control flow names no engine.
pub(super) trait Bodies<'m> {
    /// The model being inferred.
    fn model(&self) -> &'m Model;
    /// Infers `graph`, with `inputs` for its formal inputs (else their declarations).
    fn run_graph(&mut self, graph: &'m Graph, inputs: Option<Vec<ValueFacts>>);
    /// The branch given for `If` node `index` of `graph`, if any.
    fn forced_branch(&self, graph: GraphId, index: usize) -> Option<bool>;
    /// A value's facts with the float elements left in its initializer decoded, uncharged.
    fn facts_of(&self, graph: GraphId, value: ValueId) -> Option<ValueFacts>;
    /// The next run of `graph` takes no declared dims for its inputs flagged in `varying` (by
    /// position), nor for the values computed from them: a loop-carried dim that changes from
    /// one iteration to the next contradicts a declaration, which gives one size for all.
    fn vary(&mut self, graph: GraphId, varying: Vec<bool>);
}

/// What running a control-flow node or a function call gives: its status, its outputs' facts and
/// its broadcast checks.
type NodeRun = (NodeStatus, Vec<ValueFacts>, Vec<BroadcastCheck>);

/// Fills the unknown parts of `inferred` from `declared` (ONNX IR: a declared shape is a promise
/// of the model). A declaration that contradicts `inferred` (another rank, a dim provably
/// different: what W2 reports) is shown wrong, so none of its sizes is taken (issue 38, item 4).
pub(crate) fn refine(inferred: &Shape, declared: &Shape) -> Shape {
    if verify::compare(inferred, declared).is_err() {
        return inferred.clone();
    }
    match (inferred, declared) {
        (Shape::Unranked, _) => declared.clone(),
        (Shape::Ranked(ours), Shape::Ranked(theirs)) if ours.len() == theirs.len() => {
            Shape::Ranked(
                ours.iter()
                    .zip(theirs)
                    .map(|(ours, theirs)| match ours {
                        Dim::Unknown => theirs.clone(),
                        known => known.clone(),
                    })
                    .collect(),
            )
        }
        _ => inferred.clone(),
    }
}

/// Shape common to two alternatives: equal dims are kept, others become unknown.
fn merge(a: &Shape, b: &Shape) -> Shape {
    match (a, b) {
        (Shape::Ranked(x), Shape::Ranked(y)) if x.len() == y.len() => Shape::Ranked(
            x.iter()
                .zip(y)
                .map(|(p, q)| {
                    if p.eq_dim(q) == Tri::Yes {
                        p.clone()
                    } else {
                        Dim::Unknown
                    }
                })
                .collect(),
        ),
        _ => Shape::Unranked,
    }
}

fn merge_facts(a: &ValueFacts, b: &ValueFacts) -> ValueFacts {
    ValueFacts {
        shape: merge(&a.shape, &b.shape).into(),
        elem: if a.elem == b.elem { a.elem } else { None },
        value: match (&a.value, &b.value) {
            (Some(x), Some(y)) if x == y => Some(x.clone()),
            _ => None,
        },
        real: match (&a.real, &b.real) {
            (Some(x), Some(y)) if x == y => Some(x.clone()),
            _ => None,
        },
    }
}

fn scalar(elem_type: i32) -> ValueFacts {
    ValueFacts {
        shape: Shape::scalar().into(),
        elem: Some(elem_type),
        value: None,
        real: None,
    }
}

fn outputs_of<'m>(engine: &impl Bodies<'m>, graph: GraphId) -> Vec<ValueFacts> {
    let Some(body) = engine.model().graph(graph) else {
        return Vec::new();
    };
    body.outputs
        .iter()
        .map(|&v| {
            engine
                .facts_of(graph, v)
                .unwrap_or_else(ValueFacts::unknown)
        })
        .collect()
}

/// The value of an `If` condition whose single element is known: non-zero is true.
pub(crate) fn known_condition(cond: Option<&ValueFacts>) -> Option<bool> {
    let value = cond?.value.as_deref()?;
    let [only] = value.data.as_slice() else {
        return None;
    };
    only.as_known().map(|v| v != 0)
}

fn subgraph(node: &Node, attribute: &str) -> Option<GraphId> {
    node.subgraphs()
        .iter()
        .find(|(name, _)| name == attribute)
        .map(|(_, id)| *id)
}

/// Infers a node that holds subgraphs, and the subgraphs themselves.
pub(crate) fn infer<'m>(
    engine: &mut impl Bodies<'m>,
    graph: &'m Graph,
    node: &'m Node,
    inputs: &[Option<ValueFacts>],
) -> NodeRun {
    let model = engine.model();
    match (node.domain().as_str(), node.op_type().as_str()) {
        ("", "If") => {
            let (Some(then_id), Some(else_id)) =
                (subgraph(node, "then_branch"), subgraph(node, "else_branch"))
            else {
                return (NodeStatus::Unsupported, Vec::new(), Vec::new());
            };
            // A condition known at inference time (an `Equal` of a rank and a constant, as in
            // function bodies that serve 2-D and 3-D inputs) runs one branch: the other never
            // executes, so its nodes are neither inferred nor checked. So does a branch given
            // because the other leads every run into a failure (`settle.rs`).
            let given = engine.forced_branch(graph.id, node.index());
            if let Some(taken) =
                given.or_else(|| known_condition(inputs.first().and_then(Option::as_ref)))
            {
                let id = if taken { then_id } else { else_id };
                if let Some(body) = model.graph(id) {
                    engine.run_graph(body, Some(Vec::new()));
                }
                return (NodeStatus::Inferred, outputs_of(engine, id), Vec::new());
            }
            for id in [then_id, else_id] {
                if let Some(body) = model.graph(id) {
                    engine.run_graph(body, Some(Vec::new()));
                }
            }
            let then_out = outputs_of(engine, then_id);
            let else_out = outputs_of(engine, else_id);
            let merged = then_out
                .iter()
                .zip(&else_out)
                .map(|(a, b)| merge_facts(a, b))
                .collect();
            (NodeStatus::Inferred, merged, Vec::new())
        }
        ("", "Loop") => loop_node(engine, node, inputs),
        ("", "Scan") if node.opset().is_none_or(|v| v >= 9) => scan_node(engine, node, inputs),
        _ => {
            bodies(engine, node);
            (NodeStatus::Unsupported, Vec::new(), Vec::new())
        }
    }
}

/// Whether `node` is one of the ops whose bodies this module runs with the node's own inputs
/// (`If`, `Loop`, `Scan`); any other op that holds graphs only carries them.
pub(crate) fn drives(node: &Node) -> bool {
    node.domain().is_empty() && matches!(node.op_type().as_str(), "If" | "Loop" | "Scan")
}

/// Infers the bodies of an op that carries graphs without driving them (`SequenceMap`,
/// `FlexAttention`'s score modifiers) from their declarations, so that their own nodes are
/// still checked; the op's rule then types its outputs.
pub(crate) fn bodies<'m>(engine: &mut impl Bodies<'m>, node: &'m Node) {
    let model = engine.model();
    for (_, id) in node.subgraphs() {
        if let Some(body) = model.graph(*id) {
            engine.run_graph(body, None);
        }
    }
}

/// Runs a loop-like body until its carried shapes stop changing (at most three passes: the
/// first iteration, then widened dims, then widened ranks), so every shape reported inside the
/// body holds for every iteration.
fn run_to_fixpoint<'m>(
    engine: &mut impl Bodies<'m>,
    body_id: GraphId,
    prefix: &[ValueFacts],
    mut carried: Vec<ValueFacts>,
    suffix: &[ValueFacts],
) -> Vec<ValueFacts> {
    let Some(body) = engine.model().graph(body_id) else {
        return Vec::new();
    };
    let mut varying = vec![false; carried.len()];
    for pass in 0..3 {
        let mut inputs = prefix.to_vec();
        inputs.extend(carried.iter().cloned());
        inputs.extend(suffix.iter().cloned());
        if varying.contains(&true) {
            let mut flags = vec![false; prefix.len()];
            flags.extend(&varying);
            engine.vary(body_id, flags);
        }
        engine.run_graph(body, Some(inputs));
        let outputs = outputs_of(engine, body_id);
        // What the body saw of each carried value: the facts given, refined by the body
        // input's declaration. An iteration that changes a declared size contradicts it.
        let seen: Vec<ValueFacts> = carried
            .iter()
            .enumerate()
            .map(|(k, given)| {
                body.inputs
                    .get(prefix.len() + k)
                    .and_then(|&v| engine.facts_of(body_id, v))
                    .unwrap_or_else(|| given.clone())
            })
            .collect();
        // Body outputs: (condition for Loop), carried values, then scan outputs.
        let skip = usize::from(!prefix.is_empty());
        let mut changed = false;
        let next: Vec<ValueFacts> = seen
            .iter()
            .zip(outputs.iter().skip(skip))
            .zip(varying.iter_mut())
            .map(|((before, after), varies)| {
                let merged = merge_facts(before, after);
                if merged.shape != before.shape {
                    *varies = true;
                }
                if merged.shape != before.shape
                    || merged.value != before.value
                    || merged.real != before.real
                {
                    changed = true;
                }
                if pass == 1 && changed {
                    ValueFacts {
                        shape: SharedShape::unranked(),
                        elem: merged.elem,
                        value: None,
                        real: None,
                    }
                } else {
                    merged
                }
            })
            .collect();
        if !changed {
            return outputs;
        }
        carried = next;
    }
    outputs_of(engine, body_id)
}

/// `Loop(M, cond, v_initial...)`: body inputs are `(iteration_num, condition, v...)`; outputs
/// are the final carried values, then scan outputs stacked along a new leading axis whose
/// length (the trip count) is unknown.
fn loop_node<'m>(
    engine: &mut impl Bodies<'m>,
    node: &Node,
    inputs: &[Option<ValueFacts>],
) -> NodeRun {
    let Some(body_id) = subgraph(node, "body") else {
        return (NodeStatus::Unsupported, Vec::new(), Vec::new());
    };
    let carried: Vec<ValueFacts> = inputs
        .iter()
        .skip(2)
        .map(|f| f.clone().unwrap_or_else(ValueFacts::unknown))
        .collect();
    let count = carried.len();
    let prefix = [scalar(elem::INT64), scalar(elem::BOOL)];
    let outputs = run_to_fixpoint(engine, body_id, &prefix, carried, &[]);
    let mut result: Vec<ValueFacts> = outputs
        .iter()
        .skip(1)
        .take(count)
        .map(|f| ValueFacts {
            value: None,
            real: None,
            ..f.clone()
        })
        .collect();
    result.extend(outputs.iter().skip(1 + count).map(|f| stacked(f, 0)));
    (NodeStatus::Inferred, result, Vec::new())
}

/// A per-iteration value stacked along `axis` over an unknown number of iterations.
fn stacked(facts: &ValueFacts, axis: usize) -> ValueFacts {
    let shape = match &*facts.shape {
        Shape::Ranked(dims) if axis <= dims.len() => {
            let mut dims = dims.clone();
            dims.insert(axis, Dim::Unknown);
            Shape::Ranked(dims)
        }
        _ => Shape::Unranked,
    };
    ValueFacts {
        shape: shape.into(),
        elem: facts.elem,
        value: None,
        real: None,
    }
}

/// `Scan` (opset 9+): N state variables then M scan inputs; each body iteration sees one slice of
/// every scan input (axis from `scan_input_axes`, default 0); scan outputs stack the body's
/// per-iteration outputs along `scan_output_axes`, with the sequence length as that dim.
fn scan_node<'m>(
    engine: &mut impl Bodies<'m>,
    node: &Node,
    inputs: &[Option<ValueFacts>],
) -> NodeRun {
    let Some(body_id) = subgraph(node, "body") else {
        return (NodeStatus::Unsupported, Vec::new(), Vec::new());
    };
    let attrs = node.attrs();
    let Ok(Some(num_scan)) = attrs.int("num_scan_inputs") else {
        return (NodeStatus::Unsupported, Vec::new(), Vec::new());
    };
    let num_scan = usize::try_from(num_scan).unwrap_or(0);
    let states = inputs.len().saturating_sub(num_scan);
    let in_axes = attrs.ints("scan_input_axes").ok().flatten().unwrap_or(&[]);
    let out_axes = attrs.ints("scan_output_axes").ok().flatten().unwrap_or(&[]);
    let carried: Vec<ValueFacts> = inputs
        .iter()
        .take(states)
        .map(|f| f.clone().unwrap_or_else(ValueFacts::unknown))
        .collect();
    let mut length = None::<Dim>;
    let slices: Vec<ValueFacts> = inputs
        .iter()
        .skip(states)
        .enumerate()
        .map(|(k, f)| {
            let facts = f.clone().unwrap_or_else(ValueFacts::unknown);
            let axis = in_axes.get(k).copied().unwrap_or(0);
            match &*facts.shape {
                Shape::Ranked(dims) => {
                    let Some(axis) = normalise_axis(axis, dims.len()) else {
                        return ValueFacts::unknown();
                    };
                    let mut dims = dims.clone();
                    let removed = dims.remove(axis);
                    if length.is_none() {
                        length = Some(removed);
                    }
                    ValueFacts {
                        shape: Shape::Ranked(dims).into(),
                        elem: facts.elem,
                        value: None,
                        real: None,
                    }
                }
                Shape::Unranked => ValueFacts {
                    elem: facts.elem,
                    ..ValueFacts::unknown()
                },
            }
        })
        .collect();
    let outputs = run_to_fixpoint(engine, body_id, &[], carried, &slices);
    let mut result: Vec<ValueFacts> = outputs.iter().take(states).cloned().collect();
    for (k, per_iteration) in outputs.iter().skip(states).enumerate() {
        let rank = per_iteration.shape.rank().unwrap_or(0) + 1;
        let axis = out_axes.get(k).copied().unwrap_or(0);
        let mut facts = match normalise_axis(axis, rank) {
            Some(axis) => stacked(per_iteration, axis),
            None => ValueFacts::unknown(),
        };
        if let (Shape::Ranked(dims), Some(length), Some(axis)) =
            (facts.shape.make_mut(), &length, normalise_axis(axis, rank))
        {
            if let Some(slot) = dims.get_mut(axis) {
                *slot = length.clone();
            }
        }
        result.push(facts);
    }
    (NodeStatus::Inferred, result, Vec::new())
}

fn normalise_axis(axis: i64, rank: usize) -> Option<usize> {
    let rank_i = i64::try_from(rank).ok()?;
    let axis = if axis < 0 { axis + rank_i } else { axis };
    usize::try_from(axis).ok().filter(|&a| a < rank)
}

/// A call of a model-local function: its body is inferred with the call's input facts.
pub(crate) fn call<'m>(
    engine: &mut impl Bodies<'m>,
    body_id: GraphId,
    inputs: &[Option<ValueFacts>],
) -> NodeRun {
    let Some(body) = engine.model().graph(body_id) else {
        return (NodeStatus::Unsupported, Vec::new(), Vec::new());
    };
    let given = inputs
        .iter()
        .map(|f| f.clone().unwrap_or_else(ValueFacts::unknown))
        .collect();
    engine.run_graph(body, Some(given));
    (
        NodeStatus::Inferred,
        outputs_of(engine, body_id),
        Vec::new(),
    )
}
