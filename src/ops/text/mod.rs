//! ONNX's `onnx/defs/text` operators: the string ops (`RegexFullMatch`, `StringConcat`,
//! `StringSplit`, `StringNormalizer`). A rule sits in the folder of the `onnx/defs/<section>` that
//! defines its operator.

pub(crate) mod strings;
