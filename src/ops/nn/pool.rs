//! Pools: the windowed `AveragePool`, `MaxPool` (with its `Indices`) and `LpPool` (ONNX
//! MaxPool-12, AveragePool-19 docs; `window.rs` holds the per-axis arithmetic), the global pools
//! and `MaxRoiPool`. Each takes X as `(N x C x D1 x ... x Dn)` (`spatial::data_dims`).

use crate::model::dtype::elem;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::window::{Sizing, Window};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// Which windowed pool a row names, with the `AveragePool` versions whose kernel differs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pool {
    /// `AveragePool` 1 to 11.
    AverageBefore19,
    /// `AveragePool` from 19.
    Average,
    /// `MaxPool`, with its optional `Indices` output.
    Max,
    /// `LpPool`.
    Lp,
    /// onnxruntime's `QLinearAveragePool`.
    QLinearAverage,
}

/// Whether onnxruntime runs this pool through the kernel that refuses negative `SAME` padding
/// ([`Window::require_same_padding`]): float and float16 `AveragePool` before version 19, and
/// float and float16 `MaxPool` without `Indices` and with the default `storage_order`. The other
/// forms (`AveragePool`-19, `LpPool`, `MaxPool` with indices, a column-major storage order, double or
/// 8-bit data) run at those lengths.
fn same_padding_checked(ctx: &Ctx<'_>, kind: Pool, x_elem: Option<i32>) -> Result<bool, RuleError> {
    if !matches!(x_elem, Some(elem::FLOAT | elem::FLOAT16)) {
        return Ok(false);
    }
    Ok(match kind {
        Pool::AverageBefore19 => true,
        Pool::Max => {
            // As the Indices output is made below: any second output slot.
            let indices = ctx.node().outputs().len() > 1;
            !indices && ctx.int("storage_order", 0)? == 0
        }
        _ => false,
    })
}

