//! Decoding helpers with data-dependent output lengths (com.microsoft, CPU kernels):
//! `DynamicTimeWarping` (the cheapest path through an `M x N` cost matrix, `[2, x]` int32 with
//! `max(M, N) <= x < M + N`) and `BifurcationDetector` (aggressive decoding: the tokens after
//! merging the predicted ones, and the new suffix match index). Each length the data decides is
//! a fresh size, bounded as the docs bound it.

use crate::model::dtype::elem;
use crate::ops::axes::input_ints;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `DynamicTimeWarping(input)`: the input is `(M, N)` or `(1, M, N)` (onnxruntime's kernel:
/// "input rank must be 2, or (3 with first dim equal to 1)"); the output is `[2, x]`.
pub(crate) fn dynamic_time_warping(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let requires = "DynamicTimeWarping's input must be (M, N) or (1, M, N)";
    let mut pending = Pending::default();
    let (m, n) = match x.shape.dims() {
        Some([m, n]) => (m.clone(), n.clone()),
        Some([one, m, n]) => {
            equal(&mut pending, one, &Dim::known(1), requires, "dim 0", &[0])?;
            (m.clone(), n.clone())
        }
        Some(d) => {
            return Err(Constraint::new(requires, format!("its rank is {}", d.len()), &[0]).unmet())
        }
        None => (Dim::Unknown, Dim::Unknown),
    };
    let bound = m.add(&n).sub(&Dim::known(1));
    let at_most = if matches!(bound, Dim::Unknown) {
        Vec::new()
    } else {
        vec![bound]
    };
    let path = ctx.fresh_dim("DynamicTimeWarping", at_most);
    let shape = Shape::Ranked(vec![Dim::known(2), path]);
    Ok(
        Inferred::single(Output::shape(shape).elem(Some(elem::INT32)))
            .with_conditions(pending.into_checks()),
    )
}

/// `BifurcationDetector(src_tokens, cur_tokens, prev_suffix_match_idx, pred_tokens)`: the
/// token inputs are 1-D ("must be a 1-D tensor"); with predicted tokens there must be
/// `len(src_tokens) + 1 - prev_suffix_match_idx` of them, and the merged tokens' length is
/// data-dependent (at most `len(cur_tokens) + len(pred_tokens)`); without them the tokens are
/// `cur_tokens`. The new index has the previous index's shape.
pub(crate) fn bifurcation_detector(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let mut lens = Vec::new();
    for (slot, name) in [(0, "src_tokens"), (1, "cur_tokens"), (3, "pred_tokens")] {
        let Some(input) = ctx.input(slot) else {
            lens.push(None);
            continue;
        };
        let requires = format!("BifurcationDetector's {name} must be 1-D");
        lens.push(Some(dim_at(exact(input.shape, 1, &requires, slot)?, 0)));
    }
    let [src, Some(cur), pred] = lens.as_slice() else {
        return Err(RuleError::MissingInput(1));
    };
    let cur_in = ctx.required(1)?;
    let previous = ctx.required(2)?;
    let mut pending = Pending::default();
    let tokens = match (src, pred) {
        (Some(src), Some(pred)) => {
            if let Some(&[idx]) = input_ints(Some(previous)).as_deref() {
                let want = src.add(&Dim::known(1)).sub(&Dim::known(idx));
                let requires = "BifurcationDetector's pred_tokens must have len(src_tokens) + 1 - \
                                prev_suffix_match_idx entries";
                equal(
                    &mut pending,
                    pred,
                    &want,
                    requires,
                    "pred_tokens' length",
                    &[0, 2, 3],
                )?;
            }
            let bound = cur.add(pred);
            let at_most = if matches!(bound, Dim::Unknown) {
                Vec::new()
            } else {
                vec![bound]
            };
            Shape::Ranked(vec![ctx.fresh_dim("BifurcationDetector", at_most)])
        }
        _ => Shape::Ranked(vec![cur.clone()]),
    };
    Ok(Inferred::many(vec![
        Output::shape(tokens).elem(cur_in.elem),
        Output::shape(previous.shape.clone()).elem(previous.elem),
    ])
    .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, int_list, ints, output_shapes, run_microsoft};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    #[test]
    fn time_warping_path_is_two_by_a_fresh_length() {
        let r = run_microsoft("DynamicTimeWarping", &[dims(&["m", "n"])], vec![], 1).unwrap();
        let out = output_shapes(&r);
        assert!(out[0].starts_with("[2, `DynamicTimeWarping#"), "{out:?}");
        assert!(run_microsoft("DynamicTimeWarping", &[dims(&["1", "3", "5"])], vec![], 1).is_ok());
        assert!(unmet(&run_microsoft(
            "DynamicTimeWarping",
            &[dims(&["2", "3", "5"])],
            vec![],
            1
        )));
        assert!(unmet(&run_microsoft(
            "DynamicTimeWarping",
            &[dims(&["5"])],
            vec![],
            1
        )));
    }

    #[test]
    fn bifurcation_tokens_follow_the_prediction() {
        let idx = || ints(ValueTensor::new(vec![], vec![Dim::known(0)]).unwrap());
        let none = run_microsoft(
            "BifurcationDetector",
            &[dims(&["10"]), dims(&["c"]), idx()],
            vec![],
            2,
        )
        .unwrap();
        assert_eq!(output_shapes(&none), ["[c]", "[]"]);
        let ok = run_microsoft(
            "BifurcationDetector",
            &[dims(&["10"]), dims(&["c"]), idx(), dims(&["11"])],
            vec![],
            2,
        );
        assert!(ok.is_ok());
        // onnxruntime 1.31: "pred_tokens length mismatch. Got pred_tokens_len=6, expected=11".
        let short = run_microsoft(
            "BifurcationDetector",
            &[dims(&["10"]), dims(&["c"]), idx(), dims(&["6"])],
            vec![],
            2,
        );
        assert!(unmet(&short));
        let two_d = run_microsoft(
            "BifurcationDetector",
            &[dims(&["10"]), dims(&["1", "c"]), int_list(&[0])],
            vec![],
            2,
        );
        assert!(unmet(&two_d));
    }
}
