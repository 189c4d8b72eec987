//! Known elements through `Split` and `Tile`, the element-moving ops the rules did not carry
//! values through (issue 38): tf2onnx's transpose optimizer reorders a `Pad`'s pads vector
//! with `Split` -> `Concat`, and routing code tiles `Shape`-derived vectors. Both are picks of
//! the input's elements (`value_ops::select`), so symbolic elements move exactly.

use super::rearrange::select;
use crate::shape::values::ValueTensor;
use crate::shape::Dim;

/// The parts of `v` split along `axis` into pieces of `sizes` (known, non-negative, adding up
/// to the axis); `None` when a size is not known or they do not fit.
pub(crate) fn split_values(
    v: &ValueTensor,
    axis: usize,
    sizes: &[Dim],
) -> Option<Vec<ValueTensor>> {
    let whole = *v.shape.get(axis)?;
    let mut start = 0usize;
    let mut parts = Vec::with_capacity(sizes.len());
    for size in sizes {
        let size = usize::try_from(size.as_known()?).ok()?;
        let end = start.checked_add(size)?;
        if end > whole {
            return None;
        }
        let picks: Vec<Vec<usize>> = v
            .shape
            .iter()
            .enumerate()
            .map(|(a, &n)| {
                if a == axis {
                    (start..end).collect()
                } else {
                    (0..n).collect()
                }
            })
            .collect();
        parts.push(select(v, &picks)?);
        start = end;
    }
    (start == whole).then_some(parts)
}

/// `v` repeated `repeats[a]` times along each axis `a` (ONNX `Tile`: the whole axis again, not
/// each element); `None` when a repeat is not a known non-negative count.
pub(crate) fn tile_values(v: &ValueTensor, repeats: &[Dim]) -> Option<ValueTensor> {
    if repeats.len() != v.shape.len() {
        return None;
    }
    let picks: Option<Vec<Vec<usize>>> = v
        .shape
        .iter()
        .zip(repeats)
        .map(|(&n, r)| {
            let r = usize::try_from(r.as_known()?).ok()?;
            // Bounded: the pick lists are at most the output's size, which `select` bounds.
            let len = n.checked_mul(r)?;
            (len <= crate::shape::values::MAX_ELEMENTS)
                .then(|| (0..len).map(|i| i % n.max(1)).collect())
        })
        .collect();
    select(v, &picks?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(data: Vec<Dim>) -> ValueTensor {
        ValueTensor::vector(data).unwrap()
    }

    #[test]
    fn split_moves_symbolic_elements() {
        let n = Dim::sym("N");
        let v = vector(vec![n.clone(), Dim::known(4), Dim::known(1), Dim::known(1)]);
        let parts = split_values(&v, 0, &[Dim::known(1), Dim::known(3)]).unwrap();
        assert_eq!(parts[0], vector(vec![n]));
        assert_eq!(
            parts[1],
            vector(vec![Dim::known(4), Dim::known(1), Dim::known(1)])
        );
        // Sizes that do not add up, or are unknown, give nothing.
        assert!(split_values(&v, 0, &[Dim::known(1), Dim::known(2)]).is_none());
        assert!(split_values(&v, 0, &[Dim::known(2), Dim::sym("k")]).is_none());
    }

    #[test]
    fn split_along_the_second_axis() {
        let v = ValueTensor::new(vec![2, 2], (1..=4).map(Dim::known).collect()).unwrap();
        let parts = split_values(&v, 1, &[Dim::known(1), Dim::known(1)]).unwrap();
        let col = |a, b| ValueTensor::new(vec![2, 1], vec![Dim::known(a), Dim::known(b)]).unwrap();
        assert_eq!(parts, vec![col(1, 3), col(2, 4)]);
    }

    #[test]
    fn tile_repeats_whole_axes() {
        let m = Dim::sym("M");
        let v = vector(vec![m.clone(), Dim::known(2)]);
        let out = tile_values(&v, &[Dim::known(2)]).unwrap();
        assert_eq!(
            out,
            vector(vec![m.clone(), Dim::known(2), m, Dim::known(2)])
        );
        assert_eq!(tile_values(&v, &[Dim::known(0)]).unwrap().data, vec![]);
        assert!(tile_values(&v, &[Dim::sym("r")]).is_none());
        assert!(tile_values(&v, &[Dim::known(-1)]).is_none());
    }
}
