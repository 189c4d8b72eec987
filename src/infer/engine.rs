//! The engine: one inference run over a model. It walks each graph in topological order, runs
//! each node's rule on its inputs' facts, refines the outputs by their declarations and stores
//! them; control flow and function calls (`control.rs`) run bodies through it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::budget::{body_budget, body_hit, bounded, graph_cost, ValueWork, MAX_INFER_DEPTH};
use super::{adopt, anonymous, control, downstream, stored};
use super::{Assumptions, GraphFacts, Inference, NodeFacts, NodeStatus, ValueFacts};
use crate::error::Limits;
use crate::limits::{CapHit, Limit};
use crate::model::{
    declared, declared_of, Graph, GraphId, Initializer, LateDeclared, Model, Node, Origin, ValueId,
};
use crate::ops::registry::{self, Resolved};
use crate::ops::{
    held_shape, BroadcastCheck, Charge, Constraint, Ctx, Fresh, Input, Named, Reals, RuleError,
    RuleFn, StoredReals,
};
use crate::shape::broadcast::Outcomes;
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Interned, Shape, Shapes, SharedShape, Verdict};

/// One inference run: [`super::infer_forcing`]'s.
pub(super) fn run(
    model: &Model,
    limits: &Limits,
    assumptions: Assumptions,
    forced: &[(GraphId, usize, bool)],
) -> Inference {
    let mut engine = Engine::new(model, limits, assumptions, forced);
    if let Some(main) = model.main() {
        engine.run_graph(main, None);
    }
    engine.into_inference(model)
}

/// An inference run of a main graph handed over chunk by chunk (`super::pipeline`), between
/// chunks: everything the run carries but the model, which grows between them. The run is
/// the one [`run`] makes, node by node in the same order; the model has no function and the
/// nodes no body (the builder falls back otherwise), so no graph but the main one is run.
pub(super) struct Suspended {
    assumptions: Assumptions,
    facts: Vec<GraphFacts>,
    fresh: Fresh,
    broadcasts: Outcomes,
    depth: usize,
    work: ValueWork,
    caps: Vec<crate::limits::CapHit>,
    max_rank: usize,
    body_work: usize,
    body_budget: usize,
    costs: Vec<usize>,
    rules: RefCell<RuleCache>,
    pending: Vec<stored::Undecoded>,
    shapes: RefCell<Shapes>,
    values: RefCell<Interned<ValueTensor>>,
    downstream: downstream::Downstream,
    varying: downstream::Downstream,
}

impl Suspended {
    /// Starts the run on `model`'s main graph as far as it is known: its inputs' and
    /// initializers' facts, as [`run`] makes them before the first node. The facts are made
    /// room for `expected` values at once: grown chunk by chunk, they would be copied at each
    /// doubling and held twice meanwhile (the peak of the build and of inference together).
    pub(super) fn begin(
        model: &Model,
        limits: &Limits,
        assumptions: Assumptions,
        expected: usize,
    ) -> Suspended {
        let mut engine = Engine::new(model, limits, assumptions, &[]);
        if let Some(main) = model.main() {
            engine.enter_graph(main, None);
            if let Some(facts) = engine.facts.get_mut(main.id.0 as usize) {
                // A little over: nodes with two outputs, values declared after the nodes.
                let room = expected.saturating_add(expected / 8);
                facts
                    .values
                    .reserve_exact(room.saturating_sub(facts.values.len()));
            }
        }
        engine.suspend()
    }

    /// Runs `nodes` of `model`'s main graph; `late` declares the values they define, which
    /// the graph does not hold.
    pub(super) fn run(self, model: &Model, late: &LateDeclared, nodes: &[Node]) -> Suspended {
        let mut engine = Engine::resume(model, self, late);
        if let Some(main) = model.main() {
            if let Some(facts) = engine.facts.get_mut(main.id.0 as usize) {
                facts.values.resize_with(late.count(), ValueFacts::unknown);
            }
            for node in nodes {
                engine.run_node(main, node);
            }
        }
        engine.suspend()
    }

    /// The run's facts for `model`, the model the run was handed over from.
    pub(super) fn finish(self, model: &Model) -> Inference {
        let mut graphs = self.facts;
        fit(&mut graphs, model);
        Inference {
            graphs,
            caps: caps_of(self.caps, &self.work),
        }
    }
}

/// The caps a run reached: those it recorded and the value work's, each once, in order.
fn caps_of(mut caps: Vec<crate::limits::CapHit>, work: &ValueWork) -> Vec<crate::limits::CapHit> {
    caps.extend(work.hits());
    caps.sort_unstable();
    caps.dedup();
    caps
}

