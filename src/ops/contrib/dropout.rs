//! The training-time dropout fusions (com.microsoft; CUDA kernels only, so these follow the
//! schemas in `contrib_defs.cc`): `BiasDropout` (`data + bias` dropped out, plus a residual; the
//! mask is bool of data's shape), `BitmaskDropout` and `BitmaskBiasDropout` (the mask is
//! bit-packed: one uint32 per 32 elements of data, 1-D), and `IsAllFinite` (a bool scalar over
//! any number of inputs). The bias ("the same shape as the last dim of data OR the same shape
//! with data") and the residual ("the same shape as data") are added to data: unidirectional
//! broadcasts onto it, looser than the doc, so every mismatch reported is a real one.

use crate::model::dtype::elem;
use crate::ops::axes::product;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// Which dropout a row names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Dropout {
    /// `BiasDropout(data, bias, residual, ratio, training_mode)`: a bool mask.
    Bias,
    /// `BitmaskDropout(data, ratio, training_mode)`: a bit-packed mask.
    Bitmask,
    /// `BitmaskBiasDropout(data, bias, residual, ratio, training_mode)`: a bit-packed mask.
    BitmaskBias,
}

/// The dropouts: `output` has data's shape, `mask` data's shape (bool) or `ceil(size / 32)`
/// uint32 words.
pub(crate) fn dropout(ctx: &Ctx<'_>, form: Dropout) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let mask = match form {
        Dropout::Bias => Output::shape(data.shape.clone()).elem(Some(elem::BOOL)),
        Dropout::Bitmask | Dropout::BitmaskBias => {
            let words = match data.shape.dims() {
                Some(d) => {
                    let size = product(d);
                    Shape::Ranked(vec![size.add(&Dim::known(31)).floor_div(&Dim::known(32))])
                }
                None => Shape::Ranked(vec![Dim::Unknown]),
            };
            Output::shape(words).elem(Some(elem::UINT32))
        }
    };
    let mut inferred = Inferred::many(vec![
        Output::shape(data.shape.clone()).elem(data.elem),
        mask,
    ]);
    if form != Dropout::Bitmask {
        ctx.required(1)?;
        if data.shape.rank().is_some() {
            for slot in [1, 2] {
                if let Some(added) = ctx.input(slot) {
                    let outcome = ctx.broadcasts().unidirectional(data.shape, added.shape);
                    inferred = inferred.with_check(Rule::Unidirectional, vec![0, slot], outcome);
                }
            }
        }
    }
    Ok(inferred)
}

/// `IsAllFinite(input...)`: a bool scalar; `isinf_only` and `isnan_only` together fail
/// onnxruntime's inference.
pub(crate) fn is_all_finite(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    if ctx.int("isinf_only", 0)? != 0 && ctx.int("isnan_only", 0)? != 0 {
        let requires = "IsAllFinite's isinf_only and isnan_only cannot both be set";
        return Err(Constraint::new(requires, "both are 1", &[]).unmet());
    }
    Ok(Inferred::single(
        Output::shape(Shape::scalar()).elem(Some(elem::BOOL)),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft};

    #[test]
    fn bias_dropout_checks_bias_and_residual() {
        let r = run_microsoft(
            "BiasDropout",
            &[dims(&["b", "s", "8"]), dims(&["8"]), dims(&["b", "s", "8"])],
            vec![],
            2,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 8]", "[b, s, 8]"]);
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        let bad = run_microsoft(
            "BiasDropout",
            &[dims(&["b", "s", "8"]), dims(&["4"])],
            vec![],
            2,
        )
        .unwrap();
        assert!(bad.checks[0].outcome.is_invalid());
    }

    #[test]
    fn bitmask_masks_pack_32_elements_a_word() {
        let r = run_microsoft("BitmaskDropout", &[dims(&["10", "7"])], vec![], 2).unwrap();
        assert_eq!(output_shapes(&r), ["[10, 7]", "[3]"]);
        let r = run_microsoft(
            "BitmaskBiasDropout",
            &[dims(&["b", "64"]), dims(&["64"])],
            vec![],
            2,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, 64]", "[2*b]"]);
    }

    #[test]
    fn is_all_finite_is_a_scalar() {
        let r = run_microsoft(
            "IsAllFinite",
            &[dims(&["b", "64"]), dims(&["3"])],
            vec![],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[]"]);
        let both = vec![int_attr("isinf_only", 1), int_attr("isnan_only", 1)];
        assert!(unmet(&run_microsoft(
            "IsAllFinite",
            &[dims(&["3"])],
            both,
            1
        )));
    }
}
