//! `Einsum` (ONNX Einsum-12, unchanged in shape at 28): parses the equation, gives each letter
//! the size its operands agree on, broadcasts the dims under `...` multidirectionally, and
//! builds the explicit (`->`) or implicit output (ellipsis dims, then the letters used once, in
//! alphabetical order).
//!
//! A letter's sizes must agree, except that a size of 1 stretches as in numpy's `einsum`:
//! onnxruntime runs `ij,jk` on `[2, 1]` and `[3, 5]`, and fails on `[2, 3]` and `[4, 5]`
//! ("Einsum operands could not be broadcast together").

use std::collections::BTreeMap;

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::condition::Atom;
use crate::shape::{Condition, Dim, Shape, Tri};

/// One side of an equation term: letters, with the position of `...` among them.
#[derive(Debug, PartialEq, Eq)]
struct Term {
    letters: Vec<char>,
    /// Index in `letters` where the ellipsis sits.
    ellipsis: Option<usize>,
}

/// An equation the Einsum doc's grammar rejects (onnxruntime fails creating the session).
fn invalid(what: &str) -> RuleError {
    Constraint::new(
        "Einsum's equation must be comma-separated terms of letters, each with at most one `...`, and an optional `->` output",
        what,
        &[],
    )
    .fix("correct the equation")
    .unmet()
}

/// Parses a term such as `b...ij`; spaces are ignored.
fn parse_term(text: &str) -> Result<Term, RuleError> {
    let mut letters = Vec::new();
    let mut ellipsis = None;
    let mut rest = text.trim();
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("...") {
            if ellipsis.is_some() {
                return Err(invalid("more than one ellipsis in a term"));
            }
            ellipsis = Some(letters.len());
            rest = after;
        } else if c.is_ascii_alphabetic() {
            letters.push(c);
            rest = rest.get(1..).unwrap_or_default();
        } else if c == ' ' {
            rest = rest.get(1..).unwrap_or_default();
        } else {
            return Err(invalid(&format!("unexpected character `{c}`")));
        }
    }
    Ok(Term { letters, ellipsis })
}

/// Splits a term's dims into (dims under letters, dims under the ellipsis). The operand's rank
/// is its term's letter count, or at least that with `...` (`onnx.shape_inference`: "Rank of
/// input 1 (3) does not match the equation indices (2)").
fn split_dims(term: &Term, dims: &[Dim], slot: usize) -> Result<(Vec<Dim>, Vec<Dim>), RuleError> {
    let mismatch = || {
        let letters: String = term.letters.iter().collect();
        Constraint::new(
            "each Einsum operand must have one dim per letter of its term (and any number more under `...`)",
            format!("term `{letters}` has {} letters, input {slot} has rank {}", term.letters.len(), dims.len()),
            &[slot],
        )
        .fix("correct the equation, or Reshape the operand")
        .unmet()
    };
    let Some(at) = term.ellipsis else {
        if dims.len() != term.letters.len() {
            return Err(mismatch());
        }
        return Ok((dims.to_vec(), Vec::new()));
    };
    let extra = dims
        .len()
        .checked_sub(term.letters.len())
        .ok_or_else(mismatch)?;
    let (head, tail) = dims.split_at(at.min(dims.len()));
    let (middle, tail) = tail.split_at(extra.min(tail.len()));
    Ok(([head, tail].concat(), middle.to_vec()))
}