/// What a rule gave for a node: its status, output facts, broadcast checks and conditional
/// constraints.
type Applied = (
    NodeStatus,
    Vec<ValueFacts>,
    Vec<BroadcastCheck>,
    Vec<Constraint>,
);

/// Gives every value of `model` facts (unknown for those the run did not reach).
fn fit(graphs: &mut [GraphFacts], model: &Model) {
    for (facts, graph) in graphs.iter_mut().zip(&model.graphs) {
        if facts.values.len() < graph.values.len() {
            facts
                .values
                .resize_with(graph.values.len(), ValueFacts::unknown);
        }
    }
}

impl<'m> Engine<'m> {
    fn new(
        model: &'m Model,
        limits: &Limits,
        assumptions: Assumptions,
        forced: &[(GraphId, usize, bool)],
    ) -> Engine<'m> {
        // Each graph's cost is computed once: it reads every value's declaration.
        let costs: Vec<usize> = model.graphs.iter().map(graph_cost).collect();
        Engine {
            model,
            assumptions,
            forced: forced.to_vec(),
            functions: model
                .functions
                .iter()
                // Reversed so that, as in a linear search, the first definition of a name wins.
                .rev()
                .map(|f| ((f.domain.as_str(), f.name.as_str()), f.graph))
                .collect(),
            facts: model.graphs.iter().map(|_| GraphFacts::default()).collect(),
            fresh: Fresh::for_model(model),
            broadcasts: Outcomes::default(),
            depth: 0,
            work: ValueWork::default(),
            caps: Vec::new(),
            max_rank: limits.max_rank,
            body_work: 0,
            body_budget: body_budget(&costs),
            costs,
            rules: RefCell::default(),
            pending: model
                .graphs
                .iter()
                .map(|_| stored::Undecoded::default())
                .collect(),
            shapes: RefCell::default(),
            values: RefCell::default(),
            downstream: downstream::Downstream::default(),
            varying: downstream::Downstream::default(),
            varying_inputs: None,
            late: None,
        }
    }

    fn into_inference(self, model: &Model) -> Inference {
        let mut graphs = self.facts;
        fit(&mut graphs, model);
        Inference {
            graphs,
            caps: caps_of(self.caps, &self.work),
        }
    }

    /// The run without the model ([`Suspended`]).
    fn suspend(self) -> Suspended {
        Suspended {
            assumptions: self.assumptions,
            facts: self.facts,
            fresh: self.fresh,
            broadcasts: self.broadcasts,
            depth: self.depth,
            work: self.work,
            caps: self.caps,
            max_rank: self.max_rank,
            body_work: self.body_work,
            body_budget: self.body_budget,
            costs: self.costs,
            rules: self.rules,
            pending: self.pending,
            shapes: self.shapes,
            values: self.values,
            downstream: self.downstream,
            varying: self.varying,
        }
    }

    /// The run of `suspended` on `model`, which has no function ([`Suspended`]).
    fn resume(model: &'m Model, suspended: Suspended, late: &'m LateDeclared) -> Engine<'m> {
        Engine {
            model,
            late: Some(late),
            assumptions: suspended.assumptions,
            forced: Vec::new(),
            functions: HashMap::default(),
            facts: suspended.facts,
            fresh: suspended.fresh,
            broadcasts: suspended.broadcasts,
            depth: suspended.depth,
            work: suspended.work,
            caps: suspended.caps,
            max_rank: suspended.max_rank,
            body_work: suspended.body_work,
            body_budget: suspended.body_budget,
            costs: suspended.costs,
            rules: suspended.rules,
            pending: suspended.pending,
            shapes: suspended.shapes,
            values: suspended.values,
            downstream: suspended.downstream,
            varying: suspended.varying,
            varying_inputs: None,
        }
    }
}

/// Resolved rules by the address of a node's shared [`crate::model::Operator`].
type RuleCache = HashMap<usize, Resolved, foldhash::fast::RandomState>;

