//! `TopK` (`onnx/defs/math`): the axis becomes `k`, an attribute in TopK-1 and input 1 from
//! opset 10; an unknown `k` is named (see `Ctx::size_element`).

use crate::model::dtype::elem;
use crate::ops::axes::{self};
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::{Condition, Dim, Shape};

/// TopK-1: `k` is an attribute.
pub(crate) fn top_k_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    top_k(ctx, true)
}

/// TopK-10 and later: `k` is input 1.
pub(crate) fn top_k_10(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    top_k(ctx, false)
}

/// `TopK(x, k, axis)`: the axis becomes `k` (an input from opset 10, an attribute before).
fn top_k(ctx: &Ctx<'_>, k_attribute: bool) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let k = if k_attribute {
        let Some(k) = ctx.attrs().int("k")? else {
            return Err(spec::missing_attr("TopK-1", "k"));
        };
        Dim::known(k)
    } else {
        // An unknown k names the element: every node fed the same k value gets one symbol.
        // It is at most the axis' size ("k argument [6] should not be greater than specified
        // axis dim value [5]").
        ctx.required(1)?;
        let at_most = input
            .shape
            .dims()
            .and_then(|dims| {
                let axis = axes::normalise(ctx.int("axis", -1).ok()?, dims.len())?;
                dims.get(axis).cloned()
            })
            .into_iter()
            .collect();
        ctx.size_element(1, 0, "TopK", at_most)
    };
    // A k the model computes (a constant, a Shape element) can exceed the axis for some
    // bindings: that is a condition on the model's dims. A k named for unknown data (here, or
    // by an earlier reader of the same value: `Ctx::fresh_dim` names it `what#serial`) is a
    // size of the data, taken to fit its first axis, and is not checked.
    let k_computed = k_attribute
        || ctx
            .input(1)
            .and_then(|i| i.value)
            .and_then(|v| v.data.first())
            .is_some_and(|d| *d != Dim::Unknown && !d.symbols().iter().any(|s| s.contains('#')));
    let mut pending = Pending::default();
    if let Some(k) = k.as_known().filter(|&k| k < 0) {
        return Err(
            Constraint::new("TopK's k must not be negative", format!("k is {k}"), &[1]).unmet(),
        );
    }
    let shape = match input.shape.dims() {
        Some(dims) => {
            let axis = axes::require(ctx.int("axis", -1)?, dims.len(), "TopK axis")?;
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(axis) {
                // "k argument [6] should not be greater than specified axis dim value [5]".
                if let (Some(want), Some(have)) = (k.as_known(), slot.as_known()) {
                    if want > have {
                        return Err(Constraint::new(
                            "TopK's k must not exceed the size of the axis",
                            format!("k is {want}, axis {axis} has size {have}"),
                            &[0, 1],
                        )
                        .fix("lower k, or check the axis")
                        .unmet());
                    }
                }
                if k_computed && *slot != Dim::Unknown && k != Dim::Unknown {
                    let (want, have) = (k.clone(), slot.clone());
                    pending.holds_if(&Condition::eq(&k.min(slot), &k), || {
                        Constraint::new(
                            "TopK's k must not exceed the size of the axis",
                            format!("k is {want}, axis {axis} has size {have}"),
                            &[0, 1],
                        )
                        .fix("lower k, or check the axis")
                    })?;
                }
                *slot = k;
            }
            Shape::Ranked(dims)
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::many(vec![
        Output::shape(shape.clone()).elem(input.elem),
        Output::shape(shape).elem(Some(elem::INT64)),
    ])
    .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{self, dims as s, int_attr, int_list};
    use crate::ops::{Inferred, RuleError};

    fn top_k(x: &[&str], k: Option<testing::Fact>) -> Result<Inferred, RuleError> {
        testing::run_in("", "TopK", 11, &[s(x), k], vec![int_attr("axis", 1)], 2)
    }

    /// The W4 conditions, in the words a person reads.
    fn plain(r: &Result<Inferred, RuleError>) -> Vec<String> {
        r.as_ref()
            .unwrap()
            .constraints
            .iter()
            .filter_map(|c| c.condition().map(|c| c.plain().to_string()))
            .collect()
    }

    #[test]
    fn a_constant_k_over_a_symbolic_axis_holds_only_if_it_fits() {
        assert_eq!(plain(&top_k(&["b", "n"], int_list(&[5]))), ["n ≥ 5"]);
    }

    #[test]
    fn a_k_within_or_beyond_a_static_axis() {
        assert!(plain(&top_k(&["b", "8"], int_list(&[5]))).is_empty());
        assert!(unmet(&top_k(&["b", "4"], int_list(&[5]))));
    }

    #[test]
    fn k_of_one_fails_only_on_an_empty_axis_and_a_fresh_k_is_not_checked() {
        // n ≥ 1 holds for every non-empty input: the check's scope drops it, the rule keeps it.
        assert_eq!(plain(&top_k(&["b", "n"], int_list(&[1]))), ["n ≥ 1"]);
        let unknown_k = testing::Fact {
            elem: Some(7),
            ..testing::shape(crate::shape::Shape::from_known(&[1])).unwrap()
        };
        let fresh = top_k(&["b", "n"], Some(unknown_k)).unwrap();
        assert!(fresh.constraints.is_empty());
    }

    #[test]
    fn a_computed_symbolic_k_is_compared_with_the_axis() {
        let k = testing::ints(
            crate::shape::values::ValueTensor::vector(vec![crate::shape::Dim::sym("m")]).unwrap(),
        );
        // Read as a person writes it, not as "min(m, n) = m".
        assert_eq!(plain(&top_k(&["b", "n"], k)), ["m ≤ n"]);
        let same = testing::ints(
            crate::shape::values::ValueTensor::vector(vec![crate::shape::Dim::sym("n")]).unwrap(),
        );
        assert!(plain(&top_k(&["b", "n"], same)).is_empty());
        // A k an earlier TopK named for its data is not a dim of the model.
        let shared = testing::ints(
            crate::shape::values::ValueTensor::vector(vec![crate::shape::Dim::sym("TopK#0")])
                .unwrap(),
        );
        assert!(plain(&top_k(&["b", "50"], shared)).is_empty());
    }
}
