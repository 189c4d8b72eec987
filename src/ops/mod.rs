//! Shape rules per operator. A rule is pure: input shapes (and small integer values), attributes
//! and opset in; output shapes (and values), plus the broadcast outcomes that checks turn into
//! findings, out. It reports nothing itself.
//!
//! [`registry::resolve`] maps `(domain, op_type, opset)` to a rule; an op version missing there
//! gets unknown outputs and an I1 note.

use std::cell::{Cell, OnceCell, RefCell};

pub(crate) use constraint::Constraint;

use crate::model::tensor::MAX_VALUE_ELEMENTS;
use crate::model::{AttrError, Attrs, Node};
use crate::shape::broadcast::{Outcome, Rule};
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

mod axes;
pub(crate) mod constraint;
mod contrib;
mod elementwise;
mod generator;
mod image;
mod math;
mod nn;
mod object_detection;
mod optional;
mod overflow;
mod quantization;
mod ranks;
mod reduction;
pub(crate) mod registry;
mod rnn;
mod sequence;
mod single;
mod spec;
mod tensor;
#[cfg(test)]
pub(crate) mod testing;
mod text;
mod traditionalml;
mod training;
mod values;
mod window;

/// What a rule sees of one present input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Input<'a> {
    /// Its inferred shape.
    pub(crate) shape: &'a Shape,
    /// Its elements, for small integer tensors whose values are known (never for float tensors,
    /// whose elements are in `real`: integer folding, such as floor `Div`, is wrong on floats).
    pub(crate) value: Option<&'a ValueTensor>,
    /// Its elements, for small `FLOAT` and `DOUBLE` tensors of shape computations: read them
    /// with [`Input::real`].
    real: Reals<'a>,
    /// Its element type (`TensorProto.DataType`), when known.
    pub(crate) elem: Option<i32>,
}

/// Where an input's float elements are.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reals<'a> {
    /// Already decoded, or known absent.
    Held(Option<&'a ValueTensor<Real>>),
    /// Decoded, and charged to the value budget each time a rule reads them (`false` from the
    /// charge: unaffordable, read as absent). A weight shared by every block is handed to
    /// thousands of nodes whose rules never read it: charging the hand-over spent the budget
    /// on nothing, and values stopped propagating part way through such a model.
    Lent(&'a ValueTensor<Real>, Charge<'a>),
    /// Still in an initializer, decoded on first read. A weight read once is read by a
    /// `MatMul` or an `Add` that never looks at its elements: a model whose layers have their own
    /// weights decoded (and charged to the value budget) every weight for nothing (issue 19).
    Stored(&'a StoredReals<'a>),
}

/// Charges value elements a rule reads to the model's value budget: `false` when it cannot
/// afford them.
#[derive(Clone, Copy)]
pub(crate) struct Charge<'a>(pub(crate) &'a dyn Fn(usize) -> bool);

impl std::fmt::Debug for Charge<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Charge")
    }
}

/// Float elements left in an initializer, decoded (and charged to the value budget) the first
/// time a rule reads them.
pub(crate) struct StoredReals<'a> {
    decoded: OnceCell<Option<ValueTensor<Real>>>,
    decode: Box<dyn Fn() -> Option<ValueTensor<Real>> + 'a>,
}

impl<'a> StoredReals<'a> {
    /// Elements `decode` gives when first read; `None` from it means unknown (or unaffordable).
    pub(crate) fn new(decode: impl Fn() -> Option<ValueTensor<Real>> + 'a) -> Self {
        StoredReals {
            decoded: OnceCell::new(),
            decode: Box::new(decode),
        }
    }
}

impl std::fmt::Debug for StoredReals<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredReals")
            .field("decoded", &self.decoded)
            .finish_non_exhaustive()
    }
}

impl<'a> Input<'a> {
    /// An input with these facts.
    pub(crate) fn new(
        shape: &'a Shape,
        value: Option<&'a ValueTensor>,
        real: Reals<'a>,
        elem: Option<i32>,
    ) -> Self {
        Input {
            shape,
            value,
            real,
            elem,
        }
    }

    /// Its elements, for small `FLOAT` and `DOUBLE` tensors of shape computations.
    pub(crate) fn real(&self) -> Option<&'a ValueTensor<Real>> {
        match self.real {
            Reals::Held(real) => real,
            Reals::Lent(real, charge) => (charge.0)(real.data.len()).then_some(real),
            Reals::Stored(stored) => stored.decoded.get_or_init(|| (stored.decode)()).as_ref(),
        }
    }
}

