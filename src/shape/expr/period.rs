//! Eventual periodicity of expressions in one symbol: for `e` built from `s`, constants, `+`,
//! constant multiples, `floor(·/k)`, `· mod k`, `min` and `max` (no product of two
//! non-constant factors), there are a period `L`, a start `T` and a step `c` with
//! `e(s + L) = e(s) + c` for every `s ≥ T`. Conditions use it to decide an equation in one
//! symbol exactly from finitely many values (`condition/plain.rs`).
//!
//! Why it holds, by construction:
//! - `s`: `(1, 0, 1)`; a constant: `(1, 0, 0)`; a sum: the lcm of the periods, each step
//!   scaled to it, the latest start.
//! - `floor(f/k)`: with `j = k / gcd(k, c)`, `f(s + jL) = f(s) + jc` and `k | jc`, so
//!   `floor(f(s + jL)/k) = floor(f(s)/k) + jc/k`: `(jL, T, jc/k)`; `f mod k` likewise with step 0.
//! - `min(f, g)` with equal steps (at a common period) shifts by that step. With different
//!   steps the one of smaller step is eventually the smaller: on `s = T + qL + r` the gap
//!   `f - g` is `(f - g)(T + r) + q·(cf - cg)`, so once `q ≥ ⌈D / |cf - cg|⌉`, with `D` the largest
//!   gap over one period, the minimum is that one (evaluated, so exact). `max` mirrors it.

use super::{gcd, Atom, Expr};
use crate::shape::Binding;

/// Largest period kept: past it the analysis gives up (the caller shows the expression as is).
pub(crate) const MAX_PERIOD: i64 = crate::limits::EXPR_PERIOD;
/// Latest start kept.
pub(crate) const MAX_START: i64 = crate::limits::EXPR_PERIOD_START;

/// `e(s + period) = e(s) + step` for every `s ≥ start`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Shift {
    /// `L ≥ 1`.
    pub(crate) period: i64,
    /// `T ≥ 0`.
    pub(crate) start: i64,
    /// `c`: the change over one period.
    pub(crate) step: i64,
}

impl Shift {
    const CONSTANT: Shift = Shift {
        period: 1,
        start: 0,
        step: 0,
    };

    fn checked(self) -> Option<Shift> {
        (self.period >= 1 && self.period <= MAX_PERIOD && (0..=MAX_START).contains(&self.start))
            .then_some(self)
    }

    /// The same fact stated over `period`, a multiple of `self.period`.
    fn over(self, period: i64) -> Option<i64> {
        self.step.checked_mul(period.checked_div(self.period)?)
    }

    fn common_period(a: Shift, b: Shift) -> Option<i64> {
        let g = gcd(a.period, b.period).max(1);
        (a.period / g).checked_mul(b.period)
    }

    fn plus(self, other: Shift) -> Option<Shift> {
        let period = Shift::common_period(self, other)?;
        Shift {
            period,
            start: self.start.max(other.start),
            step: self.over(period)?.checked_add(other.over(period)?)?,
        }
        .checked()
    }

    fn scaled(self, k: i64) -> Option<Shift> {
        Some(Shift {
            step: self.step.checked_mul(k)?,
            ..self
        })
    }

    /// The shift of `floor(f/k)` (`modulo` false) or `f mod k` (true), for `k > 0`.
    fn divided(self, k: i64, modulo: bool) -> Option<Shift> {
        let j = k.checked_div(gcd(k, self.step).max(1))?;
        let period = self.period.checked_mul(j)?;
        let step = if modulo {
            0
        } else {
            self.step.checked_mul(j)?.checked_div(k)?
        };
        Shift {
            period,
            start: self.start,
            step,
        }
        .checked()
    }
}

impl Expr {
    /// The eventual shift of the expression as a function of `symbol`; `None` when another
    /// symbol occurs, a monomial is non-linear, or the period or start would pass the caps.
    pub(crate) fn shift(&self, symbol: &str) -> Option<Shift> {
        let mut acc = Shift::CONSTANT;
        for (m, c) in self.terms() {
            let atom_shift = match m.0.as_slice() {
                [] => continue,
                [(atom, 1)] => atom.shift(symbol)?,
                _ => return None,
            };
            acc = acc.plus(atom_shift.scaled(*c)?)?;
        }
        Some(acc)
    }

