//! What a convolution and a pool share about X, `(N x C x D1 x ... x Dn)`: its rank check and
//! the size at an axis. Its own file so that `conv.rs` and `pool.rs` both stand on it rather than
//! on each other (issue 33).

use super::constraint::Constraint;
use super::RuleError;
use crate::shape::{Dim, Shape};

/// X's dims, or `None` when X is unranked. The docs give X as `(N x C x D1 x ... x Dn)`:
/// `onnx.shape_inference` rejects fewer than 3 dims for `Conv`, `ConvTranspose` and the windowed
/// pools ("Input tensor must have at least 3 dimensions"), and onnxruntime's global pools when
/// they run ("Input dimension cannot be less than 3").
pub(crate) fn data_dims<'a>(x: &'a Shape, op: &str) -> Result<Option<&'a [Dim]>, RuleError> {
    match x.dims() {
        Some(d) if d.len() < 3 => Err(Constraint::new(
            format!("{op}'s X must have rank 3 or more (N x C x D1 x ... x Dn)"),
            format!("X has rank {}", d.len()),
            &[0],
        )
        .fix("Unsqueeze X to add the missing batch, channel or spatial axis")
        .unmet()),
        other => Ok(other),
    }
}

/// Dim `i` of `dims`, unknown when absent.
pub(crate) fn dim_at(dims: Option<&[Dim]>, i: usize) -> Dim {
    dims.and_then(|d| d.get(i)).cloned().unwrap_or(Dim::Unknown)
}
