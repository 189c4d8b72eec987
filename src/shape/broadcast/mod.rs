//! Broadcasting rules and their verdicts. Every rule returns an `Outcome`: the output shape
//! (best effort even when invalid: clashing axes become `?`) and a `Verdict`.
//!
//! - `multidirectional` / `bidirectional` (here): numpy style, per axis as in `axis.rs`.
//! - `unidirectional` (`directional.rs`): B broadcastable to A (`Gemm`'s C, `PRelu`'s slope).
//! - `legacy` and `pdpd` (`legacy.rs`): opset < 7 `broadcast`/`axis`, and `OpenVINO` pdpd.

mod allowance;
mod axis;
mod directional;
#[cfg(test)]
mod directional_laws;
#[cfg(test)]
mod examples;
#[cfg(test)]
mod laws;
mod legacy;
mod memo;
mod violation;

pub(crate) use allowance::Allowance;
#[cfg(test)]
pub(crate) use axis::{axis_verdicts, AxisVerdict};
#[cfg(test)]
pub(crate) use directional::unidirectional;
#[cfg(test)]
pub(crate) use legacy::legacy;
#[cfg(test)]
pub(crate) use legacy::pdpd;
pub(crate) use memo::Outcomes;
pub(crate) use violation::{Offender, Violation};
pub use violation::{Rule, ViolationKind};

use std::fmt::{self, Display, Formatter};

use super::condition::Conjunction;
use super::{Condition, Dim, Shape};
use axis::AxisResult;

/// Whether a broadcast is legal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Verdict {
    /// Legal for every value of the symbols (unknown dims are checked at run time, as MLIR).
    Valid,
    /// Legal exactly when the condition holds (satisfiable, or not decided).
    Conditional(Condition),
    /// Never legal.
    Invalid(Violation),
}

/// The result of a broadcasting rule.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Outcome {
    /// Output shape.
    pub shape: Shape,
    /// Legality.
    pub verdict: Verdict,
}

impl Outcome {
    /// The violation, if the verdict is `Invalid`.
    #[cfg(test)]
    pub(crate) fn violation(&self) -> Option<&Violation> {
        match &self.verdict {
            Verdict::Invalid(v) => Some(v),
            _ => None,
        }
    }

    /// The condition, if the verdict is `Conditional`.
    #[cfg(test)]
    pub(crate) fn condition(&self) -> Option<&Condition> {
        match &self.verdict {
            Verdict::Conditional(c) => Some(c),
            _ => None,
        }
    }

    /// Whether the verdict is `Invalid`.
    #[cfg(test)]
    pub(crate) fn is_invalid(&self) -> bool {
        self.violation().is_some()
    }

    /// Whether the verdict is `Valid`.
    pub(crate) fn is_valid(&self) -> bool {
        self.verdict == Verdict::Valid
    }
}

/// Finishes a verdict: the violation if any; else a provably unsatisfiable condition is a
/// `NeverEqual` violation of `rule` (rules that can name the axis do so earlier), as is one
/// whose plain form is false; else the simplified condition, or `Valid` when nothing is left
/// or its plain form always holds.
pub(crate) fn verdict_of(
    rule: Rule,
    violation: Option<Violation>,
    condition: &Condition,
) -> Verdict {
    if let Some(v) = violation {
        return Verdict::Invalid(v);
    }
    if condition.is_true() {
        return Verdict::Valid;
    }
    if condition.never_holds() {
        return Verdict::Invalid(Violation::whole(rule, ViolationKind::NeverEqual));
    }
    let simple = condition.simplify();
    // The plain form is exact (`condition/plain.rs`): it can prove what the bounded search
    // cannot, that a condition in one symbol always or never holds (`n % 2 = 0 ∨ n % 2 = 1`).
    let plain = simple.plain();
    if simple.is_true() || plain.is_true() {
        Verdict::Valid
    } else if plain.is_false() {
        Verdict::Invalid(Violation::whole(rule, ViolationKind::NeverEqual))
    } else {
        Verdict::Conditional(simple)
    }
}

