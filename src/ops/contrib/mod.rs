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

use super::RuleFn;

mod activation;
mod attention;
pub(crate) mod causal_conv;
mod embed;
pub(crate) mod fused;
mod group_query;
mod heads;
mod matmul;
pub(crate) mod moe;
mod norm;
mod qlinear;

/// The rule for a `com.microsoft` op, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Attention" => attention::attention,
        "QAttention" => attention::qattention,
        "MultiHeadAttention" => heads::multi_head,
        "GroupQueryAttention" => group_query::group_query,
        "RotaryEmbedding" => group_query::rotary,
        "SkipLayerNormalization" | "SkipSimplifiedLayerNormalization" => norm::skip,
        "EmbedLayerNormalization" | "QEmbedLayerNormalization" => embed::embed,
        "BiasGelu" | "FastGelu" => activation::biased,
        "BiasAdd" => activation::bias_add,
        "BiasSplitGelu" => activation::bias_split_gelu,
        "FusedMatMul" => matmul::fused,
        "MatMulNBits" => matmul::n_bits,
        "DynamicQuantizeMatMul" | "MatMulIntegerToFloat" => matmul::dynamic_quantize,
        "QGemm" => matmul::qgemm,
        "GatherBlockQuantized" => qlinear::gather_block_quantized,
        "QLinearAdd" | "QLinearMul" => qlinear::binary,
        "Gelu" | "QuickGelu" | "QLinearSigmoid" | "QLinearLeakyRelu" | "QLinearSoftmax" => {
            activation::same_as_x
        }
        "QLinearConcat" => qlinear::concat,
        "QLinearAveragePool" => qlinear::average_pool,
        "QLinearGlobalAveragePool" => qlinear::global_average_pool,
        _ => return None,
    })
}

/// The rule for a default-domain op that onnxruntime defines and ONNX does not.
pub(super) fn lookup_default(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "SimplifiedLayerNormalization" => norm::simplified,
        _ => return None,
    })
}
