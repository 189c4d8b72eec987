//! The per-axis rule of numpy-style broadcasting over any number of dims (one per input that
//! reaches the axis; prepended 1s are left out). Rows of the MLIR dimension-inference table
//! (000) plus symbolic dims:
//!
//! | dims on the axis (1s removed)     | output | verdict                                |
//! |-----------------------------------|--------|----------------------------------------|
//! | none                              | 1      | valid                                  |
//! | two different static sizes        | ?      | clash (SONNX E1)                       |
//! | one static `k`, symbols `e`, `?`s | `k`    | each `e ∈ {1, k}`; `?` checked at run  |
//! | only `?`s                         | ?      | valid (run-time check)                 |
//! | one expression `e` (repeated)     | `e`    | valid                                  |
//! | `e` and `?`s                      | ?      | valid (run-time check)                 |
//! | several expressions `e1..ek`      | ?  (1) | each pair `ei = ej ∨ ei = 1 ∨ ej = 1` (2) |
//!
//! (1) or `ei` when `ei = 1` provably forces every other `ej` to 1, since then every legal
//! binding gives `ei` (`sequence` with `min(sequence, 64)` gives `sequence`).
//!
//! (2) Every pair makes `k(k-1)/2` clauses: a variadic operator (`Sum`, `Max`...) of 480 inputs
//! with distinct symbolic dims, a 14 KB file, stated 115k of them and took 7.6 s (issue 19
//! hunt: no input may cost work out of proportion to its size). Past 16 expressions, the same
//! condition is stated in `k-1` clauses when one expression `h` can never be 1: each other
//! `e = h ∨ e = 1`. When every one may be 1, no smaller exact form exists in these atoms (a
//! subset of the pairs could prove the axis valid when it is not), so the axis is left to the
//! run-time check, as an unknown dim is: no finding rather than a wrong one.

use std::collections::HashSet;

use super::Offender;
use crate::shape::condition::{Atom, Conjunction};
#[cfg(test)]
use crate::shape::Shape;
use crate::shape::{Binding, Condition, Dim, Expr, Tri};

/// How one output axis of a numpy-style broadcast came about (STYLE: one arm per row of the
/// broadcasting table). Only `Conflict` is an error by itself; `Unproven` axes carry the
/// conditions or run-time checks of the `Outcome`.
///
/// The table's reference, checked by the worked examples below; the broadcast itself is decided
/// from the `Outcome`, so nothing else reads it.
#[cfg(test)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum AxisVerdict {
    /// Every input reaching the axis has the same size (or all are 1).
    Equal,
    /// Some inputs are 1 (or lack the axis) and are stretched to the one other size.
    Stretch,
    /// Two static sizes differ and neither is 1 (SONNX E1).
    Conflict,
    /// Symbolic or unknown sizes against something other than 1: holds only under a
    /// condition, or is checked at run time.
    Unproven,
}

/// The per-axis verdicts of `multidirectional(inputs)`, one per output axis (empty when no
/// input is ranked; unranked inputs are left out, as in the rule itself).
#[cfg(test)]
pub(crate) fn axis_verdicts(inputs: &[&Shape]) -> Vec<AxisVerdict> {
    let ranked: Vec<(usize, &[Dim])> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, s.dims()?)))
        .collect();
    let rank = ranked.iter().map(|(_, d)| d.len()).max().unwrap_or(0);
    (0..rank)
        .map(|axis| {
            let entries = entries(&ranked, rank, axis);
            let result = combine(&entries);
            let stretched =
                entries.len() < ranked.len() || entries.iter().any(|e| e.dim == Dim::Known(1));
            let sizes: Vec<&Dim> = entries
                .iter()
                .map(|e| &e.dim)
                .filter(|d| **d != Dim::Known(1))
                .collect();
            let unknowns = sizes.iter().filter(|d| ***d == Dim::Unknown).count();
            if result.clash.is_some() {
                AxisVerdict::Conflict
            } else if !result.condition.is_true() || (unknowns > 0 && sizes.len() > 1) {
                AxisVerdict::Unproven
            } else if stretched && !sizes.is_empty() {
                AxisVerdict::Stretch
            } else {
                AxisVerdict::Equal
            }
        })
        .collect()
}

