//! Simplification under facts "`f >= 0`" that the expression's own form cannot show: the
//! sizes of tensors that exist. `samples/5-1` is negative at `samples < 5`, so alone
//! `max(samples/5-1, 0)` stays; beside a tensor whose axis is `samples/5-1`, that tensor's
//! existence says `samples/5-1 >= 0`, and the `max` is `samples/5-1` (issue 38, item 2).
//!
//! The rule, exactly: given facts `f1 >= 0, ..., fk >= 0`, an atom `max(a, b)` is `a` when
//! `a - b` is provably `>= 0` from them, `b` when `b - a` is; `min(a, b)` likewise the other
//! way. "Provably `>= 0` from them" is: `d` itself is provably non-negative (its own form), or
//! `d - fi` is, for one fact `fi` (then `d = fi + (d - fi) >= 0`). Nested atoms are rewritten
//! first, and nothing else changes, so the result equals the expression at every binding
//! where the facts hold.

use super::{Atom, Expr};

impl Expr {
    /// `self` with its `min`/`max` atoms resolved where `facts` (each assumed `>= 0`) decide
    /// them; `None` when the rebuilt expression would exceed the bounds.
    pub fn given_nonneg(&self, facts: &[Expr]) -> Option<Expr> {
        if !self.has_min_max() {
            return Some(self.clone());
        }
        let mut acc = Expr::constant(0);
        for (m, c) in self.terms() {
            let mut term = Expr::constant(*c);
            for (a, p) in &m.0 {
                let x = a.given_nonneg(facts)?;
                for _ in 0..*p {
                    term = term.mul(&x)?;
                }
            }
            acc = acc.add(&term)?;
        }
        Some(acc)
    }

    /// The constants `c` of the `min(symbol, c)` and `max(symbol, c)` atoms at any depth: where
    /// the expression changes form as `symbol` grows (`min(tokens, 1000000000)` is `tokens` up to
    /// 10^9 and 10^9 past it).
    pub fn clamps_of(&self, symbol: &str) -> Vec<i64> {
        let mut out = Vec::new();
        for (m, _) in self.terms() {
            for (a, _) in &m.0 {
                match a {
                    Atom::Sym(_) => {}
                    Atom::FloorDiv(e, _) | Atom::Mod(e, _) => out.extend(e.clamps_of(symbol)),
                    Atom::Min(x, y) | Atom::Max(x, y) => {
                        for (s, c) in [(x, y), (y, x)] {
                            if let (Some(name), Some(c)) = (s.as_symbol(), c.as_const()) {
                                if name == symbol {
                                    out.push(c);
                                }
                            }
                        }
                        out.extend(x.clamps_of(symbol));
                        out.extend(y.clamps_of(symbol));
                    }
                }
            }
        }
        out
    }

    /// Whether a `min` or `max` atom occurs at any depth.
    fn has_min_max(&self) -> bool {
        self.terms().iter().any(|(m, _)| {
            m.0.iter().any(|(a, _)| match a {
                Atom::Sym(_) => false,
                Atom::FloorDiv(e, _) | Atom::Mod(e, _) => e.has_min_max(),
                Atom::Min(..) | Atom::Max(..) => true,
            })
        })
    }
}

impl Atom {
    fn given_nonneg(&self, facts: &[Expr]) -> Option<Expr> {
        match self {
            Atom::Sym(name) => Some(Expr::symbol(name)),
            Atom::FloorDiv(e, k) => e.given_nonneg(facts)?.floor_div(*k),
            Atom::Mod(e, k) => e.given_nonneg(facts)?.modulo(*k),
            Atom::Min(a, b) | Atom::Max(a, b) => {
                let want_min = matches!(self, Atom::Min(..));
                let (a, b) = (a.given_nonneg(facts)?, b.given_nonneg(facts)?);
                let (a_ge_b, b_ge_a) = (
                    nonneg_given(&a.sub(&b)?, facts),
                    nonneg_given(&b.sub(&a)?, facts),
                );
                match (a_ge_b, b_ge_a, want_min) {
                    (true, _, false) | (_, true, true) => Some(a),
                    (true, _, true) | (_, true, false) => Some(b),
                    _ if want_min => a.minimum(&b),
                    _ => a.maximum(&b),
                }
            }
        }
    }
}

