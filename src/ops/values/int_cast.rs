//! `Cast` and `CastLike` of carried integer (or bool) values to an integer type. The ONNX `Cast`
//! doc: "Casting from fixed point to fixed point: when OOR [out of range], discard higher bits
//! and reinterpret (with respect to two's complement representation for signed types). For
//! example, 200 (int16) -> -56 (int8)."
//!
//! Which values stay known:
//! - A known value is converted exactly: kept when the target type holds it, wrapped as the doc
//!   says otherwise. A negative value cast to UINT64 wraps beyond what a carried value holds
//!   (`i64`), so it becomes unknown.
//! - A symbolic value stays symbolic when the target is 64 bits wide (INT64; UINT64 only when
//!   it is provably non-negative), since 64-bit shape arithmetic is the engine's own algebra.
//! - To INT32 a symbolic value is kept, to UINT32 when provably non-negative. A symbol can in
//!   principle exceed 2^31-1, where the runtime would wrap and the symbolic value would be
//!   wrong. We keep it anyway, and this is a deliberate reading of "right for every input the
//!   model accepts": 32-bit integers are what exporters write shape arithmetic in (tf2onnx, and
//!   Shape -> Cast(int32) -> ... -> Cast(int64) -> Reshape chains). A model that does its shape
//!   arithmetic in 32 bits computes wrapped sizes, negative ones for Reshape, Expand or Slice,
//!   for any axis or element count of 2^31 or more. Inputs that large are outside what such a
//!   model accepts, just as inputs of another shape than the declared one are. (The engine already
//!   assumes the same of 64-bit arithmetic, whose overflow its algebra does not model.) UINT32
//!   is not granted this for possibly negative values: `n - 5` below zero is an ordinary value,
//!   and Cast wraps it to about 4·10^9 for inputs the model does accept.
//! - To 8- and 16-bit types (INT8, UINT8, INT16, UINT16) only known values are kept. These are
//!   not shape-arithmetic types, and a size of 300 is an ordinary input (a 300-token sequence)
//!   that INT8 wraps. A symbolic value becomes unknown.

use crate::model::dtype::elem::{self, INT16, INT8, UINT16, UINT32, UINT64, UINT8};
use crate::shape::Dim;

/// Whether `to` is an integer type whose casts this module converts.
pub(crate) fn is_integer(to: i32) -> bool {
    matches!(
        to,
        UINT8 | INT8 | UINT16 | INT16 | elem::INT32 | elem::INT64 | UINT32 | UINT64
    )
}

/// `value` cast to the integer type `to`; `Dim::Unknown` when the result is not proven.
pub(crate) fn cast(value: &Dim, to: i32) -> Dim {
    match value {
        Dim::Known(v) => wrap(*v, to).map_or(Dim::Unknown, Dim::known),
        Dim::Sym(_) => match to {
            elem::INT64 | elem::INT32 => value.clone(),
            UINT64 | UINT32 if value.is_non_negative() => value.clone(),
            _ => Dim::Unknown,
        },
        Dim::Unknown => Dim::Unknown,
    }
}

/// `v` in the two's complement type `to` of `bits` width (the doc's "discard higher bits and
/// reinterpret"); `None` when the result does not fit an `i64` (negative values to UINT64).
fn wrap(v: i64, to: i32) -> Option<i64> {
    // The truncating `as` casts below are the operation itself: keep the low bits.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(match to {
        UINT8 => i64::from(v as u8),
        INT8 => i64::from(v as i8),
        UINT16 => i64::from(v as u16),
        INT16 => i64::from(v as i16),
        elem::INT32 => i64::from(v as i32),
        UINT32 => i64::from(v as u32),
        elem::INT64 => v,
        UINT64 if v >= 0 => v,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{cast, INT16, INT8, UINT16, UINT32, UINT64, UINT8};
    use crate::model::dtype::elem;
    use crate::shape::Dim;

    #[test]
    fn known_values_convert_exactly() {
        // The Cast doc's own example: 200 (int16) -> -56 (int8).
        assert_eq!(cast(&Dim::known(200), INT8), Dim::known(-56));
        assert_eq!(cast(&Dim::known(300), UINT8), Dim::known(44));
        assert_eq!(cast(&Dim::known(-1), UINT8), Dim::known(255));
        assert_eq!(cast(&Dim::known(40_000), INT16), Dim::known(-25_536));
        assert_eq!(cast(&Dim::known(-1), UINT16), Dim::known(65_535));
        assert_eq!(
            cast(&Dim::known(1 << 31), elem::INT32),
            Dim::known(-(1 << 31))
        );
        assert_eq!(cast(&Dim::known(-1), UINT32), Dim::known(4_294_967_295));
        assert_eq!(cast(&Dim::known(77), INT8), Dim::known(77));
        assert_eq!(cast(&Dim::known(-1), elem::INT64), Dim::known(-1));
        // 2^64 - 1 is not an i64: unknown, never -1.
        assert_eq!(cast(&Dim::known(-1), UINT64), Dim::Unknown);
        assert_eq!(cast(&Dim::known(5), UINT64), Dim::known(5));
    }

    #[test]
    fn symbols_survive_only_shape_arithmetic_widths() {
        let seq = Dim::sym("seq");
        assert_eq!(cast(&seq, elem::INT64), seq);
        assert_eq!(cast(&seq, elem::INT32), seq);
        assert_eq!(cast(&seq, UINT32), seq);
        assert_eq!(cast(&seq, UINT64), seq);
        // A 300-token sequence is an ordinary input that 8 and 16 bits wrap.
        for narrow in [INT8, UINT8, INT16, UINT16] {
            assert_eq!(cast(&seq, narrow), Dim::Unknown, "type {narrow}");
        }
        // Possibly negative: an unsigned target wraps it for ordinary inputs.
        let shorter = seq.sub(&Dim::known(5));
        assert_eq!(cast(&shorter, elem::INT32), shorter);
        assert_eq!(cast(&shorter, UINT32), Dim::Unknown);
        assert_eq!(cast(&shorter, UINT64), Dim::Unknown);
        assert_eq!(cast(&Dim::Unknown, elem::INT64), Dim::Unknown);
    }
}
