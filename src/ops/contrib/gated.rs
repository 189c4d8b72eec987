//! Element-wise contrib ops with a gate or a scale (com.microsoft, CPU kernels): `ScaledSiLU`
//! (X's shape; the optional `scale` must be a scalar, "scale must be a scalar") and `GatedAdd`
//! (`X + Y * gate`: Y has X's exact shape and the gate X's with the last dim 1, as onnxruntime
//! 1.31's kernel requires: "Y must have the same shape as X", "gate must have the same rank as
//! X", "gate dimension 0 must match X", "gate last dimension must be 1").

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::ranks::same_shape;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

/// `ScaledSiLU(X, scale)`: Y has X's shape.
pub(crate) fn scaled_silu(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    if let Some(rank) = ctx
        .input(1)
        .and_then(|s| s.shape.rank())
        .filter(|&r| r != 0)
    {
        let requires = "ScaledSiLU's scale must be a scalar";
        return Err(Constraint::new(requires, format!("its rank is {rank}"), &[1]).unmet());
    }
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(x.elem),
    ))
}

/// `GatedAdd(X, Y, gate)`: the output has X's shape.
pub(crate) fn gated_add(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let y = ctx.required(1)?;
    let gate = ctx.required(2)?;
    let mut pending = Pending::default();
    if let Some(dims) = x.shape.dims() {
        same_shape(
            &mut pending,
            y.shape,
            dims,
            "GatedAdd's Y must have X's shape",
            &[0, 1],
        )?;
        if let Some((_, rows)) = dims.split_last() {
            let gate_dims: Vec<Dim> = rows.iter().cloned().chain([Dim::known(1)]).collect();
            let requires = "GatedAdd's gate must have X's shape with the last dim 1";
            same_shape(&mut pending, gate.shape, &gate_dims, requires, &[0, 2])?;
        }
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, run_microsoft};

    #[test]
    fn scaled_silu_keeps_x_and_needs_a_scalar_scale() {
        assert_eq!(
            shape(&run_microsoft(
                "ScaledSiLU",
                &[dims(&["b", "8"]), dims(&[])],
                vec![],
                1
            )),
            "[b, 8]"
        );
        assert_eq!(
            shape(&run_microsoft(
                "ScaledSiLU",
                &[dims(&["b", "8"])],
                vec![],
                1
            )),
            "[b, 8]"
        );
        // onnxruntime 1.31: "scale must be a scalar" for a (1) scale.
        assert!(unmet(&run_microsoft(
            "ScaledSiLU",
            &[dims(&["b", "8"]), dims(&["1"])],
            vec![],
            1
        )));
    }

    #[test]
    fn gated_add_wants_exact_shapes() {
        let run = |y: &[&str], g: &[&str]| {
            run_microsoft(
                "GatedAdd",
                &[dims(&["2", "s", "4"]), dims(y), dims(g)],
                vec![],
                1,
            )
        };
        assert_eq!(shape(&run(&["2", "s", "4"], &["2", "s", "1"])), "[2, s, 4]");
        // Each of these fails onnxruntime 1.31's kernel, broadcastable or not.
        assert!(unmet(&run(&["1", "s", "4"], &["2", "s", "1"])));
        assert!(unmet(&run(&["2", "s", "4"], &["1", "s", "1"])));
        assert!(unmet(&run(&["2", "s", "4"], &["2", "s", "4"])));
        assert!(unmet(&run(&["2", "s", "4"], &["s", "1"])));
        assert_eq!(
            conditions(&run(&["2", "t", "4"], &["2", "s", "1"])),
            ["t = s"]
        );
    }
}
