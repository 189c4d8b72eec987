//! Candidate values for the bounded search (see `search.rs` for why they suffice in the
//! equality fragment), and the fragment itself.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::search::BUDGET;
use super::{Atom, Condition};
use crate::shape::Dim;

/// The values to try for each symbol.
pub(super) struct Space {
    pub(super) names: Vec<String>,
    /// Each symbol's candidates, in the order tried; symbols with the same candidates share
    /// one list.
    pub(super) values: Vec<Rc<[i64]>>,
    pub(super) fresh: BTreeSet<i64>,
    /// Trying every assignment decides the condition (equality fragment, within budget).
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
    values.sort_by_key(|v| (*v < 2, if *v < 2 { -*v } else { *v }));
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
        let values: Vec<Rc<[i64]>> = names
            .iter()
            .map(|n| match per_symbol.get(n) {
                None => Rc::clone(&shared),
                Some(roots) => {
                    let mut v: BTreeSet<i64> = common.union(&fresh).copied().collect();
                    v.extend(roots);
                    let mut v: Vec<i64> = v.into_iter().collect();
                    nice_order(&mut v);
                    v.into()
                }
            })
            .collect();
        let total = values
            .iter()
            .try_fold(1usize, |acc, v| acc.checked_mul(v.len()));
        Space {
            names,
            values,
            fresh,
            decisive: fragment && total.is_some_and(|t| t <= BUDGET),
        }
    }

    /// The clauses inside the equality fragment: implied by the condition, and decidable.
    pub(super) fn core(&self) -> Condition {
        Condition {
            clauses: self
                .clauses
                .iter()
                .filter(|c| c.0.iter().all(in_fragment))
                .cloned()
                .collect(),
        }
    }
}
