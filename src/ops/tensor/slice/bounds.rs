//! Slice lengths: exact for static sizes (ONNX Slice doc: negative bounds get the dim added,
//! then clamp), and for a symbolic dim a `min`/`max` expression right for every size it may
//! take, or unknown.

use crate::shape::Dim;

/// Bounds at least this large mean "to the end": exporters write `INT_MAX` (`i32` or `i64`) for
/// open slices, and the ONNX Slice doc recommends `INT_MAX`/`INT_MIN` for dims of unknown size.
/// This assumes no dim exceeds `i32::MAX`, the one approximation in this file.
const OPEN_BOUND: i64 = i32::MAX as i64;

/// First index and length of `x[start:end:step]` for a static length `len` (ONNX Slice: add `len`
/// to negative bounds, then clamp to `[0, len]` for positive steps and to `[0, len-1]` /
/// `[-1, len-1]` for negative ones). `None` for a zero step or a negative length.
pub(super) fn static_slice(len: i64, start: i64, end: i64, step: i64) -> Option<(i64, i64)> {
    if step == 0 || len < 0 {
        return None;
    }
    let norm = |v: i64| if v < 0 { v.saturating_add(len) } else { v };
    let (start, end) = (norm(start), norm(end));
    let (start, span) = if step > 0 {
        let (start, end) = (start.clamp(0, len), end.clamp(0, len));
        (start, end - start)
    } else {
        // `len - 1 >= -1`; a start clamped to `[0, -1]` (empty input) selects nothing anyway.
        let (start, end) = (start.clamp(-1, len - 1).max(0), end.clamp(-1, len - 1));
        (start, start - end)
    };
    let step_abs = step.checked_abs()?;
    // ceil(span / step) without overflow.
    let count = if span <= 0 || len == 0 {
        0
    } else {
        (span - 1) / step_abs + 1
    };
    Some((start, count))
}

/// A forward-slice bound clamped into `[0, dim]`, for any `dim`; unknown when its sign is.
fn clamp_forward(bound: &Dim, dim: &Dim) -> Dim {
    match bound.as_known() {
        Some(k) if k >= OPEN_BOUND => dim.clone(),
        Some(k) if k <= -OPEN_BOUND => Dim::known(0),
        Some(k) if k >= 0 => dim.min(bound),
        Some(_) => dim.add(bound).max(&Dim::known(0)),
        None => match bound {
            Dim::Sym(_) if bound.is_non_negative() => dim.min(bound),
            // `Shape - k` (issue 38): `dim - k` where it is >= 0, else `2*dim - k` clamped,
            // which is 0 too while k <= 2 (at dim < k <= 2, 2*dim - k <= 0).
            _ if matches!(bound.sub(dim).as_known(), Some(-2 | -1)) => bound.max(&Dim::known(0)),
            _ => Dim::Unknown,
        },
    }
}

/// Length of a slice of a possibly symbolic dim, valid for every size the dim may take.
pub(super) fn slice_length(dim: &Dim, start: &Dim, end: &Dim, step: i64) -> Dim {
    if let (Some(len), Some(s), Some(e)) = (dim.as_known(), start.as_known(), end.as_known()) {
        return static_slice(len, s, e, step).map_or(Dim::Unknown, |(_, n)| Dim::known(n));
    }
    let step_abs = step.checked_abs().map_or(Dim::Unknown, Dim::known);
    let ceil_div = |n: Dim| match step_abs.as_known() {
        Some(1) => n,
        Some(s) => n.add(&Dim::known(s - 1)).floor_div(&step_abs),
        None => Dim::Unknown,
    };
    if step < 0 {
        // Only the whole reversed range (`x[::-k]`) is taken: `ceil(dim / k)`.
        let from_last = start.as_known().is_some_and(|s| s == -1 || s >= OPEN_BOUND);
        let to_first = end.as_known().is_some_and(|e| e <= -OPEN_BOUND);
        return if from_last && to_first {
            ceil_div(dim.clone())
        } else {
            Dim::Unknown
        };
    }
    let to_end = end.as_known().is_some_and(|e| e >= OPEN_BOUND);
    let length = match start.as_known() {
        Some(0) => clamp_forward(end, dim),
        // `x[k:]` has `max(dim - k, 0)` elements and `x[-k:]` has `min(dim, k)`.
        Some(k) if to_end && (0..OPEN_BOUND).contains(&k) => dim.sub(start).max(&Dim::known(0)),
        Some(k) if to_end && (-OPEN_BOUND + 1..0).contains(&k) => dim.min(&start.neg()),
        _ => clamp_forward(end, dim)
            .sub(&clamp_forward(start, dim))
            .max(&Dim::known(0)),
    };
    ceil_div(length)
}

