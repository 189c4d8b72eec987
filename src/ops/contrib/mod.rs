//! onnxruntime's contrib operators: the `com.microsoft` ops that
//! `onnxruntime.transformers.optimizer.optimize_model` and `onnxruntime.quantization` write, and
//! the default-domain `SimplifiedLayerNormalization` its fusions add. Each rule follows the op's
//! entry in onnxruntime's `docs/ContribOperators.md` (the schema docs `contrib_schemas.tsv` is
//! generated from) and its shape inference in `onnxruntime/core/graph/contrib_ops/*_defs.cc`;
//! a case those leave open gives unknown dims.
//!
//! Bias, skip, mask and attention-bias inputs are added element-wise to a tensor of the op's own
//! shape: they are recorded as unidirectional broadcasts onto it (E1/W1), a looser rule than the
//! kernels' (which want exact sizes), so every mismatch reported is one onnxruntime rejects.
//! Sizes the kernels compare that are not broadcasts (weights' K, hidden sizes, head counts) are
//! operator constraints (E4/W4).

pub(super) mod activation;
pub(super) mod attention;
pub(super) mod attn_lstm;
pub(super) mod bfp;
pub(super) mod bias_softmax;
pub(super) mod block_quantized;
pub(super) mod bnb4;
pub(super) mod causal_conv;
pub(super) mod decoder_attention;
pub(super) mod decoding;
pub(super) mod delta_net;
pub(super) mod dropout;
pub(super) mod dynamic_sparse;
pub(super) mod embed;
pub(super) mod engram;
pub(super) mod expand_dims;
pub(super) mod fft;
pub(super) mod fused;
pub(super) mod fused_n_bits;
pub(super) mod gated;
pub(super) mod gemm_fast_gelu;
pub(super) mod generation;
pub(super) mod group_norm;
pub(super) mod group_query;
pub(super) mod heads;
pub(super) mod hyper;
pub(super) mod indexer;
pub(super) mod integer;
pub(super) mod longformer;
pub(super) mod lookup;
pub(super) mod matmul;
pub(super) mod matrix;
pub(super) mod moe;
pub(super) mod multiple;
pub(super) mod nchwc;
pub(super) mod nchwc_block;
pub(super) mod ngram;
pub(super) mod nhwc;
pub(super) mod norm;
pub(super) mod opaque;
pub(super) mod ordered;
pub(super) mod packed;
pub(super) mod paged;
pub(super) mod position_bias;
pub(super) mod qlinear;
pub(super) mod qmoe;
pub(super) mod quantized_lstm;
pub(super) mod rms;
pub(super) mod rotary_ext;
pub(super) mod strings;
pub(super) mod unfold;
pub(super) mod varlen_conv;
pub(super) mod vision;
