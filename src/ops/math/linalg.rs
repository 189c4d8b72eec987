//! Linear algebra: `MatMul` and its integer and quantized forms (numpy `matmul`: batch dims
//! broadcast multidirectionally, the contracted dims must agree), `Gemm` (C broadcast
//! unidirectionally to `(M, N)`, or the opset < 7 `broadcast` attribute) and `Einsum`
//! (`einsum.rs`).

use crate::model::dtype::elem;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::{Outcome, Outcomes, Rule};
use crate::shape::{Dim, Shape};

/// `MatMul(A, B)`: the output has the input's element type.
pub(crate) fn matmul(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    matmul_of(ctx.broadcasts(), a.shape, b.shape, [0, 1], a.elem)
}

/// `MatMulInteger(A, B, a_zero_point, b_zero_point)`: int32 output.
pub(crate) fn matmul_integer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    matmul_of(
        ctx.broadcasts(),
        ctx.shape(0)?,
        ctx.shape(1)?,
        [0, 1],
        Some(elem::INT32),
    )
}

/// `QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)`: the product of inputs 0
/// and 3, typed like `y_zero_point`.
pub(crate) fn qlinear_matmul(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let elem = ctx.input(7).and_then(|zp| zp.elem);
    matmul_of(ctx.broadcasts(), ctx.shape(0)?, ctx.shape(3)?, [0, 3], elem)
}

/// numpy `matmul` shapes (ONNX MatMul-13 doc): a 1-D A is promoted to `[1, K]` and a 1-D B to
/// `[K, 1]`, the added dim removed from the result; the batch prefixes broadcast
/// multidirectionally (recorded as a check over the batch dims only, kept in `broadcasts`); `K`
/// must agree.
pub(crate) fn matmul_of(
    broadcasts: &Outcomes,
    a: &Shape,
    b: &Shape,
    slots: [usize; 2],
    elem: Option<i32>,
) -> Result<Inferred, RuleError> {
    let (Some(a), Some(b)) = (a.dims(), b.dims()) else {
        // An unranked operand may carry any number of batch dims.
        return Ok(Inferred::single(Output::shape(Shape::Unranked).elem(elem)));
    };
    if a.is_empty() || b.is_empty() {
        let found = format!("A has rank {}, B has rank {}", a.len(), b.len());
        return Err(
            Constraint::new("MatMul operands must have rank 1 or more", found, &slots).unmet(),
        );
    }
    let a_vector = a.len() == 1;
    let b_vector = b.len() == 1;
    let (a_batch, m, ka) = split_matrix(a, a_vector, false);
    let (b_batch, kb, n) = split_matrix(b, b_vector, true);
    let mut pending = Pending::default();
    pending.equal(&ka, &kb, || {
        Constraint::new(
            "the last dim of A (K) must equal the second-to-last dim of B (numpy matmul)",
            format!("K is {ka} in A, {kb} in B"),
            &slots,
        )
        .fix("transpose or reshape one operand so that A's columns match B's rows, or re-export the weight with the right K")
    })?;
    let outcome = broadcasts.multidirectional(&[
        &Shape::Ranked(a_batch.to_vec()),
        &Shape::Ranked(b_batch.to_vec()),
    ]);
    let mut dims = outcome
        .shape
        .dims()
        .map(<[Dim]>::to_vec)
        .unwrap_or_default();
    if !a_vector {
        dims.push(m);
    }
    if !b_vector {
        dims.push(n);
    }
    let output = Output::shape(Shape::Ranked(dims)).elem(elem);
    Ok(Inferred::single(output)
        .with_check(Rule::Multidirectional, slots.to_vec(), outcome)
        .with_conditions(pending.into_checks()))
}

/// Splits a matrix operand into (batch dims, rows, cols); a vector is promoted to one row
/// (`column == false`) or one column.
fn split_matrix(dims: &[Dim], vector: bool, column: bool) -> (&[Dim], Dim, Dim) {
    let one = Dim::known(1);
    match (vector, dims) {
        (true, [k]) if column => (&[], k.clone(), one),
        (true, [k]) => (&[], one, k.clone()),
        (_, [batch @ .., rows, cols]) => (batch, rows.clone(), cols.clone()),
        _ => (&[], Dim::Unknown, Dim::Unknown),
    }
}

