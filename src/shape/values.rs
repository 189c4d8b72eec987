//! Value-level broadcasting of small tensors whose elements are dims (shape tensors fed to
//! Reshape, Expand, ...). Follows the SONNX element relation (001, 004): after prepending 1s,
//! `Z[i] = Y[f(i)]` where `f` maps the index on a broadcast axis to 0; values are copied
//! exactly. Sizes are bounded by `MAX_ELEMENTS`; larger tensors give `None`.

#![allow(
    clippy::many_single_char_names,
    reason = "arithmetic reads best with the usual names: k divisor, q quotient, r remainder"
)]

use super::real::{Real, Width};
use super::Dim;

/// Most elements a value tensor may hold.
pub(crate) const MAX_ELEMENTS: usize = crate::limits::VALUE_ELEMENTS;

/// A small tensor of dims (or, for floating-point tensors, of [`Real`]s), row-major.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct ValueTensor<T = Dim> {
    /// Static shape.
    pub shape: Vec<usize>,
    /// Elements, row-major; `data.len()` is the product of `shape`.
    pub data: Vec<T>,
}

fn numel(shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, d| acc.checked_mul(*d))
        .filter(|n| *n <= MAX_ELEMENTS)
}

/// Numpy broadcast of two static shapes; `None` when incompatible.
fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let pad = |s: &[usize], i: usize| {
        i.checked_sub(rank - s.len())
            .and_then(|j| s.get(j).copied())
            .unwrap_or(1)
    };
    (0..rank)
        .map(|i| match (pad(a, i), pad(b, i)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}

impl<T: Clone> ValueTensor<T> {
    /// A tensor, checking that `data` fits `shape` and the size bound.
    pub(crate) fn new(shape: Vec<usize>, data: Vec<T>) -> Option<ValueTensor<T>> {
        (numel(&shape)? == data.len()).then_some(ValueTensor { shape, data })
    }

    /// A 1-D tensor.
    pub(crate) fn vector(data: Vec<T>) -> Option<ValueTensor<T>> {
        ValueTensor::new(vec![data.len()], data)
    }

    /// Broadcasts to `target` (unidirectional: every dim of `self`, right-aligned, is 1 or
    /// equal to `target`'s); `None` when incompatible or too large.
    pub(crate) fn broadcast_to(&self, target: &[usize]) -> Option<ValueTensor<T>> {
        // The fields are public: do not trust them to agree.
        if numel(&self.shape)? != self.data.len() {
            return None;
        }
        let total = numel(target)?;
        let rank = target.len();
        let offset = rank.checked_sub(self.shape.len())?;
        for (j, d) in self.shape.iter().enumerate() {
            let t = *target.get(offset + j)?;
            if *d != 1 && *d != t {
                return None;
            }
        }
        // Strides of self, with 0 on broadcast axes: the SONNX f(i) maps those indices to 0.
        let mut strides = vec![0usize; rank];
        let mut step = 1usize;
        for (j, d) in self.shape.iter().enumerate().rev() {
            if *d != 1 {
                *strides.get_mut(offset + j)? = step;
            }
            step = step.checked_mul(*d)?;
        }
        let mut data = Vec::with_capacity(total);
        let mut index = vec![0usize; rank];
        for _ in 0..total {
            let src: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
            data.push(self.data.get(src)?.clone());
            for (i, t) in index.iter_mut().zip(target).rev() {
                *i += 1;
                if *i < *t {
                    break;
                }
                *i = 0;
            }
        }
        Some(ValueTensor {
            shape: target.to_vec(),
            data,
        })
    }

    /// Applies `f` element-wise after multidirectional broadcasting of `a` and `b`.
    pub(crate) fn zip_with<U: Clone, V>(
        a: &ValueTensor<T>,
        b: &ValueTensor<U>,
        f: impl Fn(&T, &U) -> V,
    ) -> Option<ValueTensor<V>> {
        let shape = broadcast_shapes(&a.shape, &b.shape)?;
        let (x, y) = (a.broadcast_to(&shape)?, b.broadcast_to(&shape)?);
        let data = x.data.iter().zip(&y.data).map(|(p, q)| f(p, q)).collect();
        Some(ValueTensor { shape, data })
    }

    /// Applies `f` to every element, keeping the shape.
    pub(crate) fn map<V>(&self, f: impl Fn(&T) -> V) -> ValueTensor<V> {
        ValueTensor {
            shape: self.shape.clone(),
            data: self.data.iter().map(f).collect(),
        }
    }

    /// The same elements under another shape of as many elements (Reshape, Unsqueeze, Squeeze).
    pub(crate) fn reshaped(&self, shape: Vec<usize>) -> Option<ValueTensor<T>> {
        ValueTensor::new(shape, self.data.clone())
    }
}

impl ValueTensor<Dim> {
    /// The integer elements converted to floats of `width` (`Cast` to a float type).
    pub(crate) fn to_reals(&self, width: Width) -> ValueTensor<Real> {
        self.map(|d| Real::from_dim(d, width))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::ValueTensor;
    use crate::shape::Dim;

    fn t(shape: &[usize], start: i64) -> ValueTensor {
        let n: usize = shape.iter().product();
        let data = (0..n)
            .map(|i| Dim::known(start + i64::try_from(i).unwrap()))
            .collect();
        ValueTensor::new(shape.to_vec(), data).unwrap()
    }

    #[test]
    fn column_plus_row() {
        let col = t(&[2, 1], 0);
        let row = t(&[3], 10);
        let z = ValueTensor::zip_with(&col, &row, Dim::add).unwrap();
        assert_eq!(z.shape, vec![2, 3]);
        let got: Vec<i64> = z.data.iter().map(|d| d.as_known().unwrap()).collect();
        assert_eq!(got, vec![10, 11, 12, 11, 12, 13]);
        assert!(ValueTensor::zip_with(&t(&[2], 0), &t(&[3], 0), Dim::add).is_none());
    }

    #[test]
    fn size_is_bounded() {
        assert!(t(&[1], 0).broadcast_to(&[1 << 9, 1 << 9]).is_none());
    }

    proptest! {
        /// Explicit element-by-element expansion: Z[i] = X[f(i)], f(i)_k = 0 where X's dim is 1.
        #[test]
        fn broadcast_equals_explicit_expansion(
            (target, src) in prop::collection::vec(1usize..4, 0..5).prop_flat_map(|t| {
                let n = t.len();
                (Just(t), prop::collection::vec(prop::bool::ANY, 0..=n))
            }),
        ) {
            let offset = target.len() - src.len();
            let shape: Vec<usize> = src
                .iter()
                .enumerate()
                .map(|(j, keep)| if *keep { target[offset + j] } else { 1 })
                .collect();
            let x = t(&shape, 100);
            let z = x.broadcast_to(&target).unwrap();
            let total: usize = target.iter().product();
            for flat in 0..total {
                // Unravel flat into the target index, then map into x.
                let mut rem = flat;
                let mut idx = vec![0usize; target.len()];
                for k in (0..target.len()).rev() {
                    idx[k] = rem % target[k];
                    rem /= target[k];
                }
                let mut src_flat = 0usize;
                for (j, d) in shape.iter().enumerate() {
                    let i = if *d == 1 { 0 } else { idx[offset + j] };
                    src_flat = src_flat * d + i;
                }
                prop_assert_eq!(&z.data[flat], &x.data[src_flat]);
            }
        }
    }
}
