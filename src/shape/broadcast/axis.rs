//! The per-axis rule of numpy-style broadcasting over any number of dims (one per input that
//! reaches the axis; prepended 1s are left out). Rows of the MLIR dimension-inference table
//! (000) plus symbolic dims:
//!
//! | dims on the axis (1s removed)     | output | verdict                                |
//! |-----------------------------------|--------|----------------------------------------|
//! | none                              | 1      | valid                                  |
//! | two different static sizes        | ?      | clash (SONNX E1)                       |
//! | one static `k`, symbols `e`, `?`s | `k`    | each `e ∈ {1, k}`; `?` checked at run  |
//! | only `?`s                         | ?      | valid (run-time check)                 |
//! | one expression `e` (repeated)     | `e`    | valid                                  |
//! | `e` and `?`s                      | ?      | valid (run-time check)                 |
//! | several expressions `e1..ek`      | ?      | each pair `ei = ej ∨ ei = 1 ∨ ej = 1`  |

use super::Offender;
use crate::shape::condition::Atom;
use crate::shape::{Condition, Dim, Expr};

/// One input's dim on an output axis.
#[derive(Clone, Debug)]
pub(crate) struct AxisEntry {
    pub(crate) input: usize,
    pub(crate) axis: usize,
    pub(crate) dim: Dim,
}

/// Output dim, the condition this axis adds, and the inputs of a static clash.
pub(crate) struct AxisResult {
    pub(crate) dim: Dim,
    pub(crate) condition: Condition,
    pub(crate) clash: Option<Vec<Offender>>,
}

/// The entries whose dim is not the static 1, as offenders.
pub(crate) fn non_ones(entries: &[AxisEntry]) -> Vec<Offender> {
    entries
        .iter()
        .filter(|e| e.dim != Dim::Known(1))
        .map(Offender::from)
        .collect()
}

pub(crate) fn combine(entries: &[AxisEntry]) -> AxisResult {
    let mut statics: Vec<i64> = Vec::new();
    let mut exprs: Vec<Expr> = Vec::new();
    let mut unknown = false;
    for e in entries {
        match &e.dim {
            Dim::Known(1) => {}
            Dim::Known(v) => {
                if !statics.contains(v) {
                    statics.push(*v);
                }
            }
            Dim::Sym(x) => {
                if !exprs.contains(x) {
                    exprs.push(x.clone());
                }
            }
            Dim::Unknown => unknown = true,
        }
    }
    let mut condition = Condition::truth();
    match statics.as_slice() {
        [] => {}
        [k] => {
            for x in &exprs {
                let d = Dim::Sym(x.clone());
                let clause =
                    Condition::any_of([Atom::Eq(d.clone(), Dim::Known(*k)), Atom::IsOne(d)]);
                condition = condition.and(&clause);
            }
            return AxisResult {
                dim: Dim::Known(*k),
                condition,
                clash: None,
            };
        }
        _ => {
            let clash = entries
                .iter()
                .filter(|e| matches!(e.dim, Dim::Known(v) if v != 1))
                .map(Offender::from)
                .collect();
            return AxisResult {
                dim: Dim::Unknown,
                condition,
                clash: Some(clash),
            };
        }
    }
    for (i, a) in exprs.iter().enumerate() {
        for b in exprs.iter().skip(i + 1) {
            let (a, b) = (Dim::Sym(a.clone()), Dim::Sym(b.clone()));
            let clause = Condition::any_of([
                Atom::Eq(a.clone(), b.clone()),
                Atom::IsOne(a),
                Atom::IsOne(b),
            ]);
            condition = condition.and(&clause);
        }
    }
    let dim = match (exprs.as_slice(), unknown) {
        ([], false) => Dim::Known(1),
        ([x], false) => Dim::Sym(x.clone()),
        _ => Dim::Unknown,
    };
    AxisResult {
        dim,
        condition,
        clash: None,
    }
}

impl From<&AxisEntry> for Offender {
    fn from(e: &AxisEntry) -> Offender {
        Offender {
            input: e.input,
            axis: e.axis,
            dim: e.dim.clone(),
        }
    }
}
