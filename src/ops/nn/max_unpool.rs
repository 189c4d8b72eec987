//! `MaxUnpool` (9, 11, 22): the inverse of a max pool. The output shape follows the doc; the rank
//! and dim requirements are the ones `onnx.shape_inference` states for the op (its messages are
//! quoted beside each), a size read from an unknown input value is a fresh named size.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::overflow::sized;
use crate::ops::single::single;
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::{Dim, Shape};

/// `MaxUnpool(X, I, output_shape)`: `output_shape`'s values when given, else per spatial axis
/// `(in - 1) * stride + kernel - pad_begin - pad_end`; I has X's shape.
pub(crate) fn max_unpool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, "MaxUnpool")?;
    let mut pending = Pending::default();
    if let (Some(x), Some(i)) = (x, ctx.shape(1)?.dims()) {
        crate::ops::ranks::same_shape(
            &mut pending,
            &Shape::Ranked(i.to_vec()),
            x,
            "MaxUnpool's I must have X's shape",
            &[0, 1],
        )?;
    }
    let Some(kernel) = ctx.attrs().ints("kernel_shape")? else {
        return Err(crate::ops::spec::missing_attr("MaxUnpool", "kernel_shape"));
    };
    let spatial = kernel.len();
    if let Some(x) = x.filter(|x| x.len() != spatial + 2) {
        return Err(Constraint::new(
            "MaxUnpool's kernel_shape must have one entry per spatial axis",
            format!(
                "{} entries for {} spatial axes",
                spatial,
                x.len().saturating_sub(2)
            ),
            &[0],
        )
        .unmet());
    }
    let mut dims = vec![dim_at(x, 0), dim_at(x, 1)];
    if ctx.input(2).is_some() {
        dims.extend((0..spatial).map(|i| ctx.size_element(2, i + 2, "unpooled", Vec::new())));
        return Ok(single(Shape::Ranked(dims), x_in.elem, pending));
    }
    let strides = ctx
        .attrs()
        .ints("strides")?
        .map_or_else(|| vec![1; spatial], <[i64]>::to_vec);
    let pads = ctx
        .attrs()
        .ints("pads")?
        .map_or_else(|| vec![0; 2 * spatial], <[i64]>::to_vec);
    if strides.len() != spatial || pads.len() != 2 * spatial {
        return Err(Constraint::new(
            "MaxUnpool's strides need one value per spatial axis and pads two",
            format!(
                "{} strides, {} pads for {spatial} spatial axes",
                strides.len(),
                pads.len()
            ),
            &[0],
        )
        .unmet());
    }
    for (i, &k) in kernel.iter().enumerate() {
        let input = dim_at(x, i + 2);
        let (s, b, e) = (strides.get(i), pads.get(i), pads.get(i + spatial));
        let (Some(&s), Some(&b), Some(&e)) = (s, b, e) else {
            continue;
        };
        let what =
            format!("the output size (stride * (input - 1) + kernel - pads) on spatial axis {i}");
        let checked = sized(&what, &[0]);
        let base = checked.mul(&input.sub(&Dim::known(1)), &Dim::known(s))?;
        let grown = checked.add(&base, &Dim::known(k))?;
        let trimmed = checked.sub(&grown, &Dim::known(b))?;
        dims.push(checked.sub(&trimmed, &Dim::known(e))?);
    }
    Ok(single(Shape::Ranked(dims), x_in.elem, pending))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::int_list as list;
    use crate::ops::testing::{dims, ints_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn max_unpool_inverts_the_pool() {
        let k = |k| {
            vec![
                ints_attr("kernel_shape", &[k, k]),
                ints_attr("strides", &[2, 2]),
            ]
        };
        assert_eq!(
            shape(&run(
                "MaxUnpool",
                22,
                &[dims(&["1", "1", "2", "2"]), dims(&["1", "1", "2", "2"])],
                k(2)
            )),
            "[1, 1, 4, 4]"
        );
        let mut padded = k(3);
        padded.push(ints_attr("pads", &[1, 1, 1, 1]));
        assert_eq!(
            shape(&run(
                "MaxUnpool",
                11,
                &[dims(&["1", "1", "4", "4"]), dims(&["1", "1", "4", "4"])],
                padded
            )),
            "[1, 1, 7, 7]"
        );
        let out = list(&[1, 1, 5, 5]);
        assert_eq!(
            shape(&run(
                "MaxUnpool",
                9,
                &[
                    dims(&["1", "1", "2", "2"]),
                    dims(&["1", "1", "2", "2"]),
                    out
                ],
                k(2)
            )),
            "[1, 1, 5, 5]"
        );
        assert!(unmet(&run(
            "MaxUnpool",
            9,
            &[dims(&["1", "1", "2", "2"]), dims(&["1", "1", "3", "2"])],
            k(2)
        )));
    }
}
