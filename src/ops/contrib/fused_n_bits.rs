//! The WebGPU fusions of `MatMulNBits` that onnxruntime's optimizer writes for decoder blocks
//! (com.microsoft; WebGPU kernels only, so these follow the schema docs, not a run):
//! `MatMulNBitsMlp` (gate and up projections of one input, optionally after an RMS norm, `Y`
//! A's shape with the last dim `N`) and `MatMulNBitsQkv` (three projections after an RMS norm,
//! `Q` with `Nq` and `K`, `V` with `Nkv`). As for `MatMulNBits`, A's last dim must be the `K`
//! attribute; `norm_scale` is `(K)`, each bias `(N)`, the skip input is added to A (a
//! unidirectional broadcast onto it) and the residual-sum output has A's shape.

use super::activation::require_equal;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::exact;
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// A required INT attribute.
fn attr(ctx: &Ctx<'_>, name: &str) -> Result<i64, RuleError> {
    let op = ctx.node().op_type().as_str();
    ctx.attrs()
        .int(name)?
        .ok_or_else(|| spec::missing_attr(op, name))
}

/// A's shape with its last dim replaced by `n`, after requiring that dim to be `k`.
fn projected(
    ctx: &Ctx<'_>,
    a: &Shape,
    k: &Dim,
    pending: &mut Pending,
) -> Result<impl Fn(i64) -> Shape, RuleError> {
    let op = ctx.node().op_type().as_str().to_owned();
    let batch = match a.dims() {
        Some([]) => {
            let requires = format!("{op}'s A must have rank 1 or more");
            return Err(Constraint::new(requires, "its rank is 0", &[0]).unmet());
        }
        Some([batch @ .., last]) => {
            let requires = format!("{op}'s A must have K as its last dim");
            require_equal(pending, last, k, &requires, &[0])?;
            Some(batch.to_vec())
        }
        None => None,
    };
    Ok(move |n: i64| match &batch {
        Some(b) => Shape::Ranked(b.iter().cloned().chain([Dim::known(n)]).collect()),
        None => Shape::Unranked,
    })
}

/// Requires input `slot`, when present, to be 1-D with `len` entries (`name` as the doc).
fn vector(
    ctx: &Ctx<'_>,
    slot: usize,
    name: &str,
    len: i64,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let Some(input) = ctx.input(slot) else {
        return Ok(());
    };
    let op = ctx.node().op_type().as_str();
    let requires = format!("{op}'s {name} must be 1-D with {len} entries");
    if let Some(d) = exact(input.shape, 1, &requires, slot)? {
        require_equal(
            pending,
            &dim_at(Some(d), 0),
            &Dim::known(len),
            &requires,
            &[slot],
        )?;
    }
    Ok(())
}

/// The skip input, when present, is added to A.
fn with_skip(ctx: &Ctx<'_>, a: &Shape, inferred: Inferred) -> Inferred {
    match ctx.input(1) {
        Some(skip) if a.rank().is_some() => {
            let outcome = ctx.broadcasts().unidirectional(a, skip.shape);
            inferred.with_check(Rule::Unidirectional, vec![0, 1], outcome)
        }
        _ => inferred,
    }
}

/// `MatMulNBitsMlp(A, skip, norm_scale, gate_B, gate_scales, gate_bias, up_B, up_scales,
/// up_bias)`: `Y` is A's shape with the last dim `N`; `input_skip_bias_sum` is A's shape.
pub(crate) fn mlp(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    for slot in [3, 4, 6, 7] {
        ctx.required(slot)?;
    }
    let (k, n) = (attr(ctx, "K")?, attr(ctx, "N")?);
    let mut pending = Pending::default();
    let out = projected(ctx, a.shape, &Dim::known(k), &mut pending)?;
    vector(ctx, 2, "norm_scale", k, &mut pending)?;
    vector(ctx, 5, "gate_bias", n, &mut pending)?;
    vector(ctx, 8, "up_bias", n, &mut pending)?;
    let outputs = vec![
        Output::shape(out(n)).elem(a.elem),
        Output::shape(a.shape.clone()).elem(a.elem),
    ];
    let inferred = Inferred::many(outputs).with_conditions(pending.into_checks());
    Ok(with_skip(ctx, a.shape, inferred))
}