/// The dims of the ranked inputs on output `axis`, right-aligned (prepended 1s left out).
pub(crate) fn entries(ranked: &[(usize, &[Dim])], rank: usize, axis: usize) -> Vec<AxisEntry> {
    ranked
        .iter()
        .filter_map(|(input, d)| {
            // Right alignment: input axis = output axis - (rank - input rank).
            let own = axis.checked_sub(rank.checked_sub(d.len())?)?;
            Some(AxisEntry {
                input: *input,
                axis: own,
                dim: d.get(own)?.clone(),
            })
        })
        .collect()
}

/// The output dim of `axis` when every input reaching it has the static 1 or one same dim (the
/// table's rows "none", "one static", "only `?`s" and "one expression"): no condition, no
/// clash. `None` for every other row, which [`combine`] decides. Most broadcasts of exported
/// models are this case; it needs no allocation.
pub(crate) fn agreeing(ranked: &[(usize, &[Dim])], rank: usize, axis: usize) -> Option<Dim> {
    let mut common: Option<&Dim> = None;
    for (_, dims) in ranked {
        let Some(own) = rank
            .checked_sub(dims.len())
            .and_then(|prepended| axis.checked_sub(prepended))
        else {
            continue;
        };
        let dim = dims.get(own)?;
        if *dim == Dim::Known(1) {
            continue;
        }
        match common {
            Some(seen) if seen != dim => return None,
            _ => common = Some(dim),
        }
    }
    Some(common.cloned().unwrap_or(Dim::Known(1)))
}

/// One input's dim on an output axis.
#[derive(Clone, Debug)]
pub(crate) struct AxisEntry {
    pub(crate) input: usize,
    pub(crate) axis: usize,
    pub(crate) dim: Dim,
}

/// Output dim, the condition this axis adds, and the inputs of a static clash.
pub(crate) struct AxisResult {
    pub(crate) dim: Dim,
    pub(crate) condition: Condition,
    pub(crate) clash: Option<Vec<Offender>>,
}

/// The entries whose dim is not the static 1, as offenders.
pub(crate) fn non_ones(entries: &[AxisEntry]) -> Vec<Offender> {
    entries
        .iter()
        .filter(|e| e.dim != Dim::Known(1))
        .map(Offender::from)
        .collect()
}

/// Whether some input brings a symbolic size to the axis: only then does [`combine`] state a
/// condition (see `allowance.rs`).
pub(crate) fn is_symbolic(entries: &[AxisEntry]) -> bool {
    entries.iter().any(|e| matches!(e.dim, Dim::Sym(_)))
}

/// The axis decided from its static sizes alone, stating no condition (past the run's
/// `broadcast-work`): two different static sizes are the clash [`combine`] finds; one static
/// size `k` is the output, as there (each symbolic size must be 1 or `k`, which is left
/// unstated); otherwise the dim is unknown, never a guess.
pub(crate) fn statics_only(entries: &[AxisEntry]) -> AxisResult {
    let mut statics: Vec<i64> = Vec::new();
    for e in entries {
        if let Dim::Known(v) = e.dim {
            if v != 1 && !statics.contains(&v) {
                statics.push(v);
            }
        }
    }
    let (dim, clash) = match statics.as_slice() {
        [] => (Dim::Unknown, None),
        [k] => (Dim::Known(*k), None),
        _ => (
            Dim::Unknown,
            Some(
                entries
                    .iter()
                    .filter(|e| matches!(e.dim, Dim::Known(v) if v != 1))
                    .map(Offender::from)
                    .collect(),
            ),
        ),
    };
    AxisResult {
        dim,
        condition: Condition::truth(),
        clash,
    }
}

