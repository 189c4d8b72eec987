//! Contrib products: `FusedMatMul` (`MatMul` with transposes and a scale), `MatMulNBits` (A times
//! an N x K block-quantized weight), `DynamicQuantizeMatMul` and `MatMulIntegerToFloat`
//! (numpy matmul, float output, an optional `(N)` bias) and `QGemm` (Gemm on quantized
//! operands). ContribOperators.md.

use super::super::constraint::{Constraint, Pending};
use super::super::math::linalg::matmul_of;
use super::super::{spec, Ctx, Inferred, Output, RuleError};
use super::activation::{require_equal, require_rank};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// `FusedMatMul(A, B)`: `alpha * A' * B'` where `transA`/`transB` swap the last two dims. The
/// batch transposes (`transBatchA`/`transBatchB`) move the batch dims: their output is left
/// unknown.
pub(crate) fn fused(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    if ctx.int("transBatchA", 0)? != 0 || ctx.int("transBatchB", 0)? != 0 {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(a.elem),
        ));
    }
    let (Some(ta), Some(tb)) = (
        transposed(a.shape, ctx.int("transA", 0)? != 0),
        transposed(b.shape, ctx.int("transB", 0)? != 0),
    ) else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(a.elem),
        ));
    };
    matmul_of(ctx.broadcasts(), &ta, &tb, [0, 1], a.elem)
}

/// The shape with its last two dims swapped when `trans`; `None` when a 1-D or unranked operand
/// is transposed (its meaning is not in the doc).
fn transposed(shape: &Shape, trans: bool) -> Option<Shape> {
    if !trans {
        return Some(shape.clone());
    }
    let mut dims = shape.dims()?.to_vec();
    let n = dims.len();
    if n < 2 {
        return None;
    }
    dims.swap(n - 2, n - 1);
    Some(Shape::Ranked(dims))
}

/// `MatMulNBits(A, B, scales, zero_points, g_idx, bias)`: Y is A's shape with the last dim `N`
/// (attributes `K` and `N`, required); A's last dim must be `K`, the bias has `N` entries.
pub(crate) fn n_bits(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    ctx.required(1)?;
    ctx.required(2)?;
    let attr = |name| -> Result<i64, RuleError> {
        ctx.attrs()
            .int(name)?
            .ok_or_else(|| spec::missing_attr("MatMulNBits", name))
    };
    let (k, n) = (Dim::known(attr("K")?), Dim::known(attr("N")?));
    let mut pending = Pending::default();
    let shape = match a.shape.dims() {
        Some([]) => {
            let requires = "MatMulNBits's A must have rank 1 or more";
            return Err(Constraint::new(requires, "its rank is 0", &[0]).unmet());
        }
        Some([batch @ .., last]) => {
            require_equal(
                &mut pending,
                last,
                &k,
                "MatMulNBits's A must have K as its last dim",
                &[0],
            )?;
            Shape::Ranked(batch.iter().cloned().chain([n.clone()]).collect())
        }
        _ => Shape::Unranked,
    };
    if let Some(bias) = ctx.input(5) {
        require_rank(bias.shape, 1, "MatMulNBits's bias must be 1-D (N)", 5)?;
        if let Some([len]) = bias.shape.dims() {
            require_equal(
                &mut pending,
                len,
                &n,
                "MatMulNBits's bias must have N entries",
                &[5],
            )?;
        }
    }
    Ok(Inferred::single(Output::shape(shape).elem(a.elem)).with_conditions(pending.into_checks()))
}

/// Which quantized matmul a row names: the operand lists differ, so the bias slot does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Quantized {
    /// `DynamicQuantizeMatMul`: the bias is input 4.
    Dynamic,
    /// `MatMulIntegerToFloat`: the bias is input 6.
    IntegerToFloat,
}

/// `DynamicQuantizeMatMul(A, B, b_scale, b_zero_point, bias)` and
/// `MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias)`: numpy
/// matmul of A and B, typed like the scale; the bias is added to the product (a
/// unidirectional broadcast onto it).
pub(crate) fn dynamic_quantize(ctx: &Ctx<'_>, form: Quantized) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    let (scale_slot, bias_slot) = if form == Quantized::Dynamic {
        (2, 4)
    } else {
        (2, 6)
    };
    let elem = ctx.input(scale_slot).and_then(|s| s.elem).or(a.elem);
    let mut inferred = matmul_of(ctx.broadcasts(), a.shape, b.shape, [0, 1], elem)?;
    if let (Some(bias), Some(product)) = (ctx.input(bias_slot), inferred.outputs.first()) {
        if product.shape.rank().is_some() {
            let outcome = ctx
                .broadcasts()
                .unidirectional(&product.shape.clone(), bias.shape);
            inferred = inferred.with_check(Rule::Unidirectional, vec![1, bias_slot], outcome);
        }
    }
    Ok(inferred)
}

