//! onnxruntime's RMS-normalisation variants of the newer model families (com.microsoft, CPU
//! kernels): `GatedRMSNorm` (Mamba2 / gated `DeltaNet` outputs: the mean of squares runs over
//! groups of `C` = `scale`'s length, so X's last dim must be a multiple of it; the gate has X's
//! shape) and `BranchwiseRMSNorm` (per-branch norm of hyper-connection streams, `scale` of
//! shape `(H)`, `(C * H)` or `(C, H)`). Both keep X's shape.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::ranks::same_shape;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

use super::hyper::{one_of, streams};

/// `GatedRMSNorm(X, scale, gate)`: Y has X's shape.
pub(crate) fn gated_rms_norm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    if let Some(act) = ctx.attrs().string("activation")? {
        if !matches!(act, "silu" | "swish" | "sigmoid") {
            let requires = "GatedRMSNorm's activation must be 'silu', 'swish' or 'sigmoid'";
            return Err(Constraint::new(requires, format!("it is '{act}'"), &[]).unmet());
        }
    }
    let mut pending = Pending::default();
    if let Some(dims) = x.shape.dims() {
        let requires = "GatedRMSNorm's gate must have X's shape";
        same_shape(&mut pending, ctx.shape(2)?, dims, requires, &[0, 2])?;
        let last = dims.last().and_then(Dim::as_known);
        let groups = ctx.shape(1)?.dims().and_then(|s| {
            s.iter().try_fold(1_i64, |acc, d| {
                d.as_known().and_then(|d| acc.checked_mul(d))
            })
        });
        if let (Some(last), Some(c)) = (last, groups) {
            if c == 0 || last % c != 0 {
                let requires =
                    "GatedRMSNorm's X last dimension must be a multiple of the scale length";
                return Err(Constraint::new(requires, format!("{last} vs {c}"), &[0, 1]).unmet());
            }
        }
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

/// `BranchwiseRMSNorm(X, scale)`: Y has X's shape; X is `(..., C, H)` or, with
/// `num_branches`, `(..., C * H)`.
pub(crate) fn branchwise_rms_norm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "BranchwiseRMSNorm";
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    if let (Some(s), Some(scale)) = (streams(ctx, OP, x.shape)?, ctx.input(1)) {
        let requires = "BranchwiseRMSNorm's scale must have shape (H), (C * H), or (C, H)";
        match scale.shape.dims() {
            Some([n]) => {
                let options = [s.features.clone(), s.branches.mul(&s.features)];
                one_of(&mut pending, n, &options, requires, &[0, 1])?;
            }
            Some([_, _]) => {
                let want = [s.branches, s.features];
                same_shape(&mut pending, scale.shape, &want, requires, &[0, 1])?;
            }
            Some(d) => {
                let found = format!("it has rank {}", d.len());
                return Err(Constraint::new(requires, found, &[0, 1]).unmet());
            }
            None => {}
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
    use crate::ops::testing::{dims, int_attr, run_microsoft, string_attr};

    // As onnxruntime 1.31's CPU kernels run them.

    fn gated(
        x: &[&str],
        scale: &[&str],
        gate: &[&str],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        run_microsoft(
            "GatedRMSNorm",
            &[dims(x), dims(scale), dims(gate)],
            vec![],
            1,
        )
    }

    #[test]
    fn gated_keeps_x_and_groups_by_the_scale_length() {
        assert_eq!(
            shape(&gated(&["B", "T", "32"], &["8"], &["B", "T", "32"])),
            "[B, T, 32]"
        );
        // onnxruntime counts scale's elements: (1, 8) runs.
        assert_eq!(
            shape(&gated(&["B", "T", "32"], &["1", "8"], &["B", "T", "32"])),
            "[B, T, 32]"
        );
        assert_eq!(
            conditions(&gated(&["B", "T", "32"], &["8"], &["B", "U", "32"])),
            ["U = T"]
        );
    }

    #[test]
    fn gated_rejects_a_wrong_gate_group_or_activation() {
        // onnxruntime: "X last dimension (32) must be a multiple of the scale length (5)", "gate
        // must have the same shape as X".
        assert!(unmet(&gated(&["2", "5", "32"], &["5"], &["2", "5", "32"])));
        assert!(unmet(&gated(&["2", "5", "32"], &["8"], &["1", "5", "32"])));
        let relu = vec![string_attr("activation", "relu")];
        let r = run_microsoft(
            "GatedRMSNorm",
            &[dims(&["4"]), dims(&["4"]), dims(&["4"])],
            relu,
            1,
        );
        assert!(unmet(&r));
    }

    fn branchwise(
        x: &[&str],
        scale: &[&str],
        branches: i64,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let attrs = vec![int_attr("num_branches", branches)];
        run_microsoft("BranchwiseRMSNorm", &[dims(x), dims(scale)], attrs, 1)
    }

    #[test]
    fn branchwise_scale_is_h_c_times_h_or_c_by_h() {
        let x = ["2", "5", "4", "8"];
        for scale in [&["8"][..], &["32"], &["4", "8"]] {
            assert_eq!(shape(&branchwise(&x, scale, 0)), "[2, 5, 4, 8]");
        }
        assert_eq!(
            shape(&branchwise(&["2", "5", "32"], &["4", "8"], 4)),
            "[2, 5, 32]"
        );
        assert_eq!(
            conditions(&branchwise(&["2", "5", "4", "h"], &["8"], 0)),
            ["h ∈ {2, 8}"]
        );
    }

    #[test]
    fn branchwise_rejects_other_scales_and_layouts() {
        // onnxruntime: "scale must have shape (H), (C * H), or (C, H)", "flattened stream width
        // must be positive and divisible by num_branches", "grouped streams must have rank at
        // least 2".
        let x = ["2", "5", "4", "8"];
        assert!(unmet(&branchwise(&x, &["7"], 0)));
        assert!(unmet(&branchwise(&x, &["3", "8"], 0)));
        assert!(unmet(&branchwise(&x, &["1", "4", "8"], 0)));
        assert!(unmet(&branchwise(&["2", "5", "30"], &["8"], 4)));
        assert!(unmet(&branchwise(&["8"], &["8"], 0)));
    }
}
