//! Axis-based rules: ONNX element-wise ops before opset 7 (`broadcast`/`axis` attributes,
//! "limited broadcast", opset-6 `Add` doc) and `OpenVINO` `pdpd` (002). Both lay B against a
//! contiguous run of A's dims; they differ in that pdpd first drops B's trailing 1s and lets
//! B's 1s stretch, while legacy requires B's dims to equal A's ("1-dim expansion doesn't work
//! yet") unless B is a single element. Both output A's shape.

use super::directional::match_run;
#[cfg(test)]
use super::Offender;
use super::{verdict_of, Allowance, Outcome, Rule, Verdict, Violation, ViolationKind};
use crate::shape::condition::{Atom, Conjunction};
use crate::shape::{Condition, Dim, Shape, Tri};

fn invalid(shape: &Shape, rule: Rule, kind: ViolationKind) -> Outcome {
    Outcome {
        shape: shape.clone(),
        verdict: Verdict::Invalid(Violation::whole(rule, kind)),
    }
}

fn invalid_by(shape: &Shape, violation: Violation) -> Outcome {
    Outcome {
        shape: shape.clone(),
        verdict: Verdict::Invalid(violation),
    }
}

fn valid(shape: &Shape) -> Outcome {
    Outcome {
        shape: shape.clone(),
        verdict: Verdict::Valid,
    }
}

/// Start of B's run in A: `None` means suffix matching; a negative axis counts from A's end
/// (`axis + rank(A)`, the convention of later ONNX `axis` attributes; opset 6 does not say).
fn run_start(rank_a: usize, rank_b: usize, axis: Option<i64>) -> Option<usize> {
    let start = match axis {
        None => return rank_a.checked_sub(rank_b),
        Some(k) if k < 0 => i64::try_from(rank_a).ok()?.checked_add(k)?,
        Some(k) => k,
    };
    usize::try_from(start).ok().filter(|s| *s <= rank_a)
}

/// ONNX element-wise broadcasting before opset 7 (opset-6 `Add` doc: "limited broadcast").
///
/// With `broadcast = false` the shapes must be equal. With `broadcast = true`, B (input 1) is
/// either a single element (a scalar or all dims 1, rank <= A's) or its shape is a contiguous
/// run of A's shape starting at `axis` (suffix-matched when `axis` is absent); B's 1s do not
/// stretch. A symbolic B that might be all 1s is accepted on that condition. Output: A's shape.
#[cfg(test)]
pub(crate) fn legacy(a: &Shape, b: &Shape, broadcast: bool, axis: Option<i64>) -> Outcome {
    legacy_within(a, b, broadcast, axis, &Allowance::unlimited())
}

/// [`legacy`], stating conditions for as many symbolic axes as `allowance` gives: past it only
/// static mismatches are found (`allowance.rs`).
pub(crate) fn legacy_within(
    a: &Shape,
    b: &Shape,
    broadcast: bool,
    axis: Option<i64>,
    allowance: &Allowance,
) -> Outcome {
    let rule = Rule::Legacy;
    let (Some(ad), Some(bd)) = (a.dims(), b.dims()) else {
        return valid(if broadcast || a.rank().is_some() {
            a
        } else {
            b
        });
    };
    if !broadcast {
        if ad.len() != bd.len() {
            return invalid(a, rule, ViolationKind::RankMismatch);
        }
        let run = match_run(
            rule,
            ViolationKind::RunMismatch,
            (ad, bd),
            0,
            false,
            allowance,
        );
        return Outcome {
            shape: a.clone(),
            verdict: verdict_of(rule, run.violation, &run.condition),
        };
    }
    if bd.len() > ad.len() {
        return invalid(a, rule, ViolationKind::RankTooHigh);
    }
    if bd.iter().all(|d| *d == Dim::Known(1)) {
        return valid(a);
    }
    // A single element when every dim of B is 1 at run time; then `axis` does not matter.
    let single_possible = bd.iter().all(|d| d.is_one() != Tri::No);
    let ones: Vec<Atom> = bd
        .iter()
        .filter(|d| matches!(d, Dim::Sym(_)))
        .map(|d| Atom::IsOne(d.clone()))
        .collect();
    // Every symbolic dim of B being 1 is a clause each: they take from the allowance, and past
    // it B's being a single element is not stated (only static mismatches are found).
    let short = !allowance.take_many(ones.len());
    if short {
        allowance.shorten();
    }
    let single = if short {
        Condition::truth()
    } else {
        let mut single = Conjunction::default();
        for one in &ones {
            single.and(&Condition::any_of([one.clone()]));
        }
        single.finish()
    };
    let misplaced = match run_start(ad.len(), bd.len(), axis) {
        None => Some(ViolationKind::BadAxis),
        Some(start) if start + bd.len() > ad.len() => Some(ViolationKind::RunOutOfRange),
        Some(_) => None,
    };
    if let Some(kind) = misplaced {
        return if single_possible {
            conditional(a, &single)
        } else {
            invalid(a, rule, kind)
        };
    }
    let start = run_start(ad.len(), bd.len(), axis).unwrap_or_default();
    let run = match_run(
        rule,
        ViolationKind::RunMismatch,
        (ad, bd),
        start,
        false,
        allowance,
    );
    if short {
        return match run.violation {
            Some(v) if !single_possible => invalid_by(a, v),
            _ => valid(a),
        };
    }
    let verdict = match (run.violation, single_possible) {
        (Some(_), true) => return conditional(a, &single),
        (Some(v), false) => Verdict::Invalid(v),
        (None, true) if !ones.is_empty() => {
            return conditional(a, &either(&run.condition, &ones));
        }
        (None, _) => verdict_of(rule, None, &run.condition),
    };
    Outcome {
        shape: a.clone(),
        verdict,
    }
}

