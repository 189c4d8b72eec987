//! Float shape arithmetic over several elements, and the float ops `float_values.rs` leaves
//! out (issue 38, item 1): reductions of small float vectors (torchvision pads a batch to a
//! multiple of 32 with `ceil(ReduceMax(Concat(Cast(sizes))) / 32) * 32`), `Pow` of known
//! floats (a `ViT` grid side is `Cast(Pow(num_positions, 0.5))`), and `ArgMax`/`ArgMin` of known
//! integers.
//!
//! Exact only, as [`Real`] is: a result is known when it does not depend on how the runtime
//! rounds. `ReduceMax`/`ReduceMin` take no rounding at all (the larger of two floats is one of
//! them), so any elements fold; `ReduceSum`/`ReduceProd` fold only exact integers (symbolic or
//! not), whose partial sums and products are integers the float holds exactly in every order
//! (the `Real` module's assumption: below 2^22), since a runtime's summation order is its own.
//! `Pow` is known only when the exact power is a float of the width (an integer base to a small
//! integer exponent, or a perfect square's square root): every pow that is faithful returns an
//! exactly representable result unchanged.

use super::Reducer;
use crate::shape::real::{Real, Width};
use crate::shape::values::ValueTensor;
use crate::shape::Dim;

/// Largest integer a `FLOAT` holds with room to spare (the `Real` module's bound).
const EXACT_INT: i64 = 1 << 22;

/// `reducer` over every element of `real`, as one element shaped `[1; rank]` (rank
/// 0 without keepdims); `None` for other ops or when the result is not exact.
pub(crate) fn reduce_all(
    reducer: Reducer,
    real: &ValueTensor<Real>,
    rank: usize,
    width: Width,
) -> Option<ValueTensor<Real>> {
    let total = match reducer {
        Reducer::Max | Reducer::Min => {
            let (first, rest) = real.data.split_first()?;
            let lower = reducer == Reducer::Min;
            rest.iter()
                .fold(first.clone(), |acc, r| acc.extreme(r, width, lower))
        }
        Reducer::Sum | Reducer::Prod => {
            let ints: Option<Vec<Dim>> = real.data.iter().map(Real::as_int).collect();
            let ints = ints?;
            let total = if reducer == Reducer::Sum {
                ints.iter().fold(Dim::known(0), |acc, d| acc.add(d))
            } else {
                ints.iter().fold(Dim::known(1), |acc, d| acc.mul(d))
            };
            if total.as_known().is_some_and(|v| v.abs() >= EXACT_INT) {
                return None;
            }
            Real::from_dim(&total, width)
        }
        Reducer::Other => return None,
    };
    if matches!(total, Real::Unknown) {
        return None;
    }
    ValueTensor::new(vec![1; rank], vec![total])
}

/// `base ^ exponent` for one pair of elements, when the exact power is a float of `width`.
pub(crate) fn pow(base: &Real, exponent: &Real, width: Width) -> Real {
    let Some(e) = exponent.as_num() else {
        return Real::Unknown;
    };
    // A symbolic integer to the first power is itself; higher powers are exact products.
    if let (Real::Int(d), Some(k)) = (base, small_exponent(e)) {
        return match k {
            0 => Real::Num(1.0),
            1 => Real::Int(d.clone()),
            2 => Real::Int(d.mul(d)),
            _ => Real::Unknown,
        };
    }
    let Some(x) = base.as_num() else {
        return Real::Unknown;
    };
    let exact = if let Some(k) = small_exponent(e) {
        integral(x).and_then(|b| b.checked_pow(k))
    } else if e.to_bits() == 0.5f64.to_bits() && x >= 0.0 {
        // A perfect square's root: exact, and what every faithful pow returns.
        integral(x.sqrt().round())
            .filter(|&r| integral(x).is_some_and(|b| r.checked_mul(r) == Some(b)))
    } else {
        None
    };
    match exact {
        Some(v) if v.abs() < EXACT_INT => Real::from_dim(&Dim::known(v), width),
        _ => Real::Unknown,
    }
}

/// A float that is a small non-negative integer exponent.
fn small_exponent(e: f64) -> Option<u32> {
    (e.fract() == 0.0 && (0.0..=62.0).contains(&e)).then(|| {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked to be an integer in 0..=62"
        )]
        let k = e as u32;
        k
    })
}

/// `x` as an integer, when it is one below 2^22 in magnitude.
fn integral(x: f64) -> Option<i64> {
    #[allow(
        clippy::cast_possible_truncation,
        reason = "checked to be integral and small"
    )]
    (x.is_finite() && x.fract() == 0.0 && x.abs() < 4_194_304.0).then_some(x as i64)
}

