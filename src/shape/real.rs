//! Floating-point elements of small tensors in shape computations: exporters compute sizes in
//! float (`Shape -> Gather -> Cast(float) -> Mul/Div -> Floor -> Cast(int64)`, as `TorchScript`
//! writes `F.interpolate` sizes and torchvision's resize).
//!
//! A [`Real`] states what the runtime's float holds for every input, never an approximation:
//! - `Num(x)`: a known float, exactly the runtime's (an f32 is stored widened). Folding uses the
//!   IEEE-754 operations the runtimes use, all correctly rounded (`+ - * /`, `sqrt`, `floor`,
//!   `ceil`, round-half-even): computed in f64 and rounded once to f32 for FLOAT tensors, which
//!   equals the f32 operation because f64 carries more than `2 * 24 + 2` bits (Figueroa, "When is
//!   double rounding innocuous?", 1995).
//! - `Int(d)`: exactly the integer `d`, a symbolic dim converted to float (`Cast`).
//! - `Quot(n, k, added)`: the correctly rounded quotient of the exact integer `n` by the integer
//!   constant `k > 1` (one `Div`), then, if `added`, an exact integer `m` added with one more
//!   rounding (`n` then stands for `n' + m * k`: fairseq's `floor((len - kernel) / stride + 1)`).
//!   It equals `n / k` when that is an integer (every step is exact then), and is otherwise less
//!   than `1/(2k)` from it: each rounding errs by at most `|value| * 2^-24`, and the values are
//!   below `2^22 / k`. Since a non-integer `n / k` lies at least `1/k` from an integer, and (for
//!   an odd `k`) at least `1/(2k)` from a half, floor, ceil, truncation and rounding of the float
//!   are those of `n / k`.
//! - `Offset(n, c, s)`: exactly `fl(n + c) * 2^s`, an exact integer `n` plus a known fraction
//!   `c`, rounded once, then scaled by powers of two (exact). `ViT`'s `interpolate_pos_encoding`
//!   computes `floor(4 * ((h // 8 + 0.1) / 4))`: the scalings cancel, and `fl(n + c)` stays in
//!   `[n, n + 1)` when the fraction of `c` is below one half (the nearest float to `n + c` is
//!   never `n + 1`, as `n` is nearer), so the floor is `n + floor(c)`.
//! - `Unknown`.
//!
//! Assumption, the one `Resize`'s integral scales already make: the integers a float shape
//! computation holds (dims and sums or products of them, a quotient's numerator) are below 2^22
//! in magnitude, so FLOAT holds them exactly with room for the two roundings above. Nothing else is assumed: a rounded product is `Unknown`, because its floor
//! can be off by one (`floor(h * (320 / h))` is 319 in f32 for `h = 133`, and in f64 for `h = 77`).

use super::Dim;

/// The width of a floating-point tensor's elements.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Width {
    /// `FLOAT` (IEEE binary32).
    F32,
    /// `DOUBLE` (IEEE binary64).
    F64,
}

impl Width {
    /// `x` rounded to this width (to nearest, ties to even, as IEEE conversions round).
    #[allow(
        clippy::cast_possible_truncation,
        reason = "rounding to f32 is the point: it is what a FLOAT tensor holds"
    )]
    pub(crate) fn round(self, x: f64) -> f64 {
        match self {
            Width::F32 => f64::from(x as f32),
            Width::F64 => x,
        }
    }
}

/// One element of a floating-point tensor in a shape computation.
#[derive(Clone, Debug)]
pub(crate) enum Real {
    /// A known float (an f32 widened exactly).
    Num(f64),
    /// Exactly the integer this symbolic dim denotes.
    Int(Dim),
    /// The quotient of the exact integer `n` by the constant `k > 1`, rounded once, or twice when
    /// an integer was added to it (`true`): see the module doc.
    Quot(Dim, i64, bool),
    /// `fl(n + c) * 2^s`: see the module doc.
    Offset(Dim, f64, i32),
    /// Nothing known.
    Unknown,
}

