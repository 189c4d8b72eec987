//! Canonical integer expressions over dim symbols (`Expr`): a sum of integer-coefficient
//! monomials over atoms, where an atom is a symbol or an opaque `floor(e/k)`, `e mod k`,
//! `min(a, b)` or `max(a, b)` over canonical sub-expressions. Equal polynomials built in
//! different orders get the same representation, so `==` is structural.
//!
//! Sizes are bounded (`MAX_TERMS`, `MAX_SIZE`, `MAX_DEGREE`) so a hostile model cannot blow up
//! the algebra: an operation whose result would exceed them returns `None` (the caller turns
//! that into `Dim::Unknown`). Coefficients use checked `i64` arithmetic for the same reason.

mod assume;
mod display;
mod div;
mod exact;
mod facts;
#[cfg(test)]
mod laws;
mod period;
mod term;

pub(crate) use period::{MAX_PERIOD, MAX_START};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::Binding;

/// Most monomials an expression may hold.
pub(crate) const MAX_TERMS: usize = crate::limits::EXPR_TERMS;
/// Most nodes (terms plus atoms, counted through nested atoms) an expression may hold.
pub(crate) const MAX_SIZE: usize = crate::limits::EXPR_SIZE;
/// Highest total degree of a monomial.
pub(crate) const MAX_DEGREE: u32 = crate::limits::EXPR_DEGREE;

/// A canonical integer expression; cheap to clone (shared) and to hash (the hash of its terms
/// is computed once, when it is made).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Expr(Arc<Inner>);

#[derive(PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Inner {
    /// Sorted by monomial, no zero coefficient; the constant is the empty monomial (first).
    terms: Vec<(Mono, i64)>,
    size: usize,
    /// [`terms_hash`] of `terms`: a function of them, so equal expressions have equal hashes
    /// (and it changes no comparison, coming last). Inference stores shapes through a table
    /// (issue 19): hashing each symbol's terms again at every value dominated it.
    hash: u64,
}

/// A fixed function of an expression's terms (a nested expression contributes its own
/// `hash`), for [`Inner::hash`].
fn terms_hash(terms: &[(Mono, i64)]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(terms)
}

impl std::hash::Hash for Expr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}

impl Inner {
    fn new(terms: Vec<(Mono, i64)>, size: usize) -> Inner {
        let hash = terms_hash(&terms);
        Inner { terms, size, hash }
    }
}

/// A product of atoms with positive powers, sorted by atom; empty means the constant 1.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(super) struct Mono(Vec<(Atom, u32)>);

/// An indivisible factor. Divisors are always > 0 (normalised in `div.rs`).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(super) enum Atom {
    Sym(Arc<str>),
    FloorDiv(Expr, i64),
    Mod(Expr, i64),
    Min(Expr, Expr),
    Max(Expr, Expr),
}

impl Expr {
    /// Builds the canonical form from (monomial, coefficient) pairs; `None` when too big.
    fn from_terms(terms: impl IntoIterator<Item = (Mono, i64)>) -> Option<Expr> {
        let mut map: BTreeMap<Mono, i64> = BTreeMap::new();
        for (m, c) in terms {
            let slot = map.entry(m).or_insert(0);
            *slot = slot.checked_add(c)?;
        }
        let terms: Vec<(Mono, i64)> = map.into_iter().filter(|(_, c)| *c != 0).collect();
        if terms.len() > MAX_TERMS {
            return None;
        }
        let size = terms
            .iter()
            .map(|(m, _)| 1 + m.0.iter().map(|(a, _)| a.size()).sum::<usize>())
            .sum();
        (size <= MAX_SIZE).then(|| Expr(Arc::new(Inner::new(terms, size))))
    }

    fn from_atom(atom: Atom) -> Option<Expr> {
        Expr::from_terms([(Mono(vec![(atom, 1)]), 1)])
    }

    /// The integer constant `c`.
    pub fn constant(c: i64) -> Expr {
        // A single term never exceeds the bounds.
        let terms = if c == 0 {
            Vec::new()
        } else {
            vec![(Mono::one(), c)]
        };
        Expr(Arc::new(Inner::new(terms, usize::from(c != 0))))
    }

    /// The symbol `name`, standing for one non-negative integer throughout a model.
    pub fn symbol(name: &str) -> Expr {
        let mono = Mono(vec![(Atom::Sym(Arc::from(name)), 1)]);
        Expr(Arc::new(Inner::new(vec![(mono, 1)], 2)))
    }

    fn terms(&self) -> &[(Mono, i64)] {
        &self.0.terms
    }

    fn size(&self) -> usize {
        self.0.size
    }