pub(crate) struct Engine<'m> {
    model: &'m Model,
    /// The declarations of the main graph's node outputs when the model holds only the values
    /// before its nodes (a run beside the build, [`Suspended`]).
    late: Option<&'m LateDeclared>,
    assumptions: Assumptions,
    /// `If` nodes whose branch is given: `(graph, node index, takes the then branch)`.
    forced: Vec<(GraphId, usize, bool)>,
    /// Model-local functions by `(domain, name)`, looked up at every node.
    functions: HashMap<(&'m str, &'m str), GraphId>,
    facts: Vec<GraphFacts>,
    fresh: Fresh,
    /// The broadcasts of this run, so that nodes repeating one share its outcome.
    broadcasts: Outcomes,
    depth: usize,
    /// Value elements copied so far, against [`MAX_VALUE_WORK`].
    work: ValueWork,
    /// The `infer-depth` and `body-work` caps reached, at the nodes whose body was not inferred.
    caps: Vec<crate::limits::CapHit>,
    max_rank: usize,
    /// Nodes and values of every graph run so far, and the input dims of every node run in a
    /// body, against `body_budget`.
    body_work: usize,
    body_budget: usize,
    /// `graph_cost` of each graph, by id.
    costs: Vec<usize>,
    /// What each `(domain, op_type, opset)` met so far resolves to, keyed by the address of the
    /// node's shared operator (the loader interns them, and the model outlives the engine): one
    /// hash of a word per node instead of a registry lookup by name.
    rules: RefCell<RuleCache>,
    /// Per graph, the values whose float elements are still in their initializer
    /// ([`stored`]).
    pending: Vec<stored::Undecoded>,
    /// Every shape stored so far: equal shapes are stored once (issue 19: a transformer of a
    /// million values has a few dozen distinct shapes).
    shapes: RefCell<Shapes>,
    /// Every element tensor a rule made so far, shared as `shapes`.
    values: RefCell<Interned<ValueTensor>>,
    /// Values downstream of a failure, which take no declared shape.
    downstream: downstream::Downstream,
    /// Values of a loop body computed from a carried value whose dims change between
    /// iterations: they take no declared shape either ([`control::Bodies::vary`]).
    varying: downstream::Downstream,
    /// The inputs of the next run of a body that vary, by position, as `vary` gave them.
    varying_inputs: Option<(GraphId, Vec<bool>)>,
}

/// A node output's inferred facts refined by its declaration, and the axes the declaration
/// filled.
fn declared_output(
    inferred: ValueFacts,
    (declared, declared_elem): (Shape, Option<i32>),
    shapes: &mut Shapes,
) -> (ValueFacts, Vec<usize>) {
    let shape = control::refine(&inferred.shape, &declared);
    let filled = adopt::filled(&inferred.shape, &shape);
    let facts = ValueFacts {
        shape: shapes.share_shape(shape),
        elem: inferred.elem.or(declared_elem),
        value: inferred.value,
        real: inferred.real,
    };
    (facts, filled)
}

/// The sizes `node`'s output declarations give the symbols its rule minted, written into
/// `outputs` ([`adopt::declared_sizes`]).
fn minted_declared(
    (graph, late): (&Graph, Option<&LateDeclared>),
    node: &Node,
    minted: &[crate::ops::Minted],
    outputs: &mut [ValueFacts],
) -> Vec<adopt::Adopted> {
    let declared: Vec<Shape> = node
        .outputs()
        .iter()
        .map(|value| declared::shape_of(value.and_then(|v| declared_of(graph, late, v))))
        .collect();
    // A named element keeps its fresh symbol even where the node's outputs adopt a declared
    // size: onnxruntime runs models whose declarations are wrong (W2), so a declaration must
    // not reach the other readers of the value.
    adopt::declared_sizes(minted, outputs, &declared)
}

/// Records the dims of `node`'s outputs that declarations gave.
fn record_adopted(facts: &mut GraphFacts, node: &Node, adopted: Vec<adopt::Adopted>) {
    let output = |slot: usize| node.outputs().get(slot).copied().flatten();
    for found in adopted {
        if let (Some(value), Some(from)) = (output(found.slot), output(found.from)) {
            facts
                .adopted
                .insert((value, found.axis), (from, found.from_axis));
        }
    }
}

/// Writes the symbols a rule gave unknown elements of its inputs' values ([`crate::ops::Named`])
/// into those values, so that their later readers share them. An element the stored value
/// already knows is kept (the rule saw the value uncharged); a value not stored yet is made, all
/// unknown but the named element ([`crate::ops::held_shape`], as the rule checked). Rules name
/// elements of integer values only.
fn name_elements(facts: &mut GraphFacts, node: &Node, named: Vec<Named>) {
    for element in named {
        let Some(value) = node.inputs().get(element.slot).copied().flatten() else {
            continue;
        };
        let Some(stored) = facts.values.get_mut(value.0 as usize) else {
            continue;
        };
        if stored.value.is_none() {
            stored.value = held_shape(&stored.shape)
                .and_then(|shape| {
                    let count = shape.iter().product();
                    ValueTensor::new(shape, vec![Dim::Unknown; count])
                })
                .map(Arc::new);
        }
        let unknown = stored
            .value
            .as_deref()
            .and_then(|value| value.data.get(element.index))
            .is_some_and(|slot| *slot == Dim::Unknown);
        // Copied first when other values share the elements: only this value is named.
        if let Some(slot) = stored
            .value
            .as_mut()
            .filter(|_| unknown)
            .and_then(|value| Arc::make_mut(value).data.get_mut(element.index))
        {
            *slot = element.dim;
        }
    }
}

