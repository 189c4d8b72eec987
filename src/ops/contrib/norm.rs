//! Contrib normalizations: `SkipLayerNormalization` and `SkipSimplifiedLayerNormalization`
//! (input + skip (+ bias), normalized over the hidden axis) and the default-domain
//! `SimplifiedLayerNormalization` (RMS norm from `axis` on). ContribOperators.md.
//! `EmbedLayerNormalization` is in `embed.rs`.

use super::super::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// Which skip layer normalization a row names: the simplified one has no beta.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Skip {
    /// `SkipLayerNormalization`.
    Layer,
    /// `SkipSimplifiedLayerNormalization`.
    Simplified,
}

/// `Skip[Simplified]LayerNormalization(input, skip, gamma, [beta,] bias)`: output and
/// `input_skip_bias_sum` (the last output) have input's shape. skip is
/// `(batch, seq, hidden)`, `(1, seq, hidden)` or `(seq, hidden)`; gamma, beta and bias are
/// `(hidden)`: each is added to (or scales) input, recorded as a unidirectional broadcast onto
/// it. `mean` and `inv_std_var` are left unknown: the doc gives no shape.
pub(crate) fn skip(ctx: &Ctx<'_>, form: Skip) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    ctx.required(1)?;
    ctx.required(2)?;
    let simplified = form == Skip::Simplified;
    // SkipSimplified has no beta: its bias is input 3, not 4.
    let params: &[usize] = if simplified {
        &[1, 2, 3]
    } else {
        &[1, 2, 3, 4]
    };
    let out = || Output::shape(input.shape.clone()).elem(input.elem);
    let unknown = || Output::shape(Shape::Unranked);
    let mut inferred = Inferred::many(vec![out(), unknown(), unknown(), out()]);
    for &slot in params {
        if let Some(param) = ctx.input(slot) {
            let outcome = ctx.broadcasts().unidirectional(input.shape, param.shape);
            inferred = inferred.with_check(Rule::Unidirectional, vec![0, slot], outcome);
        }
    }
    Ok(inferred)
}

/// `SimplifiedLayerNormalization(X, scale)` (onnxruntime's default-domain schema, version 1):
/// Y is X's shape; scale broadcasts unidirectionally to X; `inv_std_var` is X's shape with
/// the axes from `axis` on set to 1, as `LayerNormalization`'s statistics.
pub(crate) fn simplified(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let scale = ctx.required(1)?;
    let axis = ctx.int("axis", -1)?;
    let stats = match x.shape.dims() {
        Some(dims) => {
            let from = super::super::axes::require(axis, dims.len(), "axis")?;
            let ones = std::iter::repeat_n(Dim::known(1), dims.len() - from);
            Shape::Ranked(dims.iter().take(from).cloned().chain(ones).collect())
        }
        None => Shape::Unranked,
    };
    let stash = i32::try_from(ctx.int("stash_type", 1)?).ok();
    Ok(Inferred::many(vec![
        Output::shape(x.shape.clone()).elem(x.elem),
        Output::shape(stats).elem(stash),
    ])
    .with_check(
        Rule::Unidirectional,
        vec![0, 1],
        ctx.broadcasts().unidirectional(x.shape, scale.shape),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, output_shapes, run_in, Fact};
    use crate::ops::{Inferred, RuleError};

    fn ms(op: &str, inputs: &[Option<Fact>], outputs: usize) -> Result<Inferred, RuleError> {
        run_in("com.microsoft", op, 1, inputs, vec![], outputs)
    }

    #[test]
    fn skip_layer_norm_checks_skip_gamma_beta_bias() {
        let x = || s(&["b", "s", "32"]);
        let h = || s(&["32"]);
        let r = ms(
            "SkipLayerNormalization",
            &[x(), s(&["s", "32"]), h(), h(), h()],
            4,
        )
        .unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[b, s, 32]", "[...]", "[...]", "[b, s, 32]"]
        );
        assert_eq!(r.checks.len(), 4);
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        let bad = ms(
            "SkipLayerNormalization",
            &[x(), x(), h(), None, s(&["16"])],
            4,
        )
        .unwrap();
        let violation = bad
            .checks
            .iter()
            .find_map(|c| c.outcome.violation())
            .unwrap();
        assert_eq!(violation.to_string(), "axis 2 is 32 vs 16");
        assert_eq!(bad.checks[2].slots, vec![0, 4]);
    }

    #[test]
    fn skip_simplified_has_no_beta() {
        let r = ms(
            "SkipSimplifiedLayerNormalization",
            &[
                s(&["b", "s", "32"]),
                s(&["b", "s", "32"]),
                s(&["32"]),
                s(&["8"]),
            ],
            4,
        )
        .unwrap();
        assert_eq!(r.checks[2].slots, vec![0, 3]);
        assert!(r.checks[2].outcome.is_invalid());
    }

    #[test]
    fn simplified_layer_norm_is_a_default_domain_op() {
        let r = run_in(
            "",
            "SimplifiedLayerNormalization",
            17,
            &[s(&["b", "s", "32"]), s(&["32"])],
            vec![],
            2,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 32]", "[b, s, 1]"]);
        assert!(r.checks[0].outcome.is_valid());
    }
}
