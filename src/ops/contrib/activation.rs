//! Element-wise contrib ops: `Gelu`, `QuickGelu` and the one-input `QLinear*` activations keep
//! X's shape; `BiasGelu(A, B)` and `FastGelu(X, bias)` add a bias over the last axis;
//! `BiasAdd(X, bias, skip)` adds a bias and a residual to `(N, S, C)`; `BiasSplitGelu(X, bias)`
//! halves the last axis (ContribOperators.md).

use super::super::constraint::{Constraint, Pending};
use super::super::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// Y has X's shape and element type.
pub(crate) fn same_as_x(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(x.elem),
    ))
}

/// Whether an activation's bias input must be given, as its registry row says.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bias {
    /// `BiasGelu`.
    Required,
    /// `FastGelu`.
    Optional,
}

/// `BiasGelu(A, B)`, `FastGelu(X, bias)`: Y is X's shape; the bias (required for `BiasGelu`,
/// optional for `FastGelu`) is added to X, a unidirectional broadcast onto it.
pub(crate) fn biased(ctx: &Ctx<'_>, bias: Bias) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let bias = if bias == Bias::Required {
        Some(ctx.required(1)?)
    } else {
        ctx.input(1)
    };
    let mut inferred = Inferred::single(Output::shape(x.shape.clone()).elem(x.elem));
    if let Some(bias) = bias {
        let outcome = ctx.broadcasts().unidirectional(x.shape, bias.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 1], outcome);
    }
    Ok(inferred)
}

/// `BiasAdd(X, bias, skip)`: X is `(N, S, C)`, bias `(C)`, skip `(N, S, C)`; Y is X's shape.
/// Both are added to X: unidirectional broadcasts onto it.
pub(crate) fn bias_add(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let bias = ctx.required(1)?;
    let skip = ctx.required(2)?;
    require_rank(x.shape, 3, "BiasAdd's X must be 3-D (N, S, C)", 0)?;
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_check(
                Rule::Unidirectional,
                vec![0, 1],
                ctx.broadcasts().unidirectional(x.shape, bias.shape),
            )
            .with_check(
                Rule::Unidirectional,
                vec![0, 2],
                ctx.broadcasts().unidirectional(x.shape, skip.shape),
            ),
    )
}

/// `BiasSplitGelu(X, bias)`: X is `(N, S, D)` and bias `(D)`; Y is `(N, S, D/2)`, D even.
pub(crate) fn bias_split_gelu(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let bias = ctx.required(1)?;
    require_rank(x.shape, 3, "BiasSplitGelu's X must be 3-D (N, S, D)", 0)?;
    let shape = match x.shape.dims() {
        Some([n, s, d]) => {
            if d.as_known().is_some_and(|d| d % 2 != 0) {
                let found = format!("D is {d}");
                return Err(Constraint::new(
                    "BiasSplitGelu's hidden size D must be even",
                    found,
                    &[0],
                )
                .unmet());
            }
            Shape::Ranked(vec![n.clone(), s.clone(), d.div_exact(&Dim::known(2))])
        }
        _ => Shape::Unranked,
    };
    let outcome = ctx.broadcasts().unidirectional(x.shape, bias.shape);
    Ok(
        Inferred::single(Output::shape(shape).elem(x.elem)).with_check(
            Rule::Unidirectional,
            vec![0, 1],
            outcome,
        ),
    )
}

/// A known rank other than `rank` breaks the op's doc (E4); an unknown rank passes.
pub(super) fn require_rank(
    shape: &Shape,
    rank: usize,
    requires: &str,
    slot: usize,
) -> Result<(), RuleError> {
    match shape.rank() {
        Some(r) if r != rank => {
            Err(Constraint::new(requires, format!("its rank is {r}"), &[slot]).unmet())
        }
        _ => Ok(()),
    }
}

/// Requires `a == b` as an operator constraint stated by `requires`, naming what was found.
pub(super) fn require_equal(
    pending: &mut Pending,
    a: &Dim,
    b: &Dim,
    requires: &str,
    slots: &[usize],
) -> Result<(), RuleError> {
    pending.equal(a, b, || {
        Constraint::new(requires, format!("{a} vs {b}"), slots)
    })
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, output_shapes, run_in, unmet};

    fn ms(
        op: &str,
        inputs: &[Option<crate::ops::testing::Fact>],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        run_in("com.microsoft", op, 1, inputs, vec![], 1)
    }

    #[test]
    fn bias_gelu_checks_the_bias_against_the_last_axis() {
        let ok = ms("BiasGelu", &[s(&["b", "s", "128"]), s(&["128"])]).unwrap();
        assert_eq!(output_shapes(&ok), ["[b, s, 128]"]);
        assert!(ok.checks[0].outcome.is_valid());
        let bad = ms("FastGelu", &[s(&["b", "s", "128"]), s(&["64"])]).unwrap();
        assert_eq!(
            bad.checks[0].outcome.violation().unwrap().to_string(),
            "axis 2 is 128 vs 64"
        );
        assert!(ms("FastGelu", &[s(&["b", "s", "128"])])
            .unwrap()
            .checks
            .is_empty());
    }

    #[test]
    fn bias_add_checks_bias_and_skip() {
        let r = ms(
            "BiasAdd",
            &[s(&["n", "s", "8"]), s(&["8"]), s(&["n", "5", "8"])],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[n, s, 8]"]);
        assert!(r.checks[0].outcome.is_valid());
        assert_eq!(
            r.checks[1].outcome.condition().unwrap().to_string(),
            "s = 5"
        );
        assert!(ms("BiasAdd", &[s(&["n", "8"]), s(&["8"]), s(&["n", "8"])]).is_err());
    }

    #[test]
    fn bias_split_gelu_halves_the_hidden_size() {
        let r = ms("BiasSplitGelu", &[s(&["n", "s", "640"]), s(&["640"])]).unwrap();
        assert_eq!(output_shapes(&r), ["[n, s, 320]"]);
        let odd = unmet(ms("BiasSplitGelu", &[s(&["n", "s", "5"]), s(&["5"])]));
        assert_eq!(odd.found, "D is 5");
    }
}
