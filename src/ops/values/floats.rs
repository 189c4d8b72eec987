//! Data propagation through floating-point shape arithmetic (issue 18): the element-wise ops
//! exporters put between `Cast(float)` and `Cast(int64)` (`Mul`, `Div`, `Floor`, `Ceil`,
//! `Round`, `Sqrt`, `Max`, `Min`...), folded element by element with [`Real`]'s exact rules.
//! Semantics per op are the ONNX operator docs (`Cast`: float to integer truncates toward zero;
//! `Round`: halves to even); which results are known is in `crate::shape::real`.

use super::{Binary, Unary};
use crate::model::dtype::elem;
use crate::shape::real::{Real, Width};
use crate::shape::values::ValueTensor;
use crate::shape::Dim;

/// The range of an integer `TensorProto.DataType` (`Cast` to it is defined only inside it).
fn int_range(to: i32) -> Option<(i64, i64)> {
    Some(match to {
        2 => (0, 255),          // UINT8
        3 => (-128, 127),       // INT8
        4 => (0, 65_535),       // UINT16
        5 => (-32_768, 32_767), // INT16
        elem::INT32 => (-(1 << 31), (1 << 31) - 1),
        12 => (0, (1 << 32) - 1), // UINT32
        elem::INT64 => (i64::MIN, i64::MAX),
        13 => (0, i64::MAX), // UINT64 above i64::MAX is not carried
        _ => return None,
    })
}

/// Keeps a tensor only when some element is known: a tensor of unknowns is no information.
fn informative(t: ValueTensor<Real>) -> Option<ValueTensor<Real>> {
    t.data
        .iter()
        .any(|r| !matches!(r, Real::Unknown))
        .then_some(t)
}

/// A float tensor `Cast` to the integer type `to`, element by element.
pub(crate) fn to_ints(real: &ValueTensor<Real>, to: i32) -> Option<ValueTensor> {
    let (min, max) = int_range(to)?;
    let t = real.map(|r| r.to_int(min, max));
    t.data.iter().any(|d| *d != Dim::Unknown).then_some(t)
}

/// A unary op on a float tensor of `width`; `to` is the `Cast`/`CastLike` target width.
pub(crate) fn unary(
    op: Unary,
    real: &ValueTensor<Real>,
    width: Width,
    to: Option<Width>,
) -> Option<ValueTensor<Real>> {
    let t = match op {
        Unary::Identity => real.clone(),
        Unary::Cast | Unary::CastLike => {
            let to = to?;
            real.map(|r| r.cast(width, to))
        }
        Unary::Floor => real.map(|r| r.floor(width)),
        Unary::Ceil => real.map(|r| r.ceil(width)),
        Unary::Round => real.map(|r| r.round(width)),
        Unary::Neg => real.map(|r| r.neg(width)),
        Unary::Abs => real.map(Real::abs),
        Unary::Sqrt => real.map(|r| r.sqrt(width)),
        _ => return None,
    };
    informative(t)
}

/// A binary (or two-input variadic) op on float tensors of `width`, broadcasting as numpy.
pub(crate) fn binary(
    op: Binary,
    a: &ValueTensor<Real>,
    b: &ValueTensor<Real>,
    width: Width,
) -> Option<ValueTensor<Real>> {
    let t = match op {
        Binary::Add => ValueTensor::zip_with(a, b, |x, y| x.add(y, width)),
        // Negation is exact, so `a + (-b)` rounds as `a - b` does.
        Binary::Sub => ValueTensor::zip_with(a, b, |x, y| x.add(&y.neg(width), width)),
        Binary::Mul => ValueTensor::zip_with(a, b, |x, y| x.mul(y, width)),
        Binary::Div => ValueTensor::zip_with(a, b, |x, y| x.div(y, width)),
        Binary::Max => ValueTensor::zip_with(a, b, |x, y| x.extreme(y, width, false)),
        Binary::Min => ValueTensor::zip_with(a, b, |x, y| x.extreme(y, width, true)),
        Binary::Pow => {
            ValueTensor::zip_with(a, b, |x, y| super::float_shape_math::pow(x, y, width))
        }
        _ => None,
    }?;
    informative(t)
}

#[cfg(test)]
mod tests {
    use crate::ops::testing;
    use crate::shape::real::Real;
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    fn scalar_real(r: Real) -> Option<testing::Fact> {
        testing::reals(ValueTensor::new(vec![], vec![r]).unwrap())
    }

