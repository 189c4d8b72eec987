//! Floor division, modulo, min and max on `Expr`, with the normalisations that keep them
//! canonical. Semantics are Python's / ONNX's: `a // k = floor(a / k)`, `a % k` has the sign
//! of `k` (`a % k = a - k * (a // k)`).

#![allow(
    clippy::many_single_char_names,
    reason = "arithmetic reads best with the usual names: k divisor, q quotient, r remainder"
)]

use super::{gcd, Atom, Expr, Mono};

impl Expr {
    /// `floor(self / k)`; `None` when `k == 0`, on overflow, or when too big.
    ///
    /// Normal form: with `self = k*q + r`, where every coefficient of `r` (constant included)
    /// lies in `[0, k)`, `floor(self / k) = q + floor(r / k)`; and with `g` the gcd of `k` and
    /// of `r`'s non-constant coefficients, `floor(r / k) = floor((r div g) / (k / g))`. So
    /// `(2*n+2)/2` is `n+1`, `(2*n+1)/4` is `n/2`, and `(n-1)/2` prints as `(n+1)/2-1`.
    pub fn floor_div(&self, k: i64) -> Option<Expr> {
        if k == 0 {
            return None;
        }
        if k < 0 {
            // floor(x / k) = floor(-x / -k)
            return self.neg()?.floor_div(k.checked_neg()?);
        }
        if k == 1 {
            return Some(self.clone());
        }
        let (q, r) = self.split_mod(k)?;
        let quotient = Expr::from_terms(q)?;
        let r = Expr::from_terms(r)?;
        if r.as_const().is_some() {
            // r is a constant in [0, k): its floor division by k is 0.
            return Some(quotient);
        }
        let g = r.variable_terms().fold(k, |g, (_, c)| gcd(g, *c));
        let (r, k) = if g > 1 {
            let c = r.constant_term();
            let vars = r.variable_terms().map(|(m, a)| (m.clone(), a / g));
            let reduced = Expr::from_terms(vars.chain([(Mono::one(), c.div_euclid(g))]))?;
            (reduced, k / g)
        } else {
            (r, k)
        };
        if k == 1 {
            return quotient.add(&r);
        }
        quotient.add(&Expr::from_atom(Atom::FloorDiv(r, k))?)
    }

    /// `self mod k` with the sign of `k` (Python / ONNX `fmod=0`); `None` when `k == 0`.
    ///
    /// Normal form: coefficients are reduced into `[0, k)`, and a common factor `g` of `k` and
    /// the non-constant coefficients is pulled out:
    /// `(g*a + c) % (g*k') = g*((a + c div g) % k') + c mod g`.
    pub fn modulo(&self, k: i64) -> Option<Expr> {
        if k == 0 {
            return None;
        }
        if k < 0 {
            // x mod k = -((-x) mod -k)
            return self.neg()?.modulo(k.checked_neg()?)?.neg();
        }
        if k == 1 {
            return Some(Expr::constant(0));
        }
        let (_, r) = self.split_mod(k)?;
        let r = Expr::from_terms(r)?;
        if r.as_const().is_some() {
            return Some(r);
        }
        let g = r.variable_terms().fold(k, |g, (_, c)| gcd(g, *c));
        let c = r.constant_term();
        let vars = r.variable_terms().map(|(m, a)| (m.clone(), a / g));
        let inner = Expr::from_terms(vars.chain([(Mono::one(), c.div_euclid(g))]))?;
        let kk = k / g;
        let m = if kk == 1 {
            Expr::constant(0)
        } else {
            Expr::from_atom(Atom::Mod(inner, kk))?
        };
        m.scale(g)?.add(&Expr::constant(c.rem_euclid(g)))
    }

