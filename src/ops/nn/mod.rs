//! ONNX's `onnx/defs/nn` operators: convolutions, pools, normalizations, `Attention`. A rule sits
//! in the folder of the `onnx/defs/<section>` that defines its operator.

pub(crate) mod attention;
pub(crate) mod channel_norm;
pub(crate) mod conv;
pub(crate) mod conv_channels;
pub(crate) mod elementwise;
pub(crate) mod flatten;
pub(crate) mod group_norm;
pub(crate) mod norm;
pub(crate) mod per_channel;
pub(crate) mod pool;
pub(crate) mod spatial;