impl<'m> control::Bodies<'m> for Engine<'m> {
    fn model(&self) -> &'m Model {
        self.model
    }

    fn run_graph(&mut self, graph: &'m Graph, inputs: Option<Vec<ValueFacts>>) {
        Engine::run_graph(self, graph, inputs);
    }

    fn forced_branch(&self, graph: GraphId, index: usize) -> Option<bool> {
        Engine::forced_branch(self, graph, index)
    }

    fn facts_of(&self, graph: GraphId, value: ValueId) -> Option<ValueFacts> {
        Engine::facts_of(self, graph, value)
    }

    fn vary(&mut self, graph: GraphId, varying: Vec<bool>) {
        self.varying_inputs = Some((graph, varying));
    }
}

impl<'m> Engine<'m> {
    /// The branch given for `If` node `index` of `graph`, if any.
    fn forced_branch(&self, graph: GraphId, index: usize) -> Option<bool> {
        self.forced
            .iter()
            .find(|&&(in_graph, node, _)| (in_graph, node) == (graph, index))
            .map(|&(_, _, taken)| taken)
    }

    fn graph_facts(&mut self, id: GraphId) -> Option<&mut GraphFacts> {
        self.facts.get_mut(id.0 as usize)
    }

    fn value_facts(&self, id: GraphId, value: crate::model::ValueId) -> Option<&ValueFacts> {
        self.facts.get(id.0 as usize)?.values.get(value.0 as usize)
    }

    /// `shape`, shared with the equal shapes stored before.
    pub(crate) fn share(&self, shape: Shape) -> SharedShape {
        self.shapes.borrow_mut().share_shape(shape)
    }

    /// A shape `node` inferred, shared: most nodes (elementwise arithmetic, activations,
    /// normalisations) give an output the shape of an input, found by a comparison that meets
    /// the same symbols (shared, compared by address first), while the table hashes every
    /// symbol's expression.
    fn share_output(&self, graph: GraphId, node: &Node, shape: Shape) -> SharedShape {
        if matches!(shape, Shape::Unranked) {
            return SharedShape::unranked();
        }
        for &value in node.inputs().iter().flatten() {
            if let Some(facts) = self.value_facts(graph, value) {
                if facts.shape == shape {
                    return facts.shape.clone();
                }
            }
        }
        self.share(shape)
    }

    /// Elements `node` inferred, shared with an input's or a stored value's equal ones: a
    /// transformer's shape computations repeat a dozen small tensors in every layer.
    fn share_value(&self, graph: GraphId, node: &Node, value: ValueTensor) -> Arc<ValueTensor> {
        for &input in node.inputs().iter().flatten() {
            if let Some(held) = self
                .value_facts(graph, input)
                .and_then(|facts| facts.value.as_ref())
                .filter(|held| ***held == value)
            {
                return Arc::clone(held);
            }
        }
        self.values.borrow_mut().share(value)
    }

    /// Charges `elements` value elements handed to a rule to the work budget; `false` (and
    /// nothing charged) when the budget cannot afford them.
    fn charge(&self, elements: usize) -> bool {
        self.work.charge(elements)
    }

    /// The float elements of `value` left in its initializer ([`stored`]), decoded now.
    fn pending_reals(&self, graph: GraphId, value: ValueId) -> Option<ValueTensor<Real>> {
        if !self.pending.get(graph.0 as usize)?.get(value) {
            return None;
        }
        self.model.stored_reals(graph, value)
    }

    /// A value's facts with the float elements left in its initializer decoded, uncharged.
    fn facts_of(&self, graph: GraphId, value: ValueId) -> Option<ValueFacts> {
        let mut facts = self.value_facts(graph, value)?.clone();
        if facts.real.is_none() {
            facts.real = self.pending_reals(graph, value).map(Box::new);
        }
        Some(facts)
    }