    /// Splits every coefficient `c` into `k * (c div k) + (c mod k)`, Euclidean (k > 0).
    #[allow(
        clippy::type_complexity,
        reason = "two parallel term lists, used only here"
    )]
    fn split_mod(&self, k: i64) -> Option<(Vec<(Mono, i64)>, Vec<(Mono, i64)>)> {
        let mut q = Vec::new();
        let mut r = Vec::new();
        for (m, c) in self.terms() {
            q.push((m.clone(), c.checked_div_euclid(k)?));
            r.push((m.clone(), c.checked_rem_euclid(k)?));
        }
        Some((q, r))
    }

    /// `min(self, other)`; resolved when the difference has a provable sign.
    pub fn minimum(&self, other: &Expr) -> Option<Expr> {
        self.min_max(other, true)
    }

    /// `max(self, other)`; resolved when the difference has a provable sign.
    pub fn maximum(&self, other: &Expr) -> Option<Expr> {
        self.min_max(other, false)
    }

    fn min_max(&self, other: &Expr, want_min: bool) -> Option<Expr> {
        let d = self.sub(other)?;
        let ge = d.lower_bound().is_some_and(|c| c >= 0);
        let le = d.upper_bound().is_some_and(|c| c <= 0) || d.as_const() == Some(0);
        match (ge, le, want_min) {
            (true, _, true) | (_, true, false) => Some(other.clone()),
            (_, true, true) | (true, _, false) => Some(self.clone()),
            _ => {
                // Canonical operand order, constants last: `min(seq, 512)`.
                let key = |e: &Expr| (e.as_const().is_some(), e.clone());
                let (lo, hi) = if key(self) <= key(other) {
                    (self.clone(), other.clone())
                } else {
                    (other.clone(), self.clone())
                };
                Expr::from_atom(if want_min {
                    Atom::Min(lo, hi)
                } else {
                    Atom::Max(lo, hi)
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Expr;

    fn n() -> Expr {
        Expr::symbol("n")
    }

    fn c(v: i64) -> Expr {
        Expr::constant(v)
    }

    #[test]
    fn two_n_plus_two_halved_is_n_plus_one() {
        let e = n().scale(2).unwrap().add(&c(2)).unwrap();
        assert_eq!(e.floor_div(2).unwrap(), n().add(&c(1)).unwrap());
    }

    #[test]
    fn n_plus_two_halved_equals_half_n_plus_one() {
        let a = n().add(&c(2)).unwrap().floor_div(2).unwrap();
        let b = n().floor_div(2).unwrap().add(&c(1)).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn constants_use_floor_semantics() {
        assert_eq!(c(-7).floor_div(2), Some(c(-4)));
        assert_eq!(c(7).floor_div(-2), Some(c(-4)));
        assert_eq!(c(-7).modulo(3), Some(c(2)));
        assert_eq!(c(7).modulo(-3), Some(c(-2)));
        assert_eq!(c(7).floor_div(0), None);
        assert_eq!(c(7).modulo(0), None);
    }

    #[test]
    fn min_resolves_provable_order() {
        let n1 = n().add(&c(1)).unwrap();
        assert_eq!(n().minimum(&n1), Some(n()));
        assert_eq!(n1.maximum(&n()), Some(n1.clone()));
        assert_eq!(n().minimum(&c(5)), c(5).minimum(&n()));
    }

    /// Shrunk proptest case (`extreme_constants_never_panic`): with a huge negative modulus
    /// the canonical form overflows while evaluating; the answer is unknown, never wrong.
    #[test]
    fn huge_negative_modulus_is_never_wrong() {
        let e = n()
            .minimum(&n().modulo(-2_305_843_009_213_693_953).unwrap())
            .unwrap();
        let b = [("n".to_string(), 3)].into_iter().collect();
        let want = 3 - 2_305_843_009_213_693_953;
        assert!(e.eval(&b).is_none_or(|x| x == want));
    }

    #[test]
    fn even_multiple_mod_pulls_factor_out() {
        // (2n+1) % 4 = 2*(n % 2) + 1
        let e = n().scale(2).unwrap().add(&c(1)).unwrap().modulo(4).unwrap();
        let want = n().modulo(2).unwrap().scale(2).unwrap().add(&c(1)).unwrap();
        assert_eq!(e, want);
    }
}
