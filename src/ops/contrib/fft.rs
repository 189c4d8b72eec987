//! onnxruntime's FFT and complex-product contrib ops (com.microsoft; CUDA kernels only, and no
//! schema inference: these follow the kernels' `FFTBase::Prepare` and the element-wise complex
//! kernels). `Rfft` keeps X's dims but the last, `n`, which becomes `n/2 + 1`, and appends 2
//! (real and imaginary parts); `Irfft` takes that layout (the last dim holds the two parts),
//! drops it, and makes the last signal dim `m` into `2m - 1`, as its kernel computes it;
//! `ComplexMul` and `ComplexMulConj` broadcast A and B multidirectionally.

use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// The signal's rank from `signal_ndim` (`default` when absent; E4 unless positive).
fn signal_ndim(ctx: &Ctx<'_>, default: Option<i64>) -> Result<usize, RuleError> {
    let op = ctx.node().op_type().as_str();
    let n = match default {
        Some(d) => ctx.int("signal_ndim", d)?,
        None => ctx
            .attrs()
            .int("signal_ndim")?
            .ok_or_else(|| crate::ops::spec::missing_attr(op, "signal_ndim"))?,
    };
    usize::try_from(n).ok().filter(|&n| n >= 1).ok_or_else(|| {
        let requires = format!("{op}'s signal_ndim must be positive");
        Constraint::new(requires, format!("signal_ndim is {n}"), &[]).unmet()
    })
}

/// E4 when X's known rank is below `least`.
fn rank_at_least(ctx: &Ctx<'_>, dims: &[Dim], least: usize) -> Result<(), RuleError> {
    if dims.len() >= least {
        return Ok(());
    }
    let op = ctx.node().op_type().as_str();
    let requires = format!("{op}'s X must have at least {least} dims (signal_ndim and the parts)");
    Err(Constraint::new(requires, format!("its rank is {}", dims.len()), &[0]).unmet())
}

/// `Rfft(X)`: `[..., n]` gives `[..., n/2 + 1, 2]` (`onesided`, the default; `[..., n, 2]`
/// otherwise).
pub(crate) fn rfft(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let ndim = signal_ndim(ctx, Some(1))?;
    let onesided = ctx.int("onesided", 1)? != 0;
    let shape = match x.shape.dims() {
        Some(dims) => {
            rank_at_least(ctx, dims, ndim)?;
            let Some((last, rest)) = dims.split_last() else {
                return Ok(Inferred::single(
                    Output::shape(Shape::Unranked).elem(x.elem),
                ));
            };
            let n = if onesided {
                last.floor_div(&Dim::known(2)).add(&Dim::known(1))
            } else {
                last.clone()
            };
            Shape::Ranked(rest.iter().cloned().chain([n, Dim::known(2)]).collect())
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `Irfft(X)`: `[..., m, 2]` gives `[..., 2m - 1]` (`onesided`, the default; `[..., m]`
/// otherwise).
pub(crate) fn irfft(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let ndim = signal_ndim(ctx, None)?;
    let onesided = ctx.int("onesided", 1)? != 0;
    let shape = match x.shape.dims() {
        Some(dims) => {
            rank_at_least(ctx, dims, ndim + 1)?;
            let Some([m, _parts]) = dims.get(dims.len().saturating_sub(2)..) else {
                return Ok(Inferred::single(
                    Output::shape(Shape::Unranked).elem(x.elem),
                ));
            };
            let n = if onesided {
                m.mul(&Dim::known(2)).sub(&Dim::known(1))
            } else {
                m.clone()
            };
            let rest = dims.get(..dims.len() - 2).unwrap_or_default();
            Shape::Ranked(rest.iter().cloned().chain([n]).collect())
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `ComplexMul(A, B)`, `ComplexMulConj(A, B)`: the multidirectional broadcast of A and B.
pub(crate) fn complex_mul(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    let outcome = ctx.broadcasts().multidirectional(&[a.shape, b.shape]);
    Ok(
        Inferred::single(Output::shape(outcome.shape.clone()).elem(a.elem)).with_check(
            Rule::Multidirectional,
            vec![0, 1],
            outcome,
        ),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft};

    #[test]
    fn rfft_halves_the_last_dim_and_irfft_restores_it() {
        assert_eq!(
            shape(&run_microsoft("Rfft", &[dims(&["b", "16"])], vec![], 1)),
            "[b, 9, 2]"
        );
        let sym = run_microsoft("Rfft", &[dims(&["b", "n"])], vec![], 1);
        assert_eq!(shape(&sym), "[b, n/2+1, 2]");
        let two = vec![int_attr("signal_ndim", 2)];
        assert!(unmet(&run_microsoft(
            "Rfft",
            &[dims(&["16"])],
            two.clone(),
            1
        )));
        let back = run_microsoft(
            "Irfft",
            &[dims(&["b", "9", "2"])],
            vec![int_attr("signal_ndim", 1)],
            1,
        );
        assert_eq!(shape(&back), "[b, 17]");
        assert!(unmet(&run_microsoft("Irfft", &[dims(&["9", "2"])], two, 1)));
        assert!(
            unmet(&run_microsoft("Irfft", &[dims(&["9", "2"])], vec![], 1)),
            "signal_ndim is required"
        );
    }

    #[test]
    fn complex_products_broadcast() {
        let r = run_microsoft(
            "ComplexMul",
            &[dims(&["b", "1", "8", "2"]), dims(&["4", "8", "2"])],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[b, 4, 8, 2]");
        let bad = run_microsoft(
            "ComplexMulConj",
            &[dims(&["3", "2"]), dims(&["4", "2"])],
            vec![],
            1,
        )
        .unwrap();
        assert!(bad.checks[0].outcome.is_invalid());
    }
}