/// Windowed pools: `(N, C, spatial...)`; `MaxPool`'s optional `Indices` output has the same
/// shape, typed int64. `kernel_shape` is required.
pub(crate) fn pool(ctx: &Ctx<'_>, kind: Pool) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, op)?;
    let kernel = ctx.attrs().ints("kernel_shape")?.ok_or_else(|| {
        Constraint::new(format!("{op} requires the kernel_shape attribute"), "", &[])
            .fix("give kernel_shape, one size per spatial axis")
            .unmet()
    })?;
    if let Some(n) = x
        .map(|d| d.len().saturating_sub(2))
        .filter(|&n| n != kernel.len())
    {
        return Err(Constraint::new(
            format!("{op}'s kernel_shape must have one entry per spatial axis of X"),
            format!(
                "kernel_shape has {} entries, X has {n} spatial axes",
                kernel.len()
            ),
            &[0],
        )
        .fix("give one kernel size per spatial axis")
        .unmet());
    }
    let window = Window::from_attrs(ctx, kernel.iter().copied().map(Dim::known).collect())?;
    let mut dims = vec![dim_at(x, 0), dim_at(x, 1)];
    let mut pending = Pending::default();
    let spatial = x.map(|d| d.get(2..).unwrap_or_default());
    dims.extend(window.checked_out(op, spatial, Sizing::Pool, &mut pending)?);
    if same_padding_checked(ctx, kind, x_in.elem)? {
        window.require_same_padding(op, spatial)?;
    }
    let shape = Shape::Ranked(dims);
    let mut outputs = vec![Output::shape(shape.clone()).elem(x_in.elem)];
    if kind == Pool::Max && ctx.node().outputs().len() > 1 {
        outputs.push(Output::shape(shape).elem(Some(elem::INT64)));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// Global pools: `(N, C, 1, ..., 1)`.
pub(crate) fn global_pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let op = ctx.node().op_type().as_str();
    let shape = match data_dims(x.shape, op)? {
        Some(d) => {
            let ones = std::iter::repeat_n(Dim::known(1), d.len() - 2);
            Shape::Ranked(d.iter().take(2).cloned().chain(ones).collect())
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `MaxRoiPool(X, rois)`: `(num_rois, C, pooled_shape...)`.
pub(crate) fn max_roi_pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let rois = ctx.shape(1)?.dims();
    let pooled = ctx.attrs().ints("pooled_shape")?.ok_or_else(|| {
        Constraint::new("MaxRoiPool requires the pooled_shape attribute", "", &[])
            .fix("give pooled_shape (height, width)")
            .unmet()
    })?;
    let mut dims = vec![dim_at(rois, 0), dim_at(x.shape.dims(), 1)];
    dims.extend(pooled.iter().copied().map(Dim::known));
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(dims)).elem(x.elem),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, int_attr, ints_attr, run, run_in};
    use crate::ops::RuleError;

    fn out(r: Result<crate::ops::Inferred, RuleError>) -> String {
        r.map_or_else(
            |e| format!("error: {e}"),
            |r| r.outputs[0].shape.to_string(),
        )
    }

    #[test]
    fn max_pool_with_indices_and_ceil_mode() {
        let r = run_in(
            "",
            "MaxPool",
            12,
            &[s(&["1", "3", "7", "7"])],
            vec![
                ints_attr("kernel_shape", &[2, 2]),
                ints_attr("strides", &[2, 2]),
                int_attr("ceil_mode", 1),
            ],
            2,
        )
        .unwrap();
        assert_eq!(r.outputs[0].shape.to_string(), "[1, 3, 4, 4]");
        assert_eq!(r.outputs[1].shape.to_string(), "[1, 3, 4, 4]");
        assert_eq!(r.outputs[1].elem, Some(7));
    }

    #[test]
    fn ceil_mode_window_starting_in_padding_is_unknown() {
        // ceil((5 + 2 - 2) / 2) + 1 = 4, but the last window would start at 6, past the input
        // and its left padding: runtimes that drop it give 3, so the size stays unknown.
        let r = run(
            "AveragePool",
            19,
            &[s(&["1", "1", "5"])],
            vec![
                ints_attr("kernel_shape", &[2]),
                ints_attr("strides", &[2]),
                ints_attr("pads", &[0, 2]),
                int_attr("ceil_mode", 1),
            ],
        );
        assert_eq!(out(r), "[1, 1, ?]");
    }

    #[test]
    fn global_and_roi_pools() {
        let r = run("GlobalAveragePool", 1, &[s(&["n", "c", "h", "w"])], vec![]);
        assert_eq!(out(r), "[n, c, 1, 1]");
        let r = run(
            "MaxRoiPool",
            1,
            &[s(&["1", "256", "h", "w"]), s(&["r", "5"])],
            vec![ints_attr("pooled_shape", &[7, 7])],
        );
        assert_eq!(out(r), "[r, 256, 7, 7]");
    }

    #[test]
    fn data_rank_below_3_is_unmet() {
        let k = || vec![ints_attr("kernel_shape", &[2])];
        assert!(matches!(
            run("MaxPool", 12, &[s(&["1", "3"])], k()),
            Err(RuleError::Unmet(_))
        ));
        for op in ["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"] {
            // onnxruntime: "Input dimension cannot be less than 3", at opset 1 as at 22.
            assert!(matches!(
                run(op, 1, &[s(&["1", "3"])], vec![]),
                Err(RuleError::Unmet(_))
            ));
            assert_eq!(
                out(run(op, 22, &[s(&["1", "3", "4"])], vec![])),
                "[1, 3, 1]"
            );
        }
    }

    #[test]
    fn kernel_shape_is_required_with_one_entry_per_axis() {
        let x = || s(&["1", "3", "8", "8"]);
        match run("MaxPool", 12, &[x()], vec![ints_attr("kernel_shape", &[2])]) {
            Err(RuleError::Unmet(c)) => {
                assert_eq!(c.found, "kernel_shape has 1 entries, X has 2 spatial axes");
            }
            other => panic!("{other:?}"),
        }
        for (op, opset) in [("AveragePool", 7), ("LpPool", 2), ("MaxPool", 1)] {
            assert!(matches!(
                run(op, opset, &[x()], vec![]),
                Err(RuleError::Unmet(_))
            ));
        }
        let rois = s(&["2", "5"]);
        let r = run("MaxRoiPool", 1, &[x(), rois], vec![]);
        assert!(matches!(r, Err(RuleError::Unmet(_))));
    }
}
