//! onnxruntime's `DynamicSparseAttention` (com.microsoft, CUDA only, so the rule follows the
//! schema doc and onnxruntime's inference): grouped-query attention over externally selected
//! K/V entries. The output is `(batch, sequence, num_heads * head_size)`, head size from the
//! query's width (`num_heads * head_size`, or `(num_heads + 2 * kv_num_heads) * head_size` for
//! packed QKV); present key/value keep the BNSH past's shape, or are `(batch, kv_num_heads, ?,
//! head_size)` without one.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

use super::heads::heads;

const OP: &str = "DynamicSparseAttention";

/// `DynamicSparseAttention(query, key, value, past_key, past_value, auxiliary_key,
/// auxiliary_value, selected_indices, selected_counts, seqlens_k, total_sequence_length, ...)`:
/// `output`, `present_key`, `present_value`.
pub(crate) fn dynamic_sparse_attention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let n_kv = heads(ctx, "kv_num_heads")?;
    let q = exact(
        query.shape,
        3,
        "DynamicSparseAttention's query must be 3-D (batch, sequence, width)",
        0,
    )?;
    let (batch, seq, width) = (dim_at(q, 0), dim_at(q, 1), dim_at(q, 2));
    let packed = ctx.input(1).is_none() && ctx.input(2).is_none();
    let columns = if packed {
        num.saturating_add(n_kv.saturating_mul(2))
    } else {
        num
    };
    if let Some(w) = width.as_known().filter(|w| w % columns != 0) {
        let requires = if packed {
            "DynamicSparseAttention's packed QKV hidden size must be divisible by num_heads + 2 * kv_num_heads"
        } else {
            "DynamicSparseAttention's query hidden size must be divisible by num_heads"
        };
        return Err(Constraint::new(requires, format!("{w} vs {columns}"), &[0]).unmet());
    }
    let head = width.div_exact(&Dim::known(columns));
    let mut pending = Pending::default();
    if let (false, Some(_)) = (packed, q) {
        let kv = [batch.clone(), seq.clone(), head.mul(&Dim::known(n_kv))];
        for (slot, name) in [(1, "key"), (2, "value")] {
            if let Some(input) = ctx.input(slot) {
                let requires =
                    format!("{OP}'s {name} must be (batch, sequence, kv_num_heads * head_size)");
                same_shape(&mut pending, input.shape, &kv, &requires, &[0, slot])?;
            }
        }
    }
    if let (Some(pk), Some(pv)) = (ctx.input(3), ctx.input(4).and_then(|v| v.shape.dims())) {
        let requires = "DynamicSparseAttention's past_value must have past_key's shape";
        same_shape(&mut pending, pk.shape, pv, requires, &[3, 4])?;
    }
    let output = if q.is_some() {
        Shape::Ranked(vec![batch.clone(), seq, head.mul(&Dim::known(num))])
    } else {
        Shape::Unranked
    };
    let present = |slot: usize| match ctx.input(slot) {
        Some(past) => past.shape.clone(),
        None if q.is_some() => Shape::Ranked(vec![
            batch.clone(),
            Dim::known(n_kv),
            Dim::Unknown,
            head.clone(),
        ]),
        None => Shape::Unranked,
    };
    let mut outputs = vec![Output::shape(output).elem(query.elem)];
    let count = ctx.node().outputs().len();
    if count > 1 {
        outputs.push(Output::shape(present(3)).elem(query.elem));
    }
    if count > 2 {
        outputs.push(Output::shape(present(4)).elem(query.elem));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft, Fact};

    // Shapes as onnxruntime 1.31's inference gives them (CUDA-only kernel).

    fn dsa(
        q: &[&str],
        kv: Option<&[&str]>,
        past: Option<&[&str]>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs: Vec<Option<Fact>> = vec![
            dims(q),
            kv.and_then(dims),
            kv.and_then(dims),
            past.and_then(dims),
            past.and_then(dims),
            None,
            None,
            dims(&["10", "6"]),
            dims(&["10"]),
            dims(&["2"]),
            dims(&["1"]),
        ];
        let attrs = vec![int_attr("num_heads", 4), int_attr("kv_num_heads", 2)];
        run_microsoft("DynamicSparseAttention", &inputs, attrs, 3)
    }

    #[test]
    fn output_has_query_heads_and_present_keeps_the_past() {
        let past = ["B", "2", "M", "8"];
        let r = dsa(&["B", "S", "32"], Some(&["B", "S", "16"]), Some(&past)).unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[B, S, 32]", "[B, 2, M, 8]", "[B, 2, M, 8]"]
        );
        let packed = dsa(&["B", "S", "64"], None, Some(&past)).unwrap();
        assert_eq!(output_shapes(&packed)[0], "[B, S, 32]");
        let fresh = dsa(&["B", "S", "32"], Some(&["B", "S", "16"]), None).unwrap();
        assert_eq!(output_shapes(&fresh)[1], "[B, 2, ?, 8]");
    }

    #[test]
    fn query_rank_and_head_divisibility_are_checked() {
        // onnxruntime: "The query input shall be 3 dimensions", "Query hidden size must be
        // divisible by the number of query heads", "Packed QKV hidden size must be divisible by
        // num_heads + 2 * kv_num_heads".
        assert!(unmet(&dsa(&["T", "32"], Some(&["T", "16"]), None)));
        assert!(unmet(&dsa(
            &["B", "S", "30"],
            Some(&["B", "S", "16"]),
            None
        )));
        assert!(unmet(&dsa(&["B", "S", "60"], None, None)));
        assert!(unmet(&dsa(
            &["B", "S", "32"],
            Some(&["B", "S", "12"]),
            None
        )));
    }
}