/// `Gemm(A, B, C)`: `Y = alpha * A' * B' + beta * C` of shape `(M, N)`. From opset 7 C is
/// unidirectionally broadcast to `(M, N)` (Gemm-7 doc); before it C must be `(M, N)` unless
/// `broadcast=1` (Gemm-6 doc). C is optional from opset 11.
fn gemm(ctx: &Ctx<'_>, version: u16) -> Result<Inferred, RuleError> {
    let lhs = ctx.required(0)?;
    let rhs = ctx.required(1)?;
    let bias = if version < 11 {
        Some(ctx.required(2)?)
    } else {
        ctx.input(2)
    };
    let (trans_a, trans_b) = (ctx.int("transA", 0)? != 0, ctx.int("transB", 0)? != 0);
    let (m, ka) = matrix_dims(lhs.shape, trans_a, 0)?;
    let (kb, n) = matrix_dims(rhs.shape, trans_b, 1)?;
    let mut pending = Pending::default();
    pending.equal(&ka, &kb, || {
        let side = |t: bool, x: &str| {
            if t {
                format!("{x}'s rows (transposed)")
            } else {
                format!("{x}'s columns")
            }
        };
        let b_side = if trans_b {
            "B's columns (transposed)"
        } else {
            "B's rows"
        };
        Constraint::new(
            format!(
                "{} (K) must equal {b_side} (Gemm: A' is (M, K), B' is (K, N))",
                side(trans_a, "A")
            ),
            format!("K is {ka} in A, {kb} in B"),
            &[0, 1],
        )
        .fix(if trans_b {
            "B is read transposed (transB=1): check transB, or re-export B as (N, K)"
        } else {
            "check transA/transB, or re-export B as (K, N)"
        })
    })?;
    let mn = Shape::Ranked(vec![m, n]);
    let output = Output::shape(mn.clone()).elem(lhs.elem);
    let Some(bias) = bias else {
        return Ok(Inferred::single(output).with_conditions(pending.into_checks()));
    };
    let (rule, outcome): (Rule, Outcome) = if version < 7 && ctx.int("broadcast", 0)? == 0 {
        (
            Rule::Legacy,
            ctx.broadcasts().legacy(&mn, bias.shape, false, None),
        )
    } else {
        (
            Rule::Unidirectional,
            ctx.broadcasts().unidirectional(&mn, bias.shape),
        )
    };
    // The (M, N) side has no input of its own; A, which gives M, stands for it.
    Ok(Inferred::single(output)
        .with_check(rule, vec![0, 2], outcome)
        .with_conditions(pending.into_checks()))
}

/// `Gemm` before opset 7: C is required, and must be `(M, N)` unless `broadcast=1`.
pub(crate) fn gemm_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    gemm(ctx, 1)
}

/// `Gemm` 7 and 9: C is required and broadcasts unidirectionally.
pub(crate) fn gemm_7(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    gemm(ctx, 7)
}

/// `Gemm` from opset 11: C is optional.
pub(crate) fn gemm_11(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    gemm(ctx, 11)
}

