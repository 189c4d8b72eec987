//! The scatter ops' shape constraints: `ScatterElements` (and the deprecated `Scatter`) and
//! `ScatterND`. Each output has `data`'s shape; the rules check what onnxruntime checks before it
//! writes (`ScatterElements` and `ScatterND` docs). Registered in `gather.rs`.

use crate::ops::axes;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

/// `ScatterElements(data, indices, updates, axis)` (and Scatter-9/11, its old name): `indices`
/// and `updates` have `data`'s rank and one shape ("Indices vs updates dimensions differs").
pub(crate) fn scatter_elements(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let indices = ctx.required(1)?;
    let updates = ctx.required(2)?;
    let mut pending = Pending::default();
    let op = ctx.node().op_type().as_str();
    if let (Some(d), Some(i)) = (data.shape.rank(), indices.shape.rank()) {
        same_rank(op, "indices", (d, 0), (i, 1))?;
        axes::require(ctx.int("axis", 0)?, d, "axis")?;
    }
    if let (Some(i), Some(u)) = (indices.shape.dims(), updates.shape.dims()) {
        same_rank(op, "updates", (i.len(), 1), (u.len(), 2))?;
        for (k, (a, b)) in i.iter().zip(u).enumerate() {
            pending.equal(a, b, || {
                Constraint::new(
                    format!("{op}'s updates must have the shape of its indices"),
                    format!("dim {k} is {a} in indices, {b} in updates"),
                    &[1, 2],
                )
                .fix("make updates and indices the same shape")
            })?;
        }
    }
    Ok(
        Inferred::single(Output::shape(data.shape.clone()).elem(data.elem))
            .with_conditions(pending.into_checks()),
    )
}

/// `ScatterND(data, indices, updates)`: `indices` of rank q >= 1 whose last dim k is at most
/// data's rank r, and "updates tensor should have shape equal to indices.shape[:-1] +
/// data.shape[indices.shape[-1]:]" (onnxruntime's words for the doc's rule).
pub(crate) fn scatter_nd(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let indices = ctx.required(1)?;
    let updates = ctx.required(2)?;
    let out = |pending: Pending| {
        Ok(
            Inferred::single(Output::shape(data.shape.clone()).elem(data.elem))
                .with_conditions(pending.into_checks()),
        )
    };
    let mut pending = Pending::default();
    let (Some(d), Some(i)) = (data.shape.dims(), indices.shape.dims()) else {
        return out(pending);
    };
    let Some((last, front)) = i.split_last() else {
        return Err(Constraint::new(
            "ScatterND's indices must have rank 1 or more",
            "indices are a scalar",
            &[1],
        )
        .unmet());
    };
    let Some(k) = last.as_known().and_then(|k| usize::try_from(k).ok()) else {
        return out(pending);
    };
    if k > d.len() {
        return Err(Constraint::new(
            "the last dim of ScatterND's indices must not exceed the rank of data",
            format!("indices' last dim is {k}, data has rank {}", d.len()),
            &[0, 1],
        )
        .unmet());
    }
    let expected: Vec<Dim> = front
        .iter()
        .chain(d.get(k..).unwrap_or_default())
        .cloned()
        .collect();
    let Some(u) = updates.shape.dims() else {
        return out(pending);
    };
    let requires = "ScatterND's updates must have shape indices.shape[:-1] + \
                    data.shape[indices.shape[-1]:]";
    let fix = "reshape updates to indices.shape[:-1] + data.shape[k:]";
    if u.len() != expected.len() {
        return Err(Constraint::new(
            requires,
            format!("updates have rank {}, {} expected", u.len(), expected.len()),
            &[0, 1, 2],
        )
        .fix(fix)
        .unmet());
    }
    for (at, (a, b)) in expected.iter().zip(u).enumerate() {
        pending.equal(a, b, || {
            Constraint::new(
                requires,
                format!("dim {at} of updates is {b}, {a} expected"),
                &[0, 1, 2],
            )
            .fix(fix)
        })?;
    }
    out(pending)
}

