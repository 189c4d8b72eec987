//! Data propagation: the element-wise folding of carried values, apart from the shape rules that
//! call it. `ints` folds small integer tensors, `floats` float shape arithmetic, `int_cast` the
//! integer `Cast`, `rearrange` the element moves of `Slice` and `Transpose`, `moves` those of
//! `Split` and `Tile`, `float_shape_math` reductions, `Pow` and `ArgMax`/`ArgMin` of small vectors. Which fold runs is
//! the operation a registry row captures ([`Unary`], [`Binary`]), never the op type read again.

pub(crate) mod float_shape_math;
pub(crate) mod floats;
pub(crate) mod int_cast;
pub(crate) mod ints;
pub(crate) mod moves;
pub(crate) mod rearrange;

/// What a unary element-wise op does to carried values and to the element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unary {
    /// Keeps the shape and the input's type; values are not carried.
    Opaque,
    /// A bool result that is not folded (`IsNaN`, `IsInf`).
    Predicate,
    /// `Identity`, and `Dropout`'s output: the values themselves.
    Identity,
    /// `Cast` to its `to` attribute.
    Cast,
    /// `CastLike` to its second input's type.
    CastLike,
    /// `Neg`.
    Neg,
    /// `Abs`.
    Abs,
    /// `Not`.
    Not,
    /// `Floor`.
    Floor,
    /// `Ceil`.
    Ceil,
    /// `Round` (halves to even).
    Round,
    /// `Sqrt`.
    Sqrt,
}

impl Unary {
    /// Whether the output is bool whatever the input.
    pub(crate) fn is_bool(self) -> bool {
        matches!(self, Unary::Not | Unary::Predicate)
    }
}

/// What a binary (or two-input variadic) element-wise op does to carried values and to the
/// element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binary {
    /// Keeps the first input's type; values are not carried (`BitShift`, `Bitwise*`).
    Opaque,
    /// `Pow`: keeps the first input's type; float values are folded where the power is exact
    /// ([`float_shape_math::pow`]), integer values are not carried.
    Pow,
    /// `Add`, and `Sum` of two inputs.
    Add,
    /// `Sub`.
    Sub,
    /// `Mul`.
    Mul,
    /// `Div`.
    Div,
    /// `Mod`.
    Mod,
    /// `Max`.
    Max,
    /// `Min`.
    Min,
    /// `Equal`.
    Equal,
    /// `Less`.
    Less,
    /// `Greater`.
    Greater,
    /// `LessOrEqual`.
    LessOrEqual,
    /// `GreaterOrEqual`.
    GreaterOrEqual,
    /// `And`.
    And,
    /// `Or`.
    Or,
    /// `Xor`: bool, not folded.
    Xor,
}

impl Binary {
    /// Whether the output is bool whatever the inputs (comparisons and logic).
    pub(crate) fn is_bool(self) -> bool {
        matches!(
            self,
            Binary::Equal
                | Binary::Less
                | Binary::Greater
                | Binary::LessOrEqual
                | Binary::GreaterOrEqual
                | Binary::And
                | Binary::Or
                | Binary::Xor
        )
    }
}

/// What a `Reduce*` op does to carried values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reducer {
    /// `ReduceSum`.
    Sum,
    /// `ReduceProd`.
    Prod,
    /// `ReduceMax`.
    Max,
    /// `ReduceMin`.
    Min,
    /// The others: not folded.
    Other,
}
