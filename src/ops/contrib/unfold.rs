//! `UnfoldTensor(input)` (com.microsoft, CPU kernel): every slice of `size` along `dim`, `step`
//! apart. The unfolded dim `d` becomes `(d - size) / step + 1` and `size` is appended
//! (onnxruntime's inference and kernel, which require `size` positive and at most `d`, "dimsize
//! is less than unfold size", and `step` positive).

use crate::ops::axes;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::{Condition, Dim, Shape};

/// `UnfoldTensor(input)` with attributes `dim` (default -1), `size` (required), `step`
/// (default 1).
pub(crate) fn unfold_tensor(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let size = ctx
        .attrs()
        .int("size")?
        .ok_or_else(|| spec::missing_attr("UnfoldTensor", "size"))?;
    let step = ctx.int("step", 1)?;
    for (name, value) in [("size", size), ("step", step)] {
        if value <= 0 {
            let requires = format!("UnfoldTensor's {name} must be positive");
            return Err(Constraint::new(requires, format!("{name} is {value}"), &[]).unmet());
        }
    }
    let Some(dims) = x.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(x.elem),
        ));
    };
    let axis = axes::require(ctx.int("dim", -1)?, dims.len(), "UnfoldTensor's dim")?;
    let mut out = dims.to_vec();
    let mut pending = Pending::default();
    let size_dim = Dim::known(size);
    if let Some(d) = out.get_mut(axis) {
        if !matches!(d, Dim::Unknown) {
            let at_least = Condition::eq(&d.max(&size_dim), d);
            let found = format!("dim {axis} is {d}, size is {size}");
            pending.holds_if(&at_least, || {
                Constraint::new(
                    "UnfoldTensor's size must not exceed the unfolded dim",
                    found,
                    &[0],
                )
            })?;
        }
        *d = d
            .sub(&size_dim)
            .floor_div(&Dim::known(step))
            .add(&Dim::known(1));
    }
    out.push(size_dim);
    Ok(
        Inferred::single(Output::shape(Shape::Ranked(out)).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft};

    fn run(x: &[&str]) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let attrs = vec![int_attr("dim", 1), int_attr("size", 3), int_attr("step", 2)];
        run_microsoft("UnfoldTensor", &[dims(x)], attrs, 1)
    }

    #[test]
    fn the_unfolded_dim_counts_windows_and_size_is_appended() {
        // onnxruntime 1.31: [2, 10, 3] gives [2, 4, 3, 3].
        assert_eq!(shape(&run(&["2", "10", "3"])), "[2, 4, 3, 3]");
        assert!(unmet(&run(&["2", "2", "3"])));
        let sym = run(&["2", "n", "3"]);
        assert_eq!(conditions(&sym), ["max(n, 3) = n"]);
        assert!(
            unmet(&run_microsoft("UnfoldTensor", &[dims(&["4"])], vec![], 1)),
            "size is required"
        );
    }
}