    fn eval_at(&self, symbol: &str, value: i64) -> Option<i64> {
        let binding: Binding = [(symbol.to_owned(), value)].into_iter().collect();
        self.eval(&binding)
    }
}

impl Atom {
    fn shift(&self, symbol: &str) -> Option<Shift> {
        match self {
            Atom::Sym(name) => (name.as_ref() == symbol).then_some(Shift {
                period: 1,
                start: 0,
                step: 1,
            }),
            Atom::FloorDiv(e, k) => e.shift(symbol)?.divided(*k, false),
            Atom::Mod(e, k) => e.shift(symbol)?.divided(*k, true),
            Atom::Min(a, b) => extremum(symbol, a, b, true),
            Atom::Max(a, b) => extremum(symbol, a, b, false),
        }
    }
}

/// The shift of `min(a, b)` (`lower`) or `max(a, b)`.
fn extremum(symbol: &str, left: &Expr, right: &Expr, lower: bool) -> Option<Shift> {
    let (sa, sb) = (left.shift(symbol)?, right.shift(symbol)?);
    let period = Shift::common_period(sa, sb)?;
    let start = sa.start.max(sb.start);
    let (ca, cb) = (sa.over(period)?, sb.over(period)?);
    if ca == cb {
        return Shift {
            period,
            start,
            step: ca,
        }
        .checked();
    }
    // The winner: the smaller step for min, the larger for max.
    let left_wins = (ca < cb) == lower;
    let (winner, other, step) = if left_wins {
        (left, right, ca)
    } else {
        (right, left, cb)
    };
    let gap_per_period = ca.checked_sub(cb)?.checked_abs()?;
    // D: how far the other is on the wrong side of the winner at most, over one period.
    let mut worst = 0i64;
    for offset in 0..period {
        let at = start.checked_add(offset)?;
        let (w, o) = (winner.eval_at(symbol, at)?, other.eval_at(symbol, at)?);
        let wrong = if lower {
            w.checked_sub(o)?
        } else {
            o.checked_sub(w)?
        };
        worst = worst.max(wrong);
    }
    let periods = worst.checked_add(gap_per_period - 1)? / gap_per_period;
    Shift {
        period,
        start: start.checked_add(periods.checked_mul(period)?)?,
        step,
    }
    .checked()
}

#[cfg(test)]
mod tests {
    use super::{Expr, Shift};
    use crate::shape::Binding;

    fn s() -> Expr {
        Expr::symbol("s")
    }

    fn c(v: i64) -> Expr {
        Expr::constant(v)
    }

    fn holds(e: &Expr, shift: Shift) {
        for v in shift.start..shift.start + 3 * shift.period + 50 {
            let at = |x: i64| e.eval(&Binding::from([("s".to_owned(), x)])).unwrap();
            assert_eq!(at(v + shift.period), at(v) + shift.step, "{e} at {v}");
        }
    }

    #[test]
    fn nested_halvings_have_period_four() {
        let half = |e: &Expr| e.add(&c(1)).unwrap().floor_div(2).unwrap();
        let e = half(&half(&s()));
        let shift = e.shift("s").unwrap();
        assert_eq!((shift.period, shift.step), (4, 1));
        holds(&e, shift);
    }

    #[test]
    fn min_with_a_constant_settles_after_it() {
        let e = s().minimum(&c(64)).unwrap();
        let shift = e.shift("s").unwrap();
        assert_eq!(
            shift,
            Shift {
                period: 1,
                start: 64,
                step: 0
            }
        );
        holds(&e, shift);
    }

    #[test]
    fn max_of_two_slopes_takes_the_steeper() {
        let e = s()
            .scale(2)
            .unwrap()
            .maximum(&s().add(&c(30)).unwrap())
            .unwrap();
        let shift = e.shift("s").unwrap();
        assert_eq!(shift.step, 2);
        assert_eq!(shift.start, 30);
        holds(&e, shift);
    }

    #[test]
    fn modulo_is_periodic() {
        let e = s().add(&c(3)).unwrap().modulo(6).unwrap();
        let shift = e.shift("s").unwrap();
        assert_eq!((shift.period, shift.step), (6, 0));
        holds(&e, shift);
    }

    #[test]
    fn other_symbols_and_products_are_refused() {
        assert_eq!(Expr::symbol("t").shift("s"), None);
        assert_eq!(s().mul(&s()).unwrap().shift("s"), None);
        assert_eq!(c(7).shift("s").map(|x| x.step), Some(0));
    }
}
