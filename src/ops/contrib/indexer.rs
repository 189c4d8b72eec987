//! onnxruntime's sparse-attention indexers (com.microsoft, CUDA only, so the rules follow the
//! schema docs and onnxruntime's inference): `SparseAttentionIndexer` on dense `(B, S, ...)`
//! queries and `PackedSparseAttentionIndexer` on packed `(T, ...)` ones. `selected_indices` has
//! a capacity fixed by the attributes, `token_budget + compress_ratio - 1` for `policy_mode =
//! "qsa"` and `index_topk` for `"csa"`; the head size is `query_norm_weight`'s length and the
//! query width a multiple of it. The dense op's compressed-key growth under `"csa"` depends on
//! its buffer arithmetic and is left unknown; the packed op's state has a fixed shape.

use crate::model::dtype::elem;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The two indexer policies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Token indexer: raw keys, `token_budget` tokens from complete blocks.
    Qsa,
    /// Compressed block indexer: `index_topk` compressed entries.
    Csa,
}

/// The policy and `selected_indices`' capacity, with the attribute checks onnxruntime's
/// inference makes.
fn policy(ctx: &Ctx<'_>, op: &str) -> Result<(Policy, i64, i64), RuleError> {
    let unmet = |requires: &str, found: String| {
        Err(Constraint::new(format!("{op}'s {requires}"), found, &[]).unmet())
    };
    let ratio = ctx.int("compress_ratio", 0)?;
    if ratio <= 0 {
        return unmet("compress_ratio must be > 0", format!("it is {ratio}"));
    }
    match ctx.attrs().string("policy_mode")? {
        Some("qsa") => {
            let budget = ctx.int("token_budget", 0)?;
            if budget <= 0 || budget % ratio != 0 {
                return unmet(
                    "token_budget must be > 0 and divisible by compress_ratio under policy_mode 'qsa'",
                    format!("token_budget is {budget}, compress_ratio {ratio}"),
                );
            }
            let capacity = budget.checked_add(ratio - 1).unwrap_or(i64::MAX);
            Ok((Policy::Qsa, capacity, ratio))
        }
        Some("csa") => {
            let topk = ctx.int("index_topk", 0)?;
            if topk <= 0 {
                return unmet(
                    "index_topk must be > 0 under policy_mode 'csa'",
                    format!("it is {topk}"),
                );
            }
            Ok((Policy::Csa, topk, ratio))
        }
        other => unmet(
            "policy_mode must be 'qsa' or 'csa'",
            format!(
                "it is {}",
                other.map_or("absent".to_string(), |o| format!("'{o}'"))
            ),
        ),
    }
}

/// The head size (`query_norm_weight`'s length, which `key_norm_weight` shares) and the check
/// that the query width (`dims`' last) is a multiple of it.
fn head_size(
    ctx: &Ctx<'_>,
    op: &str,
    query: Option<&[Dim]>,
    pending: &mut Pending,
) -> Result<Dim, RuleError> {
    let requires = format!("{op}'s query_norm_weight must be 1-D (head_size)");
    let head = dim_at(exact(ctx.shape(2)?, 1, &requires, 2)?, 0);
    let requires =
        format!("{op}'s key_norm_weight must have query_norm_weight's shape (head_size)");
    same_shape(
        pending,
        ctx.shape(3)?,
        std::slice::from_ref(&head),
        &requires,
        &[2, 3],
    )?;
    let width = query.and_then(<[Dim]>::last);
    if let (Some(w), Some(h)) = (width.and_then(Dim::as_known), head.as_known()) {
        if h == 0 || w % h != 0 {
            let requires = format!("{op}'s query width must be divisible by head_size");
            return Err(Constraint::new(requires, format!("{w} vs {h}"), &[0, 2]).unmet());
        }
    }
    let requires = format!("{op}'s cos_cache and sin_cache must have the same shape");
    if let Some(cos) = ctx.shape(4)?.dims() {
        same_shape(pending, ctx.shape(5)?, cos, &requires, &[4, 5])?;
    }
    Ok(head)
}