/// The Einsum rule.
pub(crate) fn infer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let equation = ctx
        .attrs()
        .string("equation")?
        .ok_or_else(|| invalid("the equation attribute is missing"))?;
    let (lhs, rhs) = match equation.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (equation, None),
    };
    let terms = lhs
        .split(',')
        .map(parse_term)
        .collect::<Result<Vec<_>, _>>()?;
    if terms.len() != ctx.input_count() {
        return Err(invalid(
            "the number of terms differs from the number of inputs",
        ));
    }
    let elem = ctx.input(0).and_then(|i| i.elem);
    // Sizes seen per letter (an unranked operand adds `?`), and how often each letter is used.
    let mut sizes: BTreeMap<char, Vec<(Dim, usize)>> = BTreeMap::new();
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    let mut ellipses: Vec<Shape> = Vec::new();
    let mut any_ellipsis = false;
    for (slot, term) in terms.iter().enumerate() {
        let shape = ctx.shape(slot)?;
        for &c in &term.letters {
            *counts.entry(c).or_default() += 1;
        }
        any_ellipsis |= term.ellipsis.is_some();
        if let Some(dims) = shape.dims() {
            let (lettered, under) = split_dims(term, dims, slot)?;
            for (&c, d) in term.letters.iter().zip(lettered) {
                sizes.entry(c).or_default().push((d, slot));
            }
            if term.ellipsis.is_some() {
                ellipses.push(Shape::Ranked(under));
            }
        } else {
            for &c in &term.letters {
                sizes.entry(c).or_default().push((Dim::Unknown, slot));
            }
            if term.ellipsis.is_some() {
                ellipses.push(Shape::Unranked);
            }
        }
    }
    let mut pending = Pending::default();
    for (&c, seen) in &sizes {
        agree(c, seen, &mut pending)?;
    }
    let ellipsis_shape = ctx
        .broadcasts()
        .multidirectional(&ellipses.iter().collect::<Vec<_>>())
        .shape;
    let size_of = |c: char| letter_size(sizes.get(&c).map_or(&[][..], Vec::as_slice));
    let output = if let Some(rhs) = rhs {
        let term = parse_term(rhs)?;
        if term.letters.iter().any(|c| !counts.contains_key(c)) {
            return Err(invalid("an output letter appears in no input"));
        }
        if term.ellipsis.is_some() && !any_ellipsis {
            return Err(invalid("an output ellipsis without an input one"));
        }
        assemble(&term, &ellipsis_shape, size_of)
    } else {
        let once: Vec<char> = counts
            .iter()
            .filter(|(_, &n)| n == 1)
            .map(|(&c, _)| c)
            .collect();
        let mixed_case =
            once.iter().any(char::is_ascii_uppercase) && once.iter().any(char::is_ascii_lowercase);
        let term = Term {
            letters: once,
            ellipsis: any_ellipsis.then_some(0),
        };
        let shape = assemble(&term, &ellipsis_shape, size_of);
        // Runtimes disagree on how upper- and lowercase letters sort: keep only the rank.
        if let (true, Shape::Ranked(d)) = (mixed_case, &shape) {
            Shape::Ranked(vec![Dim::Unknown; d.len()])
        } else {
            shape
        }
    };
    Ok(Inferred::single(Output::shape(output).elem(elem)).with_conditions(pending.into_checks()))
}

/// Letter `c`'s sizes agree, a size of 1 stretching: each is compared with the first that is
/// not 1. Unknown sizes are left to run time.
fn agree(c: char, seen: &[(Dim, usize)], pending: &mut Pending) -> Result<(), RuleError> {
    let mut known = seen
        .iter()
        .filter(|(d, _)| !matches!(d, Dim::Unknown) && d.is_one() != Tri::Yes);
    let Some((first, first_slot)) = known.next() else {
        return Ok(());
    };
    for (other, slot) in known {
        let condition = Condition::any_of([
            Atom::Eq(first.clone(), other.clone()),
            Atom::IsOne(first.clone()),
            Atom::IsOne(other.clone()),
        ]);
        pending.holds_if(&condition, || {
            Constraint::new(
                format!("Einsum letter `{c}` must have one size in every operand (or 1)"),
                format!("`{c}` is {first} in input {first_slot}, {other} in input {slot}"),
                &[*first_slot, *slot],
            )
            .fix("correct the equation's letters, or transpose the operand")
        })?;
    }
    Ok(())
}

/// The output shape of `term`.
fn assemble(term: &Term, ellipsis: &Shape, size_of: impl Fn(char) -> Dim) -> Shape {
    let mut dims: Vec<Dim> = term.letters.iter().map(|&c| size_of(c)).collect();
    if let Some(at) = term.ellipsis {
        let Some(under) = ellipsis.dims() else {
            return Shape::Unranked;
        };
        let at = at.min(dims.len());
        dims.splice(at..at, under.iter().cloned());
    }
    Shape::Ranked(dims)
}

