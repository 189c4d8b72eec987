//! Sampling grids: `GridSample` (16: 4-D; 20, 22: N-D) and `AffineGrid-20`. Output shapes follow
//! each doc; the rank and dim requirements are the ones `onnx.shape_inference` states for the op
//! (its messages are quoted beside each), a size read from an unknown input value is a fresh named
//! size.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::single::single;
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::{Dim, Shape};

/// `GridSample(X, grid)`: `(N, C, D1_out, ...)` of X `(N, C, D1, ...)` and grid
/// `(N, D1_out, ..., r - 2)`; `rank` fixes X's rank (4 at opset 16).
fn grid_sample(ctx: &Ctx<'_>, rank: Option<usize>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = match rank {
        Some(r) => exact(
            x_in.shape,
            r,
            "GridSample-16's X must be 4-D (N, C, H, W)",
            0,
        )?,
        None => x_in.shape.dims(),
    };
    let grid = ctx.shape(1)?.dims();
    let mut pending = Pending::default();
    let shape = match (x, grid) {
        (Some(x), Some(g)) => {
            // "The input tensor and grid tensor must have the same rank for GridSample".
            if x.len() != g.len() {
                return Err(Constraint::new(
                    "GridSample's X and grid must have the same rank",
                    format!("X has rank {}, grid {}", x.len(), g.len()),
                    &[0, 1],
                )
                .unmet());
            }
            let requires = "GridSample's grid must be (N, D1_out, ..., Dr_out, r) with r the number of spatial axes";
            let spatial = Dim::known(i64::try_from(x.len().saturating_sub(2)).unwrap_or(0));
            equal(
                &mut pending,
                &dim_at(Some(g), g.len().saturating_sub(1)),
                &spatial,
                requires,
                "grid's last dim",
                &[1],
            )?;
            equal(
                &mut pending,
                &dim_at(Some(g), 0),
                &dim_at(Some(x), 0),
                requires,
                "grid's N",
                &[0, 1],
            )?;
            let mut dims = vec![dim_at(Some(x), 0), dim_at(Some(x), 1)];
            dims.extend(g.iter().skip(1).take(g.len().saturating_sub(2)).cloned());
            Shape::Ranked(dims)
        }
        (Some(x), None) => Shape::Ranked(vec![Dim::Unknown; x.len()]),
        (None, Some(g)) => Shape::Ranked(vec![Dim::Unknown; g.len()]),
        (None, None) => Shape::Unranked,
    };
    Ok(single(shape, x_in.elem, pending))
}

/// `GridSample-16`: 4-D X.
pub(crate) fn grid_sample_16(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    grid_sample(ctx, Some(4))
}

/// `GridSample-20`, `-22`: N-D X.
pub(crate) fn grid_sample_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    grid_sample(ctx, None)
}

/// `AffineGrid(theta, size)`: `(N, H, W, 2)` for theta `(N, 2, 3)` and size `[N, C, H, W]`,
/// `(N, D, H, W, 3)` for `(N, 3, 4)` and `[N, C, D, H, W]`.
pub(crate) fn affine_grid_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let theta_in = ctx.required(0)?;
    let theta = exact(
        theta_in.shape,
        3,
        "AffineGrid's theta must be 3-D (N, 2, 3) or (N, 3, 4)",
        0,
    )?;
    let size = exact(ctx.shape(1)?, 1, "AffineGrid's size must be 1-D", 1)?;
    let from_size = size.and_then(|s| s.first()).and_then(Dim::as_known);
    let from_theta = theta
        .and_then(|t| t.get(1))
        .and_then(Dim::as_known)
        .map(|d| d + 2);
    let len = match (from_size, from_theta) {
        (Some(s), Some(t)) if s != t => {
            return Err(Constraint::new(
                "AffineGrid's size must be [N, C, H, W] for a 2-D theta (N, 2, 3), [N, C, D, H, W] for (N, 3, 4)",
                format!("size has {s} values, theta's dim 1 is {}", t - 2),
                &[0, 1],
            )
            .unmet())
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => return Ok(single(Shape::Unranked, theta_in.elem, Pending::default())),
    };
    let Some(len) = usize::try_from(len).ok().filter(|l| (4..=5).contains(l)) else {
        return Err(Constraint::new(
            "AffineGrid's size must have 4 or 5 values",
            format!("it has {len}"),
            &[1],
        )
        .unmet());
    };
    let mut dims = vec![ctx.size_element(1, 0, "N", Vec::new())];
    dims.extend((2..len).map(|i| ctx.size_element(1, i, "size", Vec::new())));
    dims.push(Dim::known(i64::try_from(len - 2).unwrap_or(0)));
    Ok(single(
        Shape::Ranked(dims),
        theta_in.elem,
        Pending::default(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::int_list as list;
    use crate::ops::testing::{dims, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn grid_sample_takes_the_grid_spatial_dims() {
        assert_eq!(
            shape(&run(
                "GridSample",
                16,
                &[dims(&["2", "3", "8", "8"]), dims(&["2", "5", "6", "2"])],
                vec![]
            )),
            "[2, 3, 5, 6]"
        );
        assert_eq!(
            shape(&run(
                "GridSample",
                20,
                &[
                    dims(&["2", "3", "4", "8", "8"]),
                    dims(&["2", "4", "5", "6", "3"])
                ],
                vec![]
            )),
            "[2, 3, 4, 5, 6]"
        );
        assert!(unmet(&run(
            "GridSample",
            16,
            &[dims(&["2", "3", "8", "8"]), dims(&["3", "5", "6", "2"])],
            vec![]
        )));
        assert!(unmet(&run(
            "GridSample",
            16,
            &[dims(&["2", "3", "8", "8"]), dims(&["2", "5", "6", "3"])],
            vec![]
        )));
        assert!(unmet(&run(
            "GridSample",
            22,
            &[
                dims(&["2", "3", "8", "8"]),
                dims(&["2", "5", "6", "6", "2"])
            ],
            vec![]
        )));
    }

    #[test]
    fn affine_grid_reads_the_size_values() {
        assert_eq!(
            shape(&run(
                "AffineGrid",
                20,
                &[dims(&["2", "2", "3"]), list(&[2, 3, 8, 9])],
                vec![]
            )),
            "[2, 8, 9, 2]"
        );
        assert_eq!(
            shape(&run(
                "AffineGrid",
                20,
                &[dims(&["2", "3", "4"]), list(&[2, 3, 4, 8, 9])],
                vec![]
            )),
            "[2, 4, 8, 9, 3]"
        );
        assert!(unmet(&run(
            "AffineGrid",
            20,
            &[dims(&["2", "3", "4"]), list(&[2, 3, 8, 9])],
            vec![]
        )));
    }
}
