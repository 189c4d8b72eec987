//! onnxruntime's `com.microsoft.nchwc` layout ops, which its offline optimizer writes at
//! `ORT_ENABLE_ALL` on the CPU: `ReorderInput` / `ReorderOutput` around runs of blocked ops, and
//! the blocked `Conv` and pools. A blocked tensor is stored channel-blocked (`NCHWc`) but its shape
//! is the plain `(N, C, spatial...)` with C padded to the block size, so the blocked ops have
//! the standard ops' shapes (their schemas, `nchwc_schema_defs.cc`, infer with onnx's
//! `convPoolShapeInference` / `globalPoolTypeShapeInference`).
//!
//! The block size is MLAS's, a property of the machine (8 with AVX2, 16 with AVX-512): only
//! `ReorderInput` pads by it, and its padded channel count is known where every block size gives
//! the same one (C a multiple of 16) or where the model's padded Conv weights say which block
//! size the optimizer used. The blocked Conv's weights and bias come already
//! padded, and the optimizer also rewrites `group` for the padded channels: the standard Conv's
//! channel and bias agreements are not checked here, as the padding rules they would need are the
//! optimizer's, not a schema's.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::conv::kernel_of;
use crate::ops::nn::conv_channels::{self, Operands};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::window::{Sizing, Window};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The largest `NCHWc` block size MLAS uses (AVX-512); the others (8) divide it.
const LARGEST_BLOCK: i64 = 16;

/// The schemas' rank check of the reorders ("tensor rank too small").
fn require_rank_2(op: &str, dims: &[Dim]) -> Result<(), RuleError> {
    if dims.len() >= 2 {
        return Ok(());
    }
    Err(Constraint::new(
        format!("nchwc {op}'s X must have rank 2 or more"),
        format!("X has rank {}", dims.len()),
        &[0],
    )
    .unmet())
}

/// `ReorderInput(X)`: `(N, C', spatial...)` from X in NCHW, or in NHWC with `channels_last`,
/// where C' is C rounded up to the block size: the model's, where its blocked Conv weights say
/// which it is ([`super::nchwc_block`]).
pub(crate) fn reorder_input(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let output = |shape| Ok(Inferred::single(Output::shape(shape).elem(x.elem)));
    let Some(dims) = x.shape.dims() else {
        return output(Shape::Unranked);
    };
    require_rank_2("ReorderInput", dims)?;
    let last = ctx.int("channels_last", 0)? != 0;
    let rank = dims.len();
    let (channel, spatial) = if last {
        (rank - 1, dims.get(1..rank - 1))
    } else {
        (1, dims.get(2..))
    };
    let padded = match (dim_at(Some(dims), channel).as_known(), ctx.nchwc_block()) {
        (Some(c), _) if c % LARGEST_BLOCK == 0 => Dim::known(c),
        (Some(c), Some(block)) => c
            .checked_add(block - 1)
            .map_or(Dim::Unknown, |end| Dim::known(end / block * block)),
        _ => Dim::Unknown,
    };
    let mut out = vec![dim_at(Some(dims), 0), padded];
    out.extend(spatial.unwrap_or_default().iter().cloned());
    output(Shape::Ranked(out))
}

/// `ReorderOutput(X)`: X's batch and spatial dims with the `channels` attribute's count, in
/// NCHW or (with `channels_last`) NHWC; `channels` must be positive.
pub(crate) fn reorder_output(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let output = |shape| Ok(Inferred::single(Output::shape(shape).elem(x.elem)));
    let Some(dims) = x.shape.dims() else {
        return output(Shape::Unranked);
    };
    require_rank_2("ReorderOutput", dims)?;
    let channels = ctx.int("channels", 0)?;
    if channels <= 0 {
        return Err(Constraint::new(
            "nchwc ReorderOutput's channels attribute must be positive",
            format!("channels is {channels}"),
            &[],
        )
        .fix("give channels, the unpadded channel count")
        .unmet());
    }
    let mut out = vec![dim_at(Some(dims), 0)];
    let spatial = dims.get(2..).unwrap_or_default().iter().cloned();
    if ctx.int("channels_last", 0)? != 0 {
        out.extend(spatial);
        out.push(Dim::known(channels));
    } else {
        out.push(Dim::known(channels));
        out.extend(spatial);
    }
    output(Shape::Ranked(out))
}