/// A node as a rule sees it.
pub(crate) struct Ctx<'a> {
    node: &'a Node,
    inputs: Vec<Option<Input<'a>>>,
    fresh: &'a Fresh,
    broadcasts: &'a crate::shape::broadcast::Outcomes,
}

/// The fresh symbols of a model's data-dependent sizes: a serial shared by the whole model, and
/// the symbols the node being inferred minted, with what its rule proved about them (the engine
/// reads them back to adopt a size the model declares, see `crate::infer`). It also carries the
/// model-wide facts a rule cannot see from its node (the `NCHWc` block size), as it is the one
/// state every rule of a run shares.
#[derive(Debug, Default)]
pub(crate) struct Fresh {
    serial: Cell<u64>,
    minted: RefCell<Vec<Minted>>,
    named: RefCell<Vec<Named>>,
    nchwc_block: Option<i64>,
}

/// An unknown element of an input value that a rule used as a size and named with a fresh
/// symbol: the engine writes the symbol back into that value, so every later reader of the same
/// value (a second `TopK` fed the same `k`, a `Range` over it) sees the same size.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Named {
    /// The input slot whose value holds the element.
    pub(crate) slot: usize,
    /// The element's row-major index in that value.
    pub(crate) index: usize,
    /// The symbol that now names it.
    pub(crate) dim: Dim,
}

/// One fresh symbol and the sizes it can never exceed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Minted {
    /// The symbol, as the rule put it in its outputs.
    pub(crate) dim: Dim,
    /// Upper bounds proven by the operator's semantics (`NonZero`: the input's element count).
    pub(crate) at_most: Vec<Dim>,
}

impl Fresh {
    /// The state of a run over `model`, with the model-wide facts read from it.
    pub(crate) fn for_model(model: &crate::model::Model) -> Self {
        Self {
            nchwc_block: contrib::nchwc_block::of_model(model),
            ..Self::default()
        }
    }

    /// A run's state in a model whose blocked Convs are padded to `block` (rule tests).
    #[cfg(test)]
    pub(crate) fn with_nchwc_block(block: i64) -> Self {
        Self {
            nchwc_block: Some(block),
            ..Self::default()
        }
    }

    /// The symbols minted since the last call, oldest first.
    pub(crate) fn take_minted(&self) -> Vec<Minted> {
        std::mem::take(&mut *self.minted.borrow_mut())
    }

    /// The input elements named since the last call, oldest first.
    pub(crate) fn take_named(&self) -> Vec<Named> {
        std::mem::take(&mut *self.named.borrow_mut())
    }
}

impl<'a> Ctx<'a> {
    /// A context for `node` with its inputs (`None` for absent optional inputs).
    pub(crate) fn new(
        node: &'a Node,
        mut inputs: Vec<Option<Input<'a>>>,
        fresh: &'a Fresh,
        broadcasts: &'a crate::shape::broadcast::Outcomes,
    ) -> Self {
        // Integer folding must never see a float tensor's elements, whoever produced them.
        for input in inputs.iter_mut().flatten() {
            if crate::model::dtype::is_float(input.elem) {
                input.value = None;
            }
        }
        Self {
            node,
            inputs,
            fresh,
            broadcasts,
        }
    }

    /// The `NCHWc` block size the model's blocked Convs were padded to, if they say
    /// ([`contrib::nchwc_block`]).
    pub(crate) fn nchwc_block(&self) -> Option<i64> {
        self.fresh.nchwc_block
    }