#[allow(
    clippy::many_single_char_names,
    reason = "two elements, field by field"
)]
impl PartialEq for Real {
    /// Bitwise on numbers (so `NaN == NaN` and `0.0 != -0.0`): structural, for tests and caches.
    fn eq(&self, other: &Real) -> bool {
        match (self, other) {
            (Real::Num(a), Real::Num(b)) => a.to_bits() == b.to_bits(),
            (Real::Int(a), Real::Int(b)) => a == b,
            (Real::Quot(a, k, x), Real::Quot(b, j, y)) => a == b && k == j && x == y,
            (Real::Offset(a, c, s), Real::Offset(b, d, t)) => {
                a == b && c.to_bits() == d.to_bits() && s == t
            }
            (Real::Unknown, Real::Unknown) => true,
            _ => false,
        }
    }
}

impl Eq for Real {}

impl std::hash::Hash for Real {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Real::Num(x) => x.to_bits().hash(state),
            Real::Int(d) => d.hash(state),
            Real::Quot(n, k, added) => (n, k, added).hash(state),
            Real::Offset(n, c, s) => (n, c.to_bits(), s).hash(state),
            Real::Unknown => {}
        }
    }
}

/// 2^53: every integer below it in magnitude is exact in f64, and `as i64` cannot saturate.
const EXACT_F64: f64 = 9_007_199_254_740_992.0;

/// `x` as an integer, when it is one (and below 2^53 in magnitude).
#[allow(
    clippy::cast_possible_truncation,
    reason = "integral and below 2^53 in magnitude"
)]
fn integral(x: f64) -> Option<i64> {
    (x.is_finite() && x.fract() == 0.0 && x.abs() < EXACT_F64).then_some(x as i64)
}

/// `m` when `x` is exactly `2^m` (a scaling that no float in shape arithmetic rounds).
fn power_of_two(x: f64) -> Option<i32> {
    if !(x.is_finite() && x > 0.0) {
        return None;
    }
    let m = x.log2().round();
    #[allow(
        clippy::cast_possible_truncation,
        reason = "checked to be a small integer"
    )]
    (m.abs() <= 60.0 && (2f64).powi(m as i32).to_bits() == x.to_bits()).then_some(m as i32)
}

/// An integer as the float of `width` that converting it gives (round to nearest even).
#[allow(
    clippy::cast_precision_loss,
    reason = "the rounding is the conversion's own, done again by width.round"
)]
fn num_of(v: i64, width: Width) -> Real {
    // i64 -> f64 rounds once; to f32 a second time, which for integers below 2^53 (the ones
    // that can reach here exactly) is the single rounding i64 -> f32.
    if v.unsigned_abs() >= 1 << 53 {
        return Real::Unknown;
    }
    Real::Num(width.round(v as f64))
}

impl Real {
    /// The float a dim converts to (`Cast` from an integer type): exact for a symbol (see the
    /// module's assumption), rounded like the runtime for a known size.
    pub(crate) fn from_dim(d: &Dim, width: Width) -> Real {
        match d {
            Dim::Known(v) => num_of(*v, width),
            Dim::Sym(_) => Real::Int(d.clone()),
            Dim::Unknown => Real::Unknown,
        }
    }

    /// The integer the element holds, when it provably holds one.
    pub(crate) fn as_int(&self) -> Option<Dim> {
        match self {
            Real::Num(x) => integral(*x).map(Dim::known),
            Real::Int(d) => Some(d.clone()),
            Real::Quot(..) | Real::Offset(..) | Real::Unknown => None,
        }
    }

    /// The integer part `n + floor(c)` of an unscaled offset whose fraction is below one half:
    /// the floor of `fl(n + c)` (see the module doc).
    fn offset_floor(&self) -> Option<Dim> {
        match self {
            Real::Offset(n, c, 0) if c - c.floor() < 0.5 => {
                integral(c.floor()).map(|f| n.add(&Dim::known(f)))
            }
            _ => None,
        }
    }

    /// A known float's value.
    pub(crate) fn as_num(&self) -> Option<f64> {
        match self {
            Real::Num(x) => Some(*x),
            _ => None,
        }
    }

    /// The float `Cast` from width `from` to width `to` gives.
    #[must_use]
    pub(crate) fn cast(&self, from: Width, to: Width) -> Real {
        match self {
            Real::Num(x) => Real::Num(to.round(*x)),
            Real::Int(_) => self.clone(),
            Real::Offset(..) if from == to => self.clone(),
            // A quotient rounded twice (f64, then f32) is no longer one correctly rounded
            // quotient; f32 widened to f64 is exact.
            Real::Quot(..) if from == to || to == Width::F64 => self.clone(),
            Real::Quot(..) | Real::Offset(..) | Real::Unknown => Real::Unknown,
        }
    }

