//! ONNX's `onnx/defs/nn` operators: convolutions (`DeformConv`, `CausalConvWithState`), pools and
//! `MaxUnpool`, `Col2Im`, normalizations, `Attention` and `RotaryEmbedding`, `TfIdfVectorizer`. A
//! rule sits in the folder of the `onnx/defs/<section>` that defines its operator.

pub(crate) mod attention;
mod attention_requires;
mod attention_rotary;
pub(crate) mod causal_conv;
pub(crate) mod channel_norm;
pub(crate) mod col2im;
pub(crate) mod conv;
pub(crate) mod conv_channels;
pub(crate) mod deform_conv;
pub(crate) mod elementwise;
pub(crate) mod flatten;
pub(crate) mod flex_attention;
pub(crate) mod group_norm;
pub(crate) mod linear_attention;
pub(crate) mod max_unpool;
pub(crate) mod norm;
pub(crate) mod per_channel;
pub(crate) mod pool;
pub(crate) mod rotary_embedding;
pub(crate) mod spatial;
pub(crate) mod tf_idf_vectorizer;
