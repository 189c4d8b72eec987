//! Deliberate operator-constraint violations (E4, and W4 for their symbolic forms) and the oracle
//! that checks the engine reports each one at its node and nothing for its consequences.
//!
//! A [`Builder`] adds small independent cases to a model: graph inputs (static or symbolic dims)
//! or static initializers, a chain of shape-preserving nodes (`Relu`, `Identity`, `Add(v, v)`,
//! ...), the violating node of one [`Family`], and a chain of nodes fed only by the violating
//! node's outputs (unary ops, `Add(v, Relu(v))`, a default `Transpose`). Every choice comes from
//! a [`Pick`]: the fuzz target `constraints` draws them from the fuzzer's bytes,
//! `tests/fuzz_constraints.rs` from a seeded generator.
//!
//! [`check`] is the oracle. It asserts only what is certain, for the families listed in
//! [`CHECKED_FAMILIES`] and the cases whose shapes are fully determined (no input taken from the
//! random part of a model): the expected code at the violating node, and no E1/W1/E4/W4 at a node
//! of the upstream chain (valid nodes) or of the downstream chain (only downstream of the fault:
//! root cause only, README "Diagnostic codes"). It panics on a failure, so that the fuzzer keeps
//! the input.
//!
//! This file uses only `onnx_bcast_lint` and `bytes`, so that the root crate's test can include
//! it with `#[path]`.

use bytes::Bytes;
use onnx_bcast_lint::proto::{
    tensor_shape_proto, type_proto, AttributeProto, NodeProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto,
};
use onnx_bcast_lint::{Code, LintReport, Options};

/// The source of every choice the builder makes.
pub(crate) trait Pick {
    /// A number in `0..n` (0 when `n` is 0 or 1, or when the source is exhausted).
    fn below(&mut self, n: usize) -> usize;
}

/// A kind of deliberate violation. The expected code is [`Family::expected`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `MatMul` whose contracted dims (K) are two different static sizes; operands of rank 1 to
    /// 4 (batch dims agreeing), M and N static or symbolic.
    MatMulK,
    /// `MatMul` with K `2*k` against an odd static size: never equal.
    MatMulKParity,
    /// `MatMul` with K `k` against a static size (`64` mostly): W4, `k = 64`.
    MatMulKSymbolic,
    /// `Gemm` (mostly `transB=1`, sometimes `transA=1`, C absent or valid) with a wrong static K.
    GemmK,
    /// `Gemm` with K `k` against a static K: W4.
    GemmKSymbolic,
    /// `Concat` whose inputs differ in a static dim other than the axis.
    ConcatDim,
    /// `Concat` whose inputs give `k` and a static size at a dim other than the axis: W4.
    ConcatDimSymbolic,
    /// `Transpose` whose `perm` repeats an axis (length = rank).
    TransposePermRepeat,
    /// `Transpose` whose `perm` is a permutation of a different rank.
    TransposePermLength,
    /// `Softmax`/`LogSoftmax`/`Hardmax` (opset 13+) with `axis` outside `[-r, r-1]`.
    SoftmaxAxis,
    /// `Concat` with `axis` outside `[-r, r-1]`.
    ConcatAxis,
    /// `Gather` with `axis` outside `[-r, r-1]`.
    GatherAxis,
    /// `ReduceSum`/`ReduceMean`/`ReduceMax` (axes attribute or input, by opset) or `ArgMax` with
    /// an axis outside `[-r, r-1]`.
    ReduceAxis,
    /// `Reshape` of a static input to a static target (positive sizes, a `0` copying an input
    /// dim, or a `-1` the other sizes do not divide) with a different element count.
    ReshapeCount,
    /// `Split` of a static axis into static sizes whose sum differs.
    SplitSum,
    /// `Split` of a symbolic axis `k` into static sizes: W4, `k = sum`.
    SplitSumSymbolic,
}

impl Family {
    /// Every family, in the order the generators choose from.
    pub(crate) const ALL: [Family; 16] = [
        Family::MatMulK,
        Family::MatMulKParity,
        Family::MatMulKSymbolic,
        Family::GemmK,
        Family::GemmKSymbolic,
        Family::ConcatDim,
        Family::ConcatDimSymbolic,
        Family::TransposePermRepeat,
        Family::TransposePermLength,
        Family::SoftmaxAxis,
        Family::ConcatAxis,
        Family::GatherAxis,
        Family::ReduceAxis,
        Family::ReshapeCount,
        Family::SplitSum,
        Family::SplitSumSymbolic,
    ];

    /// The code the violation must get: W4 for a constraint that holds only under a condition on
    /// a symbol, E4 otherwise.
    pub(crate) fn expected(self) -> Code {
        match self {
            Family::MatMulKSymbolic
            | Family::GemmKSymbolic
            | Family::ConcatDimSymbolic
            | Family::SplitSumSymbolic => Code::W4,
            _ => Code::E4,
        }
    }
}