    /// A copy of a value's facts for a rule, charged to the work budget.
    fn charged(&self, graph: GraphId, value: ValueId) -> Option<ValueFacts> {
        let facts = self.value_facts(graph, value)?;
        let affordable = |len: usize| self.work.affords(len);
        let value_elements = facts.value.as_ref().filter(|v| affordable(v.data.len()));
        let real = match &facts.real {
            Some(real) => Some(real.clone()),
            None => self.pending_reals(graph, value).map(Box::new),
        };
        Some(bounded(
            &self.work,
            self.max_rank,
            ValueFacts {
                shape: facts.shape.clone(),
                elem: facts.elem,
                value: value_elements.cloned(),
                real: real.filter(|v| affordable(v.data.len())),
            },
        ))
    }

    /// Infers a whole graph. `inputs` gives facts for its formal inputs (subgraph bodies and
    /// function bodies); otherwise graph inputs take their declared shapes.
    fn run_graph(&mut self, graph: &'m Graph, inputs: Option<Vec<ValueFacts>>) {
        if !self.enter_graph(graph, inputs) {
            return;
        }
        for &index in &graph.order {
            if let Some(node) = graph.nodes.get(index) {
                self.run_node(graph, node);
            }
        }
        self.depth -= 1;
    }

    /// Starts the run of a graph: the facts of its values before its nodes run. `false` when
    /// the graph is too deep to run.
    fn enter_graph(&mut self, graph: &'m Graph, inputs: Option<Vec<ValueFacts>>) -> bool {
        // Given for this run only: taken first, so that a run cut short leaves none behind.
        let varying_inputs = match self.varying_inputs.take() {
            Some((id, flags)) if id == graph.id => flags,
            _ => Vec::new(),
        };
        if self.depth > MAX_INFER_DEPTH {
            return false;
        }
        let cost = self.costs.get(graph.id.0 as usize).copied().unwrap_or(0);
        self.body_work = self.body_work.saturating_add(cost);
        self.depth += 1;
        let mut given = inputs.map(Vec::into_iter);
        let mut initial = Vec::with_capacity(graph.values.len());
        let mut adopted = Vec::new();
        self.downstream.reset(graph.id);
        self.varying.reset(graph.id);
        let mut pending = stored::Undecoded::default();
        for (id, value) in graph.values.iter().enumerate() {
            let id = ValueId(u32::try_from(id).unwrap_or(u32::MAX));
            let declared_shape = declared::shape_of(value.declared.as_deref());
            let declared_elem = declared::elem_of(value.declared.as_deref());
            let facts = match value.origin {
                Origin::Input => {
                    // Input values are exactly `graph.inputs`, defined first and in order, so
                    // the call's facts line up with them without a lookup per value.
                    if let Some(mut facts) = given.as_mut().and_then(Iterator::next) {
                        if varying_inputs.get(id.0 as usize).copied().unwrap_or(false) {
                            self.varying.set(graph.id, id);
                        } else {
                            let filled = self.refine_given(&mut facts, &declared_shape);
                            adopted.extend(filled.into_iter().map(|a| ((id, a), (id, a))));
                        }
                        facts.elem = facts.elem.or(declared_elem);
                        facts
                    } else {
                        self.graph_input(graph, value, declared_shape, declared_elem)
                    }
                }
                Origin::Initializer | Origin::SparseInitializer => {
                    let held = value
                        .initializer()
                        .and_then(|i| graph.initializers.get(i as usize));
                    let stored = held.filter(|_| value.origin == Origin::Initializer);
                    if stored.is_some_and(Initializer::holds_reals) {
                        pending.set(id);
                    }
                    ValueFacts {
                        shape: held.map_or(SharedShape::unranked(), |t| {
                            self.share(declared::tensor_shape(&t.dims))
                        }),
                        elem: held.and_then(|t| t.data_type),
                        value: stored.and_then(Initializer::int_values).map(Arc::new),
                        real: None,
                    }
                }
                Origin::Outer {
                    graph: outer,
                    value,
                } => {
                    if self
                        .pending
                        .get(outer.0 as usize)
                        .is_some_and(|outer| outer.get(value))
                    {
                        pending.set(id);
                    }
                    if self.downstream.get(outer, value) {
                        self.downstream.set(graph.id, id);
                    }
                    if self.varying.get(outer, value) {
                        self.varying.set(graph.id, id);
                    }
                    self.value_facts(outer, value)
                        .cloned()
                        .unwrap_or_else(ValueFacts::unknown)
                }
                Origin::Constant { .. } | Origin::Node { .. } | Origin::Undefined => {
                    ValueFacts::unknown()
                }
            };
            initial.push(facts);
        }
        if let Some(facts) = self.graph_facts(graph.id) {
            facts.values = initial;
            facts.ran = true;
            facts.adopted.clear();
            facts.adopted.extend(adopted);
            // Nodes on a cycle are left out of the order: not reached.
            if graph.order.len() < graph.nodes.len() {
                for node in graph.nodes.iter().filter(|node| node.in_cycle) {
                    facts.set_node(node.index(), NodeFacts::default());
                }
            }
        }
        if let Some(slot) = self.pending.get_mut(graph.id.0 as usize) {
            *slot = pending;
        }
        true
    }