/// `MatMulNBitsQkv(A, skip, norm_scale, q_B, q_scales, q_bias, k_B, k_scales, k_bias, v_B,
/// v_scales, v_bias)`: `Q` is A's shape with the last dim `Nq`, `K` and `V` with `Nkv`;
/// `input_skip_bias_sum` is A's shape.
pub(crate) fn qkv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    for slot in [2, 3, 4, 6, 7, 9, 10] {
        ctx.required(slot)?;
    }
    let (k, nq, nkv) = (attr(ctx, "K")?, attr(ctx, "Nq")?, attr(ctx, "Nkv")?);
    let mut pending = Pending::default();
    let out = projected(ctx, a.shape, &Dim::known(k), &mut pending)?;
    vector(ctx, 2, "norm_scale", k, &mut pending)?;
    vector(ctx, 5, "q_bias", nq, &mut pending)?;
    vector(ctx, 8, "k_bias", nkv, &mut pending)?;
    vector(ctx, 11, "v_bias", nkv, &mut pending)?;
    let outputs = vec![
        Output::shape(out(nq)).elem(a.elem),
        Output::shape(out(nkv)).elem(a.elem),
        Output::shape(out(nkv)).elem(a.elem),
        Output::shape(a.shape.clone()).elem(a.elem),
    ];
    let inferred = Inferred::many(outputs).with_conditions(pending.into_checks());
    Ok(with_skip(ctx, a.shape, inferred))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft, string_attr};

    #[test]
    fn mlp_projects_k_to_n_and_checks_the_norm_scale() {
        let attrs = || {
            vec![
                int_attr("K", 64),
                int_attr("N", 128),
                int_attr("block_size", 32),
                string_attr("activation", "silu"),
            ]
        };
        let w = || dims(&["128", "2", "16"]);
        let run = |a: &[&str], scale: &[&str]| {
            let inputs = [
                dims(a),
                None,
                dims(scale),
                w(),
                dims(&["256"]),
                None,
                w(),
                dims(&["256"]),
            ];
            run_microsoft("MatMulNBitsMlp", &inputs, attrs(), 2)
        };
        let ok = run(&["b", "s", "64"], &["64"]).unwrap();
        assert_eq!(output_shapes(&ok), ["[b, s, 128]", "[b, s, 64]"]);
        assert!(unmet(&run(&["b", "s", "32"], &["64"])));
        assert!(unmet(&run(&["b", "s", "64"], &["32"])));
        assert_eq!(conditions(&run(&["b", "s", "h"], &["64"])), ["h = 64"]);
    }

    #[test]
    fn qkv_gives_three_projections() {
        let attrs = vec![
            int_attr("K", 64),
            int_attr("Nq", 64),
            int_attr("Nkv", 16),
            int_attr("block_size", 32),
        ];
        let w = || dims(&["64", "2", "16"]);
        let s = || dims(&["128"]);
        let mut inputs = vec![
            dims(&["b", "1", "64"]),
            dims(&["b", "1", "64"]),
            dims(&["64"]),
        ];
        inputs.extend([
            w(),
            s(),
            None,
            w(),
            s(),
            dims(&["16"]),
            w(),
            s(),
            dims(&["8"]),
        ]);
        let bad = run_microsoft("MatMulNBitsQkv", &inputs, attrs.clone(), 4);
        assert!(unmet(&bad), "v_bias of 8 for Nkv 16");
        inputs[11] = None;
        let ok = run_microsoft("MatMulNBitsQkv", &inputs, attrs, 4).unwrap();
        assert_eq!(
            output_shapes(&ok),
            ["[b, 1, 64]", "[b, 1, 16]", "[b, 1, 16]", "[b, 1, 64]"]
        );
        assert!(ok.checks.iter().all(|c| c.outcome.is_valid()));
    }
}
