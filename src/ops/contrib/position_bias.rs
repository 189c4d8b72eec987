//! The attention-bias generators (com.microsoft `RelativePositionBias` of T5,
//! `GatedRelativePositionBias` of WavLM): `(1 or B, N, S, S)` biases from a bucket table or a
//! gated query. Shapes as the schema docs (ContribOperators.md) and onnxruntime's inference
//! functions in `bert_defs.cc` give them; both run on CUDA only in onnxruntime 1.31.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

use super::heads::heads;

/// `RelativePositionBias(bias_table, query_length, key_length)`: a `(num_buckets, N)` table
/// gives `(1, N, query_length, key_length)`; the lengths are input values (named sizes when
/// not known).
pub(crate) fn relative_position_bias(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let table = ctx.required(0)?;
    let requires = format!("{op}'s bias_table must be 2-D (num_buckets, num_heads)");
    let t = exact(table.shape, 2, &requires, 0)?;
    let query = ctx.size_element(1, 0, "query_length", Vec::new());
    let key = ctx.size_element(2, 0, "key_length", Vec::new());
    let shape = Shape::Ranked(vec![Dim::known(1), dim_at(t, 1), query, key]);
    Ok(Inferred::single(Output::shape(shape).elem(table.elem)))
}

/// `GatedRelativePositionBias(query_layer, query_bias, rel_pos, weight, bias, eco_a,
/// token_offset)`: query `(B, S, N*h)` (or packed `(T, N*h)` with `token_offset` `(B, S)`)
/// gives `(B, N, S, S)`. `query_bias` has `N*h` entries, `weight` is `(h, D)` with `D` even,
/// `bias` has `D` entries, `eco_a` is `(1, N, 1, 1)`.
pub(crate) fn gated_relative_position_bias(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let q = query.shape.dims();
    let (batch, seq, hidden) = match (q, ctx.input(6).and_then(|t| t.shape.dims())) {
        (Some([_, h]), Some([b, s])) | (Some([b, s, h]), _) => (b.clone(), s.clone(), h.clone()),
        (Some([_, h]), _) => (Dim::Unknown, Dim::Unknown, h.clone()),
        (Some(d), _) => {
            let requires =
                format!("{op}'s query_layer must be 3-D (batch, seq, hidden) or 2-D packed");
            return Err(
                Constraint::new(requires, format!("its rank is {}", d.len()), &[0]).unmet(),
            );
        }
        (None, _) => (Dim::Unknown, Dim::Unknown, Dim::Unknown),
    };
    if let Some(h) = hidden.as_known().filter(|h| h % num != 0) {
        let requires = format!("{op}'s hidden size must be a multiple of num_heads");
        return Err(Constraint::new(requires, format!("{h} vs {num} heads"), &[0]).unmet());
    }
    let mut pending = Pending::default();
    if let Some(b) = ctx.input(1) {
        let b = exact(b.shape, 1, &format!("{op}'s query_bias must be 1-D"), 1)?;
        let requires = format!("{op}'s query_bias must have the query's hidden size");
        equal(
            &mut pending,
            &dim_at(b, 0),
            &hidden,
            &requires,
            "its length",
            &[0, 1],
        )?;
    }
    if let Some(w) = ctx.input(3) {
        let w = exact(
            w.shape,
            2,
            &format!("{op}'s weight must be 2-D (head_size, D)"),
            3,
        )?;
        let head = hidden.div_exact(&Dim::known(num));
        let requires = format!("{op}'s weight must have head_size rows");
        equal(
            &mut pending,
            &dim_at(w, 0),
            &head,
            &requires,
            "weight's dim 0",
            &[0, 3],
        )?;
        let d = dim_at(w, 1);
        if let Some(d) = d.as_known().filter(|d| d % 2 != 0) {
            let requires = format!("{op}'s weight must have an even number of columns (D)");
            return Err(Constraint::new(requires, format!("D is {d}"), &[3]).unmet());
        }
        if let Some(bias) = ctx.input(4) {
            let b = exact(bias.shape, 1, &format!("{op}'s bias must be 1-D (D)"), 4)?;
            let requires = format!("{op}'s bias must have one entry per column of weight");
            equal(
                &mut pending,
                &dim_at(b, 0),
                &d,
                &requires,
                "its length",
                &[3, 4],
            )?;
        }
    }
    let shape = Shape::Ranked(vec![batch, Dim::known(num), seq.clone(), seq]);
    Ok(Inferred::single(Output::shape(shape).elem(query.elem))
        .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims as s, int_attr, ints, output_shapes, run_microsoft as ms};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    #[test]
    fn relative_position_bias_uses_the_length_values() {
        let len = |v: i64| {
            ints(ValueTensor {
                shape: vec![],
                data: vec![Dim::known(v)],
            })
        };
        let r = ms(
            "RelativePositionBias",
            &[s(&["32", "8"]), len(5), len(7)],
            vec![],
            1,
        );
        assert_eq!(output_shapes(&r.unwrap()), ["[1, 8, 5, 7]"]);
        assert!(unmet(&ms(
            "RelativePositionBias",
            &[s(&["32"]), len(5), len(7)],
            vec![],
            1
        )));
    }

    #[test]
    fn gated_bias_is_batch_heads_seq_seq() {
        let inputs = |d: &str| {
            [
                s(&["b", "s", "32"]),
                s(&["32"]),
                s(&["1", "4", "s", "s"]),
                s(&["8", d]),
                s(&[d]),
                s(&["1", "4", "1", "1"]),
            ]
        };
        let attrs = || vec![int_attr("num_heads", 4)];
        let r = ms("GatedRelativePositionBias", &inputs("6"), attrs(), 1);
        assert_eq!(output_shapes(&r.unwrap()), ["[b, 4, s, s]"]);
        assert!(unmet(&ms(
            "GatedRelativePositionBias",
            &inputs("5"),
            attrs(),
            1
        )));
        let packed = ms(
            "GatedRelativePositionBias",
            &[
                s(&["t", "32"]),
                None,
                None,
                None,
                None,
                None,
                s(&["b", "s"]),
            ],
            attrs(),
            1,
        );
        assert_eq!(output_shapes(&packed.unwrap()), ["[b, 4, s, s]"]);
    }
}