pub(crate) fn combine(entries: &[AxisEntry]) -> AxisResult {
    combine_given(entries, |_| true)
}

/// [`combine`], where only the inputs for which `existing` holds are tensors (Expand's target
/// is a value: its elements are not sizes of anything that exists, and may be negative).
pub(crate) fn combine_given(entries: &[AxisEntry], existing: impl Fn(usize) -> bool) -> AxisResult {
    let mut statics: Vec<i64> = Vec::new();
    let mut exprs: Vec<Expr> = Vec::new();
    // Beside `exprs`, which keeps their order: a variadic operator may bring thousands.
    let mut seen: HashSet<&Expr> = HashSet::new();
    // The sizes of tensors among them, each once (see `given_existing`).
    let mut facts: Vec<Expr> = Vec::new();
    let mut facts_seen: HashSet<&Expr> = HashSet::new();
    let mut unknown = false;
    for e in entries {
        if let (Dim::Sym(x), true) = (&e.dim, existing(e.input)) {
            if facts_seen.insert(x) {
                facts.push(x.clone());
            }
        }
        match &e.dim {
            Dim::Known(1) => {}
            Dim::Known(v) => {
                if !statics.contains(v) {
                    statics.push(*v);
                }
            }
            Dim::Sym(x) => {
                if seen.insert(x) {
                    exprs.push(x.clone());
                }
            }
            Dim::Unknown => unknown = true,
        }
    }
    let exprs = given_existing(exprs, &facts);
    // Pair by pair: a variadic operator's many symbolic dims make many clauses (issue 19 hunt).
    let mut condition = Conjunction::default();
    match statics.as_slice() {
        [] => {}
        [k] => {
            for x in &exprs {
                let d = Dim::Sym(x.clone());
                let clause =
                    Condition::any_of([Atom::Eq(d.clone(), Dim::Known(*k)), Atom::IsOne(d)]);
                condition.and(&clause);
            }
            return AxisResult {
                dim: Dim::Known(*k),
                condition: condition.finish(),
                clash: None,
            };
        }
        _ => {
            let clash = entries
                .iter()
                .filter(|e| matches!(e.dim, Dim::Known(v) if v != 1))
                .map(Offender::from)
                .collect();
            return AxisResult {
                dim: Dim::Unknown,
                condition: condition.finish(),
                clash: Some(clash),
            };
        }
    }
    // What each size's being 1 says, for the pairs and for the output dim.
    let when: Vec<WhenOne> = if exprs.len() > 1 {
        exprs
            .iter()
            .map(|e| when_one(&Dim::Sym(e.clone())))
            .collect()
    } else {
        Vec::new()
    };
    for (a, b) in pairs(&exprs, &when).unwrap_or_default() {
        let (a, b) = (Dim::Sym(a.clone()), Dim::Sym(b.clone()));
        let clause = Condition::any_of([
            Atom::Eq(a.clone(), b.clone()),
            Atom::IsOne(a),
            Atom::IsOne(b),
        ]);
        condition.and(&clause);
    }
    let condition = condition.finish();
    let dim = match (exprs.as_slice(), unknown) {
        ([], false) => Dim::Known(1),
        ([x], false) => Dim::Sym(x.clone()),
        (_, false) => dominant(&exprs, &when).map_or(Dim::Unknown, |x| Dim::Sym(x.clone())),
        _ => Dim::Unknown,
    };
    AxisResult {
        dim,
        condition,
        clash: None,
    }
}