    fn scalar_int(d: Dim) -> Option<testing::Fact> {
        testing::ints(ValueTensor::new(vec![], vec![d]).unwrap())
    }

    fn real_out(out: &crate::ops::Inferred) -> Real {
        out.outputs[0].real.as_ref().unwrap().data[0].clone()
    }

    fn cast(to: i64) -> Vec<crate::proto::AttributeProto> {
        vec![testing::int_attr("to", to)]
    }

    #[test]
    fn cast_to_float_and_back_keeps_a_symbol() {
        let h = scalar_int(Dim::sym("h"));
        let out = testing::run("Cast", 19, &[h], cast(1)).unwrap();
        assert_eq!(real_out(&out), Real::Int(Dim::sym("h")));
        assert!(out.outputs[0].value.is_none());
        let back = scalar_real(real_out(&out));
        let out = testing::run("Cast", 19, &[back], cast(7)).unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::sym("h")]
        );
    }

    #[test]
    fn div_floor_cast_gives_floor_division() {
        // wav2vec2's conv output length: floor((n - 400) / 320) + 1, in float.
        let shifted = Real::Int(Dim::sym("n").sub(&Dim::known(400)));
        let stride = scalar_real(Real::Num(320.0));
        let quot = testing::run("Div", 14, &[scalar_real(shifted), stride], vec![]).unwrap();
        let floor = testing::run("Floor", 13, &[scalar_real(real_out(&quot))], vec![]).unwrap();
        let int = testing::run("Cast", 19, &[scalar_real(real_out(&floor))], cast(7)).unwrap();
        let d = &int.outputs[0].value.as_ref().unwrap().data[0];
        assert_eq!(d.to_string(), "(n+240)/320-2");
    }

    #[test]
    fn ceil_round_sqrt_neg_abs_fold() {
        let run1 =
            |op: &str, r: Real| real_out(&testing::run(op, 13, &[scalar_real(r)], vec![]).unwrap());
        assert_eq!(run1("Ceil", Real::Num(2.25)), Real::Num(3.0));
        assert_eq!(run1("Round", Real::Num(2.5)), Real::Num(2.0));
        assert_eq!(run1("Sqrt", Real::Num(196.0)), Real::Num(14.0));
        assert_eq!(
            run1("Neg", Real::Int(Dim::sym("h")))
                .as_int()
                .unwrap()
                .to_string(),
            "-h"
        );
        assert_eq!(
            run1("Abs", Real::Int(Dim::sym("h"))),
            Real::Int(Dim::sym("h"))
        );
        // Exp is not folded: no value at all.
        let out = testing::run("Exp", 13, &[scalar_real(Real::Num(0.0))], vec![]).unwrap();
        assert!(out.outputs[0].real.is_none());
    }

    #[test]
    fn max_min_and_mul_fold_integers_and_constants() {
        let h = || scalar_real(Real::Int(Dim::sym("h")));
        let two = || scalar_real(Real::Num(2.0));
        let out = testing::run("Max", 13, &[h(), two()], vec![]).unwrap();
        assert_eq!(real_out(&out).as_int().unwrap().to_string(), "max(h, 2)");
        let out = testing::run("Min", 13, &[two(), scalar_real(Real::Num(0.5))], vec![]).unwrap();
        assert_eq!(real_out(&out), Real::Num(0.5));
        let out = testing::run("Mul", 14, &[h(), two()], vec![]).unwrap();
        assert_eq!(real_out(&out).as_int().unwrap().to_string(), "2*h");
        // Integer folding never sees floats: 3.0 / 2.0 is 1.5, not 1.
        let out = testing::run("Div", 14, &[scalar_real(Real::Num(3.0)), two()], vec![]).unwrap();
        assert_eq!(real_out(&out), Real::Num(1.5));
        assert!(out.outputs[0].value.is_none());
    }

    #[test]
    fn cast_to_narrow_ints_checks_the_range() {
        let big = scalar_real(Real::Num(300.0));
        let out = testing::run("Cast", 19, &[big], cast(3)).unwrap();
        assert!(out.outputs[0].value.is_none());
        let ok = scalar_real(Real::Num(-3.7));
        let out = testing::run("Cast", 19, &[ok], cast(3)).unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::known(-3)]
        );
    }
}