    /// The run's broadcasts: a node repeating another's broadcast meets its outcome.
    pub(crate) fn broadcasts(&self) -> &'a crate::shape::broadcast::Outcomes {
        self.broadcasts
    }

    /// The node.
    pub(crate) fn node(&self) -> &'a Node {
        self.node
    }

    /// Number of input slots, absent ones included.
    pub(crate) fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// Input `slot`, if present.
    pub(crate) fn input(&self, slot: usize) -> Option<Input<'a>> {
        self.inputs.get(slot).copied().flatten()
    }

    /// Input `slot`, which the operator requires.
    pub(crate) fn required(&self, slot: usize) -> Result<Input<'a>, RuleError> {
        self.input(slot).ok_or(RuleError::MissingInput(slot))
    }

    /// The shape of input `slot` (unranked when absent).
    pub(crate) fn shape(&self, slot: usize) -> Result<&'a Shape, RuleError> {
        Ok(self.required(slot)?.shape)
    }

    /// The elements of floating-point input `slot`, when it is a constant whose elements are
    /// all integers (`[1.0, 1.0, 2.0, 2.0]` Resize scales). Integer inputs give `None`: their
    /// elements are in [`Input::value`].
    pub(crate) fn integral_floats(&self, slot: usize) -> Option<ValueTensor> {
        let real = self.input(slot)?.real()?;
        let data = real
            .data
            .iter()
            .map(|r| r.as_num().and(r.as_int()))
            .collect::<Option<Vec<Dim>>>()?;
        ValueTensor::new(real.shape.clone(), data)
    }

    /// Every present input's shape, in slot order.
    pub(crate) fn present_shapes(&self) -> Vec<&'a Shape> {
        self.inputs
            .iter()
            .flatten()
            .map(|input| input.shape)
            .collect()
    }

    /// Typed attributes.
    pub(crate) fn attrs(&self) -> Attrs<'a> {
        self.node.attrs()
    }

    /// An INT attribute with its default.
    pub(crate) fn int(&self, name: &str, default: i64) -> Result<i64, RuleError> {
        Ok(self.attrs().int(name)?.unwrap_or(default))
    }

    /// A fresh symbol for a data-dependent size (`NonZero`, `Unique`...): it names one unknown
    /// value, so later uses of the same tensor still compare equal. The name is not an
    /// identifier, so it can never collide with a model's `dim_param`. The size is at most each
    /// of `at_most` (what the operator's semantics bound it by; a size the model declares beyond
    /// a bound is not adopted).
    pub(crate) fn fresh_dim(&self, what: &str, at_most: Vec<Dim>) -> Dim {
        let serial = self.fresh.serial.get();
        self.fresh.serial.set(serial.wrapping_add(1));
        let dim = Dim::sym(&format!("{what}#{serial}"));
        self.fresh.minted.borrow_mut().push(Minted {
            dim: dim.clone(),
            at_most,
        });
        dim
    }

    /// Element `index` of integer input `slot`, which the operator uses as an output size
    /// (`TopK`'s `k`, `Resize`'s `sizes`): the element when the value knows it, otherwise a
    /// fresh symbol that names it (at most each of `at_most`), which the engine writes back into
    /// the value so that its other readers share the symbol. Sound because the size is exactly
    /// the element at run time, and a size is non-negative, as symbols are (a negative element
    /// fails the node). An absent input, or an index outside the value's length when the
    /// length is known, gives `Unknown`.
    pub(crate) fn size_element(
        &self,
        slot: usize,
        index: usize,
        what: &str,
        at_most: Vec<Dim>,
    ) -> Dim {
        let Some(input) = self
            .input(slot)
            .filter(|i| !crate::model::dtype::is_float(i.elem))
        else {
            return Dim::Unknown;
        };
        if let Some(value) = input.value {
            match value.data.get(index) {
                Some(Dim::Unknown) => {}
                Some(known) => return known.clone(),
                None => return Dim::Unknown,
            }
        } else if held_shape(input.shape).is_none_or(|shape| index >= shape.iter().product()) {
            return Dim::Unknown;
        }
        let dim = self.fresh_dim(what, at_most);
        self.fresh.named.borrow_mut().push(Named {
            slot,
            index,
            dim: dim.clone(),
        });
        dim
    }
}

/// The static shape of a value of `shape` that data propagation can hold elements of: a scalar,
/// or a vector of known length up to [`MAX_VALUE_ELEMENTS`] (bounded before anything is
/// allocated: the length comes from the model).
pub(crate) fn held_shape(shape: &Shape) -> Option<Vec<usize>> {
    match shape.dims()? {
        [] => Some(Vec::new()),
        [length] => length
            .as_known()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= MAX_VALUE_ELEMENTS)
            .map(|n| vec![n]),
        _ => None,
    }
}

/// One broadcast a node performs, for the checks (an operator's own shape constraints travel
/// as [`Constraint`]s).
#[derive(Debug, Clone)]
pub(crate) struct BroadcastCheck {
    /// The rule applied.
    pub rule: Rule,
    /// The input slots taking part, in the order the rule received them.
    pub slots: Vec<usize>,
    /// What the rule concluded.
    pub outcome: Outcome,
}

/// One output of a rule.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    /// Its shape.
    pub(crate) shape: Shape,
    /// Its element type, when the rule knows it.
    pub(crate) elem: Option<i32>,
    /// Its elements, for small integer tensors (data propagation).
    pub(crate) value: Option<ValueTensor>,
    /// Its elements, for small float tensors (float shape arithmetic).
    pub(crate) real: Option<ValueTensor<Real>>,
}