fn conditional(a: &Shape, c: &Condition) -> Outcome {
    Outcome {
        shape: a.clone(),
        verdict: verdict_of(Rule::Legacy, None, c),
    }
}

/// `run ∨ (all of ones)` in conjunctive form: one clause per (run clause, one) pair. Above 64
/// clauses, `run` alone (stricter, never wrongly valid).
fn either(run: &Condition, ones: &[Atom]) -> Condition {
    if run.is_true() {
        return Condition::truth();
    }
    if run.clauses().len().saturating_mul(ones.len()) > 64 {
        return run.clone();
    }
    let mut out = Condition::truth();
    for clause in run.clauses() {
        for one in ones {
            let atoms = clause.atoms().iter().cloned().chain([one.clone()]);
            out = out.and(&Condition::any_of(atoms));
        }
    }
    out
}

/// `OpenVINO` `pdpd` broadcasting (002): B (input 1) has rank <= A's; `axis = -1` means
/// `rank(A) - rank(B)` (B's rank before trimming); B's trailing 1s are dropped; the rest must
/// lie within A from `axis` on, each dim 1 or equal to A's. Output: A's shape. A dim of B
/// past A's end that is not 1 is a `RunOutOfRange` violation naming B's axis.
///
/// No ONNX operator uses it: the laws check it against its reference for when one does.
#[cfg(test)]
pub(crate) fn pdpd(a: &Shape, b: &Shape, axis: i64) -> Outcome {
    let rule = Rule::Pdpd;
    let (Some(ad), Some(bd)) = (a.dims(), b.dims()) else {
        return valid(a);
    };
    let Some(default) = ad.len().checked_sub(bd.len()) else {
        return invalid(a, rule, ViolationKind::RankTooHigh);
    };
    let start = match axis {
        -1 => default,
        k => match usize::try_from(k) {
            Ok(s) if s <= ad.len() => s,
            _ => return invalid(a, rule, ViolationKind::BadAxis),
        },
    };
    // Dropping B's trailing 1s and then fitting B in A is the same as: every dim of B past
    // A's end is 1 (those form a suffix of B, hence are dropped), and the dims inside A are
    // 1 or equal to A's. Stated that way it also holds for symbolic dims, which may be 1 only
    // at run time.
    let inside = ad.len().saturating_sub(start).min(bd.len());
    let (within, beyond) = bd.split_at(inside);
    let mut past_end = Condition::truth();
    for (i, d) in beyond.iter().enumerate() {
        let clause = match d {
            Dim::Unknown => continue,
            _ => Condition::any_of([Atom::IsOne(d.clone())]),
        };
        if clause.is_false() {
            let offender = Offender {
                input: 1,
                axis: inside + i,
                dim: d.clone(),
            };
            // Past A's end there is no output axis to name; the offender carries B's axis.
            let v = Violation {
                inputs: vec![offender],
                ..Violation::whole(rule, ViolationKind::RunOutOfRange)
            };
            return Outcome {
                shape: a.clone(),
                verdict: Verdict::Invalid(v),
            };
        }
        past_end = past_end.and(&clause);
    }
    let run = match_run(
        rule,
        ViolationKind::NotBroadcastable,
        (ad, within),
        start,
        true,
        &Allowance::unlimited(),
    );
    let condition = run.condition.and(&past_end);
    Outcome {
        shape: a.clone(),
        verdict: verdict_of(rule, run.violation, &condition),
    }
}