/// ONNX multidirectional (numpy-style) broadcasting of any number of inputs (Add, Mul, Where,
/// Sum, ...). Outside tests, rules reach it through [`Outcomes`], which bounds its work.
///
/// Follows SONNX `Broadcast` (reviewed spec, 004): ranks are equalised by prepending 1s (C1),
/// each output dim is the common non-1 size, and error **E1** (some input dim is neither the
/// output dim nor 1) makes the verdict `Invalid`. Dynamic dims follow the MLIR `Broadcastable`
/// dimension-inference table (000): `?` with `?` or 1 gives `?`, `?` with a static `k > 1`
/// gives `k`, checked at run time. `OpenVINO` numpy rules (002) give the same results.
/// Symbolic dims yield conditions: `n` with 3 gives 3 if `n ∈ {1, 3}`; `n` with `m` gives `?`
/// if `n = m ∨ n = 1 ∨ m = 1` (not `max(n, m)`: with a 0-sized dim numpy gives 0).
///
/// Unranked inputs: as in MLIR `InferResultShape` they are left out of the checks, but the
/// output is unranked because an unranked input may have the highest rank. No ranked input
/// gives an unranked, valid outcome.
#[cfg(test)]
pub(crate) fn multidirectional(inputs: &[&Shape]) -> Outcome {
    numpy_style(Rule::Multidirectional, inputs, &Allowance::unlimited())
}

/// Bidirectional broadcasting of `input` to `target` (ONNX Expand, `OpenVINO` bidirectional
/// rule in 002): `numpy.array(input) * numpy.ones(target)`, so the output is the numpy
/// broadcast of both and may differ from `target` (when it has 1s or a smaller rank). Input 0
/// is `input`, input 1 is `target`.
#[cfg(test)]
pub(crate) fn bidirectional(input: &Shape, target: &Shape) -> Outcome {
    numpy_style(
        Rule::Bidirectional,
        &[input, target],
        &Allowance::unlimited(),
    )
}

/// Numpy-style broadcasting under `rule`, stating conditions for as many symbolic axes as
/// `allowance` gives: past it the broadcast states none (see `allowance.rs`).
fn numpy_style(rule: Rule, inputs: &[&Shape], allowance: &Allowance) -> Outcome {
    let ranked: Vec<(usize, &[Dim])> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, s.dims()?)))
        .collect();
    let Some(rank) = ranked.iter().map(|(_, d)| d.len()).max() else {
        return Outcome {
            shape: Shape::Unranked,
            verdict: Verdict::Valid,
        };
    };
    let mut dims = Vec::with_capacity(rank);
    // Built clause by clause: a prefix is a count of its clauses (linear in the rank, not
    // quadratic, issue 19 hunt).
    let mut condition = Conjunction::default();
    let mut violation: Option<Violation> = None;
    let mut clash_found = false;
    // Set once the allowance is spent: the axes left state no condition, and those stated
    // so far are dropped with them (a part of a condition would read as the whole).
    let mut short = false;
    // (axis, how many clauses the axes so far hold, or `None` once one can never hold,
    // non-1 entries of the axis)
    let mut pending: Vec<(usize, Option<usize>, Vec<Offender>)> = Vec::new();
    for axis in 0..rank {
        if let Some(dim) = axis::agreeing(&ranked, rank, axis) {
            dims.push(dim);
            continue;
        }
        let entries = axis::entries(&ranked, rank, axis);
        if !short && axis::is_symbolic(&entries) && !allowance.take() {
            short = true;
            allowance.shorten();
        }
        let AxisResult {
            dim,
            condition: c,
            clash,
        } = if short {
            axis::statics_only(&entries)
        } else if rule == Rule::Bidirectional {
            // Expand's second operand is its target, a value: only the input is a tensor.
            axis::combine_given(&entries, |input| input == 0)
        } else {
            axis::combine(&entries)
        };
        dims.push(dim);
        if clash_found {
            continue;
        }
        if let Some(offenders) = clash {
            let kind = ViolationKind::SizeClash;
            violation = Some(Violation::new(rule, kind, axis, offenders));
            clash_found = true;
        } else if !c.is_true() {
            condition.and(&c);
            let prefix = (!condition.is_never()).then(|| condition.len());
            pending.push((axis, prefix, axis::non_ones(&entries)));
        }
    }
    // One search for the whole condition; only when it fails are prefixes searched, to
    // name the first axis where the sizes can no longer agree (it precedes any static clash).
    let prefix_of =
        |len: Option<usize>| len.map_or_else(Condition::falsity, |len| condition.prefix(len));
    let whole = if short {
        Condition::truth()
    } else {
        prefix_of((!condition.is_never()).then(|| condition.len()))
    };
    if !short && whole.never_holds() {
        let first = pending
            .into_iter()
            .find(|(_, prefix, _)| prefix_of(*prefix).never_holds());
        if let Some((axis, _, offenders)) = first {
            let kind = ViolationKind::NeverEqual;
            violation = Some(Violation::new(rule, kind, axis, offenders));
        }
    }
    let condition = whole;
    // Root cause only: the axis that can never agree is unknown in the output, so the nodes
    // it feeds do not report the same fault again (a `2*n` meeting 3 would otherwise leave 3).
    if let Some(slot) = violation
        .as_ref()
        .and_then(|v| v.axis)
        .and_then(|a| dims.get_mut(a))
    {
        *slot = Dim::Unknown;
    }
    let shape = if ranked.len() == inputs.len() {
        Shape::Ranked(dims)
    } else {
        Shape::Unranked
    };
    Outcome {
        shape,
        verdict: verdict_of(rule, violation, &condition),
    }
}