/// The families the oracle checks: those the engine reports today (verified by
/// `tests/fuzz_constraints.rs`). Add a family here when its constraint lands in the engine;
/// `cargo test --test fuzz_constraints -- --ignored --nocapture` surveys every family. Not yet:
/// `ConcatDim`, `ConcatDimSymbolic`, `TransposePermRepeat`, `SoftmaxAxis`, `ReshapeCount`,
/// `SplitSumSymbolic` (no finding at the node on main).
pub(crate) const CHECKED_FAMILIES: &[Family] = &[
    Family::MatMulK,
    Family::MatMulKParity,
    Family::MatMulKSymbolic,
    Family::GemmK,
    Family::GemmKSymbolic,
    Family::TransposePermLength,
    Family::ConcatAxis,
    Family::GatherAxis,
    Family::ReduceAxis,
    Family::SplitSum,
    Family::ConcatDim,
    Family::ConcatDimSymbolic,
    Family::TransposePermRepeat,
    Family::SoftmaxAxis,
    Family::ReshapeCount,
    Family::SplitSumSymbolic,
];

/// One deliberate violation in a built model.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    /// Its family.
    pub(crate) family: Family,
    /// The violating node's name.
    pub(crate) node: String,
    /// Whether every input of the violating node comes from graph inputs or initializers of the
    /// case through shape-preserving nodes (else nothing is asserted).
    pub(crate) determined: bool,
    /// The shape-preserving nodes that feed it.
    pub(crate) upstream: Vec<String>,
    /// The nodes fed only by its outputs, directly or not.
    pub(crate) downstream: Vec<String>,
    /// Ops, shapes and attributes, for the oracle's message.
    pub(crate) summary: String,
    /// The symbol of a W4 case and the one value for which its constraint holds.
    pub(crate) symbol: Option<(String, i64)>,
}

/// How the symbols of the W4 cases are bound when the model is linted (`--dim`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bind {
    /// Not bound: W4.
    Free,
    /// Bound to the value the constraint needs: no finding at the node.
    Holding,
    /// Bound to another value: E4 ("such a condition made false by `--dim`").
    Breaking,
}

impl Bind {
    /// Every way.
    pub(crate) const ALL: [Bind; 3] = [Bind::Free, Bind::Holding, Bind::Breaking];
}

/// The lint options for these cases: `batch=2` (as the structured target binds it), and each W4
/// case's symbol bound as `bind` says.
pub(crate) fn options(cases: &[Case], bind: Bind) -> Options {
    // A case need not declare `batch`: it is still linted, not refused.
    let mut options = Options::new().with_dim("batch", 2).with_dims_checked(false);
    for (symbol, value) in cases.iter().filter_map(|c| c.symbol.as_ref()) {
        options = match bind {
            Bind::Free => options,
            Bind::Holding => options.with_dim(symbol, *value),
            Bind::Breaking => options.with_dim(symbol, value + 1),
        };
    }
    options
}

/// A dim as the builder declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum D {
    S(i64),
    P(String),
}

impl D {
    fn proto(&self) -> tensor_shape_proto::Dimension {
        tensor_shape_proto::Dimension {
            value: Some(match self {
                D::S(v) => tensor_shape_proto::dimension::Value::DimValue(*v),
                D::P(p) => tensor_shape_proto::dimension::Value::DimParam(p.clone()),
            }),
            ..Default::default()
        }
    }
}

