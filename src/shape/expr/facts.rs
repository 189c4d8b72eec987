//! Provable facts about an `Expr` and inspection helpers used by conditions: sign bounds for
//! non-negative symbols, "never zero" (sign or gcd argument), content (gcd of coefficients),
//! literals and linear forms.

use std::collections::BTreeSet;

use super::{gcd, Atom, Expr};

impl Expr {
    /// Every integer literal in the expression (coefficients, constants, divisors).
    pub fn literals(&self) -> BTreeSet<i64> {
        let mut out = BTreeSet::new();
        for (m, c) in self.terms() {
            out.insert(*c);
            for (a, _) in &m.0 {
                match a {
                    Atom::Sym(_) => {}
                    Atom::FloorDiv(e, k) | Atom::Mod(e, k) => {
                        out.insert(*k);
                        out.extend(e.literals());
                    }
                    Atom::Min(x, y) | Atom::Max(x, y) => {
                        out.extend(x.literals());
                        out.extend(y.literals());
                    }
                }
            }
        }
        out
    }

    /// `(true, a, b)` when the expression is exactly `min(a, b)`, `(false, a, b)` when it is
    /// exactly `max(a, b)`.
    pub fn as_min_max(&self) -> Option<(bool, &Expr, &Expr)> {
        match self.terms() {
            [(m, 1)] => match m.single()? {
                Atom::Min(a, b) => Some((true, a, b)),
                Atom::Max(a, b) => Some((false, a, b)),
                _ => None,
            },
            _ => None,
        }
    }

    /// When the expression is `a*s + c` for one symbol `s`: `(s, a, c)`.
    pub fn as_linear_in_one_symbol(&self) -> Option<(&str, i64, i64)> {
        let mut vars = self.variable_terms();
        let (m, a) = vars.next()?;
        if vars.next().is_some() {
            return None;
        }
        match m.single()? {
            Atom::Sym(s) => Some((s, *a, self.constant_term())),
            _ => None,
        }
    }

    /// A constant `c` with `self >= c` for every binding of non-negative symbols, when the
    /// non-constant part is provably non-negative.
    pub fn lower_bound(&self) -> Option<i64> {
        self.variable_terms()
            .all(|(m, c)| *c > 0 && m.nonneg())
            .then(|| self.constant_term())
    }

    /// A constant `c` with `self <= c` for every binding, when the non-constant part is
    /// provably non-positive.
    pub fn upper_bound(&self) -> Option<i64> {
        self.variable_terms()
            .all(|(m, c)| *c < 0 && m.nonneg())
            .then(|| self.constant_term())
    }

    /// Whether `self` is provably non-decreasing in every symbol (over non-negative symbols):
    /// each non-constant monomial has a positive coefficient and is a product of non-decreasing
    /// atoms, each non-negative when the monomial has more than one factor. `20 - n` and
    /// `n mod 4` are not.
    pub fn is_monotone(&self) -> bool {
        self.variable_terms().all(|(m, c)| *c > 0 && m.monotone())
    }

    pub(super) fn is_nonneg(&self) -> bool {
        self.lower_bound().is_some_and(|c| c >= 0)
    }

    /// Whether `self == 0` is impossible for every binding of non-negative symbols: the sign
    /// is fixed, or the gcd of the coefficients does not divide the constant.
    pub fn never_zero(&self) -> bool {
        if self.lower_bound().is_some_and(|c| c > 0) || self.upper_bound().is_some_and(|c| c < 0) {
            return true;
        }
        let g = self.variable_terms().fold(0, |g, (_, c)| gcd(g, *c));
        g > 1 && self.constant_term() % g != 0
    }

    /// The gcd of all coefficients (0 for the zero expression); always >= 0.
    pub fn content(&self) -> i64 {
        self.terms().iter().fold(0, |g, (_, c)| gcd(g, *c))
    }

    /// Divides every coefficient exactly by `k`; `None` if one is not a multiple.
    pub fn div_exact(&self, k: i64) -> Option<Expr> {
        let terms: Option<Vec<_>> = self
            .terms()
            .iter()
            .map(|(m, c)| {
                (c.checked_rem(k) == Some(0)).then(|| Some((m.clone(), c.checked_div(k)?)))?
            })
            .collect();
        Expr::from_terms(terms?)
    }

    /// The sign of the leading non-constant coefficient (highest degree, then greatest
    /// monomial); 0 for a constant. Fixes the orientation of normalised equations.
    pub fn leading_sign(&self) -> i64 {
        self.variable_terms()
            .max_by(|(ma, _), (mb, _)| ma.degree().cmp(&mb.degree()).then(ma.cmp(mb)))
            .map_or(0, |(_, c)| c.signum())
    }

    /// Splits into (non-constant terms with positive coefficient, the rest negated).
    pub fn split_signs(&self) -> Option<(Expr, Expr)> {
        let pos = self.variable_terms().filter(|(_, c)| *c > 0).cloned();
        let neg = self
            .terms()
            .iter()
            .filter(|(m, c)| *c < 0 || m.0.is_empty())
            .map(|(m, c)| Some((m.clone(), c.checked_neg()?)))
            .collect::<Option<Vec<_>>>()?;
        Some((Expr::from_terms(pos)?, Expr::from_terms(neg)?))
    }
}
