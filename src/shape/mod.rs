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
use std::fmt::{self, Debug, Display, Formatter};
use std::hash::Hash;
use std::ops::Deref;
use std::sync::Arc;

// The public part: what a report's shapes and a finding's facts are made of.
pub use broadcast::{Rule, ViolationKind};
pub use dim::Dim;
pub use expr::Expr;
pub(crate) use tri::Tri;

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

/// What an unranked [`SharedShape`] dereferences to.
static UNRANKED: Shape = Shape::Unranked;

/// A [`Shape`] shared by every value that has it: inference stores one per value, a
/// million-node transformer has a few dozen distinct shapes, and a copy is a reference count
/// (issue 19). Unranked shapes hold nothing. Compares, prints and dereferences as the shape it
/// holds.
#[derive(Clone, Default)]
pub(crate) struct SharedShape(Option<Arc<Shape>>);

impl SharedShape {
    /// Shares `shape` (alone until cloned; see [`Shapes`] to share equal shapes).
    pub(crate) fn new(shape: Shape) -> SharedShape {
        match shape {
            Shape::Unranked => SharedShape(None),
            ranked @ Shape::Ranked(_) => SharedShape(Some(Arc::new(ranked))),
        }
    }

    /// The unranked shape, without an allocation.
    pub(crate) const fn unranked() -> SharedShape {
        SharedShape(None)
    }

    /// The shape, to change in place (copied first when shared).
    pub(crate) fn make_mut(&mut self) -> &mut Shape {
        Arc::make_mut(self.0.get_or_insert_with(|| Arc::new(Shape::Unranked)))
    }
}

impl Deref for SharedShape {
    type Target = Shape;

    fn deref(&self) -> &Shape {
        self.0.as_deref().unwrap_or(&UNRANKED)
    }
}

impl From<Shape> for SharedShape {
    fn from(shape: Shape) -> SharedShape {
        SharedShape::new(shape)
    }
}

impl PartialEq for SharedShape {
    fn eq(&self, other: &SharedShape) -> bool {
        **self == **other
    }
}

impl Eq for SharedShape {}

impl PartialEq<Shape> for SharedShape {
    fn eq(&self, other: &Shape) -> bool {
        **self == *other
    }
}

impl Debug for SharedShape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        Debug::fmt(&**self, f)
    }
}

impl Display for SharedShape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        Display::fmt(&**self, f)
    }
}

/// A table of shared values: equal values stored through it share one allocation (issue 19:
/// inference's shapes and small element tensors, a few dozen distinct ones over a million
/// values).
pub(crate) struct Interned<T>(std::collections::HashSet<Arc<T>, foldhash::fast::RandomState>);

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Interned(std::collections::HashSet::default())
    }
}

impl<T: Hash + Eq> Interned<T> {
    /// `value`, shared with every equal value stored before.
    pub(crate) fn share(&mut self, value: T) -> Arc<T> {
        if let Some(shared) = self.0.get(&value) {
            return Arc::clone(shared);
        }
        let shared = Arc::new(value);
        self.0.insert(Arc::clone(&shared));
        shared
    }
}

/// The table of shared shapes.
pub(crate) type Shapes = Interned<Shape>;

impl Shapes {
    /// `shape`, shared with every equal shape stored before (an unranked one holds nothing).
    pub(crate) fn share_shape(&mut self, shape: Shape) -> SharedShape {
        match shape {
            Shape::Unranked => SharedShape::unranked(),
            ranked @ Shape::Ranked(_) => SharedShape(Some(self.share(ranked))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Dim, Shape, Shapes, SharedShape};

    #[test]
    fn shared_shapes() {
        let mut table = Shapes::default();
        let a = table.share_shape(Shape::from_known(&[2, 3]));
        let b = table.share_shape(Shape::from_known(&[2, 3]));
        assert!(matches!((&a.0, &b.0), (Some(x), Some(y)) if std::sync::Arc::ptr_eq(x, y)));
        assert_eq!(a, Shape::from_known(&[2, 3]));
        assert!(table.share_shape(Shape::Unranked).0.is_none());
        assert_eq!(*SharedShape::unranked(), Shape::Unranked);
        assert_eq!(SharedShape::unranked().to_string(), "[...]");
        assert_eq!(
            format!("{a:?}"),
            format!("{:?}", Shape::from_known(&[2, 3]))
        );
        let mut c = b.clone();
        if let Shape::Ranked(dims) = c.make_mut() {
            dims.push(Dim::known(4));
        }
        assert_eq!(c, Shape::from_known(&[2, 3, 4]));
        assert_eq!(b, Shape::from_known(&[2, 3]));
    }

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
