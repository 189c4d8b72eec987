//! Which input axis an output axis of a node comes from, by the operator's definition (ONNX
//! Operators.md): an element-wise op's output axis is the same axis of each input aligned from
//! the right (Broadcasting.md); a Conv's or pool's spatial axis is computed from the same axis
//! of `X`, its channels are `W`'s dim 0; a Transpose's axis `i` is the input's `perm[i]`; a
//! `MatMul`'s last axis is `B`'s, the one before `A`'s; a Gather's axes are the data's around the
//! indices'; Slice, Pad, Resize (by `scales`), Tile and Split compute each axis from the same axis of the data.
//!
//! A [`Link::Same`] holds only when the two dims are equal (the caller checks); a
//! [`Link::Computed`] is what the operator computes the output dim from. Operators missing here
//! (Reshape, Squeeze, contrib ops...) get `None`: the walk then only follows symbolic dims equal
//! to the output's, which name the same number whatever the operator does.

use crate::model::Node;

/// An input axis an output axis comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Link {
    /// The output dim is this input dim, when they are equal (stretched axes are not).
    Same { slot: usize, axis: usize },
    /// The operator computes the output dim from this input dim (and attributes).
    Computed { slot: usize, axis: usize },
}

/// Multidirectional broadcasting ops (and Expand, whose output dim is the input's where they
/// agree): every input aligned from the right.
const BROADCASTING: &[&str] = &[
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Mod",
    "Equal",
    "Less",
    "Greater",
    "LessOrEqual",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
    "BitShift",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "Where",
    "Max",
    "Min",
    "Sum",
    "Mean",
    "PRelu",
    "Expand",
];

/// Ops whose first output has the shape of their first input.
const SHAPE_PRESERVING: &[&str] = &[
    "Relu",
    "LeakyRelu",
    "Elu",
    "Selu",
    "Celu",
    "Sigmoid",
    "HardSigmoid",
    "HardSwish",
    "Tanh",
    "Exp",
    "Log",
    "Neg",
    "Abs",
    "Sqrt",
    "Reciprocal",
    "Erf",
    "Floor",
    "Ceil",
    "Round",
    "Sign",
    "Not",
    "BitwiseNot",
    "IsNaN",
    "IsInf",
    "Softplus",
    "Softsign",
    "ThresholdedRelu",
    "Mish",
    "Gelu",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Shrink",
    "Cast",
    "CastLike",
    "Identity",
    "Clip",
    "Dropout",
    "Softmax",
    "LogSoftmax",
    "Hardmax",
    "CumSum",
    "Trilu",
    "LRN",
    "BatchNormalization",
    "InstanceNormalization",
    "LayerNormalization",
    "GroupNormalization",
    "LpNormalization",
    "MeanVarianceNormalization",
    "QuantizeLinear",
    "DequantizeLinear",
    "ReverseSequence",
];

/// Ops computing each output axis from the same axis of their first input.
const AXISWISE: &[&str] = &[
    "Slice",
    "Pad",
    "Upsample",
    "Tile",
    "Split",
    "SpaceToDepth",
    "DepthToSpace",
];

/// Convolutions and pools: `(op, channels from W's dim 0)`.
const WINDOWED: &[(&str, bool)] = &[
    ("Conv", true),
    ("ConvInteger", true),
    ("MaxPool", false),
    ("AveragePool", false),
    ("LpPool", false),
];

const GLOBAL_POOLS: &[&str] = &["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"];

const REDUCTIONS: &[&str] = &[
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
    "ArgMax",
    "ArgMin",
];

/// Where axis `axis` of output `out_slot` (of rank `out_rank`) of `node` comes from; `None`
/// when the operator is not one this table knows. `rank` gives an input slot's rank.
pub(super) fn links(
    node: &Node,
    out_slot: usize,
    axis: usize,
    out_rank: usize,
    rank: &dyn Fn(usize) -> Option<usize>,
) -> Option<Vec<Link>> {
    if !matches!(node.domain().as_str(), "" | "ai.onnx") {
        return None;
    }
    let op = node.op_type().as_str();
    let aligned = |slot: usize| {
        let r = rank(slot)?;
        let axis = (axis + r).checked_sub(out_rank)?;
        Some(Link::Same { slot, axis })
    };
    if BROADCASTING.contains(&op) {
        return Some((0..node.inputs().len()).filter_map(aligned).collect());
    }
    if SHAPE_PRESERVING.contains(&op) {
        return Some(if out_slot == 0 {
            aligned(0).into_iter().collect()
        } else {
            Vec::new()
        });
    }
    // Resize computes its output from X's dims and `scales`; given `sizes` (input 3), the
    // output dim is the requested size and only an equal input dim is the same number.
    let sized = op == "Resize" && node.inputs().get(3).copied().flatten().is_some();
    if AXISWISE.contains(&op) || (op == "Resize" && !sized) {
        return Some(vec![Link::Computed { slot: 0, axis }]);
    }
    if sized {
        return Some(vec![Link::Same { slot: 0, axis }]);
    }
    if let Some(&(_, weighted)) = WINDOWED.iter().find(|(name, _)| *name == op) {
        return Some(vec![match axis {
            0 => Link::Same { slot: 0, axis: 0 },
            1 if weighted => Link::Same { slot: 1, axis: 0 },
            1 => Link::Same { slot: 0, axis: 1 },
            _ => Link::Computed { slot: 0, axis },
        }]);
    }
    if GLOBAL_POOLS.contains(&op) {
        return Some(
            (axis < 2)
                .then_some(Link::Same { slot: 0, axis })
                .into_iter()
                .collect(),
        );
    }
    by_attributes(node, axis, out_rank, rank)
}

