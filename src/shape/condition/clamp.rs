//! The value set of a condition in one symbol whose `min`/`max` against a constant starts past
//! the truth table's reach: `min(tokens, 1000000000) = tokens ∨ tokens = 1 ∨ ...` is periodic
//! only from 10^9 on. Between the constants (the clamps) each `min`/`max` is one of its sides,
//! so the condition is split there: on each piece it is resolved (`expr/assume.rs`) and, when
//! every atom left is linear in the symbol, holds on the whole piece, on none of it, or at the
//! atoms' roots only. The pieces' members together are the set: `tokens ≤ 1000000000`.

use super::value_set::ValueSet;
use super::{Atom, Condition};
use crate::shape::{Dim, Expr};

/// Most clamps a condition may have here.
const MAX_CLAMPS: usize = crate::limits::CLAMPS;

/// Which values of one piece satisfy the condition.
enum Piece {
    /// Every value of the piece.
    All,
    /// These values only (none when empty).
    Points(Vec<i64>),
}

impl Condition {
    /// The exact set of `symbol`'s values satisfying the condition when its clamps decide it
    /// (see the module docs); `None` otherwise.
    pub(super) fn clamped_set(&self, symbol: &str) -> Option<ValueSet> {
        let mut clamps: Vec<i64> = self
            .atoms()
            .flat_map(Atom::dims)
            .filter_map(Dim::to_expr)
            .flat_map(|e| e.clamps_of(symbol))
            .filter(|c| *c >= 0)
            .collect();
        clamps.sort_unstable();
        clamps.dedup();
        if clamps.is_empty() || clamps.len() > MAX_CLAMPS {
            return None;
        }
        // Pieces 0..=c1, c1+1..=c2, ..., past the last.
        let mut bounds: Vec<(i64, Option<i64>)> = Vec::new();
        let mut lo = 0i64;
        for c in clamps {
            bounds.push((lo, Some(c)));
            lo = c.checked_add(1)?;
        }
        bounds.push((lo, None));
        let mut ranges: Vec<(i64, i64)> = Vec::new();
        let mut from = None;
        for (lo, hi) in bounds {
            let piece = self.on_piece(symbol, lo, hi)?;
            match (piece, hi) {
                (Piece::All, Some(hi)) => push_range(&mut ranges, lo, hi),
                (Piece::All, None) => from = Some(lo),
                (Piece::Points(points), _) => {
                    for p in points {
                        push_range(&mut ranges, p, p);
                    }
                }
            }
        }
        ValueSet::from_ranges(ranges, from)
    }

    /// The members in `lo..=hi`, the condition resolved there.
    fn on_piece(&self, symbol: &str, lo: i64, hi: Option<i64>) -> Option<Piece> {
        let var = Expr::symbol(symbol);
        let mut facts = vec![var.sub(&Expr::constant(lo))?];
        if let Some(hi) = hi {
            facts.push(Expr::constant(hi).sub(&var)?);
        }
        let resolve =
            |d: &Dim| -> Option<Dim> { Some(Dim::from_expr(d.to_expr()?.given_nonneg(&facts)?)) };
        let mut members: Option<Vec<i64>> = None;
        for clause in self.clauses.iter() {
            let atoms = clause
                .atoms()
                .iter()
                .map(|a| {
                    Some(match a {
                        Atom::Eq(x, y) => Atom::Eq(resolve(x)?, resolve(y)?),
                        Atom::IsOne(x) => Atom::IsOne(resolve(x)?),
                    })
                })
                .collect::<Option<Vec<Atom>>>()?;
            let resolved = Condition::any_of(atoms);
            if resolved.is_true() {
                continue;
            }
            // One clause: each atom `a*s + b = 0` holds at its root only.
            let mut roots = Vec::new();
            for atom in resolved.atoms() {
                let (lhs, rhs) = match atom {
                    Atom::Eq(lhs, rhs) => (lhs.clone(), rhs.clone()),
                    Atom::IsOne(lhs) => (lhs.clone(), Dim::Known(1)),
                };
                let gap = lhs.to_expr()?.sub(&rhs.to_expr()?)?;
                let (name, slope, offset) = gap.as_linear_in_one_symbol()?;
                if name != symbol || slope == 0 {
                    return None;
                }
                if offset.checked_rem(slope)? == 0 {
                    let root = offset.checked_neg()?.checked_div(slope)?;
                    if root >= lo && hi.is_none_or(|hi| root <= hi) {
                        roots.push(root);
                    }
                }
            }
            members = Some(match members {
                None => roots,
                Some(kept) => kept.into_iter().filter(|v| roots.contains(v)).collect(),
            });
        }
        Some(match members {
            None => Piece::All,
            Some(mut points) => {
                points.sort_unstable();
                points.dedup();
                Piece::Points(points)
            }
        })
    }
}

/// Appends `lo..=hi`, joined to the last range when they touch.
fn push_range(ranges: &mut Vec<(i64, i64)>, lo: i64, hi: i64) {
    if let Some(last) = ranges.last_mut() {
        if last.1.checked_add(1) == Some(lo) {
            last.1 = hi;
            return;
        }
    }
    ranges.push((lo, hi));
}

#[cfg(test)]
mod tests {
    use crate::shape::condition::{Atom, Condition};
    use crate::shape::{Binding, Dim, Tri};

    /// The Keras Transformer's `And`: the sequence clamped at 10^9 broadcast with itself.
    fn keras_mask(limit: i64) -> Condition {
        let tokens = Dim::sym("tokens:1");
        let clamped = tokens.min(&Dim::known(limit));
        Condition::any_of([
            Atom::Eq(clamped.clone(), tokens.clone()),
            Atom::IsOne(tokens),
            Atom::IsOne(clamped),
        ])
    }

    #[test]
    fn a_clamp_at_a_billion_is_a_bound() {
        let c = keras_mask(1_000_000_000);
        assert_eq!(c.plain().to_string(), "`tokens:1` ≤ 1000000000");
        for (v, holds) in [
            (0, true),
            (1, true),
            (1_000_000_000, true),
            (1_000_000_001, false),
        ] {
            let b: Binding = [("tokens:1".to_owned(), v)].into_iter().collect();
            assert_eq!(c.plain().eval(&b), Tri::from_bool(holds), "{v}");
            assert_eq!(c.eval(&b), Tri::from_bool(holds), "{v}");
        }
    }

    #[test]
    fn a_lower_clamp_with_isolated_points() {
        // max(n, 5000000) = 7000000 holds at n = 7000000 only; = 1 never.
        let n = Dim::sym("n");
        let c = Condition::any_of([
            Atom::Eq(n.max(&Dim::known(5_000_000)), Dim::known(7_000_000)),
            Atom::IsOne(n.max(&Dim::known(5_000_000))),
        ]);
        assert_eq!(c.plain().to_string(), "n = 7000000");
        // A clamp below the table's reach is left to the table, which agrees.
        assert_eq!(keras_mask(64).plain().to_string(), "`tokens:1` ≤ 64");
    }
}
