//! Sizes a model declares for data-dependent outputs (`NonZero`'s count, `Unique`'s,
//! `Compress`'s kept slices): the declared dim replaces the fresh symbol the rule minted.
//!
//! Why adopting is sound: a `dim_value` or `dim_param` in `value_info` or a graph output is the
//! model author's promise about the value (ONNX IR, "Static tensor shapes"), and onnx's
//! `infer_shapes` and onnxruntime's graph resolution both merge it into the inferred type and go
//! on from it. A run whose data gives another count is outside the model's declared contract,
//! as an input of the wrong shape is. The promise is checked, not trusted blindly: a declared
//! size the operator can never produce (above a bound the rule proved, such as `NonZero`'s
//! element count) is not adopted, and the output keeps its fresh symbol; so do declarations
//! that disagree with each other (two outputs sharing one count declare different sizes).
//! Anonymous declarations (`?`, `unk__3`, nothing) promise nothing and are never adopted, and
//! neither is any size of a declaration that contradicts the inferred shape elsewhere (W2: it
//! was shown wrong). An adopted size stays an assumption: the engine records where each one
//! came from ([`Adopted`]), so the findings that hang on it can name the declaration.

use std::sync::Arc;

use crate::infer::ValueFacts;
use crate::ops::Minted;
use crate::shape::{verify, Dim, Shape, Tri};

/// One adopted dim of a node's outputs: output `slot`'s `axis` took the size that output
/// `from`'s declaration gives on its axis `from_axis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Adopted {
    pub(super) slot: usize,
    pub(super) axis: usize,
    pub(super) from: usize,
    pub(super) from_axis: usize,
}

impl Adopted {
    /// Output `slot`'s `axis`, taken from its own declaration.
    pub(super) fn own(slot: usize, axis: usize) -> Adopted {
        Adopted {
            slot,
            axis,
            from: slot,
            from_axis: axis,
        }
    }
}

/// Replaces each minted symbol in `outputs` by the size the outputs' `declared` shapes (by
/// output slot; `Unranked` when nothing is declared) give it, when they give one, agree on it,
/// and it is within the rule's bounds. Returns the dims so replaced.
pub(super) fn declared_sizes(
    minted: &[Minted],
    outputs: &mut [ValueFacts],
    declared: &[Shape],
) -> Vec<Adopted> {
    let mut adopted = Vec::new();
    for symbol in minted {
        let Some((size, from, from_axis)) = promised(symbol, outputs, declared) else {
            continue;
        };
        for (slot, facts) in outputs.iter_mut().enumerate() {
            // Copied (the stored shape is shared) only when the symbol is in it.
            if facts
                .shape
                .dims()
                .is_some_and(|dims| dims.contains(&symbol.dim))
            {
                if let Shape::Ranked(dims) = facts.shape.make_mut() {
                    for axis in replace(dims, &symbol.dim, &size) {
                        adopted.push(Adopted {
                            slot,
                            axis,
                            from,
                            from_axis,
                        });
                    }
                }
            }
            if let Some(value) = facts
                .value
                .as_mut()
                .filter(|value| value.data.contains(&symbol.dim))
            {
                replace(&mut Arc::make_mut(value).data, &symbol.dim, &size);
            }
        }
    }
    adopted
}

/// The one size the declarations give `symbol`, if they give one that can hold, with the
/// output slot and axis of the first declaration giving it.
fn promised(
    symbol: &Minted,
    outputs: &[ValueFacts],
    declared: &[Shape],
) -> Option<(Dim, usize, usize)> {
    let mut found: Option<(Dim, usize, usize)> = None;
    for (slot, (facts, declared)) in outputs.iter().zip(declared).enumerate() {
        let (Some(ours), Some(theirs)) = (facts.shape.dims(), declared.dims()) else {
            continue;
        };
        // A declaration shown wrong on another axis (W2) promises nothing.
        if verify::compare(&facts.shape, declared).is_err() {
            continue;
        }
        for (axis, (ours, theirs)) in ours.iter().zip(theirs).enumerate() {
            if *ours != symbol.dim || *theirs == Dim::Unknown {
                continue;
            }
            match &found {
                None => found = Some((theirs.clone(), slot, axis)),
                Some((seen, _, _)) if seen.eq_dim(theirs) == Tri::Yes => {}
                Some(_) => return None,
            }
        }
    }
    let found = found?;
    let impossible = symbol.at_most.iter().any(|bound| exceeds(&found.0, bound));
    (!impossible).then_some(found)
}

/// The axes on which `refined` (an inferred shape refined by a declaration) has a dim that
/// `inferred` did not: every axis when `inferred` had no rank.
pub(super) fn filled(inferred: &Shape, refined: &Shape) -> Vec<usize> {
    let Some(after) = refined.dims() else {
        return Vec::new();
    };
    let before = inferred.dims();
    after
        .iter()
        .enumerate()
        .filter(|(axis, dim)| {
            **dim != Dim::Unknown
                && before.is_none_or(|before| before.get(*axis) == Some(&Dim::Unknown))
        })
        .map(|(axis, _)| axis)
        .collect()
}