#[cfg(test)]
mod tests {
    use super::{legacy, pdpd};
    use crate::shape::broadcast::ViolationKind;
    use crate::shape::{Dim, Shape};

    #[test]
    fn legacy_ones_do_not_stretch() {
        let a = Shape::from_known(&[2, 3, 4, 5]);
        let o = legacy(&a, &Shape::from_known(&[1, 5]), true, None);
        assert_eq!(o.violation().unwrap().to_string(), "axis 2 is 4 vs 1");
        assert_eq!(o.violation().unwrap().kind, ViolationKind::RunMismatch);
    }

    #[test]
    fn legacy_without_broadcast_needs_equal_shapes() {
        let a = Shape::from_known(&[2, 3]);
        assert!(legacy(&a, &a, false, None).is_valid());
        let o = legacy(&a, &Shape::from_known(&[3]), false, None);
        assert_eq!(o.violation().unwrap().kind, ViolationKind::RankMismatch);
        let o = legacy(&a, &Shape::from_known(&[2, 1]), false, None);
        assert_eq!(o.violation().unwrap().to_string(), "axis 1 is 3 vs 1");
    }

    #[test]
    fn legacy_symbolic_b_may_be_single_element() {
        let a = Shape::from_known(&[2, 3]);
        let b = Shape::Ranked(vec![Dim::sym("n")]);
        let o = legacy(&a, &b, true, None);
        assert_eq!(o.condition().unwrap().to_string(), "n ∈ {1, 3}");
        let o = legacy(&a, &b, true, Some(0));
        assert_eq!(o.condition().unwrap().to_string(), "n ∈ {1, 2}");
        let b2 = Shape::Ranked(vec![Dim::sym("n"), Dim::known(7)]);
        assert!(legacy(&a, &b2, true, None).is_invalid());
    }

    #[test]
    fn legacy_bad_axis() {
        let a = Shape::from_known(&[2, 3]);
        let o = legacy(&a, &Shape::from_known(&[3]), true, Some(5));
        assert_eq!(o.violation().unwrap().kind, ViolationKind::BadAxis);
        let o = legacy(&a, &Shape::from_known(&[2]), true, Some(2));
        assert_eq!(o.violation().unwrap().kind, ViolationKind::RunOutOfRange);
    }

    /// Shrunk proptest failure (`pdpd_agrees`): B's last dim lies past A's end but is a
    /// symbol that may be 1, a trailing 1 that pdpd drops.
    #[test]
    fn pdpd_symbolic_trailing_dim_may_be_dropped() {
        let a = Shape::Ranked(vec![
            Dim::known(1),
            Dim::known(1),
            Dim::known(1),
            Dim::known(1),
            Dim::sym("b"),
        ]);
        let b = Shape::Ranked(vec![Dim::known(1), Dim::sym("a")]);
        let o = pdpd(&a, &b, 4);
        assert_eq!(o.condition().unwrap().to_string(), "a = 1");
        let past = pdpd(&a, &Shape::from_known(&[1, 3]), 4);
        assert_eq!(past.violation().unwrap().kind, ViolationKind::RunOutOfRange);
    }

    #[test]
    fn pdpd_rejects_clash_and_bad_axis() {
        let a = Shape::from_known(&[2, 3, 4, 5]);
        let o = pdpd(&a, &Shape::from_known(&[3, 5]), 1);
        assert_eq!(o.violation().unwrap().to_string(), "axis 2 is 4 vs 5");
        let o = pdpd(&a, &Shape::from_known(&[5]), -2);
        assert_eq!(o.violation().unwrap().kind, ViolationKind::BadAxis);
        let o = pdpd(&a, &Shape::from_known(&[4, 5]), 3);
        assert_eq!(o.violation().unwrap().kind, ViolationKind::RunOutOfRange);
    }
}
