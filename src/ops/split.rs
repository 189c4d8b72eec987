//! `Split`: part sizes from the `split` input (opset 1 and 13+) or attribute (opsets 2-12), else
//! equal parts (`num_outputs` from opset 18, else the number of outputs). Equal parts of a
//! symbolic dim need an exact division before opset 18; from 18 the parts are `ceil(dim / n)`
//! and the last one takes the rest, as the ONNX reference implementation does.

use super::axes;
use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::{Dim, Shape};

/// The rule for `op_type`, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Split" => split,
        _ => return None,
    })
}

/// Explicit sizes: attribute in opsets 2-12, input otherwise. `Err(())` stands for a `split`
/// input whose values are unknown.
fn explicit_sizes(ctx: &Ctx<'_>) -> Result<Result<Option<Vec<Dim>>, ()>, RuleError> {
    if (2..13).contains(&ctx.opset()) {
        let list = ctx.attrs().ints("split")?;
        return Ok(Ok(list.map(|l| l.iter().copied().map(Dim::known).collect())));
    }
    Ok(match ctx.input(1) {
        None => Ok(None),
        Some(input) => input.value.map(|v| Some(v.data.clone())).ok_or(()),
    })
}

/// Equal parts of `whole` into `parts` pieces.
fn equal_parts(whole: &Dim, parts: usize, ceil_chunks: bool) -> Result<Vec<Dim>, RuleError> {
    let n = axes::count(parts);
    let exact = whole.div_exact(&n);
    if exact != Dim::Unknown || !ceil_chunks {
        return Ok(vec![exact; parts]);
    }
    // Opset 18: chunks of ceil(whole / n), the last one smaller. Right for every size the
    // model accepts: a negative last chunk is a run-time error.
    let chunk = whole.add(&n.sub(&Dim::known(1))).floor_div(&n);
    let before_last = chunk.mul(&axes::count(parts.saturating_sub(1)));
    let last = whole.sub(&before_last);
    if last.as_known().is_some_and(|v| v < 0) {
        return Err(RuleError::Invalid(format!(
            "Split of {whole} into {parts} parts leaves a negative last part"
        )));
    }
    let mut sizes = vec![chunk; parts.saturating_sub(1)];
    sizes.push(last);
    Ok(sizes)
}

/// `Split(input, split, axis, num_outputs)`.
fn split(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let outputs = ctx.node().outputs.len();
    let part = |dims: Vec<Dim>| Output::shape(Shape::Ranked(dims)).elem(data.elem);
    let Some(dims) = data.shape.dims() else {
        return Ok(Inferred::many(vec![
            Output::shape(Shape::Unranked)
                .elem(data.elem);
            outputs
        ]));
    };
    let axis = axes::require(ctx.int("axis", 0)?, dims.len(), "Split axis")?;
    let whole = dims.get(axis).cloned().unwrap_or(Dim::Unknown);
    let num_outputs = if ctx.opset() >= 18 {
        ctx.attrs().int("num_outputs")?
    } else {
        None
    };
    let sizes = match explicit_sizes(ctx)? {
        Ok(Some(sizes)) => {
            if sizes.len() != outputs {
                return Err(RuleError::Invalid(format!(
                    "Split has {} sizes for {outputs} outputs",
                    sizes.len()
                )));
            }
            let total = sizes.iter().fold(Dim::known(0), |acc, s| acc.add(s));
            if total.eq_dim(&whole).is_no() {
                return Err(RuleError::Invalid(format!(
                    "Split sizes add up to {total}, not {whole}"
                )));
            }
            sizes
        }
        Ok(None) => {
            let parts = match num_outputs {
                Some(n) => usize::try_from(n)
                    .ok()
                    .filter(|&n| n == outputs && n > 0)
                    .ok_or_else(|| {
                        RuleError::Invalid(format!("num_outputs {n} for {outputs} outputs"))
                    })?,
                None => outputs.max(1),
            };
            equal_parts(&whole, parts, ctx.opset() >= 18)?
        }
        Err(()) => vec![Dim::Unknown; outputs],
    };
    let shapes = sizes
        .into_iter()
        .map(|size| {
            let mut out = dims.to_vec();
            if let Some(slot) = out.get_mut(axis) {
                *slot = size;
            }
            part(out)
        })
        .collect();
    Ok(Inferred::many(shapes))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{self, int_attr, ints_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn n() -> Dim {
        Dim::sym("n")
    }

    fn run(
        opset: i64,
        x: Shape,
        sizes: Option<&[i64]>,
        attrs: Vec<crate::proto::AttributeProto>,
        outputs: usize,
    ) -> Vec<Shape> {
        let sizes = sizes.and_then(|s| {
            testing::ints(ValueTensor::vector(s.iter().copied().map(Dim::known).collect()).unwrap())
        });
        testing::run_in(
            "",
            "Split",
            opset,
            &[testing::shape(x), sizes],
            attrs,
            outputs,
        )
        .unwrap()
        .outputs
        .into_iter()
        .map(|o| o.shape)
        .collect()
    }

    #[test]
    fn equal_parts_and_explicit_input() {
        let x = Shape::Ranked(vec![n(), Dim::known(12)]);
        let out = run(13, x.clone(), None, vec![int_attr("axis", 1)], 3);
        assert_eq!(out[2], Shape::Ranked(vec![n(), Dim::known(4)]));
        let out = run(13, x, Some(&[2, 10]), vec![int_attr("axis", 1)], 2);
        assert_eq!(out[1], Shape::Ranked(vec![n(), Dim::known(10)]));
    }

    #[test]
    fn attribute_form_between_opsets_2_and_12() {
        let x = Shape::Ranked(vec![n(), Dim::known(6)]);
        let out = run(
            11,
            x,
            None,
            vec![int_attr("axis", -1), ints_attr("split", &[1, 5])],
            2,
        );
        assert_eq!(out[0], Shape::Ranked(vec![n(), Dim::known(1)]));
    }

    #[test]
    fn symbolic_equal_parts_need_an_exact_division_before_18() {
        let x = Shape::Ranked(vec![n().mul(&Dim::known(4))]);
        let out = run(13, x, None, vec![], 2);
        assert_eq!(out[1], Shape::Ranked(vec![n().mul(&Dim::known(2))]));
        let out = run(13, Shape::Ranked(vec![n()]), None, vec![], 2);
        assert_eq!(out[0], Shape::Ranked(vec![Dim::Unknown]));
    }

    #[test]
    fn opset_18_last_chunk_is_smaller() {
        let out = run(
            18,
            Shape::from_known(&[10]),
            None,
            vec![int_attr("num_outputs", 3)],
            3,
        );
        assert_eq!(
            out,
            vec![
                Shape::from_known(&[4]),
                Shape::from_known(&[4]),
                Shape::from_known(&[2])
            ]
        );
        let out = run(
            18,
            Shape::Ranked(vec![n()]),
            None,
            vec![int_attr("num_outputs", 2)],
            2,
        );
        let chunk = n().add(&Dim::known(1)).floor_div(&Dim::known(2));
        assert_eq!(out[0], Shape::Ranked(vec![chunk.clone()]));
        assert_eq!(out[1], Shape::Ranked(vec![n().sub(&chunk)]));
    }

    #[test]
    fn sizes_that_do_not_add_up_are_errors() {
        let x = testing::shape(Shape::from_known(&[6]));
        let sizes = testing::ints(ValueTensor::vector(vec![Dim::known(2), Dim::known(2)]).unwrap());
        assert!(testing::run_in("", "Split", 13, &[x, sizes], vec![], 2).is_err());
    }
}