/// The (rows, cols) of a 2-D Gemm operand after the optional transpose.
pub(crate) fn matrix_dims(
    shape: &Shape,
    transposed: bool,
    slot: usize,
) -> Result<(Dim, Dim), RuleError> {
    match shape.dims() {
        None => Ok((Dim::Unknown, Dim::Unknown)),
        Some([r, c]) if transposed => Ok((c.clone(), r.clone())),
        Some([r, c]) => Ok((r.clone(), c.clone())),
        Some(d) => Err(Constraint::new(
            "Gemm's A and B must be 2-D",
            format!("{} has rank {}", if slot == 0 { "A" } else { "B" }, d.len()),
            &[slot],
        )
        .fix("Flatten or Reshape the operand to 2-D, or use MatMul for batched products")
        .unmet()),
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, int_attr, run};
    use crate::shape::{Dim, Shape};

    /// A shape from dims written as numbers, symbols or `?`.
    fn s(dims: &[&str]) -> Shape {
        Shape::Ranked(
            dims.iter()
                .map(|d| match d.parse::<i64>() {
                    Ok(v) => Dim::known(v),
                    Err(_) if *d == "?" => Dim::Unknown,
                    Err(_) => Dim::sym(d),
                })
                .collect(),
        )
    }

    fn out(inferred: &crate::ops::Inferred) -> String {
        inferred.outputs[0].shape.to_string()
    }

    #[test]
    fn matmul_batch_dims_broadcast() {
        let r = run(
            "MatMul",
            13,
            &[
                testing::shape(s(&["batch", "1", "seq", "64"])),
                testing::shape(s(&["12", "64", "seq"])),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(out(&r), "[batch, 12, seq, seq]");
        assert!(r.checks[0].outcome.is_valid());
        assert_eq!(r.checks[0].slots, vec![0, 1]);
    }

    #[test]
    fn matmul_batch_2_vs_5_is_invalid() {
        let r = run(
            "MatMul",
            13,
            &[
                testing::shape(s(&["2", "3", "4"])),
                testing::shape(s(&["5", "4", "6"])),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(out(&r), "[?, 3, 6]");
        let violation = r.checks[0].outcome.violation().unwrap();
        assert_eq!(violation.to_string(), "axis 0 is 2 vs 5");
    }

    #[test]
    fn matmul_vectors_drop_promoted_dims() {
        let v = || testing::shape(s(&["k"]));
        let m = || testing::shape(s(&["b", "k", "n"]));
        let r = run("MatMul", 13, &[v(), m()], vec![]).unwrap();
        assert_eq!(out(&r), "[b, n]");
        let r = run("MatMul", 13, &[testing::shape(s(&["m", "k"])), v()], vec![]).unwrap();
        assert_eq!(out(&r), "[m]");
        let r = run("MatMul", 13, &[v(), v()], vec![]).unwrap();
        assert_eq!(out(&r), "[]");
    }

    #[test]
    fn matmul_contracted_mismatch_is_an_error() {
        let r = run(
            "MatMul",
            13,
            &[
                testing::shape(s(&["2", "3"])),
                testing::shape(s(&["4", "5"])),
            ],
            vec![],
        );
        assert!(r.is_err());
        let r = run(
            "MatMul",
            13,
            &[
                testing::shape(s(&["2", "k"])),
                testing::shape(s(&["q", "5"])),
            ],
            vec![],
        );
        assert_eq!(out(&r.unwrap()), "[2, 5]");
    }

    #[test]
    fn matmul_unranked_operand_gives_unranked() {
        let r = run(
            "MatMul",
            13,
            &[
                testing::shape(Shape::Unranked),
                testing::shape(s(&["4", "5"])),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(r.outputs[0].shape, Shape::Unranked);
    }

    #[test]
    fn qlinear_matmul_uses_inputs_0_and_3() {
        let scalar = || testing::shape(s(&[]));
        let r = run(
            "QLinearMatMul",
            10,
            &[
                testing::shape(s(&["n", "8"])),
                scalar(),
                scalar(),
                testing::shape(s(&["8", "3"])),
                scalar(),
                scalar(),
                scalar(),
                scalar(),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(out(&r), "[n, 3]");
        assert_eq!(r.checks[0].slots, vec![0, 3]);
    }

    #[test]
    fn gemm_trans_b_with_row_bias() {
        let r = run(
            "Gemm",
            13,
            &[
                testing::shape(s(&["batch", "256"])),
                testing::shape(s(&["10", "256"])),
                testing::shape(s(&["10"])),
            ],
            vec![int_attr("transB", 1)],
        )
        .unwrap();
        assert_eq!(out(&r), "[batch, 10]");
        assert!(r.checks[0].outcome.is_valid());
        assert_eq!(r.checks[0].slots, vec![0, 2]);
    }

    #[test]
    fn gemm_c_of_wrong_shape_is_invalid() {
        let r = run(
            "Gemm",
            13,
            &[
                testing::shape(s(&["4", "8"])),
                testing::shape(s(&["8", "10"])),
                testing::shape(s(&["5"])),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(out(&r), "[4, 10]");
        assert!(r.checks[0].outcome.is_invalid());
    }

    #[test]
    fn gemm_trans_a_and_missing_c() {
        let r = run(
            "Gemm",
            13,
            &[
                testing::shape(s(&["8", "m"])),
                testing::shape(s(&["8", "n"])),
            ],
            vec![int_attr("transA", 1)],
        )
        .unwrap();
        assert_eq!(out(&r), "[m, n]");
        assert!(r.checks.is_empty());
    }

    #[test]
    fn gemm_opset_6_needs_exact_c_without_broadcast() {
        let inputs = [
            testing::shape(s(&["4", "8"])),
            testing::shape(s(&["8", "10"])),
            testing::shape(s(&["10"])),
        ];
        let r = run("Gemm", 6, &inputs, vec![]).unwrap();
        assert!(r.checks[0].outcome.is_invalid());
        let r = run("Gemm", 6, &inputs, vec![int_attr("broadcast", 1)]).unwrap();
        assert!(r.checks[0].outcome.is_valid());
    }

    #[test]
    fn gemm_rejects_rank_3_and_k_mismatch() {
        let r = run(
            "Gemm",
            13,
            &[
                testing::shape(s(&["1", "4", "8"])),
                testing::shape(s(&["8", "10"])),
            ],
            vec![],
        );
        assert!(r.is_err());
        let r = run(
            "Gemm",
            13,
            &[
                testing::shape(s(&["4", "7"])),
                testing::shape(s(&["8", "10"])),
            ],
            vec![],
        );
        assert!(r.is_err());
    }
}