/// `SparseAttentionIndexer(query, key, query_norm_weight, key_norm_weight, cos_cache,
/// sin_cache, mask, past_key, gate, position_bias, head_weights, position_ids,
/// past_sequence_length, past_proj_buffer)`: `selected_indices` `(B, S, capacity)`,
/// `present_key` (`qsa`: `(B, P + S, head_size)`, or `past_key`'s shape with
/// `past_sequence_length`), `present_proj_buffer` `(2, B, ?, 2 * head_size)`.
pub(crate) fn sparse_attention_indexer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "SparseAttentionIndexer";
    let (mode, capacity, _) = policy(ctx, OP)?;
    let query = ctx.required(0)?;
    let q = exact(
        query.shape,
        3,
        "SparseAttentionIndexer's query must be 3-D (batch_size, sequence_length, width)",
        0,
    )?;
    let mut pending = Pending::default();
    let head = head_size(ctx, OP, q, &mut pending)?;
    let (batch, seq) = (dim_at(q, 0), dim_at(q, 1));
    if mode == Policy::Csa && ctx.input(13).is_none() {
        let requires =
            "SparseAttentionIndexer's past_proj_buffer is required when policy_mode is 'csa'";
        return Err(Constraint::new(requires, "it is absent", &[]).unmet());
    }
    let requires =
        "SparseAttentionIndexer's past_key must be 3-D (batch_size, past_sequence_length, head_size)";
    let past = exact(ctx.shape(7)?, 3, requires, 7)?;
    if let Some(past) = past {
        equal(
            &mut pending,
            &dim_at(Some(past), 0),
            &batch,
            requires,
            "past_key's dim 0",
            &[0, 7],
        )?;
        equal(
            &mut pending,
            &dim_at(Some(past), 2),
            &head,
            requires,
            "past_key's dim 2",
            &[2, 7],
        )?;
    }
    let key_width = match mode {
        Policy::Qsa => head.clone(),
        Policy::Csa => head.mul(&Dim::known(2)),
    };
    if let (Some(key), true) = (ctx.input(1), q.is_some()) {
        let requires = "SparseAttentionIndexer's key must be (batch_size, sequence_length, head_size) under 'qsa', 2 * head_size under 'csa'";
        let want = [batch.clone(), seq.clone(), key_width.clone()];
        same_shape(&mut pending, key.shape, &want, requires, &[0, 1])?;
    }
    let selected = if q.is_some() {
        Shape::Ranked(vec![batch.clone(), seq.clone(), Dim::known(capacity)])
    } else {
        Shape::Unranked
    };
    let present = match (mode, past, ctx.input(12)) {
        (Policy::Qsa, Some(past), None) => Shape::Ranked(vec![
            batch.clone(),
            dim_at(Some(past), 1).add(&seq),
            head.clone(),
        ]),
        (_, Some(past), Some(_)) => Shape::Ranked(past.to_vec()),
        (Policy::Csa, Some(_), None) => {
            Shape::Ranked(vec![batch.clone(), Dim::Unknown, head.clone()])
        }
        (_, None, _) => Shape::Unranked,
    };
    let mut outputs = vec![
        Output::shape(selected).elem(Some(elem::INT32)),
        Output::shape(present).elem(query.elem),
    ];
    if ctx.node().outputs().len() > 2 {
        let buffer = Shape::Ranked(vec![Dim::known(2), batch, Dim::Unknown, key_width]);
        outputs.push(Output::shape(buffer).elem(query.elem));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// `PackedSparseAttentionIndexer(query, key, query_norm_weight, key_norm_weight, cos_cache,
/// sin_cache, cumulative_sequence_lengths, past_sequence_lengths, gate, position_bias,
/// head_weights, position_ids, past_key_state, past_kv_buffer, past_gate_buffer,
/// past_state_lengths, ...)`: `selected_indices` `(T, capacity)`, `selected_counts` `(T)`, the
/// present state the past's fixed shapes, `state_update` `(B, capacity, head_size)`.
pub(crate) fn packed_sparse_attention_indexer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "PackedSparseAttentionIndexer";
    let (_, capacity, ratio) = policy(ctx, OP)?;
    let query = ctx.required(0)?;
    let q = exact(
        query.shape,
        2,
        "PackedSparseAttentionIndexer's query must be 2-D (total_tokens, width)",
        0,
    )?;
    let mut pending = Pending::default();
    let head = head_size(ctx, OP, q, &mut pending)?;
    let tokens = dim_at(q, 0);
    let state_capacity = ctx.int("state_capacity", 0)?;
    if state_capacity <= 0 {
        let requires = "PackedSparseAttentionIndexer's state_capacity must be > 0";
        return Err(Constraint::new(requires, format!("it is {state_capacity}"), &[]).unmet());
    }
    let key_state = exact(
        ctx.shape(12)?,
        3,
        "PackedSparseAttentionIndexer's past_key_state must be 3-D (batch_size, state_capacity, head_size)",
        12,
    )?;
    let requires =
        "PackedSparseAttentionIndexer's past_key_state dimension 1 must equal state_capacity";
    let found = dim_at(key_state, 1);
    if key_state.is_some() {
        equal(
            &mut pending,
            &found,
            &Dim::known(state_capacity),
            requires,
            "past_key_state's dim 1",
            &[12],
        )?;
    }
    let buffer = exact(
        ctx.shape(13)?,
        3,
        "PackedSparseAttentionIndexer's past_kv_buffer must be 3-D (batch_size, 2 * compress_ratio - 1, width)",
        13,
    )?;
    if buffer.is_some() {
        let requires = "PackedSparseAttentionIndexer's past_kv_buffer dimension 1 must equal 2 * compress_ratio - 1";
        let want = Dim::known(ratio.saturating_mul(2).saturating_sub(1));
        equal(
            &mut pending,
            &dim_at(buffer, 1),
            &want,
            requires,
            "past_kv_buffer's dim 1",
            &[13],
        )?;
    }
    let ranked_if = |known: bool, dims: Vec<Dim>| {
        if known {
            Shape::Ranked(dims)
        } else {
            Shape::Unranked
        }
    };
    let same_as = |slot: usize| ctx.input(slot).map_or(Shape::Unranked, |i| i.shape.clone());
    let batch = dim_at(key_state, 0);
    let mut outputs = vec![
        Output::shape(ranked_if(
            q.is_some(),
            vec![tokens.clone(), Dim::known(capacity)],
        ))
        .elem(Some(elem::INT32)),
        Output::shape(ranked_if(q.is_some(), vec![tokens])).elem(Some(elem::INT32)),
        Output::shape(same_as(12)).elem(query.elem),
        Output::shape(same_as(13)).elem(query.elem),
    ];
    let count = ctx.node().outputs().len();
    if count > 4 {
        outputs.push(Output::shape(same_as(14)).elem(query.elem));
    }
    if count > 5 {
        outputs.push(Output::shape(same_as(15)).elem(Some(elem::INT32)));
    }
    if count > 6 {
        let update = ctx.int("state_update_capacity", 0)?;
        let shape = ranked_if(key_state.is_some(), vec![batch, Dim::known(update), head]);
        outputs.push(Output::shape(shape).elem(query.elem));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft, string_attr, Fact};
    use crate::proto::AttributeProto;

    // Shapes as onnxruntime 1.31's inference gives them (CUDA-only kernels).

    fn qsa(budget: i64, extra: Vec<AttributeProto>) -> Vec<AttributeProto> {
        let mut attrs = vec![
            string_attr("policy_mode", "qsa"),
            int_attr("compress_ratio", 4),
            int_attr("token_budget", budget),
        ];
        attrs.extend(extra);
        attrs
    }

    fn dense(
        q: &[&str],
        qn: &[&str],
        attrs: Vec<AttributeProto>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs: Vec<Option<Fact>> = vec![
            dims(q),
            dims(&["B", "S", "8"]),
            dims(qn),
            dims(qn),
            dims(&["64", "4"]),
            dims(&["64", "4"]),
            None,
            dims(&["B", "P", "8"]),
        ];
        run_microsoft("SparseAttentionIndexer", &inputs, attrs, 2)
    }

    #[test]
    fn dense_indexer_capacity_and_growing_key_cache() {
        let r = dense(&["B", "S", "32"], &["8"], qsa(8, vec![])).unwrap();
        assert_eq!(output_shapes(&r), ["[B, S, 11]", "[B, P+S, 8]"]);
    }

    #[test]
    fn dense_indexer_attributes_and_widths_are_checked() {
        // onnxruntime: "query width must be divisible by head_size", "policy_mode 'qsa'
        // requires token_budget > 0, divisible by compress_ratio".
        assert!(unmet(&dense(&["B", "S", "30"], &["8"], qsa(8, vec![]))));
        assert!(unmet(&dense(&["B", "S", "32"], &["8"], qsa(6, vec![]))));
        let csa = vec![
            string_attr("policy_mode", "csa"),
            int_attr("compress_ratio", 4),
            int_attr("index_topk", 3),
        ];
        // Under 'csa' the past_proj_buffer is required.
        assert!(unmet(&dense(&["B", "S", "32"], &["8"], csa)));
    }

    fn packed(
        q: &[&str],
        key_state: &[&str],
        buffer: &[&str],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs: Vec<Option<Fact>> = vec![
            dims(q),
            dims(&["T", "8"]),
            dims(&["8"]),
            dims(&["8"]),
            dims(&["64", "4"]),
            dims(&["64", "4"]),
            dims(&["3"]),
            dims(&["2"]),
            None,
            None,
            None,
            None,
            dims(key_state),
            dims(buffer),
            None,
            dims(&["2", "2"]),
        ];
        run_microsoft(
            "PackedSparseAttentionIndexer",
            &inputs,
            qsa(8, vec![int_attr("state_capacity", 6)]),
            6,
        )
    }

    #[test]
    fn packed_indexer_keeps_its_fixed_state() {
        let r = packed(&["T", "32"], &["2", "6", "8"], &["2", "7", "8"]).unwrap();
        assert_eq!(
            output_shapes(&r),
            [
                "[T, 11]",
                "[T]",
                "[2, 6, 8]",
                "[2, 7, 8]",
                "[...]",
                "[2, 2]"
            ]
        );
        // onnxruntime: "past_key_state dimension 1 must equal state_capacity (6), got 5",
        // "past_kv_buffer dimension 1 must equal 2 * compress_ratio - 1 (7), got 6".
        assert!(unmet(&packed(
            &["T", "32"],
            &["2", "5", "8"],
            &["2", "7", "8"]
        )));
        assert!(unmet(&packed(
            &["T", "32"],
            &["2", "6", "8"],
            &["2", "6", "8"]
        )));
        assert!(unmet(&packed(
            &["T", "30"],
            &["2", "6", "8"],
            &["2", "7", "8"]
        )));
    }
}