/// [`links`] of the ops whose axis map depends on attributes (`perm`, `axis`, `trans*`) or
/// on the inputs' ranks.
fn by_attributes(
    node: &Node,
    axis: usize,
    out_rank: usize,
    rank: &dyn Fn(usize) -> Option<usize>,
) -> Option<Vec<Link>> {
    let op = node.op_type().as_str();
    let ints = |name: &str| node.attrs().ints(name).ok().flatten();
    let int = |name: &str| node.attrs().int(name).ok().flatten();
    match op {
        "Transpose" => {
            let source = match ints("perm") {
                Some(perm) => usize::try_from(*perm.get(axis)?).ok()?,
                None => out_rank.checked_sub(axis + 1)?,
            };
            Some(vec![Link::Same {
                slot: 0,
                axis: source,
            }])
        }
        "MatMul" | "MatMulInteger" => matmul(axis, out_rank, rank),
        "Gemm" => {
            let (trans_a, trans_b) = (int("transA") == Some(1), int("transB") == Some(1));
            Some(match axis {
                0 => vec![Link::Same {
                    slot: 0,
                    axis: usize::from(trans_a),
                }],
                1 => vec![Link::Same {
                    slot: 1,
                    axis: usize::from(!trans_b),
                }],
                _ => Vec::new(),
            })
        }
        "Gather" => {
            let (data, indices) = (rank(0)?, rank(1)?);
            let k = normalise(int("axis").unwrap_or(0), data)?;
            Some(vec![if axis < k {
                Link::Same { slot: 0, axis }
            } else if axis < k + indices {
                Link::Same {
                    slot: 1,
                    axis: axis - k,
                }
            } else {
                Link::Same {
                    slot: 0,
                    axis: (axis + 1).checked_sub(indices)?,
                }
            }])
        }
        "GatherElements" => Some(vec![Link::Same { slot: 1, axis }]),
        "Concat" => {
            let k = normalise(int("axis")?, out_rank)?;
            Some(
                (0..node.inputs().len())
                    .map(|slot| {
                        if axis == k {
                            Link::Computed { slot, axis }
                        } else {
                            Link::Same { slot, axis }
                        }
                    })
                    .collect(),
            )
        }
        _ if REDUCTIONS.contains(&op) => {
            // Without keepdims the axes shift; the symbolic fallback still follows those.
            (int("keepdims") != Some(0)).then(|| vec![Link::Same { slot: 0, axis }])
        }
        _ => None,
    }
}

/// `MatMul` (numpy `matmul`): the last axis is B's last, the one before is A's second to last,
/// the batch axes broadcast. 1-D operands drop an axis; they are left to the fallback.
fn matmul(
    axis: usize,
    out_rank: usize,
    rank: &dyn Fn(usize) -> Option<usize>,
) -> Option<Vec<Link>> {
    let (a, b) = (rank(0)?, rank(1)?);
    if a < 2 || b < 2 || out_rank < 2 {
        return None;
    }
    Some(if axis + 1 == out_rank {
        vec![Link::Same {
            slot: 1,
            axis: b - 1,
        }]
    } else if axis + 2 == out_rank {
        vec![Link::Same {
            slot: 0,
            axis: a - 2,
        }]
    } else {
        [(0, a), (1, b)]
            .into_iter()
            .filter_map(|(slot, r)| {
                let axis = (axis + r).checked_sub(out_rank)?;
                (axis + 2 < r).then_some(Link::Same { slot, axis })
            })
            .collect()
    })
}

/// A possibly negative axis attribute as an index into `rank` axes.
fn normalise(axis: i64, rank: usize) -> Option<usize> {
    let rank_i = i64::try_from(rank).ok()?;
    let a = if axis < 0 { axis + rank_i } else { axis };
    usize::try_from(a).ok().filter(|&a| a < rank)
}