    /// The integer `Cast` to an integer type gives (ONNX: truncation toward zero), when it fits
    /// `[min, max]`; NaN, infinities and values out of range are `Unknown` (undefined there).
    pub(crate) fn to_int(&self, min: i64, max: i64) -> Dim {
        match self {
            Real::Num(x) => integral(x.trunc())
                .filter(|v| (min..=max).contains(v))
                .map_or(Dim::Unknown, Dim::known),
            Real::Int(d) => d.clone(),
            // Truncation is floor for a non-negative quotient.
            Real::Quot(n, k, _) if n.is_non_negative() => n.floor_div(&Dim::known(*k)),
            // Truncation is floor for a non-negative offset.
            Real::Offset(n, c, _) if n.is_non_negative() && *c >= 0.0 => {
                self.offset_floor().unwrap_or(Dim::Unknown)
            }
            Real::Quot(..) | Real::Offset(..) | Real::Unknown => Dim::Unknown,
        }
    }

    /// An integer result of symbolic arithmetic: `Num` when it came out constant.
    fn int(d: Dim, width: Width) -> Real {
        match d {
            Dim::Known(v) => num_of(v, width),
            Dim::Sym(_) => Real::Int(d),
            Dim::Unknown => Real::Unknown,
        }
    }

    /// `n / k` for an exact integer `n` and a constant `k != 0`.
    fn quot(n: &Dim, k: i64, width: Width) -> Real {
        let (n, k) = if k < 0 {
            (n.neg(), k.checked_neg())
        } else {
            (n.clone(), Some(k))
        };
        match (n, k) {
            (_, None | Some(0)) | (Dim::Unknown, _) => Real::Unknown,
            (n, Some(1)) => Real::int(n, width),
            // Both operands converted as the runtime converts them, then one division.
            (Dim::Known(v), Some(k)) => num_of(v, width).div(&num_of(k, width), width),
            (n, Some(k)) => Real::Quot(n, k, false),
        }
    }

    /// `floor`.
    #[must_use]
    pub(crate) fn floor(&self, width: Width) -> Real {
        match self {
            Real::Num(x) => Real::Num(x.floor()),
            Real::Int(_) | Real::Unknown => self.clone(),
            Real::Quot(n, k, _) => Real::int(n.floor_div(&Dim::known(*k)), width),
            Real::Offset(..) => self
                .offset_floor()
                .map_or(Real::Unknown, |d| Real::int(d, width)),
        }
    }

    /// `ceil`.
    #[must_use]
    pub(crate) fn ceil(&self, width: Width) -> Real {
        match self {
            Real::Num(x) => Real::Num(x.ceil()),
            Real::Int(_) | Real::Unknown => self.clone(),
            // ceil(n / k) = floor((n + k - 1) / k) for every integer n and k > 0.
            Real::Quot(n, k, _) => match k.checked_sub(1) {
                Some(k1) => Real::int(n.add(&Dim::known(k1)).floor_div(&Dim::known(*k)), width),
                None => Real::Unknown,
            },
            Real::Offset(..) => Real::Unknown,
        }
    }

    /// `Round`: to nearest, halves to even (ONNX Round doc). A quotient by an odd `k` is never
    /// a half, so it rounds to `floor((2n + k) / 2k)`; by an even `k` the parity decides.
    #[must_use]
    pub(crate) fn round(&self, width: Width) -> Real {
        match self {
            Real::Num(x) => Real::Num(x.round_ties_even()),
            Real::Int(_) | Real::Unknown => self.clone(),
            Real::Quot(n, k, _) if k % 2 == 1 => {
                let twice = n.mul(&Dim::known(2)).add(&Dim::known(*k));
                match k.checked_mul(2) {
                    Some(k2) => Real::int(twice.floor_div(&Dim::known(k2)), width),
                    None => Real::Unknown,
                }
            }
            Real::Quot(..) | Real::Offset(..) => Real::Unknown,
        }
    }