/// The axis's expressions simplified under the fact that each of `facts` (the sizes of the
/// input tensors among them) is `>= 0` (issue 38, item 2).
///
/// Why that is a fact: such an entry is the size of an input tensor of the node, and the
/// verdict and output only matter where the node runs, that is where its inputs exist; a size
/// is never negative. So at every such binding each `e >= 0`, and `Expr::given_nonneg` may
/// resolve a `min`/`max` against them: wav2vec2's `samples/5-1` beside `max(samples/5-1, 0)`
/// (the same sizes sliced) is one expression, `samples/5-1`, and the axis is exact, where
/// alone the `max` must stay (at `samples < 5` the first tensor cannot exist, the second
/// would be empty). An element of Expand's target is no such size: `n-5` there is negative at
/// `n < 5` (and the Expand fails), so it is no fact, though it is simplified by the others.
/// Duplicates made by the rewrite are dropped, first kept.
fn given_existing(exprs: Vec<Expr>, facts: &[Expr]) -> Vec<Expr> {
    if exprs.len() < 2 || facts.is_empty() {
        return exprs;
    }
    let mut seen: HashSet<Expr> = HashSet::new();
    let mut out = Vec::with_capacity(exprs.len());
    for e in &exprs {
        let simple = e.given_nonneg(facts).unwrap_or_else(|| e.clone());
        if seen.insert(simple.clone()) {
            out.push(simple);
        }
    }
    out
}

/// Distinct expressions on one axis up to which every pair is required (`k(k-1)/2` clauses).
const PAIRED_EXPRS: usize = crate::limits::PAIRED_EXPRS;

/// The pairs of `exprs` whose agreement the axis requires, exactly (2): every pair up to
/// [`PAIRED_EXPRS`] expressions; past it, each one with an expression that can never be 1 (the
/// hub: when two sizes other than 1 must both equal it, they equal each other). `None` past
/// it when every expression may be 1: the axis is then left to the run-time check, as an
/// unknown dim is.
fn pairs<'e>(exprs: &'e [Expr], when: &[WhenOne]) -> Option<Vec<(&'e Expr, &'e Expr)>> {
    if exprs.len() <= PAIRED_EXPRS {
        let all = exprs
            .iter()
            .enumerate()
            .flat_map(|(i, a)| exprs.iter().skip(i + 1).map(move |b| (a, b)));
        return Some(all.collect());
    }
    let (hub, _) = exprs
        .iter()
        .zip(when)
        .find(|(_, when)| matches!(when, WhenOne::Never))?;
    Some(
        exprs
            .iter()
            .filter(|e| *e != hub)
            .map(|e| (hub, e))
            .collect(),
    )
}

/// The expression that is the output of every legal broadcast of `exprs` on one axis, if any.
///
/// When the broadcast is legal, the non-1 sizes all agree, so the output is `e` when `e` is not
/// 1, and the common value of the others when `e` is 1. The output is therefore `e` for every
/// legal binding exactly when `e = 1` forces every other size to 1 (`sequence` against
/// `min(sequence, 64)`: at `sequence = 1` both are 1). Proven, never guessed: see
/// [`one_forces_one`]. When several qualify they are equal at every legal binding; the least in
/// canonical order is taken so the result does not depend on the order of the inputs.
fn dominant<'e>(exprs: &'e [Expr], when: &[WhenOne]) -> Option<&'e Expr> {
    // A size that is never 1 qualifies, and is 1 under no binding another size's being 1
    // pins, so no other size qualifies beside it: then the answer is the least of those, found
    // without a pass over the others for each (quadratic for thousands of inputs).
    let never = exprs
        .iter()
        .zip(when)
        .filter(|(_, when)| matches!(when, WhenOne::Never))
        .map(|(e, _)| e)
        .min();
    if never.is_some() || exprs.len() > PAIRED_EXPRS {
        // Past the bound with no such size, the axis is left to run time (2): unknown.
        return never;
    }
    exprs
        .iter()
        .zip(when)
        .enumerate()
        .filter(|(i, (_, when))| {
            exprs
                .iter()
                .enumerate()
                .filter(|(j, _)| j != i)
                .all(|(_, other)| one_forces_one(when, &Dim::Sym(other.clone())))
        })
        .map(|(_, (e, _))| e)
        .min()
}

/// What `a = 1` says of the (non-negative) symbols.
enum WhenOne {
    /// `a` is never 1.
    Never,
    /// `a` is linear in one symbol (`c*s + d`), and `a = 1` pins it to this value.
    Pins(String, i64),
    /// Nothing that is proven.
    Unknown,
}