    /// Refines a body input's given facts by its declaration; returns the axes it filled.
    fn refine_given(&self, facts: &mut ValueFacts, declared: &Shape) -> Vec<usize> {
        let refined = control::refine(&facts.shape, declared);
        let filled = adopt::filled(&facts.shape, &refined);
        facts.shape = self.share(refined);
        filled
    }

    /// A graph input's facts from its declaration. Before IR 4 every initializer is also listed
    /// as a graph input and is a constant in practice (onnxruntime treats it so); from IR 4 on
    /// such an input is an overridable default, so only its declared type is certain, unless
    /// the caller assumes otherwise ([`Assumptions::initializers_as_constants`]).
    fn graph_input(
        &self,
        graph: &Graph,
        value: &crate::model::Value,
        declared_shape: Shape,
        declared_elem: Option<i32>,
    ) -> ValueFacts {
        let stored = value
            .initializer()
            .and_then(|i| graph.initializers.get(i as usize));
        let stored_shape = stored.map(|t| declared::tensor_shape(&t.dims));
        // A declaration that contradicts its initializer is E4's root cause; nothing known
        // downstream of it, so the nodes it feeds report nothing more.
        if let Some(dims) = &stored_shape {
            if crate::shape::verify::compare(dims, &declared_shape).is_err() {
                return ValueFacts {
                    shape: SharedShape::unranked(),
                    elem: declared_elem,
                    value: None,
                    real: None,
                };
            }
        }
        let constant = stored
            .filter(|_| self.model.ir_version < 4 || self.assumptions.initializers_as_constants);
        ValueFacts {
            shape: self.share(match stored_shape.filter(|_| constant.is_some()) {
                Some(dims) => control::refine(&declared_shape, &dims),
                None if graph.parent.is_none() => {
                    anonymous::name_anonymous(graph.text(value.name), declared_shape)
                }
                None => declared_shape,
            }),
            elem: declared_elem,
            value: constant.and_then(Initializer::int_values).map(Arc::new),
            real: constant.and_then(Initializer::real_values).map(Box::new),
        }
    }

    /// A float initializer a node reads a second time keeps its decoded elements in its facts
    /// ([`stored`]): a weight shared by many nodes is decoded once, while one read once (as in a
    /// model whose layers have their own weights) is never held.
    fn keep_reread_reals(&mut self, graph: GraphId, node: &Node) {
        let Some(pending) = self.pending.get_mut(graph.0 as usize) else {
            return;
        };
        let mut reread = Vec::new();
        for &value in node.inputs().iter().flatten() {
            if pending.get(value) && pending.read_again(value) {
                pending.clear(value);
                reread.push(value);
            }
        }
        for value in reread {
            let reals = self.model.stored_reals(graph, value);
            let facts = self
                .facts
                .get_mut(graph.0 as usize)
                .and_then(|facts| facts.values.get_mut(value.0 as usize));
            if let Some(facts) = facts.filter(|facts| facts.real.is_none()) {
                facts.real = reals.map(Box::new);
            }
        }
    }