/// The blocked `Conv(X, W, B, Sum)`: `(N, M, spatial...)` with M the (padded) weight's first
/// dim and the spatial sizes of the standard Conv; W's rank and `kernel_shape` must agree with
/// X as there.
pub(crate) fn conv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, "Conv")?;
    let w = ctx.shape(1)?.dims();
    let ops = Operands { x, w, w_slot: 1 };
    let mut pending = Pending::default();
    conv_channels::kernel(ctx, &ops, &mut pending)?;
    let shape = match kernel_of(ctx, w)? {
        Some(kernel) => {
            let window = Window::from_attrs(ctx, kernel)?;
            let mut dims = vec![dim_at(x, 0), dim_at(w, 0)];
            let spatial = x.map(|d| d.get(2..).unwrap_or_default());
            dims.extend(window.checked_out("Conv", spatial, Sizing::Conv, &mut pending)?);
            Shape::Ranked(dims)
        }
        None => x.map_or(Shape::Unranked, |d| {
            Shape::Ranked(vec![Dim::Unknown; d.len()])
        }),
    };
    Ok(Inferred::single(Output::shape(shape).elem(x_in.elem))
        .with_conditions(pending.into_checks()))
}

/// The blocked `Upsample(X)`: each dim times its integer `scales` entry (one per axis, each
/// positive); without `scales` the output is unknown, as the schema leaves it.
pub(crate) fn upsample(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let output = |shape| Ok(Inferred::single(Output::shape(shape).elem(x.elem)));
    let Some(dims) = x.shape.dims() else {
        return output(Shape::Unranked);
    };
    require_rank_2("Upsample", dims)?;
    let Some(scales) = ctx.attrs().ints("scales")? else {
        return output(Shape::Unranked);
    };
    if scales.len() != dims.len() {
        return Err(Constraint::new(
            "nchwc Upsample's scales must have one entry per axis of X",
            format!(
                "scales has {} entries, X has rank {}",
                scales.len(),
                dims.len()
            ),
            &[0],
        )
        .unmet());
    }
    if let Some(s) = scales.iter().find(|&&s| s <= 0) {
        return Err(Constraint::new(
            "nchwc Upsample's scales must be positive",
            format!("scales has {s}"),
            &[],
        )
        .unmet());
    }
    let out = dims
        .iter()
        .zip(scales.iter())
        .map(|(d, &s)| d.mul(&Dim::known(s)))
        .collect();
    output(Shape::Ranked(out))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints_attr, run_in, run_in_model, Fact};
    use crate::ops::{Inferred, RuleError};
    use crate::proto::AttributeProto;

    // Shapes checked against onnxruntime 1.31.1 on an AVX2 machine (block size 8): the
    // ORT_ENABLE_ALL-optimized harness CNNs run with every intermediate value exposed.

    fn run(
        op: &str,
        inputs: &[Option<Fact>],
        attrs: Vec<AttributeProto>,
    ) -> Result<Inferred, RuleError> {
        run_in("com.microsoft.nchwc", op, 1, inputs, attrs, 1)
    }

    #[test]
    fn reorder_input_pads_channels_only_where_every_block_size_agrees() {
        let r = run("ReorderInput", &[dims(&["n", "32", "h", "w"])], vec![]);
        assert_eq!(shape(&r), "[n, 32, h, w]");
        // 24 is 24 with blocks of 8 and 32 with blocks of 16: the machine decides.
        let r = run("ReorderInput", &[dims(&["n", "24", "h", "w"])], vec![]);
        assert_eq!(shape(&r), "[n, ?, h, w]");
        let r = run("ReorderInput", &[dims(&["n", "c", "h", "w"])], vec![]);
        assert_eq!(shape(&r), "[n, ?, h, w]");
        let r = run(
            "ReorderInput",
            &[dims(&["n", "h", "w", "48"])],
            vec![int_attr("channels_last", 1)],
        );
        assert_eq!(shape(&r), "[n, 48, h, w]");
        assert!(unmet(&run("ReorderInput", &[dims(&["5"])], vec![])));
    }

    #[test]
    fn reorder_input_pads_to_the_block_the_models_weights_give() {
        let blocked = |block, c: &str| {
            let fresh = crate::ops::Fresh::with_nchwc_block(block);
            let x = dims(&["n", c, "h", "w"]);
            shape(&run_in_model(
                &fresh,
                "com.microsoft.nchwc",
                "ReorderInput",
                1,
                &[x],
                vec![],
                1,
            ))
        };
        assert_eq!(blocked(8, "2"), "[n, 8, h, w]");
        assert_eq!(blocked(8, "24"), "[n, 24, h, w]");
        assert_eq!(blocked(8, "48"), "[n, 48, h, w]");
        assert_eq!(blocked(16, "24"), "[n, 32, h, w]");
        assert_eq!(blocked(8, "c"), "[n, ?, h, w]");
    }

    #[test]
    fn reorder_output_takes_the_channels_attribute() {
        let r = run(
            "ReorderOutput",
            &[dims(&["n", "24", "h", "w"])],
            vec![int_attr("channels", 20)],
        );
        assert_eq!(shape(&r), "[n, 20, h, w]");
        let r = run(
            "ReorderOutput",
            &[dims(&["n", "24", "h", "w"])],
            vec![int_attr("channels", 20), int_attr("channels_last", 1)],
        );
        assert_eq!(shape(&r), "[n, h, w, 20]");
        assert!(unmet(&run(
            "ReorderOutput",
            &[dims(&["n", "24", "h", "w"])],
            vec![]
        )));
        assert!(unmet(&run(
            "ReorderOutput",
            &[dims(&["n"])],
            vec![int_attr("channels", 4)]
        )));
    }

    #[test]
    fn blocked_conv_is_shaped_by_its_padded_weight() {
        // The first conv of a blocked run reads NCHW directly: 3 channels against padded M.
        let r = run(
            "Conv",
            &[
                dims(&["1", "3", "64", "64"]),
                dims(&["16", "3", "3", "3"]),
                dims(&["16"]),
            ],
            vec![
                ints_attr("pads", &[1, 1, 1, 1]),
                ints_attr("strides", &[2, 2]),
            ],
        );
        assert_eq!(shape(&r), "[1, 16, 32, 32]");
        // Depthwise on 24 padded channels: no channel agreement is asked of group.
        let r = run(
            "Conv",
            &[dims(&["n", "24", "h", "w"]), dims(&["24", "1", "3", "3"])],
            vec![int_attr("group", 3), ints_attr("pads", &[1, 1, 1, 1])],
        );
        assert_eq!(shape(&r), "[n, 24, h, w]");
        let r = run(
            "Conv",
            &[dims(&["1", "8", "8", "8"]), dims(&["8", "8", "3", "3"])],
            vec![ints_attr("kernel_shape", &[5, 5])],
        );
        assert!(unmet(&r));
        assert!(unmet(&run(
            "Conv",
            &[dims(&["1", "8", "8", "8"]), dims(&["8", "8", "3"])],
            vec![]
        )));
    }

    #[test]
    fn blocked_pools_keep_the_padded_channels() {
        let r = run(
            "MaxPool",
            &[dims(&["n", "16", "9", "9"])],
            vec![
                ints_attr("kernel_shape", &[3, 3]),
                ints_attr("strides", &[2, 2]),
                int_attr("ceil_mode", 1),
            ],
        );
        assert_eq!(shape(&r), "[n, 16, 4, 4]");
        let r = run(
            "AveragePool",
            &[dims(&["n", "8", "8", "8"])],
            vec![
                ints_attr("kernel_shape", &[2, 2]),
                ints_attr("strides", &[2, 2]),
            ],
        );
        assert_eq!(shape(&r), "[n, 8, 4, 4]");
        assert!(unmet(&run(
            "MaxPool",
            &[dims(&["n", "8", "8", "8"])],
            vec![]
        )));
        let r = run("GlobalAveragePool", &[dims(&["n", "24", "h", "w"])], vec![]);
        assert_eq!(shape(&r), "[n, 24, 1, 1]");
        let r = run("GlobalMaxPool", &[dims(&["n", "24", "h", "w"])], vec![]);
        assert_eq!(shape(&r), "[n, 24, 1, 1]");
    }

    #[test]
    fn blocked_upsample_multiplies_by_integer_scales() {
        let r = run(
            "Upsample",
            &[dims(&["n", "16", "h", "5"])],
            vec![ints_attr("scales", &[1, 1, 2, 3])],
        );
        assert_eq!(shape(&r), "[n, 16, 2*h, 15]");
        assert!(unmet(&run(
            "Upsample",
            &[dims(&["n", "16", "h", "5"])],
            vec![ints_attr("scales", &[2, 3])]
        )));
        assert!(unmet(&run(
            "Upsample",
            &[dims(&["n", "16", "h", "5"])],
            vec![ints_attr("scales", &[1, 1, 0, 2])]
        )));
    }
}