impl Output {
    /// An output with only a shape.
    pub(crate) fn shape(shape: Shape) -> Self {
        Self {
            shape,
            elem: None,
            value: None,
            real: None,
        }
    }

    /// Sets the element type.
    pub(crate) fn elem(mut self, elem: Option<i32>) -> Self {
        self.elem = elem;
        self
    }

    /// An output whose elements are known.
    pub(crate) fn value(value: ValueTensor, elem: Option<i32>) -> Self {
        Self {
            shape: shape_of_elements(&value.shape),
            elem,
            value: Some(value),
            real: None,
        }
    }

    /// An output whose float elements are known (in part: some may be `Real::Unknown`).
    pub(crate) fn reals(real: ValueTensor<Real>, elem: Option<i32>) -> Self {
        Self {
            shape: shape_of_elements(&real.shape),
            elem,
            value: None,
            real: Some(real),
        }
    }
}

/// The static shape of a tensor whose elements are carried (dims beyond `i64` saturate).
fn shape_of_elements(dims: &[usize]) -> Shape {
    Shape::Ranked(
        dims.iter()
            .map(|&d| Dim::known(i64::try_from(d).unwrap_or(i64::MAX)))
            .collect(),
    )
}

/// What a rule infers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inferred {
    /// One entry per output slot; missing entries are unknown.
    pub(crate) outputs: Vec<Output>,
    /// Broadcasts performed, for the checks.
    pub(crate) checks: Vec<BroadcastCheck>,
    /// Operator constraints that hold only under a condition on symbols (W4).
    pub(crate) constraints: Vec<Constraint>,
}

impl Inferred {
    /// A single output.
    pub(crate) fn single(output: Output) -> Self {
        Self {
            outputs: vec![output],
            checks: Vec::new(),
            constraints: Vec::new(),
        }
    }

    /// Several outputs.
    pub(crate) fn many(outputs: Vec<Output>) -> Self {
        Self {
            outputs,
            checks: Vec::new(),
            constraints: Vec::new(),
        }
    }

    /// Records a broadcast performed by the node.
    pub(crate) fn with_check(mut self, rule: Rule, slots: Vec<usize>, outcome: Outcome) -> Self {
        self.checks.push(BroadcastCheck {
            rule,
            slots,
            outcome,
        });
        self
    }

    /// Records operator constraints that hold only under a condition on symbols (W4).
    pub(crate) fn with_conditions(mut self, constraints: Vec<Constraint>) -> Self {
        self.constraints.extend(constraints);
        self
    }
}

/// Why a rule could not infer: the outputs become unknown and propagation goes on.
///
/// Every variant but [`RuleError::Beyond`] means the node violates its operator's spec and fails
/// whatever the input values (reported as E4); `Beyond` is the engine's own limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RuleError {
    /// A required input is absent.
    #[error("required input {0} is missing")]
    MissingInput(usize),
    /// An attribute has the wrong type.
    #[error(transparent)]
    Attr(#[from] AttrError),
    /// A shape constraint of the operator's spec that the inputs break. Boxed: rare.
    #[error("{0}")]
    Unmet(Box<Constraint>),
    /// The engine cannot say (a value too large to carry, a nested-graph budget spent): not a
    /// fault of the model, and reported as nothing.
    #[error("{0}")]
    Beyond(String),
}

impl RuleError {
    /// Whether the error is a fault of the model (E4) rather than a limit of the engine.
    pub(crate) fn is_fault(&self) -> bool {
        !matches!(self, RuleError::Beyond(_))
    }
}

/// A shape rule.
pub(crate) type RuleFn = fn(&Ctx<'_>) -> Result<Inferred, RuleError>;

#[cfg(test)]
mod tests {
    use super::testing;
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    #[test]
    fn float_values_are_hidden_from_integer_folding() {
        // [3.0] / [2.0] is 1.5: integer floor division must not see float operands.
        let three = testing::floats(ValueTensor::vector(vec![Dim::known(3)]).unwrap());
        let two = testing::floats(ValueTensor::vector(vec![Dim::known(2)]).unwrap());
        let out = testing::run("Div", 13, &[three, two], vec![]).unwrap();
        assert!(out.outputs[0].value.is_none());
        assert_eq!(out.outputs[0].shape, Shape::from_known(&[1]));
    }
}
