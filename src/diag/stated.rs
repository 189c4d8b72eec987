//! A shape as a finding states it (issue 34 item 3): whole up to [`SHAPE_DIMS`] dims; a longer
//! one states the axes the finding is about and then its first axes, up to [`SHAPE_DIMS`] dims
//! in all, and counts the others, so that a finding over rank-1,000 inputs is not a thousand
//! dims per shape in every format. Human output writes it `[d0, …, d62, … 837 dims …, axis
//! 900: 3, … and 99 more dims] (rank 1000)`; JSON writes a whole shape as before (a list of
//! dims, or null) and a cut one as `{"rank", "dims", "axes", "left_out"}`: `dims` the leading
//! stated dims (axes 0, 1, ...), `axes` the stated dims past them (`[{"axis", "dim"}]`),
//! `left_out` how many dims neither states.

use std::fmt::{self, Display, Formatter};

use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde::{Serialize, Serializer};

use crate::limits::SHAPE_DIMS;
use crate::shape::{Dim, Shape};

/// A shape as a finding states it: the whole shape, or (past [`SHAPE_DIMS`] dims) some of its
/// axes and its rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatedShape {
    /// The stated dims in axis order: the whole shape when nothing is cut.
    dims: Shape,
    /// When dims were left out: the rank and the axis of each stated dim (boxed: findings
    /// made by the thousand in settling's uncapped runs carry a pointer, not the whole).
    cut: Option<Box<Cut>>,
}

/// Which axes a cut shape states.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cut {
    /// The whole shape's rank.
    rank: usize,
    /// The axis of each stated dim, ascending.
    axes: Vec<usize>,
}

impl StatedShape {
    /// `shape` within [`SHAPE_DIMS`] dims: past it, the axes `about` names (in its order of
    /// priority, the first [`SHAPE_DIMS`] of them) and then the first others.
    #[cfg(test)]
    pub(crate) fn of(shape: &Shape, about: &[usize]) -> StatedShape {
        StatedShape::from(shape.clone()).within(about)
    }

    /// This shape cut as [`StatedShape::of`] cuts it; a shape cut before stays as it is (its
    /// left-out dims are gone). A finding cuts its shapes when it is made (`Finding::new`):
    /// the checks give them whole.
    pub(crate) fn within(self, about: &[usize]) -> StatedShape {
        let Shape::Ranked(dims) = self.dims else {
            return self;
        };
        if self.cut.is_some() || dims.len() <= SHAPE_DIMS {
            return StatedShape {
                dims: Shape::Ranked(dims),
                cut: self.cut,
            };
        }
        let rank = dims.len();
        let mut axes: Vec<usize> = Vec::with_capacity(SHAPE_DIMS);
        for &axis in about {
            if axes.len() == SHAPE_DIMS {
                break;
            }
            if axis < rank && !axes.contains(&axis) {
                axes.push(axis);
            }
        }
        axes.sort_unstable();
        let room = SHAPE_DIMS - axes.len();
        let first: Vec<usize> = (0..rank)
            .filter(|a| axes.binary_search(a).is_err())
            .take(room)
            .collect();
        axes.extend(first);
        axes.sort_unstable();
        let mut dims = dims.into_iter().enumerate();
        let stated = axes
            .iter()
            .filter_map(|&axis| dims.find(|(i, _)| *i == axis).map(|(_, dim)| dim))
            .collect();
        StatedShape {
            dims: Shape::Ranked(stated),
            cut: Some(Box::new(Cut { rank, axes })),
        }
    }

    /// The whole shape, when no dim was left out.
    pub fn whole(&self) -> Option<&Shape> {
        self.cut.is_none().then_some(&self.dims)
    }

    /// The rank (`None` when unknown).
    pub fn rank(&self) -> Option<usize> {
        match &self.cut {
            Some(cut) => Some(cut.rank),
            None => self.dims.rank(),
        }
    }

    /// The dim at `axis`, when stated.
    pub fn dim(&self, axis: usize) -> Option<&Dim> {
        let dims = self.dims.dims()?;
        match &self.cut {
            None => dims.get(axis),
            Some(cut) => dims.get(cut.axes.binary_search(&axis).ok()?),
        }
    }

    /// Each stated dim with its axis, in axis order (none for an unknown rank).
    pub fn stated(&self) -> impl Iterator<Item = (usize, &Dim)> + '_ {
        let dims = self.dims.dims().unwrap_or_default();
        dims.iter().enumerate().map(move |(i, dim)| {
            let axis = self
                .cut
                .as_ref()
                .and_then(|cut| cut.axes.get(i).copied())
                .unwrap_or(i);
            (axis, dim)
        })
    }

    /// How many dims it leaves out (0 for a whole shape).
    pub fn left_out(&self) -> usize {
        self.cut
            .as_ref()
            .map_or(0, |cut| cut.rank.saturating_sub(cut.axes.len()))
    }

    /// How many leading axes (0, 1, ...) it states without a gap.
    fn leading(&self) -> usize {
        match &self.cut {
            None => self.dims.rank().unwrap_or(0),
            Some(cut) => cut
                .axes
                .iter()
                .enumerate()
                .take_while(|(i, axis)| i == *axis)
                .count(),
        }
    }
}