fn show(dims: &[D]) -> String {
    let items: Vec<String> = dims
        .iter()
        .map(|d| match d {
            D::S(v) => v.to_string(),
            D::P(p) => p.clone(),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Symbols for the dims no constraint of a case reads (batch dims, M, N, the concat axis). `k...`
/// names are kept for the constrained dims, one per case, so that no other node mentions them.
const FREE_SYMBOLS: &[&str] = &["batch", "seq", "n", "seq+1", "2*n"];

/// Element types.
const FLOAT: i32 = 1;
const INT64: i32 = 7;

/// The nodes, inputs and initializers of the cases, to add to a graph.
#[derive(Debug, Default)]
pub(crate) struct Built {
    /// Graph inputs.
    pub(crate) inputs: Vec<ValueInfoProto>,
    /// Initializers (not graph inputs).
    pub(crate) initializers: Vec<TensorProto>,
    /// Nodes, in a topological order.
    pub(crate) nodes: Vec<NodeProto>,
    /// Graph outputs (untyped).
    pub(crate) outputs: Vec<ValueInfoProto>,
    /// Values computed only from violating nodes' outputs: other nodes may read them.
    pub(crate) downstream_values: Vec<String>,
    /// The cases.
    pub(crate) cases: Vec<Case>,
    /// Node inputs to replace by values of the rest of the model (or to leave undefined).
    pub(crate) placeholders: Vec<String>,
}

/// Builds cases; see the module doc.
pub(crate) struct Builder<'p> {
    pick: &'p mut dyn Pick,
    opset: i64,
    /// Whether an operand may be a value of the rest of the model (a placeholder the caller
    /// replaces).
    foreign: bool,
    counter: usize,
    built: Built,
    /// The case being built.
    case: Option<Case>,
}

impl<'p> Builder<'p> {
    /// A builder for a model importing the default domain at `opset` (11 or more). With
    /// `foreign`, an operand may rarely be a placeholder ([`Built::placeholders`]) for the caller
    /// to replace by a value of the rest of the model, and its case is not asserted.
    pub(crate) fn new(pick: &'p mut dyn Pick, opset: i64, foreign: bool) -> Self {
        Self {
            pick,
            opset,
            foreign,
            counter: 0,
            built: Built::default(),
            case: None,
        }
    }

    /// The cases and their nodes.
    pub(crate) fn finish(self) -> Built {
        self.built
    }

    fn below(&mut self, n: usize) -> usize {
        self.pick.below(n).min(n.saturating_sub(1))
    }

    fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    fn choose<T: Clone>(&mut self, items: &[T]) -> T {
        let i = self.below(items.len());
        items[i].clone()
    }

    /// In `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = usize::try_from(hi - lo + 1).unwrap_or(1);
        lo + i64::try_from(self.below(span)).unwrap_or(0)
    }

    fn index(&self) -> usize {
        self.built.cases.len()
    }

    fn fresh(&mut self, role: &str) -> String {
        self.counter += 1;
        format!("c{}_{role}{}", self.index(), self.counter)
    }

    /// The symbol of this case's constrained dim.
    fn k(&self) -> String {
        format!("k{}", self.index())
    }

    /// This case's symbol, which its constraint needs to be `value` (a W4 case).
    fn symbol(&mut self, value: i64) -> D {
        let k = self.k();
        if let Some(case) = self.case.as_mut() {
            case.symbol = Some((k.clone(), value));
        }
        D::P(k)
    }

    fn static_dim(&mut self) -> i64 {
        self.range(1, 6)
    }

    fn free_dim(&mut self) -> D {
        if self.chance(2, 3) {
            D::S(self.static_dim())
        } else {
            D::P(self.choose(FREE_SYMBOLS).to_owned())
        }
    }

    fn free_dims(&mut self, rank: usize) -> Vec<D> {
        (0..rank).map(|_| self.free_dim()).collect()
    }

    fn static_dims(&mut self, rank: usize) -> Vec<D> {
        (0..rank).map(|_| D::S(self.static_dim())).collect()
    }

    /// Two different static sizes.
    fn two_sizes(&mut self) -> (i64, i64) {
        let a = self.choose(&[1, 2, 3, 4, 5, 6, 7, 8, 16, 64]);
        let mut b = self.choose(&[1, 2, 3, 4, 5, 6, 7, 8, 16, 64]);
        if a == b {
            b += 1;
        }
        (a, b)
    }

    /// An axis outside `[-rank, rank-1]`.
    fn bad_axis(&mut self, rank: usize) -> i64 {
        let r = i64::try_from(rank).unwrap_or(0);
        self.choose(&[r, r + 1, -r - 1, -r - 2, 100, i64::MIN, i64::MAX])
    }

    /// A valid axis, written positive or negative.
    fn axis(&mut self, rank: usize) -> (usize, i64) {
        let a = self.below(rank);
        let written = i64::try_from(a).unwrap_or(0);
        let r = i64::try_from(rank).unwrap_or(0);
        (
            a,
            if self.chance(1, 3) {
                written - r
            } else {
                written
            },
        )
    }

    fn note(&mut self, text: &str) {
        if let Some(case) = self.case.as_mut() {
            if !case.summary.is_empty() {
                case.summary.push_str("; ");
            }
            case.summary.push_str(text);
        }
    }

    fn push_node(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        outputs: usize,
        attribute: Vec<AttributeProto>,
        role: &str,
    ) -> (String, Vec<String>) {
        let name = self.fresh(role);
        let output: Vec<String> = (0..outputs).map(|_| self.fresh("v")).collect();
        let attrs: Vec<String> = attribute
            .iter()
            .map(|a| {
                let name = a.name.as_deref().unwrap_or_default();
                match a.i {
                    Some(i) => format!(" {name}={i}"),
                    None => format!(" {name}={:?}", a.ints),
                }
            })
            .collect();
        self.note(&format!(
            "{name}: {} = {op}({}){}",
            output.join(", "),
            inputs.join(", "),
            attrs.concat()
        ));
        self.built.nodes.push(NodeProto {
            op_type: Some(op.to_owned()),
            name: Some(name.clone()),
            input: inputs,
            output: output.clone(),
            attribute,
            ..Default::default()
        });
        (name, output)
    }

    /// A graph input of these dims, or a zero initializer when they are static and a coin says
    /// so.
    fn leaf(&mut self, dims: &[D], elem: i32) -> String {
        let name = self.fresh("x");
        let small = dims
            .iter()
            .try_fold(1i64, |acc, d| match d {
                D::S(v) => acc.checked_mul(*v),
                D::P(_) => None,
            })
            .filter(|&n| n <= 4096);
        if let (Some(count), true) = (small, self.chance(1, 3)) {
            let count = usize::try_from(count).unwrap_or(0);
            let width = if elem == INT64 { 8 } else { 4 };
            self.built.initializers.push(TensorProto {
                name: Some(name.clone()),
                dims: dims
                    .iter()
                    .map(|d| match d {
                        D::S(v) => *v,
                        D::P(_) => 0,
                    })
                    .collect(),
                data_type: Some(elem),
                raw_data: Some(Bytes::from(vec![0u8; count * width])),
                ..Default::default()
            });
            self.note(&format!("{name}: initializer {}", show(dims)));
        } else {
            self.built.inputs.push(ValueInfoProto {
                name: Some(name.clone()),
                r#type: Some(TypeProto {
                    value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                        elem_type: Some(elem),
                        shape: Some(TensorShapeProto {
                            dim: dims.iter().map(D::proto).collect(),
                        }),
                    })),
                    ..Default::default()
                }),
                ..Default::default()
            });
            self.note(&format!("{name}: input {}", show(dims)));
        }
        name
    }

    /// A float value of these dims (rank 1 or more): a leaf through 0 to 3 shape-preserving
    /// nodes, or (rarely, with `foreign`) a value of the rest of the model, which leaves the case
    /// undetermined.
    fn operand(&mut self, dims: &[D]) -> String {
        // The last choice, not the first: exhausted choices are 0, and give determined cases.
        if self.foreign && self.below(12) == 11 {
            let value = self.fresh("foreign");
            if let Some(case) = self.case.as_mut() {
                case.determined = false;
            }
            self.note(&format!("{value}: a value of the random part"));
            self.built.placeholders.push(value.clone());
            return value;
        }
        let mut value = self.leaf(dims, FLOAT);
        // 0 to 3 nodes, 3 when the choices are exhausted (short fuzz inputs).
        for _ in 0..3 - self.below(4) {
            value = self.preserve(value);
        }
        value
    }

    /// One shape-preserving node over `value` (float, rank 1 or more).
    fn preserve(&mut self, value: String) -> String {
        let (op, inputs, attrs): (&str, Vec<String>, Vec<AttributeProto>) = match self.below(12) {
            0 => ("Relu", vec![value], vec![]),
            1 => ("Identity", vec![value], vec![]),
            2 => ("Neg", vec![value], vec![]),
            3 => ("Abs", vec![value], vec![]),
            4 => ("Sigmoid", vec![value], vec![]),
            5 => ("Dropout", vec![value], vec![]),
            6 => ("Softmax", vec![value], vec![int_attr("axis", -1)]),
            7 => ("Cast", vec![value], vec![int_attr("to", i64::from(FLOAT))]),
            8 => ("Add", vec![value.clone(), value], vec![]),
            9 => ("Mul", vec![value.clone(), value], vec![]),
            10 => ("Sum", vec![value.clone(), value.clone(), value], vec![]),
            // A single-element constant broadcasts to any shape of rank 1 or more.
            _ => {
                let dims = if self.chance(1, 2) {
                    vec![]
                } else {
                    vec![D::S(1)]
                };
                let scalar = self.leaf(&dims, FLOAT);
                let op = self.choose(&["Add", "Mul", "Sub", "Div"]);
                if self.chance(1, 2) {
                    (op, vec![value, scalar], vec![])
                } else {
                    (op, vec![scalar, value], vec![])
                }
            }
        };
        let (name, outputs) = self.push_node(op, inputs, 1, attrs, "up");
        if let Some(case) = self.case.as_mut() {
            case.upstream.push(name);
        }
        outputs.into_iter().next().unwrap_or_default()
    }

    /// An int64 value holding `data` (a 1-D initializer, through an `Identity` sometimes).
    fn int_list(&mut self, data: &[i64]) -> String {
        let name = self.fresh("ints");
        self.built.initializers.push(TensorProto {
            name: Some(name.clone()),
            dims: vec![i64::try_from(data.len()).unwrap_or(0)],
            data_type: Some(INT64),
            int64_data: data.to_vec(),
            ..Default::default()
        });
        if self.chance(1, 3) {
            let (node, outputs) = self.push_node("Identity", vec![name], 1, vec![], "up");
            if let Some(case) = self.case.as_mut() {
                case.upstream.push(node);
            }
            return outputs.into_iter().next().unwrap_or_default();
        }
        name
    }

    /// The nodes fed only by `outputs` (each output its own lineage: two outputs of a Split
    /// differ in shape, so they are never combined).
    fn downstream(&mut self, outputs: Vec<String>) {
        let mut lineages: Vec<Vec<String>> = outputs.into_iter().map(|o| vec![o]).collect();
        // 0 to 4 nodes, 4 when the choices are exhausted.
        for _ in 0..4 - self.below(5) {
            let l = self.below(lineages.len());
            let members = lineages[l].clone();
            let a = self.choose(&members);
            let b = self.choose(&members);
            let (op, inputs, new_lineage) = match self.below(8) {
                0 => ("Relu", vec![a], false),
                1 => ("Identity", vec![a], false),
                2 => ("Neg", vec![a], false),
                3 => ("Tanh", vec![a], false),
                4 => ("Add", vec![a, b], false),
                5 => ("Mul", vec![a, b], false),
                6 => ("Max", vec![a, b], false),
                _ => ("Transpose", vec![a], true),
            };
            let (name, out) = self.push_node(op, inputs, 1, vec![], "down");
            let out = out.into_iter().next().unwrap_or_default();
            if let Some(case) = self.case.as_mut() {
                case.downstream.push(name);
            }
            if new_lineage {
                lineages.push(vec![out]);
            } else {
                lineages[l].push(out);
            }
        }
        for lineage in lineages {
            if let Some(last) = lineage.last() {
                if self.chance(1, 2) {
                    self.built.outputs.push(ValueInfoProto {
                        name: Some(last.clone()),
                        ..Default::default()
                    });
                }
            }
            self.built.downstream_values.extend(lineage);
        }
    }

    /// Adds one case of a family the choices name.
    pub(crate) fn any_case(&mut self) {
        let family = self.choose(&Family::ALL);
        self.case(family);
    }

    /// Adds one case of `family`.
    pub(crate) fn case(&mut self, family: Family) {
        self.case = Some(Case {
            family,
            node: String::new(),
            determined: true,
            upstream: Vec::new(),
            downstream: Vec::new(),
            summary: format!("opset {}", self.opset),
            symbol: None,
        });
        let (node, outputs) = match family {
            Family::MatMulK | Family::MatMulKParity | Family::MatMulKSymbolic => {
                self.matmul(family)
            }
            Family::GemmK | Family::GemmKSymbolic => self.gemm(family),
            Family::ConcatDim | Family::ConcatDimSymbolic => self.concat_dim(family),
            Family::TransposePermRepeat | Family::TransposePermLength => self.transpose(family),
            Family::SoftmaxAxis => self.softmax_axis(),
            Family::ConcatAxis => self.concat_axis(),
            Family::GatherAxis => self.gather_axis(),
            Family::ReduceAxis => self.reduce_axis(),
            Family::ReshapeCount => self.reshape_count(),
            Family::SplitSum | Family::SplitSumSymbolic => self.split_sum(family),
        };
        if let Some(case) = self.case.as_mut() {
            case.node = node;
        }
        self.downstream(outputs);
        if let Some(case) = self.case.take() {
            self.built.cases.push(case);
        }
    }

    /// `(K of A, K of B)` for the family.
    fn contracted(&mut self, family: Family) -> (D, D) {
        let k = self.k();
        let (a, b) = match family {
            Family::MatMulKParity => {
                let odd = self.choose(&[1, 3, 5, 7, 9, 63]);
                (D::P(format!("2*{k}")), D::S(odd))
            }
            Family::MatMulKSymbolic | Family::GemmKSymbolic => {
                let size = if self.chance(3, 4) {
                    64
                } else {
                    self.range(2, 9)
                };
                (self.symbol(size), D::S(size))
            }
            _ => {
                let (a, b) = self.two_sizes();
                (D::S(a), D::S(b))
            }
        };
        if self.chance(1, 2) {
            (b, a)
        } else {
            (a, b)
        }
    }

    fn matmul(&mut self, family: Family) -> (String, Vec<String>) {
        let ra = 1 + self.below(4);
        let rb = 1 + self.below(4);
        let nb = ra.max(rb).saturating_sub(2);
        let batch = self.free_dims(nb);
        let (ka, kb) = self.contracted(family);
        let mut a: Vec<D> = batch[nb - ra.saturating_sub(2)..].to_vec();
        if ra >= 2 {
            a.push(self.free_dim());
        }
        a.push(ka);
        let mut b: Vec<D> = batch[nb - rb.saturating_sub(2)..].to_vec();
        b.push(kb);
        if rb >= 2 {
            b.push(self.free_dim());
        }
        self.note(&format!("MatMul(A {}, B {})", show(&a), show(&b)));
        let a = self.operand(&a);
        let b = self.operand(&b);
        self.push_node("MatMul", vec![a, b], 1, vec![], "fault")
    }

    fn gemm(&mut self, family: Family) -> (String, Vec<String>) {
        let trans_a = self.chance(1, 3);
        let trans_b = self.chance(3, 4);
        let (rows, cols) = (self.free_dim(), self.free_dim());
        let (ka, kb) = self.contracted(family);
        let lhs = if trans_a {
            vec![ka, rows.clone()]
        } else {
            vec![rows.clone(), ka]
        };
        let rhs = if trans_b {
            vec![cols.clone(), kb]
        } else {
            vec![kb, cols.clone()]
        };
        let bias = match self.below(5) {
            0 => None,
            1 => Some(vec![cols]),
            2 => Some(vec![D::S(1)]),
            3 => Some(vec![rows, cols]),
            _ => Some(vec![]),
        };
        let mut attrs = Vec::new();
        if trans_a || self.chance(1, 4) {
            attrs.push(int_attr("transA", i64::from(trans_a)));
        }
        if trans_b || self.chance(1, 4) {
            attrs.push(int_attr("transB", i64::from(trans_b)));
        }
        self.note(&format!(
            "Gemm(A {}, B {}, C {}) transA={} transB={}",
            show(&lhs),
            show(&rhs),
            bias.as_deref().map_or_else(|| "absent".to_owned(), show),
            u8::from(trans_a),
            u8::from(trans_b)
        ));
        let mut inputs = vec![self.operand(&lhs), self.operand(&rhs)];
        if let Some(bias) = bias {
            // A scalar C cannot go through the rank-1 chain: a leaf.
            inputs.push(if bias.is_empty() {
                self.leaf(&bias, FLOAT)
            } else {
                self.operand(&bias)
            });
        }
        self.push_node("Gemm", inputs, 1, attrs, "fault")
    }

    fn concat_dim(&mut self, family: Family) -> (String, Vec<String>) {
        let rank = 2 + self.below(3);
        let (axis, written) = self.axis(rank);
        let shared = self.free_dims(rank);
        let count = 2 + self.below(2);
        let odd_one = self.below(count);
        let mut at = self.below(rank - 1);
        if at >= axis {
            at += 1;
        }
        let (usual, odd) = if family == Family::ConcatDimSymbolic {
            let size = if self.chance(3, 4) {
                64
            } else {
                self.range(2, 9)
            };
            (D::S(size), self.symbol(size))
        } else {
            let (a, b) = self.two_sizes();
            (D::S(a), D::S(b))
        };
        let mut shapes = Vec::new();
        for i in 0..count {
            let mut dims = shared.clone();
            dims[axis] = self.free_dim();
            dims[at] = if i == odd_one {
                odd.clone()
            } else {
                usual.clone()
            };
            shapes.push(dims);
        }
        let shown: Vec<String> = shapes.iter().map(|s| show(s)).collect();
        self.note(&format!("Concat({}) axis={written}", shown.join(", ")));
        let inputs = shapes.iter().map(|s| self.operand(s)).collect();
        self.push_node(
            "Concat",
            inputs,
            1,
            vec![int_attr("axis", written)],
            "fault",
        )
    }

    fn transpose(&mut self, family: Family) -> (String, Vec<String>) {
        let rank = 2 + self.below(3);
        let dims = self.free_dims(rank);
        let len = if family == Family::TransposePermRepeat {
            rank
        } else if rank > 1 && self.chance(1, 2) {
            rank - 1
        } else {
            rank + 1
        };
        // A permutation of 0..len (Fisher-Yates).
        let mut perm: Vec<i64> = (0..i64::try_from(len).unwrap_or(0)).collect();
        for i in (1..len).rev() {
            let j = self.below(i + 1);
            perm.swap(i, j);
        }
        if family == Family::TransposePermRepeat {
            let from = self.below(len);
            let mut to = self.below(len - 1);
            if to >= from {
                to += 1;
            }
            perm[to] = perm[from];
        }
        self.note(&format!("Transpose(X {}) perm={perm:?}", show(&dims)));
        let x = self.operand(&dims);
        self.push_node(
            "Transpose",
            vec![x],
            1,
            vec![ints_attr("perm", &perm)],
            "fault",
        )
    }

    fn softmax_axis(&mut self) -> (String, Vec<String>) {
        let op = self.choose(&["Softmax", "LogSoftmax", "Hardmax"]);
        let rank = 1 + self.below(4);
        let dims = self.free_dims(rank);
        let axis = self.bad_axis(rank);
        self.note(&format!("{op}(X {}) axis={axis}", show(&dims)));
        let x = self.operand(&dims);
        self.push_node(op, vec![x], 1, vec![int_attr("axis", axis)], "fault")
    }

    fn concat_axis(&mut self) -> (String, Vec<String>) {
        let rank = 1 + self.below(4);
        let dims = self.free_dims(rank);
        let count = 1 + self.below(3);
        let axis = self.bad_axis(rank);
        self.note(&format!("Concat({count} x {}) axis={axis}", show(&dims)));
        let inputs = (0..count).map(|_| self.operand(&dims)).collect();
        self.push_node("Concat", inputs, 1, vec![int_attr("axis", axis)], "fault")
    }

    fn gather_axis(&mut self) -> (String, Vec<String>) {
        let rank = 1 + self.below(3);
        let dims = self.free_dims(rank);
        let axis = self.bad_axis(rank);
        let index_dims = if self.chance(1, 2) {
            Vec::new()
        } else {
            let rank = 1 + self.below(2);
            self.free_dims(rank)
        };
        self.note(&format!(
            "Gather(data {}, indices {}) axis={axis}",
            show(&dims),
            show(&index_dims)
        ));
        let data = self.operand(&dims);
        let indices = self.leaf(&index_dims, INT64);
        self.push_node(
            "Gather",
            vec![data, indices],
            1,
            vec![int_attr("axis", axis)],
            "fault",
        )
    }

    fn reduce_axis(&mut self) -> (String, Vec<String>) {
        let op = self.choose(&["ReduceSum", "ReduceMean", "ReduceMax", "ArgMax"]);
        let rank = 1 + self.below(4);
        let dims = self.free_dims(rank);
        let mut axes: Vec<i64> = Vec::new();
        if op != "ArgMax" && self.chance(1, 2) {
            axes.push(self.axis(rank).1);
        }
        let bad = self.bad_axis(rank);
        let at = self.below(axes.len() + 1);
        axes.insert(at, bad);
        let mut attrs = Vec::new();
        if self.chance(1, 2) {
            attrs.push(int_attr("keepdims", i64::from(self.chance(1, 2))));
        }
        let from_input = match op {
            "ArgMax" => false,
            "ReduceSum" => self.opset >= 13,
            _ => self.opset >= 18,
        };
        self.note(&format!(
            "{op}(X {}) {}={axes:?}{}",
            show(&dims),
            if op == "ArgMax" { "axis" } else { "axes" },
            if from_input { " (input)" } else { "" }
        ));
        let x = self.operand(&dims);
        let mut inputs = vec![x];
        if op == "ArgMax" {
            attrs.push(int_attr("axis", bad));
        } else if from_input {
            inputs.push(self.int_list(&axes));
        } else {
            attrs.push(ints_attr("axes", &axes));
        }
        self.push_node(op, inputs, 1, attrs, "fault")
    }

    fn reshape_count(&mut self) -> (String, Vec<String>) {
        let rank = 1 + self.below(4);
        let dims = self.static_dims(rank);
        let sizes: Vec<i64> = dims
            .iter()
            .map(|d| match d {
                D::S(v) => *v,
                D::P(_) => 1,
            })
            .collect();
        let total: i64 = sizes.iter().product();
        let len = 1 + self.below(4);
        let mut target: Vec<i64> = (0..len).map(|_| self.static_dim()).collect();
        match self.below(3) {
            // A `-1` with the other sizes' product not dividing the total: no size fills it.
            0 => {
                let divisors: Vec<i64> = (2..=7).filter(|d| total % d != 0).collect();
                if !divisors.is_empty() {
                    let d = self.choose(&divisors);
                    let ones = self.below(3);
                    target = vec![1; ones];
                    let at = self.below(target.len() + 1);
                    target.insert(at, d);
                    let at = self.below(target.len() + 1);
                    target.insert(at, -1);
                }
            }
            // A `0` copying the input's dim at the same index.
            1 => {
                let at = self.below(len.min(rank));
                target[at] = 0;
            }
            _ => {}
        }
        if !target.contains(&-1) {
            let product = |t: &[i64]| -> i64 {
                t.iter()
                    .enumerate()
                    .map(|(i, &v)| if v == 0 { sizes[i] } else { v })
                    .product()
            };
            if product(&target) == total {
                // Bump a positive entry: the product changes.
                if let Some(v) = target.iter_mut().find(|v| **v > 0) {
                    *v += 1;
                } else {
                    target.push(2);
                }
            }
        }
        self.note(&format!("Reshape(X {}, shape={target:?})", show(&dims)));
        let x = self.operand(&dims);
        let shape = self.int_list(&target);
        self.push_node("Reshape", vec![x, shape], 1, vec![], "fault")
    }

    fn split_sum(&mut self, family: Family) -> (String, Vec<String>) {
        let rank = 1 + self.below(3);
        let (axis, written) = self.axis(rank);
        let mut dims = self.free_dims(rank);
        let parts = 2 + self.below(2);
        let sizes: Vec<i64> = (0..parts).map(|_| self.range(1, 4)).collect();
        let sum: i64 = sizes.iter().sum();
        dims[axis] = if family == Family::SplitSumSymbolic {
            self.symbol(sum)
        } else {
            let mut whole = self.range(1, 12);
            if whole == sum {
                whole += 1;
            }
            D::S(whole)
        };
        let attr_split = self.opset < 13;
        self.note(&format!(
            "Split(X {}, split={sizes:?}{}) axis={written}",
            show(&dims),
            if attr_split { " attribute" } else { "" }
        ));
        let x = self.operand(&dims);
        let mut attrs = vec![int_attr("axis", written)];
        let mut inputs = vec![x];
        if attr_split {
            attrs.push(ints_attr("split", &sizes));
        } else {
            inputs.push(self.int_list(&sizes));
        }
        self.push_node("Split", inputs, parts, attrs, "fault")
    }
}

