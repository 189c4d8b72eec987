//! Atoms and monomials of `Expr`: sizes for the bounds, non-negativity, evaluation,
//! substitution and multiplication.

use std::collections::BTreeMap;

use super::{Atom, Expr, Mono, MAX_DEGREE};
use crate::shape::Binding;

impl Atom {
    pub(super) fn size(&self) -> usize {
        match self {
            Atom::Sym(_) => 1,
            Atom::FloorDiv(e, _) | Atom::Mod(e, _) => 1 + e.size(),
            Atom::Min(a, b) | Atom::Max(a, b) => 1 + a.size() + b.size(),
        }
    }

    /// Whether the atom is provably >= 0 (symbols denote non-negative sizes).
    pub(super) fn nonneg(&self) -> bool {
        match self {
            Atom::Sym(_) | Atom::Mod(..) => true,
            Atom::FloorDiv(e, _) => e.lower_bound().is_some_and(|c| c >= 0),
            Atom::Min(a, b) => a.is_nonneg() && b.is_nonneg(),
            Atom::Max(a, b) => a.is_nonneg() || b.is_nonneg(),
        }
    }

    /// Whether the atom is provably non-decreasing in every symbol.
    pub(super) fn monotone(&self) -> bool {
        match self {
            Atom::Sym(_) => true,
            Atom::FloorDiv(e, _) => e.is_monotone(),
            Atom::Mod(..) => false,
            Atom::Min(a, b) | Atom::Max(a, b) => a.is_monotone() && b.is_monotone(),
        }
    }

    pub(super) fn eval(&self, binding: &Binding) -> Option<i64> {
        match self {
            Atom::Sym(name) => binding.get(name.as_ref()).copied(),
            Atom::FloorDiv(e, k) => e.eval(binding)?.checked_div_euclid(*k),
            Atom::Mod(e, k) => e.eval(binding)?.checked_rem_euclid(*k),
            Atom::Min(a, b) => Some(a.eval(binding)?.min(b.eval(binding)?)),
            Atom::Max(a, b) => Some(a.eval(binding)?.max(b.eval(binding)?)),
        }
    }

    /// The atom with bound symbols replaced, renormalised.
    pub(super) fn substitute(&self, binding: &Binding) -> Option<Expr> {
        match self {
            Atom::Sym(name) => Some(match binding.get(name.as_ref()) {
                Some(v) => Expr::constant(*v),
                None => Expr::symbol(name),
            }),
            Atom::FloorDiv(e, k) => e.substitute(binding)?.floor_div(*k),
            Atom::Mod(e, k) => e.substitute(binding)?.modulo(*k),
            Atom::Min(a, b) => a.substitute(binding)?.minimum(&b.substitute(binding)?),
            Atom::Max(a, b) => a.substitute(binding)?.maximum(&b.substitute(binding)?),
        }
    }
}

impl Mono {
    pub(super) fn one() -> Mono {
        Mono(Vec::new())
    }

    pub(super) fn degree(&self) -> u32 {
        self.0.iter().map(|(_, p)| *p).sum()
    }

    pub(super) fn nonneg(&self) -> bool {
        self.0.iter().all(|(a, p)| p % 2 == 0 || a.nonneg())
    }

    /// Whether the product is non-decreasing: one non-decreasing factor, or several that are
    /// also non-negative.
    pub(super) fn monotone(&self) -> bool {
        match self.0.as_slice() {
            [(atom, 1)] => atom.monotone(),
            factors => factors.iter().all(|(a, _)| a.monotone() && a.nonneg()),
        }
    }

    pub(super) fn mul(&self, other: &Mono) -> Option<Mono> {
        let mut map: BTreeMap<Atom, u32> = self.0.iter().cloned().collect();
        for (a, p) in &other.0 {
            let slot = map.entry(a.clone()).or_insert(0);
            *slot = slot.checked_add(*p)?;
        }
        let m = Mono(map.into_iter().collect());
        (m.degree() <= MAX_DEGREE).then_some(m)
    }

    pub(super) fn eval(&self, binding: &Binding) -> Option<i64> {
        self.0.iter().try_fold(1i64, |acc, (a, p)| {
            acc.checked_mul(a.eval(binding)?.checked_pow(*p)?)
        })
    }

    /// The atom when the monomial is a single atom to the first power.
    pub(super) fn single(&self) -> Option<&Atom> {
        match self.0.as_slice() {
            [(a, 1)] => Some(a),
            _ => None,
        }
    }
}