impl Display for Verdict {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Valid => f.write_str("valid"),
            Verdict::Conditional(c) => write!(f, "valid if {c}"),
            Verdict::Invalid(v) => write!(f, "invalid: {v}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{directional, multidirectional, numpy_style, Allowance, Rule, Verdict};
    use crate::shape::{Dim, Shape};

    fn s(d: Vec<Dim>) -> Shape {
        Shape::Ranked(d)
    }

    #[test]
    fn static_3_vs_4_conflicts() {
        let o = multidirectional(&[&Shape::from_known(&[2, 3]), &Shape::from_known(&[4])]);
        assert_eq!(o.violation().unwrap().to_string(), "axis 1 is 3 vs 4");
        assert_eq!(o.shape.to_string(), "[2, ?]");
    }

    #[test]
    fn symbol_vs_static_is_conditional() {
        let n = Dim::sym("n");
        let o = multidirectional(&[&s(vec![n.clone()]), &Shape::from_known(&[3])]);
        assert_eq!(o.shape.to_string(), "[3]");
        assert_eq!(o.condition().unwrap().to_string(), "n ∈ {1, 3}");
    }

    #[test]
    fn two_symbols_give_unknown_dim() {
        let o = multidirectional(&[&s(vec![Dim::sym("n")]), &s(vec![Dim::sym("m")])]);
        assert_eq!(o.shape.to_string(), "[?]");
        assert_eq!(o.condition().unwrap().to_string(), "n = m ∨ n = 1 ∨ m = 1");
    }

    #[test]
    fn n_plus_1_vs_n_plus_2_needs_n_zero() {
        let n = Dim::sym("n");
        let a = s(vec![n.add(&Dim::known(1))]);
        let b = s(vec![n.add(&Dim::known(2))]);
        let o = multidirectional(&[&a, &b]);
        assert_eq!(o.condition().unwrap().to_string(), "n = 0");
    }

    #[test]
    fn two_n_vs_3_is_invalid() {
        let n = Dim::sym("n");
        let o = multidirectional(&[&s(vec![n.mul(&Dim::known(2))]), &Shape::from_known(&[3])]);
        assert_eq!(o.violation().unwrap().to_string(), "axis 0 is 2*n vs 3");
        // The axis is unknown downstream: one fault, one finding.
        assert_eq!(o.shape.to_string(), "[?]");
    }

    /// The first axis whose condition, with the axes before it, can no longer hold is named:
    /// one that never holds alone (`2*k` against 3), one that clashes only with an earlier axis
    /// (`n ∈ {1, 3}` then `n+1 ∈ {1, 3}`), and either one before a later static clash.
    #[test]
    fn the_first_axis_that_cannot_hold_is_named() {
        let (n, k) = (Dim::sym("n"), Dim::sym("k"));
        let n1 = n.add(&Dim::known(1));
        let k2 = k.mul(&Dim::known(2));
        let threes = |rank| Shape::from_known(&vec![3; rank]);
        let cases = [
            (vec![n.clone(), k2.clone()], "axis 1 is 2*k vs 3"),
            (
                vec![n.clone(), n1.clone(), k2.clone()],
                "axis 1 is n+1 vs 3",
            ),
            (
                vec![n.clone(), n1.clone(), Dim::known(5)],
                "axis 1 is n+1 vs 3",
            ),
            (vec![k2, n.clone(), n1], "axis 0 is 2*k vs 3"),
        ];
        for (dims, named) in cases {
            let rank = dims.len();
            let o = multidirectional(&[&s(dims), &threes(rank)]);
            assert_eq!(o.violation().unwrap().to_string(), named);
        }
    }

    /// Shrunk proptest failure (`fold_never_invents_a_violation`): `a+1 ∈ {1, 3}` and
    /// `a ∈ {1, 3}` clash even when a non-linear `a*b ∈ {1, 3}` joins them.
    #[test]
    fn nonlinear_clause_does_not_hide_a_clash() {
        let a = Dim::sym("a");
        let x1 = s(vec![a.add(&Dim::known(1)), a.clone(), Dim::known(1)]);
        let x2 = Shape::from_known(&[2, 3, 3, 1]);
        let x3 = s(vec![a.mul(&Dim::sym("b")), Dim::known(1)]);
        let o = multidirectional(&[&x1, &x2, &x3]);
        assert_eq!(
            o.violation().unwrap().to_string(),
            "axis 2 is a vs 3 vs a*b"
        );
    }

    /// 19 symbols are beyond exhaustive search; the all-ones witness still proves the
    /// condition satisfiable without spending the search budget on every axis.
    #[test]
    fn many_symbols_are_conditional_not_undecided() {
        let named = |p: &str| s((0..6).map(|i| Dim::sym(&format!("{p}{i}"))).collect());
        let c = s((0..6)
            .map(|i| Dim::sym(&format!("c{i}")).mul(&Dim::sym("z")))
            .collect());
        let o = multidirectional(&[&named("a"), &named("b"), &c]);
        assert_eq!(o.condition().unwrap().clauses().len(), 18);
    }

    /// Past the allowance a broadcast states no condition (`allowance.rs`): the clauses of the
    /// axes before are dropped with it, the output dims are those the static sizes prove, and a
    /// static clash is still found; with enough allowance it is the rule's outcome.
    #[test]
    fn past_the_allowance_only_static_sizes_decide() {
        let (sn, sm, sk) = (Dim::sym("n"), Dim::sym("m"), Dim::sym("k"));
        let left = s(vec![sn.clone(), sm.clone(), Dim::known(3)]);
        let right = s(vec![Dim::known(3), sk.clone(), Dim::known(3)]);
        let one = Allowance::new(1);
        let short = numpy_style(Rule::Multidirectional, &[&left, &right], &one);
        assert_eq!(short.verdict, Verdict::Valid);
        assert_eq!(short.shape.to_string(), "[3, ?, 3]");
        assert_eq!(one.shortened(), 1);
        let enough = Allowance::new(2);
        let full = numpy_style(Rule::Multidirectional, &[&left, &right], &enough);
        assert_eq!(full, multidirectional(&[&left, &right]));
        assert_eq!(full.condition().unwrap().clauses().len(), 2);
        assert_eq!(enough.shortened(), 0);
        let clash = numpy_style(
            Rule::Multidirectional,
            &[&s(vec![sn, Dim::known(3)]), &s(vec![sm, Dim::known(4)])],
            &Allowance::new(0),
        );
        assert_eq!(clash.violation().unwrap().to_string(), "axis 1 is 3 vs 4");
        let unidirectional = directional::unidirectional_within(
            &s(vec![sk, Dim::known(4)]),
            &Shape::from_known(&[5]),
            &Allowance::new(0),
        );
        assert_eq!(
            unidirectional.violation().unwrap().to_string(),
            "axis 1 is 4 vs 5"
        );
    }

    #[test]
    fn unknown_dims_follow_mlir_table() {
        let q = s(vec![Dim::Unknown, Dim::Unknown, Dim::Unknown]);
        let o = multidirectional(&[&q, &s(vec![Dim::Unknown, Dim::known(1), Dim::known(5)])]);
        assert_eq!(o.shape.to_string(), "[?, ?, 5]");
        assert_eq!(o.verdict, Verdict::Valid);
    }

    #[test]
    fn unranked_input_gives_unranked_output_but_still_checks() {
        let o = multidirectional(&[&Shape::Unranked, &Shape::from_known(&[2])]);
        assert_eq!(o.shape, Shape::Unranked);
        assert!(o.is_valid());
        let bad = [
            &Shape::Unranked,
            &Shape::from_known(&[2]),
            &Shape::from_known(&[3]),
        ];
        assert!(multidirectional(&bad).is_invalid());
        assert_eq!(multidirectional(&[]).shape, Shape::Unranked);
    }
}
