//! ONNX's `onnx/defs/tensor` operators: shape, layout and indexing ops (`Concat`, `Gather`,
//! `Reshape`, `Slice`, `Resize`, `ReverseSequence`, `TensorScatter`, `CenterCropPad`...), sampling
//! grids (`GridSample`, `AffineGrid`) and `BitCast`. A rule sits in the folder of the
//! `onnx/defs/<section>` that defines its operator.

pub(crate) mod bit_cast;
pub(crate) mod center_crop_pad;
pub(crate) mod concat;
pub(crate) mod data_sized;
pub(crate) mod gather;
pub(crate) mod grid;
pub(crate) mod pad;
pub(crate) mod reshape;
pub(crate) mod reshape_target;
pub(crate) mod resize;
pub(crate) mod resize_lengths;
pub(crate) mod reverse_sequence;
pub(crate) mod scatter;
pub(crate) mod select;
pub(crate) mod shape_of;
pub(crate) mod slice;
pub(crate) mod split;
pub(crate) mod squeeze;
pub(crate) mod tensor_scatter;
pub(crate) mod transpose;