impl From<Shape> for StatedShape {
    /// The whole shape, to be cut when its finding is made ([`StatedShape::within`]).
    fn from(dims: Shape) -> Self {
        StatedShape { dims, cut: None }
    }
}

impl From<&Shape> for StatedShape {
    /// The whole shape, to be cut when its finding is made ([`StatedShape::within`]).
    fn from(shape: &Shape) -> Self {
        StatedShape::from(shape.clone())
    }
}

/// Equal to a shape when it states the whole of it.
impl PartialEq<Shape> for StatedShape {
    fn eq(&self, other: &Shape) -> bool {
        self.whole() == Some(other)
    }
}

/// A whole shape as [`Shape`] writes it; a cut one with its gaps counted and its rank.
impl Display for StatedShape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Some(cut) = &self.cut else {
            return self.dims.fmt(f);
        };
        f.write_str("[")?;
        let mut next = 0;
        for (i, (axis, dim)) in self.stated().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if axis > next {
                write!(
                    f,
                    "… {} {} …, axis {axis}: ",
                    axis - next,
                    noun(axis - next)
                )?;
            }
            write!(f, "{dim}")?;
            next = axis + 1;
        }
        if cut.rank > next {
            write!(
                f,
                ", … and {} more {}",
                cut.rank - next,
                noun(cut.rank - next)
            )?;
        }
        write!(f, "] (rank {})", cut.rank)
    }
}

/// `dim` for one, `dims` for any other count.
fn noun(count: usize) -> &'static str {
    if count == 1 {
        "dim"
    } else {
        "dims"
    }
}

/// A whole shape as the JSON `shape` (a list of dims, or null); a cut one as `{"rank", "dims",
/// "axes", "left_out"}`.
impl Serialize for StatedShape {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(cut) = &self.cut else {
            let Some(dims) = self.dims.dims() else {
                return serializer.serialize_none();
            };
            let mut seq = serializer.serialize_seq(Some(dims.len()))?;
            for dim in dims {
                seq.serialize_element(&Printed(dim))?;
            }
            return seq.end();
        };
        let leading = self.leading();
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("rank", &cut.rank)?;
        map.serialize_entry("dims", &Dims(self, 0..leading))?;
        map.serialize_entry("axes", &Axes(self, leading))?;
        map.serialize_entry("left_out", &self.left_out())?;
        map.end()
    }
}

/// The stated dims at positions `range`, as a list of JSON dims.
struct Dims<'a>(&'a StatedShape, std::ops::Range<usize>);

impl Serialize for Dims<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let dims = self.0.dims.dims().unwrap_or_default();
        let dims = dims.get(self.1.clone()).unwrap_or_default();
        let mut seq = serializer.serialize_seq(Some(dims.len()))?;
        for dim in dims {
            seq.serialize_element(&Printed(dim))?;
        }
        seq.end()
    }
}

/// The stated dims from position `.1` on, as `[{"axis", "dim"}]`.
struct Axes<'a>(&'a StatedShape, usize);

impl Serialize for Axes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for (axis, dim) in self.0.stated().skip(self.1) {
            seq.serialize_element(&AxisDim(axis, dim))?;
        }
        seq.end()
    }
}

/// `{"axis", "dim"}`.
struct AxisDim<'a>(usize, &'a Dim);

impl Serialize for AxisDim<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("axis", &self.0)?;
        map.serialize_entry("dim", &Printed(self.1))?;
        map.end()
    }
}

/// A dim as the JSON output prints it: an integer, a symbolic expression, or null.
pub(super) fn dim<S: Serializer>(dim: &Dim, serializer: S) -> Result<S::Ok, S::Error> {
    match dim {
        Dim::Known(size) => serializer.serialize_i64(*size),
        Dim::Sym(_) => serializer.serialize_str(&dim.to_string()),
        Dim::Unknown => serializer.serialize_none(),
    }
}

/// A dim serialized as [`dim`] does, for sequences.
pub(super) struct Printed<'a>(pub(super) &'a Dim);

