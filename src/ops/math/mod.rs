//! ONNX's `onnx/defs/math` operators: element-wise arithmetic and activations, matrix products,
//! `Einsum`, `Expand`, `TopK`, `CumProd`, `Det`, `SwiGLU`, the training losses and signal
//! processing (`DFT`, `STFT`, the windows, `MelWeightMatrix`). A rule sits in the folder of the
//! `onnx/defs/<section>` that defines its operator.

pub(crate) mod cum_prod;
pub(crate) mod det;
pub(crate) mod einsum;
pub(crate) mod elementwise;
pub(crate) mod expand;
pub(crate) mod linalg;
pub(crate) mod losses;
pub(crate) mod signal;
pub(crate) mod swiglu;
pub(crate) mod top_k;
