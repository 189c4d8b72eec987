//! Block floating point (com.microsoft; no kernel in onnxruntime's CPU build, so these follow
//! the schema docs): `QuantizeBFP(x)` packs x into 1-D BFP data whose length depends on
//! `bfp_type` (left unknown) and returns x's shape and strides as two int64 vectors of x's rank
//! (the shape's elements are x's dims, carried as a value); `DequantizeBFP(x, shape, strides)`
//! restores a tensor of the shape `shape` holds.

use crate::model::dtype::elem;
use crate::ops::constraint::Constraint;
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// `QuantizeBFP(x)`: `y` is 1-D of unknown length, `shape` and `strides` are `[rank(x)]`.
pub(crate) fn quantize_bfp(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let data = Output::shape(Shape::Ranked(vec![Dim::Unknown])).elem(Some(elem::UINT8));
    let int64 = Some(elem::INT64);
    let Some(d) = x.shape.dims() else {
        let vector = || Output::shape(Shape::Ranked(vec![Dim::Unknown])).elem(int64);
        return Ok(Inferred::many(vec![data, vector(), vector()]));
    };
    let rank = Shape::Ranked(vec![crate::ops::axes::count(d.len())]);
    let shape = ValueTensor::vector(d.to_vec()).map_or_else(
        || Output::shape(rank.clone()).elem(int64),
        |v| Output::value(v, int64),
    );
    let strides = Output::shape(rank).elem(int64);
    Ok(Inferred::many(vec![data, shape, strides]))
}

/// `DequantizeBFP(x, shape, strides)`: the tensor `shape` describes (its rank when only its
/// length is known); `shape` and `strides` have one entry per dim.
pub(crate) fn dequantize_bfp(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    let shape_in = ctx.required(1)?;
    ctx.required(2)?;
    let (shape_len, strides_len) = (spec::list_len(Some(shape_in)), spec::list_len(ctx.input(2)));
    if let (Some(a), Some(b)) = (shape_len, strides_len) {
        if a != b {
            let requires = "DequantizeBFP's shape and strides must have one entry per dim each";
            let found = format!("shape has {a}, strides {b}");
            return Err(Constraint::new(requires, found, &[1, 2]).unmet());
        }
    }
    let elem = i32::try_from(ctx.int("dtype", i64::from(elem::FLOAT))?).ok();
    let shape = match (shape_in.value, shape_len) {
        (Some(v), _) if v.shape.len() == 1 => Shape::Ranked(v.data.clone()),
        (_, Some(n)) => crate::ops::axes::unknown_dims(n),
        _ => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(elem)))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_list, output_shapes, run_microsoft};

    #[test]
    fn quantize_bfp_returns_the_shape_as_a_value() {
        let r = run_microsoft("QuantizeBFP", &[dims(&["b", "64"])], vec![], 3).unwrap();
        assert_eq!(output_shapes(&r), ["[?]", "[2]", "[2]"]);
        let value = r.outputs[1].value.as_ref().unwrap();
        assert_eq!(
            value
                .data
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["b", "64"]
        );
    }

    #[test]
    fn dequantize_bfp_takes_the_shape_value() {
        let r = run_microsoft(
            "DequantizeBFP",
            &[dims(&["n"]), int_list(&[4, 64]), int_list(&[64, 1])],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[4, 64]");
        let r = run_microsoft(
            "DequantizeBFP",
            &[dims(&["n"]), dims(&["3"]), dims(&["3"])],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[?, ?, ?]");
        assert!(unmet(&run_microsoft(
            "DequantizeBFP",
            &[dims(&["n"]), dims(&["3"]), dims(&["2"])],
            vec![],
            1
        )));
    }
}