impl Serialize for Printed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        dim(self.0, serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[d0, d1, ..]` of rank `rank`, with `3` at `at`.
    fn shape(rank: usize, at: usize) -> Shape {
        Shape::Ranked(
            (0..rank)
                .map(|i| {
                    if i == at {
                        Dim::Known(3)
                    } else {
                        Dim::sym(&format!("d{i}"))
                    }
                })
                .collect(),
        )
    }

    #[test]
    fn a_shape_within_the_bound_is_whole() {
        let whole = shape(SHAPE_DIMS, 5);
        let stated = StatedShape::of(&whole, &[5]);
        assert_eq!(stated.whole(), Some(&whole));
        assert_eq!(stated.to_string(), whole.to_string());
        assert_eq!(
            serde_json::to_value(&stated).unwrap(),
            serde_json::to_value(crate::diag::Operand::new("x".into(), (&whole).into())).unwrap()
                ["shape"]
        );
        assert_eq!(stated.left_out(), 0);
        let unranked = StatedShape::of(&Shape::Unranked, &[]);
        assert_eq!(unranked.to_string(), "[...]");
        assert_eq!(unranked.rank(), None);
        assert_eq!(
            serde_json::to_value(&unranked).unwrap(),
            serde_json::Value::Null
        );
    }

    /// `d0, d1, .., d{n-1}`.
    fn named(n: usize) -> String {
        (0..n)
            .map(|i| format!("d{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    #[test]
    fn a_long_shape_states_its_first_axes_and_counts_the_rest() {
        let stated = StatedShape::of(&shape(1000, 2000), &[]);
        assert_eq!(stated.whole(), None);
        assert_eq!(stated.rank(), Some(1000));
        let more = 1000 - SHAPE_DIMS;
        assert_eq!(stated.left_out(), more);
        let last = SHAPE_DIMS - 1;
        assert_eq!(
            stated.dim(last).map(ToString::to_string),
            Some(format!("d{last}"))
        );
        assert_eq!(stated.dim(SHAPE_DIMS), None);
        assert_eq!(
            stated.to_string(),
            format!(
                "[{}, … and {more} more dims] (rank 1000)",
                named(SHAPE_DIMS)
            )
        );
        let json = serde_json::to_value(&stated).unwrap();
        assert_eq!(json["rank"], 1000);
        assert_eq!(json["dims"].as_array().unwrap().len(), SHAPE_DIMS);
        assert_eq!(json["axes"], serde_json::json!([]));
        assert_eq!(json["left_out"], more);
    }

    #[test]
    fn the_axis_a_finding_is_about_is_stated_past_the_cut() {
        let stated = StatedShape::of(&shape(1000, 900), &[900]);
        assert_eq!(stated.dim(900), Some(&Dim::Known(3)));
        let first = SHAPE_DIMS - 1;
        assert!(stated.dim(first - 1).is_some());
        assert_eq!(stated.dim(first), None);
        assert_eq!(stated.left_out(), 1000 - SHAPE_DIMS);
        assert_eq!(
            stated.to_string(),
            format!(
                "[{}, … {} dims …, axis 900: 3, … and 99 more dims] (rank 1000)",
                named(first),
                900 - first
            )
        );
        let json = serde_json::to_value(&stated).unwrap();
        assert_eq!(json["dims"].as_array().unwrap().len(), first);
        assert_eq!(json["axes"], serde_json::json!([{"axis": 900, "dim": 3}]));
        assert_eq!(json["left_out"], 1000 - SHAPE_DIMS);
        // Cutting again keeps what the first cut stated.
        assert_eq!(stated.clone().within(&[5]), stated);
        let axes: Vec<usize> = stated.stated().map(|(axis, _)| axis).collect();
        assert_eq!(axes.len(), SHAPE_DIMS);
        assert_eq!(axes.last(), Some(&900));
        // One dim left out is one dim.
        let stated = StatedShape::of(&shape(SHAPE_DIMS + 1, 0), &[]);
        let tail = format!(", … and 1 more dim] (rank {})", SHAPE_DIMS + 1);
        assert!(stated.to_string().ends_with(&tail), "{stated}");
    }

    #[test]
    fn the_first_axes_named_come_first() {
        // A clash's axis named before a hundred others that differ is still stated.
        let mut about = vec![900];
        about.extend(0..100);
        let stated = StatedShape::of(&shape(1000, 900), &about);
        assert_eq!(stated.dim(900), Some(&Dim::Known(3)));
        assert_eq!(stated.left_out(), 1000 - SHAPE_DIMS);
        // Uncut until a finding cuts it.
        let whole = StatedShape::from(shape(1000, 900));
        assert_eq!(whole.rank(), Some(1000));
        assert_eq!(whole.left_out(), 0);
        assert_eq!(whole.within(&about), stated);
    }

    #[test]
    fn more_axes_of_interest_than_the_bound_state_the_first_of_them() {
        let about: Vec<usize> = (100..1000).step_by(2).collect();
        let stated = StatedShape::of(&shape(1000, 0), &about);
        let axes: Vec<usize> = stated.stated().map(|(axis, _)| axis).collect();
        assert_eq!(axes, about[..SHAPE_DIMS].to_vec());
        let text = stated.to_string();
        assert!(
            text.starts_with("[… 100 dims …, axis 100: d100, … 1 dim …, axis 102: d102"),
            "{text}"
        );
        let json = serde_json::to_value(&stated).unwrap();
        assert_eq!(json["dims"], serde_json::json!([]));
        assert_eq!(json["axes"].as_array().unwrap().len(), SHAPE_DIMS);
    }
}