fn when_one(a: &Dim) -> WhenOne {
    if a.is_one() == Tri::No {
        return WhenOne::Never;
    }
    let Some((symbol, coef, offset)) = a.to_expr().and_then(|e| {
        e.as_linear_in_one_symbol()
            .map(|(name, coef, offset)| (name.to_owned(), coef, offset))
    }) else {
        return WhenOne::Unknown;
    };
    // coef*symbol + offset = 1  <=>  symbol = (1 - offset) / coef, a non-negative integer.
    let Some(num) = 1i64.checked_sub(offset) else {
        return WhenOne::Unknown;
    };
    if coef == 0 || num.checked_rem(coef) != Some(0) {
        return WhenOne::Never;
    }
    match num.checked_div(coef) {
        Some(value) if value >= 0 => WhenOne::Pins(symbol, value),
        Some(_) => WhenOne::Never,
        None => WhenOne::Unknown,
    }
}

/// Whether `a = 1` (what [`when_one`] says of it) implies `b = 1` for every binding of the
/// symbols: `a` can never be 1, or the value it pins its symbol to makes `b` 1.
fn one_forces_one(a: &WhenOne, b: &Dim) -> bool {
    match a {
        WhenOne::Never => true,
        WhenOne::Pins(symbol, value) => {
            let binding = Binding::from([(symbol.clone(), *value)]);
            b.substitute(&binding).is_one() == Tri::Yes
        }
        WhenOne::Unknown => false,
    }
}

impl From<&AxisEntry> for Offender {
    fn from(e: &AxisEntry) -> Offender {
        Offender {
            input: e.input,
            axis: e.axis,
            dim: e.dim.clone(),
        }
    }
}

#[cfg(test)]
mod agreeing_tests {
    use super::*;

    /// The shortcut must say what the full rule says whenever it answers.
    #[test]
    fn agrees_with_combine_whenever_it_answers() {
        let n = Dim::sym("n");
        let dims = [
            Dim::Known(1),
            Dim::Known(3),
            Dim::Known(4),
            n.clone(),
            Dim::Unknown,
        ];
        for a in &dims {
            for b in &dims {
                for rank_a in 1..=2usize {
                    let x: Vec<Dim> = vec![a.clone(); rank_a];
                    let y: Vec<Dim> = vec![b.clone()];
                    let ranked: Vec<(usize, &[Dim])> = vec![(0, &x), (1, &y)];
                    for axis in 0..rank_a {
                        let full = combine(&entries(&ranked, rank_a, axis));
                        if let Some(dim) = agreeing(&ranked, rank_a, axis) {
                            assert_eq!(dim, full.dim, "{a:?} {b:?} axis {axis}");
                            assert!(full.condition.is_true() && full.clash.is_none());
                        }
                    }
                }
            }
        }
        let x = [n.clone(), Dim::Known(1)];
        let y = [Dim::Known(3)];
        let ranked: Vec<(usize, &[Dim])> = vec![(0, &x), (1, &y)];
        assert_eq!(agreeing(&ranked, 2, 0), Some(n));
        assert_eq!(agreeing(&ranked, 2, 1), Some(Dim::Known(3)));
        let z = [Dim::Unknown];
        let ranked: Vec<(usize, &[Dim])> = vec![(0, &y), (1, &z)];
        assert_eq!(agreeing(&ranked, 1, 0), None);
    }
}

#[cfg(test)]
mod tests {
    use super::{axis_verdicts, pairs, when_one, AxisVerdict::*, PAIRED_EXPRS};
    use crate::shape::{Dim, Expr, Shape, Tri};

