//! Candidate values for the bounded search (see `search.rs` for why they suffice in the
//! equality fragment), and the fragment itself.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::{Atom, Condition};
use crate::shape::Dim;

/// Most assignments tried by one search.
pub(super) const BUDGET: usize = crate::limits::SEARCH_TRIES;

/// Most atom evaluations of one pass of a search that cannot decide its condition anyway (see
/// `Space::tries`): each assignment evaluates every atom, so a condition of more than 64 atoms
/// gets fewer than [`BUDGET`] tries. A `Sum` of 2,000 inputs with symbolic dims states 1,999
/// clauses, and each search over them took a second (issue 19 hunt); fewer tries can only turn
/// a witness or a counterexample into none found, never into a wrong answer.
pub(super) const WORK: usize = crate::limits::SEARCH_WORK;

/// The values to try for each symbol.
pub(super) struct Space {
    pub(super) names: Vec<String>,
    /// Each symbol's candidates, in the order tried; symbols with the same candidates share
    /// one list.
    pub(super) values: Vec<Rc<[i64]>>,
    pub(super) fresh: BTreeSet<i64>,
    /// How many assignments a search tries: [`BUDGET`] when that decides the condition, else
    /// fewer for a condition of more than [`WORK`]` / BUDGET` atoms, so that each pass of a
    /// search costs at most `WORK` atom evaluations.
    pub(super) tries: usize,
    /// Trying every assignment decides the condition (equality fragment, within `BUDGET`).
    pub(super) decisive: bool,
}

fn is_plain_symbol(d: &Dim) -> bool {
    matches!(d, Dim::Sym(e) if e.as_symbol().is_some())
}

fn in_fragment(atom: &Atom) -> bool {
    match atom {
        Atom::IsOne(a) => is_plain_symbol(a),
        Atom::Eq(a, b) => is_plain_symbol(a) && (is_plain_symbol(b) || matches!(b, Dim::Known(_))),
    }
}

fn literals(d: &Dim) -> BTreeSet<i64> {
    match d {
        Dim::Known(v) => BTreeSet::from([*v]),
        Dim::Sym(e) => e.literals(),
        Dim::Unknown => BTreeSet::new(),
    }
}

/// Nice-first order for counterexamples: 2, 3, ... then 1, then 0.
fn nice_order(values: &mut [i64]) {
    values.sort_by_key(|v| nice_key(*v));
}

fn nice_key(v: i64) -> (bool, i64) {
    (v < 2, if v < 2 { -v } else { v })
}

/// The first `take` values of two lists in nice order, merged in that order.
fn merged(a: &[i64], b: &[i64], take: usize) -> Vec<i64> {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    let mut out = Vec::with_capacity(take.min(a.len().saturating_add(b.len())));
    while out.len() < take {
        let next = match (a.peek(), b.peek()) {
            (Some(&&x), Some(&&y)) if nice_key(y) < nice_key(x) => b.next(),
            (Some(_), _) => a.next(),
            (None, _) => b.next(),
        };
        let Some(&v) = next else { break };
        out.push(v);
    }
    out
}

impl Condition {
    pub(super) fn space(&self) -> Space {
        let names: Vec<String> = self.symbols().into_iter().collect();
        let fragment = self.atoms().all(in_fragment);
        let mut consts: BTreeSet<i64> = BTreeSet::from([1]);
        for atom in self.atoms() {
            for d in atom.dims() {
                consts.extend(literals(d));
            }
        }
        let mut common: BTreeSet<i64> = consts.iter().copied().filter(|v| *v >= 0).collect();
        let mut per_symbol: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
        if !fragment {
            common.extend([0, 1, 2]);
            for c in &consts {
                common.extend(
                    [c.saturating_sub(1), c.saturating_add(1)]
                        .into_iter()
                        .filter(|v| *v >= 0),
                );
            }
            for atom in self.atoms() {
                let (a, b) = match atom {
                    Atom::Eq(a, b) => (a.clone(), b.clone()),
                    Atom::IsOne(a) => (a.clone(), Dim::Known(1)),
                };
                if let Some(d) = a.sub(&b).to_expr() {
                    if let Some((s, k, c)) = d.as_linear_in_one_symbol() {
                        // a*s + c = 0 at s = -c/a, when that is a non-negative integer.
                        let root = c.checked_neg().and_then(|n| {
                            (n.checked_rem(k) == Some(0))
                                .then(|| n.checked_div(k))
                                .flatten()
                        });
                        if let Some(v) = root.filter(|v| *v >= 0) {
                            per_symbol.entry(s.to_string()).or_default().insert(v);
                        }
                    }
                }
            }
        }
        let base = consts
            .iter()
            .copied()
            .max()
            .unwrap_or(1)
            .max(1)
            .saturating_add(1);
        let fresh: BTreeSet<i64> = (0..names.len())
            .filter_map(|i| base.checked_add(i64::try_from(i).ok()?))
            .collect();
        // The candidates every symbol shares, ordered once: a condition over a thousand
        // symbols has a thousand fresh values, and ordering them again for each symbol was
        // quadratic in the rank of a broadcast (0.6 s for one `Add` of rank 1000).
        let mut shared: Vec<i64> = common.union(&fresh).copied().collect();
        nice_order(&mut shared);
        let shared: Rc<[i64]> = shared.into();
        // A symbol with roots of its own has them merged into the shared list.
        let own: Vec<Option<Vec<i64>>> = names
            .iter()
            .map(|n| {
                let roots = per_symbol.get(n)?;
                let mut own: Vec<i64> = roots
                    .iter()
                    .copied()
                    .filter(|v| !common.contains(v) && !fresh.contains(v))
                    .collect();
                nice_order(&mut own);
                Some(own)
            })
            .collect();
        let total = own.iter().try_fold(1usize, |acc, own| {
            acc.checked_mul(
                shared
                    .len()
                    .saturating_add(own.as_ref().map_or(0, Vec::len)),
            )
        });
        let decisive = fragment && total.is_some_and(|t| t <= BUDGET);
        let tries = if decisive {
            BUDGET
        } else {
            BUDGET.min(WORK / self.atoms().count().max(1)).max(1)
        };
        // Only the first `tries` candidates of a symbol can be reached (the search is an
        // odometer of `tries` steps), so only those are kept: with a full list per symbol, a
        // condition over thousands of symbols was quadratic in time and memory (issue 19
        // hunt: 20,000 symbols, 3.9 GB). A decisive space is never cut: it is `BUDGET` long at
        // most.
        let values: Vec<Rc<[i64]>> = own
            .into_iter()
            .map(|own| match own {
                None => Rc::clone(&shared),
                Some(own) => merged(&shared, &own, tries).into(),
            })
            .collect();
        Space {
            names,
            values,
            fresh,
            tries,
            decisive,
        }
    }

    /// The clauses inside the equality fragment: implied by the condition, and decidable.
    pub(super) fn core(&self) -> Condition {
        Condition::of(
            self.clauses
                .iter()
                .filter(|c| c.0.iter().all(in_fragment))
                .cloned()
                .collect(),
        )
    }
}