    /// `Neg`: rounding is symmetric, so a negated quotient is the quotient of the negation.
    #[must_use]
    pub(crate) fn neg(&self, width: Width) -> Real {
        match self {
            Real::Num(x) => Real::Num(-x),
            Real::Int(d) => Real::int(d.neg(), width),
            Real::Quot(n, k, added) => Real::Quot(n.neg(), *k, *added),
            Real::Offset(..) | Real::Unknown => Real::Unknown,
        }
    }

    /// `Abs`.
    #[must_use]
    pub(crate) fn abs(&self) -> Real {
        match self {
            Real::Num(x) => Real::Num(x.abs()),
            Real::Int(d) | Real::Quot(d, ..) if d.is_non_negative() => self.clone(),
            _ => Real::Unknown,
        }
    }

    /// `Sqrt` (correctly rounded in IEEE-754): known values only; a perfect square is exact.
    #[must_use]
    pub(crate) fn sqrt(&self, width: Width) -> Real {
        match self {
            Real::Num(x) => Real::Num(width.round(x.sqrt())),
            _ => Real::Unknown,
        }
    }

    /// `a + b` (`Sub` is `a + (-b)`): known floats, exact integers, or one integer added to a
    /// quotient.
    #[must_use]
    pub(crate) fn add(&self, other: &Real, width: Width) -> Real {
        if let (Real::Num(a), Real::Num(b)) = (self, other) {
            return Real::Num(width.round(a + b));
        }
        match (self, other, self.as_int(), other.as_int()) {
            (.., Some(a), Some(b)) => Real::int(a.add(&b), width),
            (Real::Quot(n, k, false), _, _, Some(m)) | (_, Real::Quot(n, k, false), Some(m), _) => {
                match m.mul(&Dim::known(*k)).add(n) {
                    Dim::Unknown => Real::Unknown,
                    sum => Real::Quot(sum, *k, true),
                }
            }
            // An integer plus a fraction: one rounding, tracked exactly.
            (Real::Int(n), Real::Num(c), ..) | (Real::Num(c), Real::Int(n), ..)
                if c.is_finite() && c.abs() < 4_194_304.0 =>
            {
                Real::Offset(n.clone(), *c, 0)
            }
            _ => Real::Unknown,
        }
    }

    /// `a * b`: known floats; exact integers; an integer times `2^-m` (exact: a quotient with
    /// nothing to round).
    #[must_use]
    pub(crate) fn mul(&self, other: &Real, width: Width) -> Real {
        if let (Real::Num(a), Real::Num(b)) = (self, other) {
            return Real::Num(width.round(a * b));
        }
        if let (Some(a), Some(b)) = (self.as_int(), other.as_int()) {
            return Real::int(a.mul(&b), width);
        }
        let scaled = |n: Dim, c: f64| match integral(1.0 / c) {
            Some(k) if k.unsigned_abs().is_power_of_two() => Real::quot(&n, k, width),
            _ => Real::Unknown,
        };
        match (self, other) {
            (Real::Int(n), Real::Num(c)) | (Real::Num(c), Real::Int(n)) => scaled(n.clone(), *c),
            (Real::Offset(n, c, s), Real::Num(f)) | (Real::Num(f), Real::Offset(n, c, s)) => {
                power_of_two(*f)
                    .and_then(|m| s.checked_add(m))
                    .map_or(Real::Unknown, |s| Real::Offset(n.clone(), *c, s))
            }
            _ => Real::Unknown,
        }
    }

    /// `a / b`: known floats; an exact integer by an integer constant (a quotient), or by `2^-m`
    /// (an exact product). A symbolic divisor is `Unknown`.
    #[must_use]
    pub(crate) fn div(&self, other: &Real, width: Width) -> Real {
        if let (Real::Num(a), Real::Num(b)) = (self, other) {
            return Real::Num(width.round(a / b));
        }
        if let (Real::Offset(n, c, s), Real::Num(f)) = (self, other) {
            return power_of_two(*f)
                .and_then(|m| s.checked_sub(m))
                .map_or(Real::Unknown, |s| Real::Offset(n.clone(), *c, s));
        }
        let (Some(n), Real::Num(c)) = (self.as_int(), other) else {
            return Real::Unknown;
        };
        if let Some(k) = integral(*c) {
            return Real::quot(&n, k, width);
        }
        match integral(1.0 / c) {
            Some(k) if k.unsigned_abs().is_power_of_two() => {
                Real::int(n.mul(&Dim::known(k)), width)
            }
            _ => Real::Unknown,
        }
    }

