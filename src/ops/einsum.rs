//! `Einsum` (ONNX Einsum-12): parses the equation, gives each letter the size its operands agree
//! on, broadcasts the dims under `...` multidirectionally, and builds the explicit (`->`) or
//! implicit output (ellipsis dims, then the letters used once, in alphabetical order).

use std::collections::BTreeMap;

use super::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast;
use crate::shape::{Dim, Shape, Tri};

/// One side of an equation term: letters, with the position of `...` among them.
#[derive(Debug, PartialEq, Eq)]
struct Term {
    letters: Vec<char>,
    /// Index in `letters` where the ellipsis sits.
    ellipsis: Option<usize>,
}

fn invalid(what: &str) -> RuleError {
    RuleError::Invalid(format!("Einsum equation: {what}"))
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

/// Splits a term's dims into (dims under letters, dims under the ellipsis).
fn split_dims(term: &Term, dims: &[Dim]) -> Result<(Vec<Dim>, Vec<Dim>), RuleError> {
    let Some(at) = term.ellipsis else {
        if dims.len() != term.letters.len() {
            return Err(invalid("a term's letters do not match its operand's rank"));
        }
        return Ok((dims.to_vec(), Vec::new()));
    };
    let extra = dims
        .len()
        .checked_sub(term.letters.len())
        .ok_or_else(|| invalid("an operand has fewer dims than its term's letters"))?;
    let (head, tail) = dims.split_at(at.min(dims.len()));
    let (middle, tail) = tail.split_at(extra.min(tail.len()));
    Ok(([head, tail].concat(), middle.to_vec()))
}

/// The Einsum rule.
pub(super) fn infer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let equation = ctx
        .attrs()
        .string("equation")?
        .ok_or_else(|| invalid("missing"))?;
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
    let mut sizes: BTreeMap<char, Vec<Dim>> = BTreeMap::new();
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
            let (lettered, under) = split_dims(term, dims)?;
            for (&c, d) in term.letters.iter().zip(lettered) {
                sizes.entry(c).or_default().push(d);
            }
            if term.ellipsis.is_some() {
                ellipses.push(Shape::Ranked(under));
            }
        } else {
            for &c in &term.letters {
                sizes.entry(c).or_default().push(Dim::Unknown);
            }
            if term.ellipsis.is_some() {
                ellipses.push(Shape::Unranked);
            }
        }
    }
    let ellipsis_shape = broadcast::multidirectional(&ellipses.iter().collect::<Vec<_>>()).shape;
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
    Ok(Inferred::single(Output::shape(output).elem(elem)))
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

/// A letter's size: the dim every operand agrees on, else unknown.
fn letter_size(seen: &[Dim]) -> Dim {
    let Some(first) = seen.first() else {
        return Dim::Unknown;
    };
    if seen.iter().all(|d| d.eq_dim(first) == Tri::Yes) {
        first.clone()
    } else {
        Dim::Unknown
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::dims as s;
    use crate::ops::testing::{self, run, string_attr};

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

    #[test]
    fn bad_equations_are_errors() {
        assert!(einsum("ij,jk->il", &[s(&["2", "3"]), s(&["3", "4"])]).starts_with("error"));
        assert!(einsum("ijk->i", &[s(&["2", "3"])]).starts_with("error"));
        assert!(einsum("ij", &[s(&["2", "3"]), s(&["3"])]).starts_with("error"));
    }
}
