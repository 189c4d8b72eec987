//! Element types (`TensorProto.DataType`, ONNX IR.md "Tensor Element Types"): the codes the
//! engine names, taken from the generated enum so that each is defined once, and the questions
//! the rules ask of a type.

use crate::proto::tensor_proto::DataType;
use crate::shape::real::Width;

/// `TensorProto.DataType` codes as the `i32` a `TypeProto` or `TensorProto` stores.
pub(crate) mod elem {
    use super::DataType;

    /// `FLOAT`.
    pub(crate) const FLOAT: i32 = DataType::Float as i32;
    /// `UINT8`.
    pub(crate) const UINT8: i32 = DataType::Uint8 as i32;
    /// `INT8`.
    pub(crate) const INT8: i32 = DataType::Int8 as i32;
    /// `UINT16`.
    pub(crate) const UINT16: i32 = DataType::Uint16 as i32;
    /// `INT16`.
    pub(crate) const INT16: i32 = DataType::Int16 as i32;
    /// `INT32`.
    pub(crate) const INT32: i32 = DataType::Int32 as i32;
    /// `INT64`.
    pub(crate) const INT64: i32 = DataType::Int64 as i32;
    /// `STRING`.
    pub(crate) const STRING: i32 = DataType::String as i32;
    /// `BOOL`.
    pub(crate) const BOOL: i32 = DataType::Bool as i32;
    /// `FLOAT16`.
    pub(crate) const FLOAT16: i32 = DataType::Float16 as i32;
    /// `DOUBLE`.
    pub(crate) const DOUBLE: i32 = DataType::Double as i32;
    /// `UINT32`.
    pub(crate) const UINT32: i32 = DataType::Uint32 as i32;
    /// `UINT64`.
    pub(crate) const UINT64: i32 = DataType::Uint64 as i32;
    /// `BFLOAT16`.
    pub(crate) const BFLOAT16: i32 = DataType::Bfloat16 as i32;
}

/// Whether `elem` is a floating-point type whose carried elements are integral floats, which
/// integer folding must not see (FLOAT, FLOAT16, DOUBLE, BFLOAT16).
pub(crate) fn is_float(elem: Option<i32>) -> bool {
    matches!(
        elem,
        Some(elem::FLOAT | elem::FLOAT16 | elem::DOUBLE | elem::BFLOAT16)
    )
}

/// The float width of an element type, for those whose values are carried.
pub(crate) fn width_of(elem: Option<i32>) -> Option<Width> {
    match elem? {
        elem::FLOAT => Some(Width::F32),
        elem::DOUBLE => Some(Width::F64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{elem, is_float, width_of};

    #[test]
    fn codes_are_the_ir_numbers() {
        // ONNX IR.md numbers these; a renumbering in the generated code would break every model.
        assert_eq!(
            [
                elem::FLOAT,
                elem::INT32,
                elem::INT64,
                elem::STRING,
                elem::BOOL,
                elem::DOUBLE
            ],
            [1, 6, 7, 8, 9, 11]
        );
        assert_eq!([elem::FLOAT16, elem::BFLOAT16], [10, 16]);
    }

    #[test]
    fn float_types_are_floats_and_only_two_carry_widths() {
        assert!(is_float(Some(elem::BFLOAT16)));
        assert!(!is_float(Some(elem::INT64)));
        assert!(!is_float(None));
        assert!(width_of(Some(elem::FLOAT16)).is_none());
        assert!(width_of(Some(elem::DOUBLE)).is_some());
    }
}
