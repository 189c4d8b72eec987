//! The `NCHWc` block size a model was optimized for, a model-wide fact read once from its blocked
//! `Conv` weights (see `nchwc.rs` for why the block size matters to `ReorderInput`).
//!
//! onnxruntime's `NCHWc` transformer (`nchwc_transformer.cc`) pads every blocked Conv's output
//! channels up to a multiple of MLAS's block size and stores the weight already padded, so each
//! blocked Conv weight's first dim is a multiple of the block size the optimizer used. MLAS's
//! block sizes are 8 (AVX2) and 16 (AVX-512); a weight with 8, 24, 40... output channels rules
//! out 16.

use crate::model::Model;

/// The block sizes MLAS's `NCHWc` kernels use.
const BLOCK_SIZES: [i64; 2] = [8, 16];

/// The block size every blocked Conv weight of `model` agrees with; `None` when the model has
/// no blocked Conv with an initializer weight, when the weights allow both sizes (all output
/// channel counts multiples of 16) or when they allow neither.
pub(crate) fn of_model(model: &Model) -> Option<i64> {
    let firsts = model.graphs.iter().flat_map(|graph| {
        graph
            .nodes
            .iter()
            .filter(|node| {
                node.domain().as_str() == "com.microsoft.nchwc" && node.op_type().as_str() == "Conv"
            })
            .filter_map(|node| {
                let weight = node.inputs().get(1).copied().flatten()?;
                let init = graph.values.get(weight.0 as usize)?.initializer()?;
                graph
                    .initializers
                    .get(init as usize)
                    .map(|t| t.dims.first().copied())
            })
    });
    agreed(firsts)
}

/// The one block size that divides every weight's first dim (`None` for a weight of unknown
/// rank 0 counts against every size), if exactly one does and some weight was seen.
fn agreed(firsts: impl IntoIterator<Item = Option<i64>>) -> Option<i64> {
    let mut fits = BLOCK_SIZES.map(|_| true);
    let mut seen = false;
    for first in firsts {
        seen = true;
        for (fit, block) in fits.iter_mut().zip(BLOCK_SIZES) {
            *fit &= first.is_some_and(|m| m > 0 && m % block == 0);
        }
    }
    let mut agreeing = BLOCK_SIZES
        .iter()
        .zip(fits)
        .filter_map(|(&block, fit)| fit.then_some(block));
    match (seen, agreeing.next(), agreeing.next()) {
        (true, Some(block), None) => Some(block),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::agreed;

    #[test]
    fn a_weight_padded_to_8_but_not_16_proves_blocks_of_8() {
        assert_eq!(agreed([Some(8), Some(48), Some(96)]), Some(8));
        assert_eq!(agreed([Some(24)]), Some(8));
    }

    #[test]
    fn weights_that_fit_both_sizes_or_neither_say_nothing() {
        assert_eq!(agreed([Some(16), Some(32)]), None);
        assert_eq!(agreed([Some(8), Some(12)]), None);
        assert_eq!(agreed([Some(8), None]), None);
        assert_eq!(agreed([Some(0)]), None);
        assert_eq!(agreed(std::iter::empty()), None);
    }
}