/// `QGemm(A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, y_scale, y_zero_point)`:
/// `(M, N)` from 2-D A and B (`transA`, `transB`); K must agree; C broadcasts unidirectionally
/// to `(M, N)`. Typed like `y_zero_point` when `y_scale` is given, else float.
pub(crate) fn qgemm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(3)?;
    require_rank(a.shape, 2, "QGemm's A must be 2-D", 0)?;
    require_rank(b.shape, 2, "QGemm's B must be 2-D", 3)?;
    let pick = |shape: &Shape, trans: bool| match shape.dims() {
        Some([r, c]) if trans => (c.clone(), r.clone()),
        Some([r, c]) => (r.clone(), c.clone()),
        _ => (Dim::Unknown, Dim::Unknown),
    };
    let (m, ka) = pick(a.shape, ctx.int("transA", 0)? != 0);
    let (kb, n) = pick(b.shape, ctx.int("transB", 0)? != 0);
    let mut pending = Pending::default();
    require_equal(
        &mut pending,
        &ka,
        &kb,
        "QGemm's A columns (K) must equal B's rows",
        &[0, 3],
    )?;
    let elem = if ctx.input(7).is_some() {
        ctx.input(8).and_then(|zp| zp.elem)
    } else {
        Some(crate::model::dtype::elem::FLOAT)
    };
    let shape = Shape::Ranked(vec![m, n]);
    let mut inferred = Inferred::single(Output::shape(shape.clone()).elem(elem));
    if let Some(c) = ctx.input(6) {
        let outcome = ctx.broadcasts().unidirectional(&shape, c.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 6], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{
        conditions, dims as s, int_attr, output_shapes, run_in, unmet, Fact,
    };
    use crate::ops::{Inferred, RuleError};
    use crate::proto::AttributeProto;

    fn ms(
        op: &str,
        inputs: &[Option<Fact>],
        attrs: Vec<AttributeProto>,
    ) -> Result<Inferred, RuleError> {
        run_in("com.microsoft", op, 1, inputs, attrs, 1)
    }

    #[test]
    fn fused_matmul_transposes_before_multiplying() {
        let r = ms(
            "FusedMatMul",
            &[s(&["b", "s", "32"]), s(&["b", "l", "32"])],
            vec![int_attr("transB", 1)],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, l]"]);
        let k = unmet(ms("FusedMatMul", &[s(&["2", "3"]), s(&["2", "4"])], vec![]));
        assert!(k.found.contains("K is 3 in A, 2 in B"), "{}", k.found);
        let batch = ms(
            "FusedMatMul",
            &[s(&["2", "3", "4"]), s(&["2", "4", "5"])],
            vec![int_attr("transBatchA", 1)],
        )
        .unwrap();
        assert_eq!(output_shapes(&batch), ["[...]"]);
    }

    #[test]
    fn matmul_n_bits_replaces_k_by_n() {
        let attrs = || {
            vec![
                int_attr("K", 32),
                int_attr("N", 16),
                int_attr("bits", 4),
                int_attr("block_size", 16),
            ]
        };
        let w = || s(&["16", "2", "8"]);
        let r = ms(
            "MatMulNBits",
            &[s(&["b", "s", "32"]), w(), s(&["16", "2"])],
            attrs(),
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 16]"]);
        let k = unmet(ms(
            "MatMulNBits",
            &[s(&["b", "s", "64"]), w(), s(&["16", "2"])],
            attrs(),
        ));
        assert_eq!(k.found, "64 vs 32");
        let sym = ms(
            "MatMulNBits",
            &[s(&["b", "s", "h"]), w(), s(&["16", "2"])],
            attrs(),
        )
        .unwrap();
        assert_eq!(conditions(&sym), ["h = 32"]);
        assert!(ms(
            "MatMulNBits",
            &[s(&["b", "32"]), w(), s(&["16", "2"])],
            vec![int_attr("K", 32)]
        )
        .is_err());
    }

    #[test]
    fn dynamic_quantize_matmul_checks_its_bias() {
        let r = ms(
            "DynamicQuantizeMatMul",
            &[
                s(&["b", "s", "32"]),
                s(&["32", "16"]),
                s(&["1"]),
                None,
                s(&["8"]),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 16]"]);
        assert!(r.checks.iter().any(|c| c.outcome.is_invalid()));
    }

    #[test]
    fn qgemm_is_m_by_n() {
        let r = ms(
            "QGemm",
            &[
                s(&["b", "16"]),
                s(&[]),
                s(&[]),
                s(&["10", "16"]),
                s(&[]),
                s(&[]),
                s(&["10"]),
            ],
            vec![int_attr("transB", 1)],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, 10]"]);
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        let k = unmet(ms(
            "QGemm",
            &[s(&["b", "16"]), s(&[]), s(&[]), s(&["10", "15"])],
            vec![int_attr("transB", 1)],
        ));
        assert_eq!(k.found, "16 vs 15");
    }
}
