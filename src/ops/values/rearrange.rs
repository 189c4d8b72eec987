//! Element rearrangements of small values (data propagation through `Slice` and `Transpose`):
//! exporters compute pads and shapes with multi-dimensional integer tensors (`PyTorch`'s `F.pad`
//! export reshapes its pads to `[-1, 2]`, reverses and transposes them).

use crate::shape::values::ValueTensor;

/// Row-major strides of a shape.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        let next: usize = strides.get(i + 1).copied().unwrap_or(1);
        let size = shape.get(i + 1).copied().unwrap_or(1);
        if let Some(slot) = strides.get_mut(i) {
            *slot = next.saturating_mul(size);
        }
    }
    strides
}

/// Calls `f` with every multi-index of `shape` in row-major order.
fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut index = vec![0usize; shape.len()];
    loop {
        f(&index);
        let mut axis = shape.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            let (Some(i), Some(&n)) = (index.get_mut(axis), shape.get(axis)) else {
                return;
            };
            *i += 1;
            if *i < n {
                break;
            }
            *i = 0;
        }
    }
}

/// A value of `out_shape` whose element at each multi-index is `v`'s element at `offset(index)`.
fn collect_at(
    v: &ValueTensor,
    out_shape: Vec<usize>,
    offset: impl Fn(&[usize]) -> Option<usize>,
) -> Option<ValueTensor> {
    let mut data = Vec::new();
    let mut ok = true;
    for_each_index(&out_shape, |index| {
        match offset(index).and_then(|o| v.data.get(o)) {
            Some(d) => data.push(d.clone()),
            None => ok = false,
        }
    });
    if ok {
        ValueTensor::new(out_shape, data)
    } else {
        None
    }
}

/// The elements at the cartesian product of per-axis index lists (`picks[axis]` lists the input
/// indices kept along that axis, in output order).
pub(crate) fn select(v: &ValueTensor, picks: &[Vec<usize>]) -> Option<ValueTensor> {
    if picks.len() != v.shape.len() {
        return None;
    }
    let strides = strides(&v.shape);
    collect_at(v, picks.iter().map(Vec::len).collect(), |index| {
        index
            .iter()
            .zip(picks)
            .zip(&strides)
            .map(|((&i, pick), &stride)| pick.get(i).map(|&p| p * stride))
            .sum()
    })
}

/// The elements transposed by `perm` (output axis `k` is input axis `perm[k]`).
pub(crate) fn permute(v: &ValueTensor, perm: &[usize]) -> Option<ValueTensor> {
    if perm.len() != v.shape.len() {
        return None;
    }
    let out_shape: Vec<usize> = perm
        .iter()
        .map(|&p| v.shape.get(p).copied())
        .collect::<Option<_>>()?;
    let strides = strides(&v.shape);
    collect_at(v, out_shape, |index| {
        index
            .iter()
            .zip(perm)
            .map(|(&i, &p)| strides.get(p).map(|s| i * s))
            .sum()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Dim;

    fn tensor(shape: &[usize], data: &[i64]) -> ValueTensor {
        ValueTensor::new(
            shape.to_vec(),
            data.iter().copied().map(Dim::known).collect(),
        )
        .unwrap()
    }

    #[test]
    fn select_reverses_rows() {
        let v = tensor(&[3, 2], &[1, 2, 3, 4, 5, 6]);
        let out = select(&v, &[vec![2, 1, 0], vec![0, 1]]).unwrap();
        assert_eq!(out, tensor(&[3, 2], &[5, 6, 3, 4, 1, 2]));
    }

    #[test]
    fn permute_transposes() {
        let v = tensor(&[2, 3], &[1, 2, 3, 4, 5, 6]);
        let out = permute(&v, &[1, 0]).unwrap();
        assert_eq!(out, tensor(&[3, 2], &[1, 4, 2, 5, 3, 6]));
    }

    #[test]
    fn empty_and_out_of_range_picks() {
        let v = tensor(&[2], &[7, 8]);
        assert_eq!(select(&v, &[vec![]]).unwrap().data, vec![]);
        assert!(select(&v, &[vec![5]]).is_none());
    }
}