    #[test]
    fn every_pair_up_to_the_bound_then_each_with_one_never_1() {
        let names = |dims: &[Dim]| -> Option<Vec<(String, String)>> {
            let exprs: Vec<Expr> = dims.iter().filter_map(Dim::to_expr).collect();
            let when: Vec<_> = dims.iter().map(when_one).collect();
            let pairs = pairs(&exprs, &when)?;
            Some(
                pairs
                    .into_iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect(),
            )
        };
        let symbols =
            |n: usize| -> Vec<Dim> { (0..n).map(|i| Dim::sym(&format!("d{i}"))).collect() };
        let three = names(&symbols(3)).unwrap();
        let want = [("d0", "d1"), ("d0", "d2"), ("d1", "d2")].map(|(a, b)| (a.into(), b.into()));
        assert_eq!(three, want);
        let bound = names(&symbols(PAIRED_EXPRS)).unwrap();
        assert_eq!(bound.len(), PAIRED_EXPRS * (PAIRED_EXPRS - 1) / 2);
        // Past the bound, every size may be 1: no exact small form, left to run time.
        assert_eq!(names(&symbols(PAIRED_EXPRS + 1)), None);
        // `h+2` is never 1: every other size meets it.
        let mut dims = symbols(40);
        dims.insert(7, Dim::sym("h").add(&Dim::known(2)));
        let hub = names(&dims).unwrap();
        assert_eq!(hub.len(), 40);
        assert!(hub.iter().all(|(a, _)| a == "h+2"));
        assert_eq!(hub.first().map(|(_, b)| b.as_str()), Some("d0"));
        assert_eq!(hub.last().map(|(_, b)| b.as_str()), Some("d39"));
    }

    /// Regression (review): past the bound, a pair left out made a never-satisfiable axis a
    /// W1 (`x+2` against `x+3` among 19 sizes); the hub keeps it an error.
    #[test]
    fn sizes_that_never_agree_past_the_bound_still_clash() {
        let (x, y) = (Dim::sym("x"), Dim::sym("y"));
        let mut dims: Vec<Dim> = (0..16).map(|i| Dim::sym(&format!("a{i}"))).collect();
        dims.extend([x.add(&Dim::known(2)), y, x.add(&Dim::known(3))]);
        let shapes: Vec<Shape> = dims.into_iter().map(|d| Shape::Ranked(vec![d])).collect();
        let refs: Vec<&Shape> = shapes.iter().collect();
        let outcome = super::super::multidirectional(&refs);
        assert!(outcome.violation().is_some(), "{:?}", outcome.verdict);
    }

    #[test]
    fn one_arm_per_table_row() {
        let a = Shape::Ranked(vec![
            Dim::known(2),
            Dim::known(1),
            Dim::known(3),
            Dim::sym("n"),
            Dim::sym("n"),
            Dim::Unknown,
        ]);
        let b = Shape::Ranked(vec![
            Dim::known(2),
            Dim::known(4),
            Dim::known(5),
            Dim::known(3),
            Dim::sym("n"),
            Dim::known(1),
        ]);
        let got = axis_verdicts(&[&a, &b]);
        assert_eq!(
            got,
            vec![Equal, Stretch, Conflict, Unproven, Equal, Stretch]
        );
        let unknowns = Shape::Ranked(vec![Dim::Unknown]);
        assert_eq!(axis_verdicts(&[&unknowns, &unknowns]), vec![Unproven]);
        let short = Shape::from_known(&[3]);
        assert_eq!(
            axis_verdicts(&[&Shape::from_known(&[2, 3]), &short]),
            vec![Stretch, Equal]
        );
        assert!(axis_verdicts(&[&Shape::Unranked]).is_empty());
    }