#[cfg(test)]
mod tests {
    use super::{slice_length, static_slice};
    use crate::shape::Dim;

    fn seq() -> Dim {
        Dim::sym("seq")
    }
    fn k(v: i64) -> Dim {
        Dim::known(v)
    }

    #[test]
    fn numpy_clamping_and_negative_steps() {
        assert_eq!(static_slice(10, 2, 5, 1), Some((2, 3)));
        assert_eq!(static_slice(10, -3, i64::MAX, 1), Some((7, 3)));
        assert_eq!(static_slice(10, 0, 100, 3), Some((0, 4)));
        assert_eq!(static_slice(10, 8, 2, 1), Some((8, 0)));
        assert_eq!(static_slice(10, -1, i64::MIN, -1), Some((9, 10)));
        assert_eq!(static_slice(10, 5, 1, -2), Some((5, 2)));
        assert_eq!(static_slice(10, -100, -20, 1), Some((0, 0)));
        assert_eq!(static_slice(4, 0, 4, 0), None);
    }

    #[test]
    fn empty_dims_and_extreme_bounds_do_not_panic() {
        assert_eq!(static_slice(0, -1, i64::MIN, -1), Some((0, 0)));
        assert_eq!(static_slice(0, 0, i64::MAX, 1), Some((0, 0)));
        assert_eq!(static_slice(i64::MAX, 0, i64::MAX, i64::MAX), Some((0, 1)));
        assert_eq!(static_slice(5, 0, 5, i64::MIN), None);
        assert_eq!(static_slice(-1, 0, 1, 1), None);
    }

    #[test]
    fn symbolic_open_ranges() {
        assert_eq!(slice_length(&seq(), &k(0), &k(i64::MAX), 1), seq());
        assert_eq!(
            slice_length(&seq(), &k(0), &k(i64::from(i32::MAX)), 1),
            seq()
        );
        // `x[1:]` is empty, not negative, when seq is 0.
        let rest = slice_length(&seq(), &k(1), &k(i64::MAX), 1);
        assert_eq!(rest, seq().sub(&k(1)).max(&k(0)));
        let plus_two = seq().add(&k(2));
        assert_eq!(
            slice_length(&plus_two, &k(1), &k(i64::MAX), 1),
            seq().add(&k(1))
        );
        assert_eq!(
            slice_length(&seq(), &k(-4), &k(i64::MAX), 1),
            seq().min(&k(4))
        );
        assert_eq!(
            slice_length(&seq(), &k(0), &k(-1), 1),
            seq().sub(&k(1)).max(&k(0))
        );
        assert_eq!(slice_length(&seq(), &k(-1), &k(i64::MIN), -1), seq());
        assert_eq!(slice_length(&seq(), &k(3), &k(1), -1), Dim::Unknown);
        assert_eq!(
            slice_length(&Dim::Unknown, &k(0), &k(i64::MAX), 1),
            Dim::Unknown
        );
    }

    #[test]
    fn bounds_a_little_below_the_dim() {
        // `x[1:seq-1]` (bounds computed from Shape): seq-2 elements, none below seq = 2.
        let inner = slice_length(&seq(), &k(1), &seq().sub(&k(1)), 1);
        for n in 0..8 {
            let b = [("seq".to_string(), n)].into_iter().collect();
            let want = static_slice(n, 1, n - 1, 1).unwrap().1;
            assert_eq!(inner.eval(&b), Some(want), "seq = {n}");
        }
        // Three below is not exact as one max (at seq = 2 the bound -1 wraps to 1): unknown.
        assert_eq!(
            slice_length(&seq(), &k(0), &seq().sub(&k(3)), 1),
            Dim::Unknown
        );
    }

    #[test]
    fn symbolic_strided_range_rounds_up() {
        let half = slice_length(&seq(), &k(0), &k(i64::MAX), 2);
        assert_eq!(half, seq().add(&k(1)).floor_div(&k(2)));
    }
}
