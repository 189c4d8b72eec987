//! Which dims a finding is about: where two or more offending inputs have shapes, the axes
//! (aligned from the right, as broadcasting aligns them) on which their sizes differ: `seq`
//! against `min(seq, 64)`, 3 against 4 (for a broadcast, sizes of 1 are left out: they
//! stretch). A lone offending input (a Squeeze's data) is about its symbolic dims that the
//! message names. Inputs shown by their elements (a Reshape target, Squeeze axes) and unknown
//! dims are about nothing. These are the dims a long shape keeps when its finding is made
//! (`bounded.rs`) and the dims whose provenance is traced (`crate::provenance`).

use super::{Code, InputSite, StatedShape};
use crate::shape::Dim;

/// `(index into inputs, axis)` of every dim the finding of `code` with `message` is about, in
/// input then axis order.
pub(crate) fn offending_axes(
    inputs: &[InputSite],
    code: Code,
    message: &str,
) -> Vec<(usize, usize)> {
    let shaped: Vec<(usize, &StatedShape)> = inputs
        .iter()
        .enumerate()
        .filter(|(_, input)| input.offending && input.value.is_none())
        .filter(|(_, input)| input.shape.rank().is_some())
        .map(|(i, input)| (i, &input.shape))
        .collect();
    match shaped[..] {
        [] => Vec::new(),
        [(i, shape)] => shape
            .stated()
            .filter(|(_, dim)| {
                matches!(dim, Dim::Sym(_)) && dim.symbols().iter().any(|s| message.contains(s))
            })
            .map(|(axis, _)| (i, axis))
            .collect(),
        _ => {
            // Broadcasting stretches a 1, so it is never what a broadcast finding is about; an
            // operator constraint (Concat's other axes) may clash with a 1.
            let stretching_one_matters = !matches!(code, Code::E1 | Code::W1);
            let stated: Vec<&StatedShape> = shaped.iter().map(|(_, shape)| *shape).collect();
            let mut out: Vec<(usize, usize)> = differing_axes(&stated, stretching_one_matters)
                .into_iter()
                .filter_map(|(k, axis)| Some((shaped.get(k)?.0, axis)))
                .collect();
            out.sort_unstable();
            out
        }
    }
}

/// `(index into shapes, axis)` of the dims on each axis (aligned from the right) where the
/// shapes' stated sizes differ, from the last axis back; unknown dims, and sizes of 1 unless
/// `stretching_one_matters`, take no part.
pub(crate) fn differing_axes(
    shapes: &[&StatedShape],
    stretching_one_matters: bool,
) -> Vec<(usize, usize)> {
    let rank = shapes.iter().filter_map(|s| s.rank()).max().unwrap_or(0);
    let mut out = Vec::new();
    for back in 1..=rank {
        // The dims on this aligned axis that broadcasting does not simply stretch.
        let present: Vec<(usize, usize, &Dim)> = shapes
            .iter()
            .enumerate()
            .filter_map(|(k, shape)| {
                let axis = shape.rank()?.checked_sub(back)?;
                Some((k, axis, shape.dim(axis)?))
            })
            .filter(|(_, _, d)| match d {
                Dim::Unknown => false,
                Dim::Known(1) => stretching_one_matters,
                _ => true,
            })
            .collect();
        let differ = present
            .first()
            .is_some_and(|(_, _, first)| present.iter().any(|(_, _, d)| d != first));
        if differ {
            out.extend(present.iter().map(|&(k, axis, _)| (k, axis)));
        }
    }
    out
}