    fn run_node(&mut self, graph: &'m Graph, node: &'m Node) {
        self.keep_reread_reals(graph.id, node);
        if self.depth > 1 {
            self.charge_inputs(graph, node);
        }
        // Most models define no functions: skip hashing two strings per node.
        let function = if self.functions.is_empty() {
            None
        } else {
            self.functions
                .get(&(node.domain().as_str(), node.op_type().as_str()))
                .copied()
        };
        let enters_body = !node.subgraphs().is_empty() || function.is_some();
        // Plain nodes (nearly all) read their inputs' facts in place; only nodes that run a body
        // need owned copies, since the body's inference mutates the facts.
        let owned_inputs = || -> Vec<Option<ValueFacts>> {
            node.inputs()
                .iter()
                .map(|value| value.and_then(|v| self.charged(graph.id, v)))
                .collect()
        };
        let mut named = Vec::new();
        let mut constraints = Vec::new();
        let mut adopted = Vec::new();
        let (status, outputs, checks) = if enters_body
            && (self.depth > MAX_INFER_DEPTH || self.body_work >= self.body_budget)
        {
            let deep = self.depth > MAX_INFER_DEPTH;
            self.caps.push(body_hit(graph.id, node.index(), deep));
            let why = RuleError::Beyond("inference budget for nested graph bodies spent".into());
            (NodeStatus::Failed(Box::new(why)), Vec::new(), Vec::new())
        } else if !node.subgraphs().is_empty() && (control::drives(node) || function.is_some()) {
            let inputs = owned_inputs();
            control::infer(self, graph, node, &inputs)
        } else if let Some(function) = function {
            let inputs = owned_inputs();
            control::call(self, function, &inputs)
        } else {
            if !node.subgraphs().is_empty() {
                control::bodies(self, node);
            }
            let (status, mut outputs, checks, conditional) = self.apply_rule_capped(graph, node);
            constraints = conditional;
            let minted = self.fresh.take_minted();
            named = self.fresh.take_named();
            if !minted.is_empty() {
                adopted = minted_declared((graph, self.late), node, &minted, &mut outputs);
            }
            (status, outputs, checks)
        };
        let downstream = self.downstream_of(graph, node, function, &status, &checks);
        let varying = self.varying_from(graph.id, node);
        // Written in place: the fields are borrowed apart (the budget is a `Cell`), so no
        // vector of results is built per node.
        let (work, max_rank, shapes) = (&self.work, self.max_rank, &mut self.shapes);
        let late = self.late;
        let Some(facts) = self.facts.get_mut(graph.id.0 as usize) else {
            return;
        };
        let mut pending = self.pending.get_mut(graph.id.0 as usize);
        let mut outputs = outputs.into_iter();
        for (slot, value) in node.outputs().iter().enumerate() {
            let inferred = outputs.next().unwrap_or_else(ValueFacts::unknown);
            let Some(value) = value else { continue };
            let declared = declared_of(graph, late, *value).filter(|_| !downstream && !varying);
            let refined = match declared {
                // Most values declare nothing: keep the inferred facts as they are.
                None => bounded(work, max_rank, inferred),
                Some(declared) => {
                    let (facts, filled) = declared_output(
                        inferred,
                        (
                            declared::shape_of(Some(declared)),
                            declared::elem_of(Some(declared)),
                        ),
                        shapes.get_mut(),
                    );
                    adopted.extend(
                        filled
                            .into_iter()
                            .map(|axis| adopt::Adopted::own(slot, axis)),
                    );
                    bounded(work, max_rank, facts)
                }
            };
            if let Some(entry) = facts.values.get_mut(value.0 as usize) {
                *entry = refined;
            }
            // A node writing an initializer's value (a duplicate producer, E3) replaces its facts.
            if let Some(pending) = pending.as_deref_mut() {
                pending.clear(*value);
            }
        }
        name_elements(facts, node, named);
        record_adopted(facts, node, adopted);
        let mut checks = checks;
        checks.retain(|check| !matches!(check.outcome.verdict, Verdict::Valid));
        // A boxed slice drops the spare capacity and is a word narrower than a vector.
        facts.set_node(
            node.index(),
            NodeFacts {
                status,
                checks: checks.into_boxed_slice(),
                constraints: constraints.into_boxed_slice(),
            },
        );
    }

    /// Whether `node`'s outputs are downstream of a failure (and marks them): it fails, reads
    /// such a value, or its body (an `If` branch, a function) makes one. Root cause only: such
    /// outputs take no declared shape.
    fn downstream_of(
        &mut self,
        graph: &Graph,
        node: &Node,
        function: Option<GraphId>,
        status: &NodeStatus,
        checks: &[BroadcastCheck],
    ) -> bool {
        let mut bodies = node.subgraphs().iter().map(|(_, id)| *id).chain(function);
        let downstream = downstream::fails(status, checks)
            || node
                .inputs()
                .iter()
                .flatten()
                .any(|value| self.downstream.get(graph.id, *value))
            || bodies.any(|id| {
                self.model.graph(id).is_some_and(|body| {
                    body.outputs
                        .iter()
                        .any(|value| self.downstream.get(id, *value))
                })
            });
        if downstream {
            for value in node.outputs().iter().flatten() {
                self.downstream.set(graph.id, *value);
            }
        }
        downstream
    }

    /// Whether `node`'s outputs vary between loop iterations (and marks them): it reads a value
    /// that does. Such outputs take no declared shape.
    fn varying_from(&mut self, graph: GraphId, node: &Node) -> bool {
        let varies = node
            .inputs()
            .iter()
            .flatten()
            .any(|value| self.varying.get(graph, *value));
        if varies {
            for value in node.outputs().iter().flatten() {
                self.varying.set(graph, *value);
            }
        }
        varies
    }