    /// The line of issue 38 item 2: the size of a tensor that exists is a fact `>= 0`, an
    /// element of Expand's target is not. `x[5:]` of `[n]` is `max(n-5, 0)`; against a tensor
    /// of `n-5` the two are one size, but against a target `n-5` (negative at `n < 5`, where
    /// the Expand fails) they are not, and the broadcast holds only if `n >= 5`.
    #[test]
    fn only_sizes_of_tensors_are_facts() {
        let n = Dim::sym("n");
        let short = n.sub(&Dim::known(5));
        let sliced = Shape::Ranked(vec![short.max(&Dim::known(0))]);
        let tensor = Shape::Ranked(vec![short.clone()]);
        let both = crate::shape::broadcast::multidirectional(&[&sliced, &tensor]);
        assert!(both.is_valid(), "{:?}", both.verdict);
        assert_eq!(both.shape, tensor);
        let expand = crate::shape::broadcast::bidirectional(&sliced, &tensor);
        let condition = expand.condition().expect("conditional");
        for v in 0..12 {
            let b = [("n".to_string(), v)].into_iter().collect();
            assert_eq!(condition.eval(&b), Tri::from_bool(v >= 5), "n = {v}");
        }
        // The target's `n-5` is still simplified by the input's facts: an input of `n-5`
        // makes a target `max(n-5, 0)` that size.
        let target = Shape::Ranked(vec![short.max(&Dim::known(0))]);
        let exact = crate::shape::broadcast::bidirectional(&tensor, &target);
        assert!(exact.is_valid(), "{:?}", exact.verdict);
    }

    fn sizes(a: &Dim, b: &Dim) -> String {
        let (x, y) = (
            Shape::Ranked(vec![a.clone()]),
            Shape::Ranked(vec![b.clone()]),
        );
        let ab = crate::shape::broadcast::multidirectional(&[&x, &y]).shape;
        let ba = crate::shape::broadcast::multidirectional(&[&y, &x]).shape;
        assert_eq!(ab, ba, "order matters for {a} vs {b}");
        ab.to_string()
    }

    #[test]
    fn symbol_against_its_clamp_is_the_symbol() {
        // BERT's position ids: `sequence` tokens against `min(sequence, 64)` positions. At
        // sequence = 1 both are 1; otherwise legal only when they are equal.
        let seq = Dim::sym("sequence");
        assert_eq!(sizes(&seq, &seq.min(&Dim::known(64))), "[sequence]");
    }

    #[test]
    fn never_one_side_is_the_output() {
        // 2*n is never 1: legal only when n = 1 (output 2 = 2*n) or 2*n = n (n = 0).
        let n = Dim::sym("n");
        assert_eq!(sizes(&n, &n.mul(&Dim::known(2))), "[2*n]");
    }

    #[test]
    fn unrelated_symbols_stay_unknown() {
        assert_eq!(sizes(&Dim::sym("n"), &Dim::sym("m")), "[?]");
        // min(n, m) is 1 at n = 1 only when m >= 1, which m = 0 breaks.
        let n = Dim::sym("n");
        assert_eq!(sizes(&n, &n.min(&Dim::sym("m"))), "[?]");
        // n + 1 is 1 at n = 0, where n is not 1; n is 1 where n + 1 is not.
        assert_eq!(sizes(&n, &n.add(&Dim::known(1))), "[?]");
        assert_eq!(sizes(&n, &Dim::Unknown), "[?]");
    }

    #[test]
    fn size_against_its_clamp_at_zero_is_the_size() {
        // wav2vec2's positional convolution: `samples/5-1` against `max(samples/5-1, 0)`. Both
        // are sizes of tensors that exist, so the first is >= 0 and the clamp is the same size.
        let x = Dim::sym("samples")
            .floor_div(&Dim::known(5))
            .sub(&Dim::known(1));
        let clamp = x.max(&Dim::known(0));
        assert_eq!(sizes(&x, &clamp), "[samples/5-1]");
        let shapes = [Shape::Ranked(vec![x.clone()]), Shape::Ranked(vec![clamp])];
        let outcome = crate::shape::broadcast::multidirectional(&[&shapes[0], &shapes[1]]);
        assert!(outcome.is_valid(), "{:?}", outcome.verdict);
        // One less is not the same size: still a condition.
        let lower = x.sub(&Dim::known(1)).max(&Dim::known(0));
        assert_eq!(sizes(&x, &lower), "[?]");
    }
}
