//! Exact division by a single-term divisor (`batch*seq*768 / (batch*12) = seq*64`), the algebra
//! behind Reshape's `-1`: the quotient is returned only when every term divides, so it is right
//! for every binding under which the divisor is non-zero. Also the atoms all terms share
//! (`n*a*b - n*a = n*a*(b-1)`), which conditions split an equation with.

use std::collections::BTreeMap;

use super::{Atom, Expr, Mono};

impl Mono {
    /// `self / other` when every atom of `other` appears in `self` with at least its power.
    fn divide(&self, other: &Mono) -> Option<Mono> {
        let mut powers: BTreeMap<_, u32> = self.0.iter().cloned().collect();
        for (atom, power) in &other.0 {
            let slot = powers.get_mut(atom)?;
            *slot = slot.checked_sub(*power)?;
        }
        Some(Mono(powers.into_iter().filter(|(_, p)| *p > 0).collect()))
    }
}

impl Expr {
    /// `self / divisor` when the divisor is one term `c*m` and every term of `self` is a
    /// multiple of it; `None` otherwise (including a zero divisor).
    pub fn div_exact_by(&self, divisor: &Expr) -> Option<Expr> {
        let [(m, c)] = divisor.terms() else {
            return None;
        };
        if *c == 0 {
            return None;
        }
        let terms: Option<Vec<(Mono, i64)>> = self
            .terms()
            .iter()
            .map(|(mi, ci)| {
                let q = mi.divide(m)?;
                (ci.checked_rem(*c)? == 0).then_some(())?;
                Some((q, ci.checked_div(*c)?))
            })
            .collect();
        Expr::from_terms(terms?)
    }
}

impl Expr {
    /// `self = f1^p1 * ... * g` where every term shares the atoms `f1...` (with at least those
    /// powers): the shared atoms as expressions and the cofactor `g`; `None` when the terms
    /// share no atom. Since a product of integers is 0 exactly when a factor is, `self = 0`
    /// holds exactly when some `fi = 0` or `g = 0`.
    pub(crate) fn common_factors(&self) -> Option<(Vec<Expr>, Expr)> {
        let mut terms = self.terms().iter();
        let (first, _) = terms.next()?;
        let mut shared: BTreeMap<Atom, u32> = first.0.iter().cloned().collect();
        for (m, _) in terms {
            let powers: BTreeMap<&Atom, u32> = m.0.iter().map(|(a, p)| (a, *p)).collect();
            shared.retain(|a, p| match powers.get(a) {
                Some(q) => {
                    *p = (*p).min(*q);
                    true
                }
                None => false,
            });
        }
        if shared.is_empty() {
            return None;
        }
        let common = Mono(shared.into_iter().collect());
        let cofactor = self.div_exact_by(&Expr::from_terms([(common.clone(), 1)])?)?;
        let factors = common
            .0
            .iter()
            .map(|(a, _)| Expr::from_atom(a.clone()))
            .collect::<Option<Vec<_>>>()?;
        Some((factors, cofactor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(n: &str) -> Expr {
        Expr::symbol(n)
    }

    #[test]
    fn products_divide_by_their_factors() {
        let total = sym("batch")
            .mul(&sym("seq"))
            .and_then(|e| e.scale(768))
            .unwrap();
        let others = sym("batch").scale(12).unwrap();
        let q = total.div_exact_by(&others).unwrap();
        assert_eq!(q, sym("seq").scale(64).unwrap());
    }

    #[test]
    fn sums_divide_term_by_term() {
        let e = sym("n")
            .scale(4)
            .and_then(|e| e.add(&Expr::constant(8)))
            .unwrap();
        let q = e.div_exact_by(&Expr::constant(4)).unwrap();
        assert_eq!(q, sym("n").add(&Expr::constant(2)).unwrap());
    }

    #[test]
    fn shared_atoms_factor_out() {
        // n*a*b - n*a = n*a*(b - 1).
        let na = sym("n").mul(&sym("a")).unwrap();
        let e = na.mul(&sym("b")).unwrap().sub(&na).unwrap();
        let (factors, rest) = e.common_factors().unwrap();
        assert_eq!(factors, vec![sym("a"), sym("n")]);
        assert_eq!(rest, sym("b").sub(&Expr::constant(1)).unwrap());
        assert_eq!(
            sym("n").add(&Expr::constant(1)).unwrap().common_factors(),
            None
        );
    }

    #[test]
    fn inexact_division_is_refused() {
        let e = sym("n").add(&Expr::constant(1)).unwrap();
        assert_eq!(e.div_exact_by(&Expr::constant(2)), None);
        assert_eq!(sym("n").div_exact_by(&sym("m")), None);
        let two_terms = sym("n").add(&sym("m")).unwrap();
        assert_eq!(sym("n").div_exact_by(&two_terms), None);
        assert_eq!(sym("n").div_exact_by(&Expr::constant(0)), None);
    }
}