/// Whether `d >= 0` follows from its own form or from one fact `f >= 0` with `d - f` of
/// provably non-negative form.
fn nonneg_given(d: &Expr, facts: &[Expr]) -> bool {
    d.is_nonneg()
        || facts
            .iter()
            .any(|f| d.sub(f).is_some_and(|rest| rest.is_nonneg()))
}

#[cfg(test)]
mod tests {
    use crate::shape::{Binding, Expr};

    fn c(v: i64) -> Expr {
        Expr::constant(v)
    }

    /// `samples/5 - 1`: negative at samples < 5.
    fn x() -> Expr {
        Expr::symbol("samples")
            .floor_div(5)
            .unwrap()
            .sub(&c(1))
            .unwrap()
    }

    #[test]
    fn dims_by_their_form_need_no_fact() {
        let (a, b) = (Expr::symbol("a"), Expr::symbol("b"));
        assert_eq!(a.maximum(&c(0)), Some(a.clone()));
        assert_eq!(a.minimum(&c(0)), Some(c(0)));
        let sum = a.scale(2).unwrap().add(&b.floor_div(3).unwrap()).unwrap();
        assert_eq!(sum.maximum(&c(0)), Some(sum.clone()));
        assert_eq!(c(0).minimum(&sum), Some(c(0)));
        // a - 1 is -1 at a = 0: the clamp stays.
        let a1 = a.sub(&c(1)).unwrap();
        assert_ne!(a1.maximum(&c(0)), Some(a1));
    }

    #[test]
    fn max_of_a_fact_and_zero_is_the_fact() {
        let clamp = x().maximum(&c(0)).unwrap();
        // Alone, the clamp stays: x can be -1.
        assert_ne!(clamp, x());
        assert_eq!(clamp.given_nonneg(&[x()]), Some(x()));
        assert_eq!(clamp.given_nonneg(&[clamp.clone(), x()]), Some(x()));
        let low = x().minimum(&c(0)).unwrap();
        assert_eq!(low.given_nonneg(&[x()]), Some(c(0)));
    }

    #[test]
    fn a_fact_says_nothing_of_a_smaller_expression() {
        // x >= 0 does not give x - 1 >= 0: max(x-1, 0) stays.
        let x1 = x().sub(&c(1)).unwrap();
        let clamp = x1.maximum(&c(0)).unwrap();
        assert_eq!(clamp.given_nonneg(&[x()]), Some(clamp.clone()));
        // ...but x + 1 >= 0 follows, and min(x+1, 0) is 0.
        let up = x().add(&c(1)).unwrap();
        assert_eq!(
            up.maximum(&c(0)).unwrap().given_nonneg(&[x()]),
            Some(up.clone())
        );
        // Without the fact nothing changes.
        assert_eq!(clamp.given_nonneg(&[]), Some(clamp));
    }

    #[test]
    fn nested_clamps_resolve_inside_out() {
        let inner = x().maximum(&c(0)).unwrap();
        let e = inner.add(&c(3)).unwrap().floor_div(2).unwrap();
        let want = x().add(&c(3)).unwrap().floor_div(2).unwrap();
        assert_eq!(e.given_nonneg(&[x()]), Some(want));
    }

    /// Agrees with the expression at every binding where the facts hold (brute force).
    #[test]
    fn equal_wherever_the_facts_hold() {
        let s = Expr::symbol("s");
        let t = Expr::symbol("t");
        let facts = [s.sub(&t).unwrap(), x()];
        let exprs = [
            s.sub(&t).unwrap().maximum(&c(0)).unwrap(),
            t.sub(&s).unwrap().maximum(&c(-2)).unwrap(),
            s.sub(&t).unwrap().minimum(&c(0)).unwrap(),
            x().maximum(&c(0)).unwrap().mul(&s).unwrap(),
            x().sub(&c(2)).unwrap().maximum(&c(0)).unwrap(),
        ];
        for e in &exprs {
            let g = e.given_nonneg(&facts).unwrap();
            for sv in 0..12 {
                for tv in 0..12 {
                    for samples in 0..30 {
                        let b: Binding = [("s", sv), ("t", tv), ("samples", samples)]
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect();
                        if facts.iter().all(|f| f.eval(&b).unwrap() >= 0) {
                            assert_eq!(g.eval(&b), e.eval(&b), "{e} vs {g} at {b:?}");
                        }
                    }
                }
            }
        }
    }
}
