//! The ending the sampling and image-layout rules (`GridSample`, `RoiAlign`, `Col2Im`,
//! `MaxUnpool`, `DeformConv`...) share across sections: one output of a shape and element type,
//! with the constraints the rule left pending.

use crate::ops::constraint::Pending;
use crate::ops::{Inferred, Output};
use crate::shape::Shape;

/// One output of `shape` and `elem`, holding under `pending`'s conditions.
pub(crate) fn single(shape: Shape, elem: Option<i32>, pending: Pending) -> Inferred {
    Inferred::single(Output::shape(shape).elem(elem)).with_conditions(pending.into_checks())
}