    /// The value when the expression is a constant.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms() {
            [] => Some(0),
            [(m, c)] if m.0.is_empty() => Some(*c),
            _ => None,
        }
    }

    /// The constant term (0 when absent).
    fn constant_term(&self) -> i64 {
        match self.terms().first() {
            Some((m, c)) if m.0.is_empty() => *c,
            _ => 0,
        }
    }

    /// The non-constant terms.
    fn variable_terms(&self) -> impl Iterator<Item = &(Mono, i64)> {
        self.terms().iter().filter(|(m, _)| !m.0.is_empty())
    }

    /// The symbol name when the expression is exactly one symbol.
    pub fn as_symbol(&self) -> Option<&str> {
        match self.terms() {
            [(m, 1)] => match m.single() {
                Some(Atom::Sym(s)) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    /// `self + other`; `None` on overflow or when the result is too big.
    pub fn add(&self, other: &Expr) -> Option<Expr> {
        Expr::from_terms(self.terms().iter().chain(other.terms()).cloned())
    }

    /// `self - other`.
    pub fn sub(&self, other: &Expr) -> Option<Expr> {
        self.add(&other.neg()?)
    }

    /// `-self`.
    pub fn neg(&self) -> Option<Expr> {
        self.scale(-1)
    }

    /// `k * self`.
    pub fn scale(&self, k: i64) -> Option<Expr> {
        let terms: Option<Vec<_>> = self
            .terms()
            .iter()
            .map(|(m, c)| Some((m.clone(), c.checked_mul(k)?)))
            .collect();
        Expr::from_terms(terms?)
    }

    /// `self * other`, distributing sums.
    pub fn mul(&self, other: &Expr) -> Option<Expr> {
        if self.terms().len().checked_mul(other.terms().len())? > MAX_TERMS * 4 {
            return None;
        }
        let mut out = Vec::new();
        for (ma, ca) in self.terms() {
            for (mb, cb) in other.terms() {
                out.push((ma.mul(mb)?, ca.checked_mul(*cb)?));
            }
        }
        Expr::from_terms(out)
    }

    /// The value under `binding`; `None` if a symbol is unbound or arithmetic overflows.
    pub fn eval(&self, binding: &Binding) -> Option<i64> {
        self.terms().iter().try_fold(0i64, |acc, (m, c)| {
            acc.checked_add(c.checked_mul(m.eval(binding)?)?)
        })
    }

    /// Replaces the symbols bound in `binding` by their values (others stay) and renormalises;
    /// `None` on overflow or when the result is too big.
    pub fn substitute(&self, binding: &Binding) -> Option<Expr> {
        let mut acc = Expr::constant(0);
        for (m, c) in self.terms() {
            let mut term = Expr::constant(*c);
            for (a, p) in &m.0 {
                let x = a.substitute(binding)?;
                for _ in 0..*p {
                    term = term.mul(&x)?;
                }
            }
            acc = acc.add(&term)?;
        }
        Some(acc)
    }

    /// The names of the symbols used, at any depth.
    pub fn symbols(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_symbols(&mut out);
        out
    }

    fn collect_symbols(&self, out: &mut BTreeSet<String>) {
        for (m, _) in self.terms() {
            for (a, _) in &m.0 {
                match a {
                    Atom::Sym(s) => {
                        out.insert(s.to_string());
                    }
                    Atom::FloorDiv(e, _) | Atom::Mod(e, _) => e.collect_symbols(out),
                    Atom::Min(x, y) | Atom::Max(x, y) => {
                        x.collect_symbols(out);
                        y.collect_symbols(out);
                    }
                }
            }
        }
    }

    /// Terms in display order: highest degree first, then monomial order, constant last.
    fn display_order(&self) -> Vec<&(Mono, i64)> {
        let mut v: Vec<_> = self.terms().iter().collect();
        v.sort_by(|(ma, _), (mb, _)| mb.degree().cmp(&ma.degree()).then(ma.cmp(mb)));
        v
    }
}

/// Non-negative greatest common divisor; `gcd(0, 0) = 0`. Saturates on `i64::MIN`.
pub(super) fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::Expr;

    fn n() -> Expr {
        Expr::symbol("n")
    }

    #[test]
    fn two_n_plus_one_equals_n_plus_one_plus_n() {
        let a = Expr::constant(2)
            .mul(&n())
            .unwrap()
            .add(&Expr::constant(1))
            .unwrap();
        let b = n().add(&Expr::constant(1)).unwrap().add(&n()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn product_commutes() {
        let m = Expr::symbol("m");
        assert_eq!(n().mul(&m), m.mul(&n()));
    }

    #[test]
    fn seq_vs_seq_plus_one_never_equal() {
        let d = n().sub(&n().add(&Expr::constant(1)).unwrap()).unwrap();
        assert!(d.never_zero());
        let two_n_minus_3 = n().scale(2).unwrap().sub(&Expr::constant(3)).unwrap();
        assert!(two_n_minus_3.never_zero());
        assert!(!n().sub(&Expr::constant(3)).unwrap().never_zero());
    }

    #[test]
    fn huge_products_are_refused() {
        let mut e = Expr::constant(1);
        for i in 0..8 {
            let s = Expr::symbol(&format!("s{i}"))
                .add(&Expr::constant(1))
                .unwrap();
            match e.mul(&s) {
                Some(x) => e = x,
                None => return,
            }
        }
        panic!("2^8 terms should exceed MAX_TERMS");
    }
}