fn int_attr(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        r#type: Some(2),
        i: Some(value),
        ..Default::default()
    }
}

fn ints_attr(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        r#type: Some(7),
        ints: values.to_vec(),
        ..Default::default()
    }
}

/// The codes found at a node of the main graph.
fn codes_at(report: &LintReport, node: &str) -> Vec<Code> {
    report
        .findings()
        .iter()
        .filter(|f| {
            f.node
                .as_ref()
                .is_some_and(|n| n.graph == "main" && n.name == node)
        })
        .map(|f| f.code)
        .collect()
}

fn all_findings(report: &LintReport) -> String {
    report
        .findings()
        .iter()
        .map(|f| {
            let at = f.node.as_ref().map_or("-", |n| n.name.as_str());
            format!("  {} at {at}: {}", f.code, f.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn fail(report: &LintReport, case: &Case, what: &str) -> ! {
    panic!(
        "oracle: {:?} case at `{}`: {what}\n  model: {}{}\nfindings:\n{}",
        case.family,
        case.node,
        case.summary,
        case.symbol
            .as_ref()
            .map(|(k, v)| format!("; holds iff {k} = {v}"))
            .unwrap_or_default(),
        all_findings(report)
    )
}

/// The oracle (module doc) for a report linted with `options(cases, bind)`. Panics naming the
/// case, its model and every finding.
pub(crate) fn check(report: &LintReport, cases: &[Case], bind: Bind) {
    let checked: Vec<Case> = cases
        .iter()
        .filter(|c| CHECKED_FAMILIES.contains(&c.family))
        .cloned()
        .collect();
    check_all(report, &checked, bind);
}

/// The oracle on every determined case, whatever its family (to survey unchecked families).
pub(crate) fn check_all(report: &LintReport, cases: &[Case], bind: Bind) {
    let wrong = [Code::E1, Code::W1, Code::E4, Code::W4];
    for case in cases {
        if !case.determined {
            continue;
        }
        let fail = |what: String| fail(report, case, &what);
        let at = codes_at(report, &case.node);
        let expected = match (&case.symbol, bind) {
            (None, _) | (Some(_), Bind::Free) => Some(case.family.expected()),
            (Some(_), Bind::Breaking) => Some(Code::E4),
            (Some(_), Bind::Holding) => None,
        };
        match expected {
            Some(expected) => {
                if !at.contains(&expected) {
                    fail(format!(
                        "no {expected} at the violating node under {bind:?} (codes there: {at:?})"
                    ));
                }
                let other = if expected == Code::E4 {
                    Code::W4
                } else {
                    Code::E4
                };
                if let Some(code) = at.iter().find(|c| [other, Code::E1, Code::W1].contains(c)) {
                    fail(format!(
                        "{code} at the violating node besides {expected} under {bind:?}"
                    ));
                }
            }
            None => {
                if let Some(code) = at.iter().find(|c| wrong.contains(c)) {
                    fail(format!(
                        "{code} at the violating node, though the binding satisfies it"
                    ));
                }
            }
        }
        for (side, nodes) in [
            ("upstream", &case.upstream),
            ("downstream", &case.downstream),
        ] {
            for node in nodes {
                if let Some(code) = codes_at(report, node).iter().find(|c| wrong.contains(c)) {
                    fail(format!("{code} at {side} node `{node}`"));
                }
            }
        }
    }
}