/// `ArgMax`/`ArgMin` of a known 1-D integer vector (the index of the first extreme, or the
/// last with `select_last_index`), shaped `[1]` with keepdims, else a scalar; `None` unless
/// every element is a known integer.
pub(crate) fn arg_extreme(
    v: &ValueTensor,
    lower: bool,
    select_last: bool,
    keep: bool,
) -> Option<ValueTensor> {
    if v.shape.len() != 1 {
        return None;
    }
    let known: Option<Vec<i64>> = v.data.iter().map(Dim::as_known).collect();
    let mut best: Option<(usize, i64)> = None;
    for (i, x) in known?.into_iter().enumerate() {
        let better = match best {
            None => true,
            Some((_, b)) if lower => x < b || (select_last && x == b),
            Some((_, b)) => x > b || (select_last && x == b),
        };
        if better {
            best = Some((i, x));
        }
    }
    let index = i64::try_from(best?.0).ok()?;
    let shape = if keep { vec![1] } else { Vec::new() };
    ValueTensor::new(shape, vec![Dim::known(index)])
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Width = Width::F32;

    fn reals(data: Vec<Real>) -> ValueTensor<Real> {
        ValueTensor::vector(data).unwrap()
    }

    fn int(name: &str) -> Real {
        Real::from_dim(&Dim::sym(name), F)
    }

    #[test]
    fn reduce_max_of_cast_sizes_is_their_max() {
        let v = reals(vec![int("h"), int("w")]);
        let out = reduce_all(Reducer::Max, &v, 1, F).unwrap();
        let want = Dim::sym("h").max(&Dim::sym("w"));
        assert_eq!(out.data[0].as_int(), Some(want));
        assert_eq!(out.shape, vec![1]);
        let v = reals(vec![Real::Num(320.0), Real::Num(300.0)]);
        assert_eq!(
            reduce_all(Reducer::Min, &v, 0, F).unwrap().data[0].as_num(),
            Some(300.0)
        );
    }

    #[test]
    fn sums_and_products_fold_exact_integers_only() {
        let v = reals(vec![int("h"), Real::Num(3.0)]);
        let sum = reduce_all(Reducer::Sum, &v, 1, F).unwrap();
        assert_eq!(
            sum.data[0].as_int(),
            Some(Dim::sym("h").add(&Dim::known(3)))
        );
        // A fraction's sum depends on the order of rounding: left unknown.
        let v = reals(vec![Real::Num(0.1), Real::Num(0.2), Real::Num(0.3)]);
        assert!(reduce_all(Reducer::Sum, &v, 1, F).is_none());
        let v = reals(vec![Real::Num(4096.0), Real::Num(4096.0)]);
        assert!(reduce_all(Reducer::Prod, &v, 1, F).is_none());
        assert!(reduce_all(Reducer::Other, &v, 1, F).is_none());
    }

    #[test]
    fn pow_is_known_when_exact() {
        let p = |b: f64, e: f64| pow(&Real::Num(b), &Real::Num(e), F).as_num();
        assert_eq!(p(16.0, 0.5), Some(4.0));
        assert_eq!(p(196.0, 0.5), Some(14.0));
        assert_eq!(p(3.0, 4.0), Some(81.0));
        assert_eq!(p(2.0, 0.0), Some(1.0));
        // Irrational, fractional or huge: the runtime's rounding would decide.
        assert_eq!(p(2.0, 0.5), None);
        assert_eq!(p(2.5, 2.0), None);
        assert_eq!(p(2.0, 40.0), None);
        assert_eq!(p(8.0, 1.0 / 3.0), None);
        let h = Dim::sym("h");
        assert_eq!(pow(&int("h"), &Real::Num(2.0), F).as_int(), Some(h.mul(&h)));
        assert!(matches!(pow(&int("h"), &Real::Num(0.5), F), Real::Unknown));
    }

    #[test]
    fn argmax_of_known_integers() {
        let v = ValueTensor::vector([1, 3, 320, 320].map(Dim::known).to_vec()).unwrap();
        let first = arg_extreme(&v, false, false, true).unwrap();
        assert_eq!((first.shape, first.data), (vec![1], vec![Dim::known(2)]));
        let last = arg_extreme(&v, false, true, false).unwrap();
        assert_eq!((last.shape, last.data), (vec![], vec![Dim::known(3)]));
        assert_eq!(
            arg_extreme(&v, true, false, true).unwrap().data,
            vec![Dim::known(0)]
        );
        let sym = ValueTensor::vector(vec![Dim::sym("n"), Dim::known(3)]).unwrap();
        assert!(arg_extreme(&sym, false, false, true).is_none());
    }
}
