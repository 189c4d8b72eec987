//! ONNX unidirectional broadcasting ("tensor B is unidirectional broadcastable to tensor A",
//! ONNX Broadcasting.md; used by `Gemm`'s C and `PRelu`'s slope), and the run matcher that the
//! legacy and pdpd rules share: B's dims are laid against a run of A's dims.

use super::{verdict_of, Allowance, Offender, Outcome, Rule, Verdict, Violation, ViolationKind};
use crate::shape::condition::{Atom, Conjunction};
use crate::shape::{Condition, Dim, Shape, Tri};

/// What matching B against a run of A found.
pub(crate) struct RunCheck {
    pub(crate) violation: Option<Violation>,
    /// A conjunction of clauses, one per symbolic axis.
    pub(crate) condition: Condition,
}

/// Lays `b` against `a[offset..]`: each dim of B must equal A's, or be the static 1 when
/// `ones_stretch`. `Unknown` on either side is left to run time (MLIR). A static mismatch or a
/// provably false clause is a violation of `kind`; a jointly unsatisfiable set of clauses is a
/// `NeverEqual` violation at the first axis that made it so. Symbolic axes take from
/// `allowance`: past it the run states no condition (`allowance.rs`).
///
/// The clauses are gathered first and searched once, as `numpy_style` does: searching the
/// conjunction after each clause made a `PRelu` of two rank-1000 inputs quadratic (ten such
/// nodes, 28 s; issue 34 hunt). Only when the whole never holds are prefixes searched.
pub(crate) fn match_run(
    rule: Rule,
    kind: ViolationKind,
    (a, b): (&[Dim], &[Dim]),
    offset: usize,
    ones_stretch: bool,
    allowance: &Allowance,
) -> RunCheck {
    let mut condition = Conjunction::default();
    // (axis, clauses held once its clause is added, the two dims)
    let mut pending: Vec<(usize, usize, [Offender; 2])> = Vec::new();
    let mut short = false;
    for (i, bd) in b.iter().enumerate() {
        let axis = offset + i;
        let ad = a.get(axis).cloned().unwrap_or(Dim::Unknown);
        let offenders = |ad: &Dim| {
            [
                Offender {
                    input: 0,
                    axis,
                    dim: ad.clone(),
                },
                Offender {
                    input: 1,
                    axis: i,
                    dim: bd.clone(),
                },
            ]
        };
        if (ones_stretch && *bd == Dim::Known(1)) || ad.eq_dim(bd) == Tri::Yes {
            continue;
        }
        if matches!((&ad, bd), (Dim::Unknown, _) | (_, Dim::Unknown)) {
            continue;
        }
        let symbolic = matches!(ad, Dim::Sym(_)) || matches!(bd, Dim::Sym(_));
        if symbolic && !short && !allowance.take() {
            short = true;
            allowance.shorten();
        }
        if symbolic && short {
            continue;
        }
        let clause = if ones_stretch {
            Condition::any_of([Atom::Eq(bd.clone(), ad.clone()), Atom::IsOne(bd.clone())])
        } else {
            Condition::eq(bd, &ad)
        };
        if clause.is_false() {
            return RunCheck {
                violation: Some(Violation::new(rule, kind, axis, offenders(&ad).into())),
                condition: if short {
                    Condition::truth()
                } else {
                    condition.finish()
                },
            };
        }
        condition.and(&clause);
        if !short && !condition.is_never() {
            pending.push((axis, condition.len(), offenders(&ad)));
        }
    }
    if short {
        return RunCheck {
            violation: None,
            condition: Condition::truth(),
        };
    }
    let whole = if condition.is_never() {
        Condition::falsity()
    } else {
        condition.prefix(condition.len())
    };
    if whole.never_holds() {
        let first = pending
            .into_iter()
            .find(|(_, len, _)| condition.prefix(*len).never_holds());
        if let Some((axis, len, offenders)) = first {
            let v = Violation::new(rule, ViolationKind::NeverEqual, axis, offenders.into());
            return RunCheck {
                violation: Some(v),
                condition: condition.prefix(len),
            };
        }
    }
    RunCheck {
        violation: None,
        condition: whole,
    }
}

/// ONNX unidirectional broadcasting: B (input 1) is broadcast to A (input 0); the output is
/// A's shape. B may not have a higher rank, and each of B's dims (right-aligned) must be 1 or
/// A's dim. An unranked A gives an unranked, valid outcome; an unranked B gives A, valid.
#[cfg(test)]
pub(crate) fn unidirectional(a: &Shape, b: &Shape) -> Outcome {
    unidirectional_within(a, b, &Allowance::unlimited())
}

/// [`unidirectional`], stating conditions for as many symbolic axes as `allowance` gives.
pub(crate) fn unidirectional_within(a: &Shape, b: &Shape, allowance: &Allowance) -> Outcome {
    let (Some(ad), Some(bd)) = (a.dims(), b.dims()) else {
        return Outcome {
            shape: a.clone(),
            verdict: Verdict::Valid,
        };
    };
    let Some(offset) = ad.len().checked_sub(bd.len()) else {
        return Outcome {
            shape: a.clone(),
            verdict: Verdict::Invalid(Violation::whole(
                Rule::Unidirectional,
                ViolationKind::RankTooHigh,
            )),
        };
    };
    let kind = ViolationKind::NotBroadcastable;
    let run = match_run(
        Rule::Unidirectional,
        kind,
        (ad, bd),
        offset,
        true,
        allowance,
    );
    Outcome {
        shape: a.clone(),
        verdict: verdict_of(Rule::Unidirectional, run.violation, &run.condition),
    }
}

#[cfg(test)]
mod tests {
    use super::unidirectional;
    use crate::shape::broadcast::ViolationKind;
    use crate::shape::{Dim, Shape};

    #[test]
    fn gemm_bias_row_broadcasts() {
        let o = unidirectional(&Shape::from_known(&[2, 3]), &Shape::from_known(&[1, 3]));
        assert!(o.is_valid());
        assert_eq!(o.shape, Shape::from_known(&[2, 3]));
    }

    #[test]
    fn b_may_not_grow_a() {
        let o = unidirectional(&Shape::from_known(&[1, 3]), &Shape::from_known(&[2, 3]));
        assert_eq!(o.violation().unwrap().to_string(), "axis 0 is 1 vs 2");
        let o = unidirectional(&Shape::from_known(&[3]), &Shape::from_known(&[2, 3]));
        assert_eq!(o.violation().unwrap().kind, ViolationKind::RankTooHigh);
    }

    #[test]
    fn symbolic_slope_is_conditional() {
        let a = Shape::Ranked(vec![Dim::sym("n"), Dim::sym("c")]);
        let b = Shape::Ranked(vec![Dim::sym("k")]);
        let o = unidirectional(&a, &b);
        assert_eq!(o.condition().unwrap().to_string(), "k = c ∨ k = 1");
        let same = unidirectional(&a, &Shape::Ranked(vec![Dim::sym("c")]));
        assert!(same.is_valid());
    }
}
