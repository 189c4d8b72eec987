//! Shape algebra and broadcasting rules (issue 3). Self-contained: imports nothing else from
//! the crate.
//!
//! - `tri.rs`: three-valued answers; `expr/`: canonical symbolic expressions; `dim.rs`: `Dim`;
//!   `parse/`: `dim_param` strings; `condition/`: conditions on symbols and their search.
//! - `broadcast/`: the multidirectional, unidirectional, bidirectional, legacy (opset < 7) and
//!   pdpd rules, each returning an `Outcome`; `verify.rs`: declared vs inferred shapes (MLIR);
//!   `values.rs`: value-level broadcasting of small tensors (SONNX element relation).
//!
//! `Shape` displays as `[batch, seq+1, 768]`; an unknown dim as `?`; an unranked shape as
//! `[...]`; a scalar as `[]`.

pub(crate) mod broadcast;
pub(crate) mod condition;
mod dim;
mod expr;
mod parse;
pub(crate) mod real;
mod tri;
pub(crate) mod values;
pub(crate) mod verify;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Display, Formatter};

// The public part: what a report's shapes and a finding's facts are made of.
pub use broadcast::{Rule, ViolationKind};
pub use dim::Dim;
pub use expr::Expr;
pub use tri::Tri;
pub use verify::Mismatch;

pub(crate) use broadcast::{Verdict, Violation};
pub(crate) use condition::Condition;

/// Values for symbols, by name.
pub type Binding = BTreeMap<String, i64>;

/// A tensor shape: a list of dims, or nothing known (not even the rank).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Shape {
    /// Known rank; each dim may still be symbolic or unknown.
    Ranked(Vec<Dim>),
    /// Unknown rank.
    Unranked,
}

impl Shape {
    /// The rank-0 shape.
    pub fn scalar() -> Shape {
        Shape::Ranked(Vec::new())
    }

    /// A fully static shape.
    pub fn from_known(dims: &[i64]) -> Shape {
        Shape::Ranked(dims.iter().copied().map(Dim::Known).collect())
    }

    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.dims().map(<[Dim]>::len)
    }

    /// The dims, if the rank is known.
    pub fn dims(&self) -> Option<&[Dim]> {
        match self {
            Shape::Ranked(d) => Some(d),
            Shape::Unranked => None,
        }
    }

    /// The symbol names used by any dim.
    pub fn symbols(&self) -> BTreeSet<String> {
        self.dims()
            .unwrap_or_default()
            .iter()
            .flat_map(Dim::symbols)
            .collect()
    }

    /// Substitutes `binding` into every dim.
    #[must_use]
    pub fn substitute(&self, binding: &Binding) -> Shape {
        match self {
            Shape::Ranked(d) => Shape::Ranked(d.iter().map(|x| x.substitute(binding)).collect()),
            Shape::Unranked => Shape::Unranked,
        }
    }

    /// All sizes when every dim is static.
    pub fn as_known(&self) -> Option<Vec<i64>> {
        self.dims()?.iter().map(Dim::as_known).collect()
    }
}

impl From<Vec<Dim>> for Shape {
    fn from(d: Vec<Dim>) -> Shape {
        Shape::Ranked(d)
    }
}

impl Display for Shape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Shape::Ranked(dims) = self else {
            return f.write_str("[...]");
        };
        f.write_str("[")?;
        for (i, d) in dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::{Dim, Shape};

    #[test]
    fn shape_display() {
        let s = Shape::Ranked(vec![
            Dim::sym("batch"),
            Dim::sym("seq").add(&Dim::known(1)),
            Dim::known(768),
            Dim::Unknown,
        ]);
        assert_eq!(s.to_string(), "[batch, seq+1, 768, ?]");
        assert_eq!(Shape::Unranked.to_string(), "[...]");
        assert_eq!(Shape::scalar().to_string(), "[]");
        assert_eq!(Shape::from_known(&[2, 3]).rank(), Some(2));
        assert_eq!(Shape::Unranked.rank(), None);
    }
}