/// Whether `size > bound` for every binding.
fn exceeds(size: &Dim, bound: &Dim) -> bool {
    match size.sub(bound) {
        Dim::Known(d) => d > 0,
        Dim::Sym(e) => e.lower_bound().is_some_and(|low| low > 0),
        Dim::Unknown => false,
    }
}

/// Replaces `symbol` by `size` in `dims`; returns the axes replaced.
fn replace(dims: &mut [Dim], symbol: &Dim, size: &Dim) -> Vec<usize> {
    let mut axes = Vec::new();
    for (axis, dim) in dims.iter_mut().enumerate().filter(|(_, d)| **d == *symbol) {
        *dim = size.clone();
        axes.push(axis);
    }
    axes
}

#[cfg(test)]
mod tests {
    use super::declared_sizes;
    use crate::infer::ValueFacts;
    use crate::ops::Minted;
    use crate::shape::{Dim, Shape};

    fn facts(shape: Shape) -> ValueFacts {
        ValueFacts {
            shape: shape.into(),
            ..ValueFacts::unknown()
        }
    }

    fn nonzero(at_most: i64) -> (Minted, Vec<ValueFacts>) {
        let n = Dim::sym("NonZero#0");
        let minted = Minted {
            dim: n.clone(),
            at_most: vec![Dim::known(at_most)],
        };
        (minted, vec![facts(Shape::Ranked(vec![Dim::known(2), n]))])
    }

    #[test]
    fn a_declared_static_count_replaces_the_fresh_symbol() {
        let (minted, mut outputs) = nonzero(4);
        declared_sizes(&[minted], &mut outputs, &[Shape::from_known(&[2, 3])]);
        assert_eq!(outputs[0].shape, Shape::from_known(&[2, 3]));
    }

    #[test]
    fn a_declared_dim_param_names_the_count() {
        let (minted, mut outputs) = nonzero(4);
        let declared = Shape::Ranked(vec![Dim::known(2), Dim::sym("hits")]);
        declared_sizes(&[minted], &mut outputs, std::slice::from_ref(&declared));
        assert_eq!(outputs[0].shape, declared);
    }

    #[test]
    fn a_count_beyond_the_bound_is_not_adopted() {
        // NonZero of a [2, 2] input has at most 4 non-zero entries: a declared 5 cannot hold.
        let (minted, mut outputs) = nonzero(4);
        declared_sizes(&[minted], &mut outputs, &[Shape::from_known(&[2, 5])]);
        assert_eq!(outputs[0].shape.to_string(), "[2, `NonZero#0`]");
        // The bound itself is possible (every entry non-zero).
        let (minted, mut outputs) = nonzero(4);
        declared_sizes(&[minted], &mut outputs, &[Shape::from_known(&[2, 4])]);
        assert_eq!(outputs[0].shape, Shape::from_known(&[2, 4]));
    }

    #[test]
    fn a_shared_count_is_replaced_in_every_output() {
        // Unique: the values and the counts share one count; only the counts declare it.
        let n = Dim::sym("Unique#3");
        let minted = Minted {
            dim: n.clone(),
            at_most: vec![Dim::sym("len")],
        };
        let mut outputs = vec![
            facts(Shape::Ranked(vec![n.clone()])),
            facts(Shape::Ranked(vec![n.clone()])),
        ];
        let declared = [Shape::Unranked, Shape::from_known(&[3])];
        declared_sizes(&[minted], &mut outputs, &declared);
        assert_eq!(outputs[0].shape, Shape::from_known(&[3]));
        assert_eq!(outputs[1].shape, Shape::from_known(&[3]));
    }

    #[test]
    fn disagreeing_or_anonymous_declarations_keep_the_symbol() {
        let n = Dim::sym("Unique#0");
        let minted = Minted {
            dim: n.clone(),
            at_most: Vec::new(),
        };
        let mut outputs = vec![
            facts(Shape::Ranked(vec![n.clone()])),
            facts(Shape::Ranked(vec![n.clone()])),
        ];
        let declared = [Shape::from_known(&[3]), Shape::from_known(&[4])];
        declared_sizes(std::slice::from_ref(&minted), &mut outputs, &declared);
        assert_eq!(outputs[0].shape, Shape::Ranked(vec![n.clone()]));
        let anonymous = [Shape::Ranked(vec![Dim::Unknown]), Shape::Unranked];
        declared_sizes(&[minted], &mut outputs, &anonymous);
        assert_eq!(outputs[1].shape, Shape::Ranked(vec![n]));
    }
}