/// Requires two inputs of one rank: `(rank, slot)` of the data and of the other input.
pub(crate) fn same_rank(
    op: &str,
    other: &str,
    (rank, slot): (usize, usize),
    (other_rank, other_slot): (usize, usize),
) -> Result<(), RuleError> {
    if rank == other_rank {
        return Ok(());
    }
    Err(Constraint::new(
        format!("{op}'s {other} must have the rank of input {slot}"),
        format!("input {slot} has rank {rank}, {other} rank {other_rank}"),
        &[slot, other_slot],
    )
    .fix(format!("Reshape or Unsqueeze {other} to rank {rank}"))
    .unmet())
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{self, dims as s, int_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    #[test]
    fn gather_elements_needs_the_data_rank_only() {
        let r = testing::run("GatherElements", 13, &[s(&["2", "3"]), s(&["2"])], vec![]);
        assert!(unmet(&r));
        // Indices larger than data on the other axes: onnxruntime accepts it.
        let r = testing::run(
            "GatherElements",
            13,
            &[s(&["2", "3"]), s(&["3", "3"])],
            vec![],
        );
        assert_eq!(shape(&r), "[3, 3]");
        let axis = vec![int_attr("axis", 2)];
        let r = testing::run(
            "GatherElements",
            13,
            &[s(&["2", "3"]), s(&["2", "3"])],
            axis,
        );
        assert!(unmet(&r));
    }

    #[test]
    fn scatter_elements_ranks_and_update_shape() {
        let run = |i: &[&str], u: &[&str]| {
            testing::run("ScatterElements", 13, &[s(&["4", "5"]), s(i), s(u)], vec![])
        };
        assert!(unmet(&run(&["2"], &["2"])));
        assert!(unmet(&run(&["2", "2"], &["2", "3"])));
        assert_eq!(conditions(&run(&["2", "n"], &["2", "3"])), ["n = 3"]);
        let ok = run(&["2", "2"], &["2", "2"]);
        assert_eq!(shape(&ok), "[4, 5]");
        assert!(conditions(&ok).is_empty());
        let old = testing::run(
            "Scatter",
            9,
            &[s(&["4", "5"]), s(&["2"]), s(&["2"])],
            vec![],
        );
        assert!(unmet(&old));
    }

    #[test]
    fn scatter_nd_update_shape_and_index_depth() {
        let run = |i: &[&str], u: &[&str]| {
            testing::run("ScatterND", 13, &[s(&["4", "5"]), s(i), s(u)], vec![])
        };
        assert!(unmet(&run(&["2", "1"], &["2", "4"])));
        assert!(unmet(&run(&["2", "3"], &["2"])));
        assert!(unmet(&run(&["2", "1"], &["2"])));
        let scalar = testing::ints(ValueTensor::new(vec![], vec![Dim::known(0)]).unwrap());
        let r = testing::run(
            "ScatterND",
            13,
            &[s(&["4", "5"]), scalar, s(&["5"])],
            vec![],
        );
        assert!(unmet(&r));
        assert!(!unmet(&run(&["2", "1"], &["2", "5"])));
        assert!(!unmet(&run(&["2", "2"], &["2"])));
        assert_eq!(conditions(&run(&["2", "1"], &["k", "5"])), ["k = 2"]);
    }

    #[test]
    fn gather_nd_batch_dims_and_index_depth() {
        let run = |i: &[&str], b: i64| {
            testing::run(
                "GatherND",
                13,
                &[s(&["2", "3", "4"]), s(i)],
                vec![int_attr("batch_dims", b)],
            )
        };
        assert!(unmet(&run(&["2", "4"], 0)));
        assert!(unmet(&run(&["2", "1"], 2)));
        assert!(unmet(&run(&["2", "1"], -1)));
        assert!(unmet(&run(&["2", "3"], 1)));
        // Batches that differ but divide: onnxruntime runs it.
        assert_eq!(shape(&run(&["4", "1", "1"], 1)), "[4, 1, 4]");
    }
}
