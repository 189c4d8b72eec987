//! The exact truth table of a condition in one symbol: every atom `a = b` with `h = a - b` of
//! eventual shift `(L, T, c)` (see `expr/period.rs`) is, from some start on, periodic in its
//! truth: with period `L` from `T` when `c = 0` (then `h(s + L) = h(s)`), and false for good
//! once past the last zero of each residue class when `c ≠ 0` (then `h` moves by `c ≠ 0` each
//! period, so it meets 0 at most once per class). A clause, and a conjunction of clauses, is
//! then periodic with the lcm of the periods from the latest start, so its values on
//! `0 .. start + period` decide it for every non-negative value.

use super::{Atom, Condition};
use crate::shape::expr::{MAX_PERIOD, MAX_START};
use crate::shape::{Binding, Dim, Expr, Tri};

/// Most atom evaluations spent on one table: eight times the bounded search's `BUDGET`, so a
/// model of many conditional nodes costs about what their search does. The conditions real
/// models give need far less (a start of a few hundred, periods of 32).
const MAX_WORK: usize = crate::limits::PERIODIC_WORK;

/// Whether the condition holds at each `s` in `0 .. start + period`; for `s ≥ start` the value
/// at `s` equals the value at `start + (s - start) % period`.
pub(super) struct Table {
    pub(super) holds: Vec<bool>,
    pub(super) start: usize,
    pub(super) period: usize,
}

impl Table {
    /// The truth value at any non-negative `s`.
    pub(super) fn at(&self, s: usize) -> bool {
        let i = if s < self.start {
            s
        } else {
            self.start + (s - self.start) % self.period
        };
        self.holds.get(i).copied().unwrap_or(false)
    }
}

fn lcm(a: i64, b: i64) -> Option<i64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x.max(1)).checked_mul(b)
}

fn at(e: &Expr, symbol: &str, value: i64) -> Option<i64> {
    let binding: Binding = [(symbol.to_owned(), value)].into_iter().collect();
    e.eval(&binding)
}

/// `(period, start)` from which the atom's truth is periodic.
fn atom_period(atom: &Atom, symbol: &str) -> Option<(i64, i64)> {
    let (lhs, rhs) = match atom {
        Atom::Eq(lhs, rhs) => (lhs, rhs),
        Atom::IsOne(lhs) => (lhs, &Dim::Known(1)),
    };
    let h = lhs.to_expr()?.sub(&rhs.to_expr()?)?;
    let shift = h.shift(symbol)?;
    if shift.step == 0 {
        return Some((shift.period, shift.start));
    }
    // The last zero over the residue classes: q periods after `start + r`.
    let mut last: Option<i64> = None;
    for r in 0..shift.period {
        let v = at(&h, symbol, shift.start.checked_add(r)?)?;
        if v.checked_rem(shift.step)? == 0 {
            let q = v.checked_neg()?.checked_div(shift.step)?;
            if q >= 0 {
                last = Some(last.map_or(q, |l: i64| l.max(q)));
            }
        }
    }
    let start = match last {
        Some(q) => shift
            .start
            .checked_add(q.checked_add(1)?.checked_mul(shift.period)?)?,
        None => shift.start,
    };
    (start <= MAX_START).then_some((1, start))
}

impl Condition {
    /// The exact truth table of a condition whose only symbol is `symbol`; `None` when an
    /// atom is outside the eventually periodic class, or past the caps.
    pub(super) fn table(&self, symbol: &str) -> Option<Table> {
        let (mut period, mut start) = (1i64, 0i64);
        let mut atoms = 0usize;
        for atom in self.atoms() {
            let (p, s) = atom_period(atom, symbol)?;
            period = lcm(period, p).filter(|p| *p <= MAX_PERIOD)?;
            start = start.max(s);
            atoms += 1;
        }
        let len = usize::try_from(start.checked_add(period)?).ok()?;
        if len.checked_mul(atoms.max(1))? > MAX_WORK {
            return None;
        }
        let mut holds = Vec::with_capacity(len);
        let mut binding = Binding::new();
        for v in 0..len {
            binding.insert(symbol.to_owned(), i64::try_from(v).ok()?);
            match self.eval(&binding) {
                Tri::Yes => holds.push(true),
                Tri::No => holds.push(false),
                Tri::Unknown => return None,
            }
        }
        Some(Table {
            holds,
            start: usize::try_from(start).ok()?,
            period: usize::try_from(period).ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::shape::condition::{Atom, Condition};
    use crate::shape::Dim;

    #[test]
    fn min_with_sixty_four_is_decided_past_sixty_four() {
        let seq = Dim::sym("seq");
        let m = seq.min(&Dim::known(64));
        let c = Condition::any_of([
            Atom::Eq(m.clone(), seq.clone()),
            Atom::IsOne(seq),
            Atom::IsOne(m),
        ]);
        let table = c.table("seq").unwrap();
        assert!((0..=64).all(|s| table.at(s)));
        assert!((65..1000).all(|s| !table.at(s)));
    }

    #[test]
    fn two_symbols_have_no_table() {
        let c = Condition::eq(&Dim::sym("a"), &Dim::sym("b"));
        assert!(c.table("a").is_none());
    }
}