    /// Charges a node run inside a body with its inputs and their ranks. A body's static cost
    /// counts its nodes and values, but one `Concat` of a thousand copies of one rank-1000 value
    /// is one node and two values that cost a million dims: a function calling itself over such
    /// a node ran for minutes on a file of 8 KB.
    fn charge_inputs(&mut self, graph: &Graph, node: &Node) {
        let dims = node
            .inputs()
            .iter()
            .map(|value| {
                let rank = value
                    .and_then(|v| self.value_facts(graph.id, v))
                    .and_then(|facts| facts.shape.rank());
                1 + rank.unwrap_or(0)
            })
            .fold(0usize, usize::saturating_add);
        self.body_work = self.body_work.saturating_add(dims);
    }

    fn rule(&self, node: &Node) -> Resolved {
        let key = std::sync::Arc::as_ptr(&node.op) as usize;
        let mut rules = self.rules.borrow_mut();
        *rules
            .entry(key)
            .or_insert_with(|| registry::resolve(node.domain(), node.op_type(), node.opset()))
    }

    /// [`Engine::apply_rule`], recording a `broadcast-work` hit when one of the node's
    /// broadcasts went without its condition.
    fn apply_rule_capped(&mut self, graph: &Graph, node: &Node) -> Applied {
        let shortened = self.broadcasts.shortened();
        let applied = self.apply_rule(graph, node);
        if self.broadcasts.shortened() != shortened {
            self.caps.push(CapHit {
                graph: graph.id.0,
                node: Some(node.index()),
                limit: Limit::BroadcastWork,
            });
        }
        applied
    }

    fn apply_rule(&self, graph: &Graph, node: &Node) -> Applied {
        let rule: RuleFn = match self.rule(node) {
            Resolved::Rule(rule) => rule,
            Resolved::Foreign => {
                return (NodeStatus::Unsupported, Vec::new(), Vec::new(), Vec::new())
            }
            Resolved::Unknown(why, version) => {
                let status = NodeStatus::UnknownVersion(why, version);
                return (status, Vec::new(), Vec::new(), Vec::new());
            }
        };
        // Float elements still in an initializer are decoded only if the rule reads them, and
        // charged then. Most nodes read no such value: they allocate nothing here.
        let pending = self.pending.get(graph.id.0 as usize);
        let stored: Vec<Option<StoredReals<'_>>> = if node
            .inputs()
            .iter()
            .flatten()
            .any(|&v| pending.is_some_and(|p| p.get(v)))
        {
            node.inputs()
                .iter()
                .map(|value| {
                    let value = (*value).filter(|&v| pending.is_some_and(|p| p.get(v)))?;
                    Some(StoredReals::new(move || {
                        self.pending_reals(graph.id, value)
                            .filter(|v| self.charge(v.data.len()))
                    }))
                })
                .collect()
        } else {
            Vec::new()
        };
        let charge = |elements: usize| self.charge(elements);
        let ctx_inputs = node
            .inputs()
            .iter()
            .enumerate()
            .map(|(slot, value)| {
                let facts = self.value_facts(graph.id, (*value)?)?;
                let value = facts.value.as_deref().filter(|v| self.charge(v.data.len()));
                let real = match (&facts.real, stored.get(slot).and_then(Option::as_ref)) {
                    (Some(real), _) => Reals::Lent(real, Charge(&charge)),
                    (None, Some(stored)) => Reals::Stored(stored),
                    (None, None) => Reals::Held(None),
                };
                Some(Input::new(&facts.shape, value, real, facts.elem))
            })
            .collect();
        let ctx = Ctx::new(node, ctx_inputs, &self.fresh, &self.broadcasts);
        match rule(&ctx) {
            Ok(inferred) => {
                let outputs = inferred
                    .outputs
                    .into_iter()
                    .map(|out| ValueFacts {
                        shape: self.share_output(graph.id, node, out.shape),
                        elem: out.elem,
                        value: out
                            .value
                            .map(|value| self.share_value(graph.id, node, value)),
                        real: out.real.map(Box::new),
                    })
                    .collect();
                (
                    NodeStatus::Inferred,
                    outputs,
                    inferred.checks,
                    inferred.constraints,
                )
            }
            Err(mut error) => {
                // Attributes are read without the graph that holds the node's name.
                if let RuleError::Attr(attr) = &mut error {
                    graph.text(node.name).clone_into(&mut attr.node);
                }
                let status = NodeStatus::Failed(Box::new(error));
                (status, Vec::new(), Vec::new(), Vec::new())
            }
        }
    }
}