    /// `Max` (`Min` with `lower`): known floats (NaN unknown, as runtimes differ), or integers.
    #[must_use]
    pub(crate) fn extreme(&self, other: &Real, width: Width, lower: bool) -> Real {
        if let (Real::Num(a), Real::Num(b)) = (self, other) {
            if a.is_nan() || b.is_nan() {
                return Real::Unknown;
            }
            return Real::Num(if lower { a.min(*b) } else { a.max(*b) });
        }
        match (self.as_int(), other.as_int()) {
            (Some(a), Some(b)) => Real::int(if lower { a.min(&b) } else { a.max(&b) }, width),
            _ => Real::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Real, Width};
    use crate::shape::Dim;

    const F: Width = Width::F32;

    fn h() -> Real {
        Real::from_dim(&Dim::sym("h"), F)
    }

    fn num(x: f64) -> Real {
        Real::Num(x)
    }

    #[test]
    fn constants_fold_in_the_tensor_width() {
        // 0.1 + 0.2 rounds differently in f32 and f64.
        let (a, b) = (F.round(0.1), F.round(0.2));
        assert_eq!(num(a).add(&num(b), F), num(f64::from(0.1f32 + 0.2f32)));
        assert_eq!(
            num(320.0).div(&num(133.0), F),
            num(f64::from(320f32 / 133f32))
        );
        // floor(133 * (320 / 133)) is 319 in f32: folded exactly as the runtime computes it.
        let p = num(133.0).mul(&num(320.0).div(&num(133.0), F), F).floor(F);
        assert_eq!(p, num(319.0));
        assert_eq!(p.to_int(i64::MIN, i64::MAX), Dim::known(319));
    }

    #[test]
    fn a_rounded_product_is_never_assumed_integral() {
        // floor(h * (320 / h)): 320 in real arithmetic, 319 in f32 for h = 133.
        let scale = num(320.0).div(&h(), F);
        assert_eq!(scale, Real::Unknown);
        assert_eq!(h().mul(&scale, F).floor(F), Real::Unknown);
    }

    #[test]
    fn quotients_floor_ceil_and_round_exactly() {
        let q = h().div(&num(16.0), F);
        assert_eq!(q, Real::Quot(Dim::sym("h"), 16, false));
        assert_eq!(q.floor(F).as_int().unwrap().to_string(), "h/16");
        assert_eq!(q.ceil(F).as_int().unwrap().to_string(), "(h+15)/16");
        assert_eq!(q.to_int(i64::MIN, i64::MAX).to_string(), "h/16");
        // Halves round to even: by an even divisor the parity of h decides.
        assert_eq!(q.round(F), Real::Unknown);
        let third = h().div(&num(3.0), F).round(F);
        assert_eq!(third.as_int().unwrap().to_string(), "(h+1)/3");
        // Multiplying by 0.5 is dividing by 2, exactly.
        assert_eq!(h().mul(&num(0.5), F), Real::Quot(Dim::sym("h"), 2, false));
        // Dividing by 0.25 is multiplying by 4.
        assert_eq!(h().div(&num(0.25), F).as_int().unwrap().to_string(), "4*h");
        // A quotient of a possibly negative integer truncates, not floors, under Cast.
        let neg = Real::from_dim(&Dim::sym("h").sub(&Dim::known(400)), F).div(&num(320.0), F);
        assert_eq!(neg.to_int(i64::MIN, i64::MAX), Dim::Unknown);
        assert_eq!(neg.floor(F).as_int().unwrap().to_string(), "(h+240)/320-2");
    }

    #[test]
    fn quotient_floor_matches_f32_for_small_integers() {
        // The module's claim, checked exhaustively on a range: floor(fl32(n / k)) = n div k.
        for k in [3i64, 7, 14, 16, 320] {
            for n in -3000i64..3000 {
                #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
                let runtime = (n as f32 / k as f32).floor() as i64;
                let q = Real::Quot(Dim::sym("n"), k, false).floor(F);
                let expr = q.as_int().unwrap();
                let binding = [("n".to_string(), n)].into_iter().collect();
                assert_eq!(expr.eval(&binding), Some(runtime), "n={n} k={k}");
            }
        }
    }

    #[test]
    fn an_integer_added_to_a_quotient_keeps_its_floor_once() {
        // fairseq: floor((n - 400) / 320 + 1), checked against f32 arithmetic on a range.
        let n = Real::from_dim(&Dim::sym("n").sub(&Dim::known(400)), F);
        let plus = n.div(&num(320.0), F).add(&num(1.0), F);
        assert!(matches!(plus, Real::Quot(_, 320, true)));
        let floor = plus.floor(F).as_int().unwrap();
        for len in 0i64..20_000 {
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            let runtime = (((len - 400) as f32 / 320f32) + 1f32).floor() as i64;
            let binding = [("n".to_string(), len)].into_iter().collect();
            assert_eq!(floor.eval(&binding), Some(runtime), "n={len}");
        }
        // A second addition rounds a third time: unknown.
        assert_eq!(plus.add(&num(1.0), F), Real::Unknown);
        // So does a fraction.
        assert_eq!(n.div(&num(3.0), F).add(&num(0.5), F), Real::Unknown);
    }

    #[test]
    fn integers_add_multiply_and_compare_exactly() {
        let two_h = h().mul(&num(2.0), F);
        assert_eq!(two_h.as_int().unwrap().to_string(), "2*h");
        assert_eq!(two_h.floor(F), two_h);
        let sum = two_h.add(&num(1.0), F).add(&h().neg(F), F);
        assert_eq!(sum.as_int().unwrap().to_string(), "h+1");
        assert_eq!(
            h().extreme(&num(1.0), F, false)
                .as_int()
                .unwrap()
                .to_string(),
            "max(h, 1)"
        );
        assert_eq!(num(2.0).extreme(&num(f64::NAN), F, true), Real::Unknown);
        // A fraction added to an integer is rounded once: its floor is known when the fraction
        // is below one half, its ceiling is not.
        let plus = h().add(&num(F.round(0.1)), F);
        assert_eq!(plus.floor(F), h());
        assert_eq!(plus.ceil(F), Real::Unknown);
        assert_eq!(h().add(&num(0.7), F).floor(F), Real::Unknown);
    }

    #[test]
    fn vit_pos_encoding_size_is_the_patch_count() {
        // floor(4 * ((k + 0.1) / 4)), as TorchScript exports DINO's interpolate_pos_encoding;
        // checked against f32 arithmetic on a range.
        let tenth = num(F.round(0.1));
        let scaled = h().add(&tenth, F).div(&num(4.0), F).mul(&num(4.0), F);
        let floor = scaled.floor(F).as_int().unwrap();
        assert_eq!(floor, Dim::sym("h"));
        for k in 0u16..20_000 {
            let runtime = (4f32 * ((f32::from(k) + 0.1f32) / 4f32)).floor();
            assert_eq!(runtime.to_bits(), f32::from(k).to_bits());
        }
        // Scaled by anything but a power of two, or not scaled back, no floor.
        assert_eq!(h().add(&tenth, F).div(&num(3.0), F), Real::Unknown);
        assert_eq!(h().add(&tenth, F).div(&num(4.0), F).floor(F), Real::Unknown);
    }

    #[test]
    fn sqrt_of_perfect_squares_and_casts() {
        assert_eq!(num(196.0).sqrt(F), num(14.0));
        assert_eq!(num(2.0).sqrt(F), num(f64::from(2f32.sqrt())));
        assert_eq!(h().sqrt(F), Real::Unknown);
        // Casts to int truncate toward zero and refuse NaN, infinities and out-of-range values.
        assert_eq!(num(-2.5).to_int(i64::MIN, i64::MAX), Dim::known(-2));
        assert_eq!(num(f64::NAN).to_int(i64::MIN, i64::MAX), Dim::Unknown);
        assert_eq!(num(3e9).to_int(-(1 << 31), (1 << 31) - 1), Dim::Unknown);
        // A known integer converts with the runtime's rounding.
        assert_eq!(
            Real::from_dim(&Dim::known(16_777_217), F),
            num(16_777_216.0)
        );
        // f64 -> f32 rounds a quotient again: no longer one correctly rounded quotient.
        let q = Real::Quot(Dim::sym("h"), 3, false);
        assert_eq!(q.cast(F, Width::F64), q);
        assert_eq!(q.cast(Width::F64, F), Real::Unknown);
        assert_eq!(num(0.1).cast(Width::F64, F), num(F.round(0.1)));
    }
}