/// A letter's size: the dim every operand agrees on, a static 1 stretching to the others,
/// else unknown.
fn letter_size(seen: &[(Dim, usize)]) -> Dim {
    let mut stretched = seen.iter().map(|(d, _)| d).filter(|d| **d != Dim::known(1));
    let Some(first) = stretched.next() else {
        return if seen.is_empty() {
            Dim::Unknown
        } else {
            Dim::known(1)
        };
    };
    if stretched.all(|d| d.eq_dim(first) == Tri::Yes) {
        first.clone()
    } else {
        Dim::Unknown
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::dims as s;
    use crate::ops::testing::{self, run, string_attr};
    use crate::ops::{Constraint, RuleError};

    fn einsum(eq: &str, inputs: &[Option<testing::Fact>]) -> String {
        run("Einsum", 12, inputs, vec![string_attr("equation", eq)]).map_or_else(
            |e| format!("error: {e}"),
            |r| r.outputs[0].shape.to_string(),
        )
    }

    #[test]
    fn explicit_batched_matmul() {
        let got = einsum("bij,bjk->bik", &[s(&["b", "2", "3"]), s(&["b", "3", "4"])]);
        assert_eq!(got, "[b, 2, 4]");
    }

    #[test]
    fn implicit_output_sorts_letters_used_once() {
        assert_eq!(einsum("ij,jk", &[s(&["2", "3"]), s(&["3", "4"])]), "[2, 4]");
        assert_eq!(einsum("ba", &[s(&["2", "3"])]), "[3, 2]");
        assert_eq!(einsum("ii", &[s(&["3", "3"])]), "[]");
    }

    #[test]
    fn ellipsis_dims_broadcast() {
        let got = einsum(
            "...ij,...jk->...ik",
            &[s(&["5", "1", "2", "3"]), s(&["7", "3", "4"])],
        );
        assert_eq!(got, "[5, 7, 2, 4]");
        assert_eq!(einsum("...ii", &[s(&["n", "3", "3"])]), "[n]");
    }

    #[test]
    fn letters_of_different_sizes_give_unknown() {
        assert_eq!(
            einsum("ij,jk->ik", &[s(&["2", "n"]), s(&["m", "4"])]),
            "[2, 4]"
        );
        assert_eq!(einsum("ij,ij->i", &[s(&["2", "3"]), s(&["p", "3"])]), "[?]");
    }

    fn unmet(eq: &str, inputs: &[Option<testing::Fact>]) -> Constraint {
        match run("Einsum", 12, inputs, vec![string_attr("equation", eq)]) {
            Err(RuleError::Unmet(c)) => *c,
            other => panic!("expected an unmet constraint, got {other:?}"),
        }
    }

    fn conditions(eq: &str, inputs: &[Option<testing::Fact>]) -> Vec<String> {
        let r = run("Einsum", 12, inputs, vec![string_attr("equation", eq)]).unwrap();
        r.constraints
            .iter()
            .filter_map(|c| c.condition().map(ToString::to_string))
            .collect()
    }

    #[test]
    fn a_letter_with_two_sizes_is_unmet() {
        let c = unmet("ij,jk->ik", &[s(&["2", "3"]), s(&["4", "5"])]);
        assert_eq!(c.found, "`j` is 3 in input 0, 4 in input 1");
        assert_eq!(c.slots, vec![0, 1]);
        assert!(c.requires.contains("`j`"));
        let c = unmet("ii->i", &[s(&["2", "3"])]);
        assert_eq!(c.slots, vec![0, 0]);
    }

    #[test]
    fn a_letter_of_size_1_stretches() {
        assert_eq!(
            einsum("ij,jk->ik", &[s(&["2", "1"]), s(&["3", "5"])]),
            "[2, 5]"
        );
        assert_eq!(einsum("ij,ij->i", &[s(&["2", "3"]), s(&["1", "3"])]), "[2]");
        assert_eq!(
            einsum("ij,ij->ij", &[s(&["1", "3"]), s(&["1", "3"])]),
            "[1, 3]"
        );
    }

    #[test]
    fn symbolic_letter_sizes_are_conditions() {
        let got = conditions("ij,jk->ik", &[s(&["2", "k"]), s(&["4", "5"])]);
        assert_eq!(got, ["k ∈ {1, 4}"]);
        assert!(conditions("ij,jk->ik", &[s(&["2", "k"]), s(&["k", "5"])]).is_empty());
    }

    #[test]
    fn term_rank_must_match_operand_rank() {
        let c = unmet("ij,jk", &[s(&["2", "3"]), s(&["3", "4", "5"])]);
        assert_eq!(c.found, "term `jk` has 2 letters, input 1 has rank 3");
        assert_eq!(c.slots, vec![1]);
        let c = unmet("...ijk", &[s(&["2", "3"])]);
        assert_eq!(c.found, "term `ijk` has 3 letters, input 0 has rank 2");
    }

    #[test]
    fn bad_equations_are_errors() {
        assert!(einsum("ij,jk->il", &[s(&["2", "3"]), s(&["3", "4"])]).starts_with("error"));
        assert!(einsum("ijk->i", &[s(&["2", "3"])]).starts_with("error"));
        assert!(einsum("ij", &[s(&["2", "3"]), s(&["3"])]).starts_with("error"));
    }
}
