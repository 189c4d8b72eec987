//! onnxruntime's block-cache attention ops (com.microsoft, CUDA only, so the rules follow
//! `PagedAttentionTypeAndShapeInference` in `bert_defs.cc`, which `SparsePagedAttention` shares
//! without the latent layout): `PagedAttention` and `SparsePagedAttention` on packed
//! `(num_tokens, hidden)` queries. The output is the query's shape, or
//! `(num_tokens, num_heads * head_size)` for packed QKV of `(num_heads + 2 * kv_num_heads) *
//! head_size` columns, or `num_heads * v_head_size` columns for `PagedAttention`'s `LATENT`
//! cache; the cache outputs alias the 4-D cache inputs.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

use super::heads::heads;

/// Which op of the family a registry row is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Paged {
    /// `PagedAttention`, with its `kv_cache_layout` attribute.
    Dense,
    /// `SparsePagedAttention`: selected-index attention over the same cache.
    Sparse,
}

impl Paged {
    fn op(self) -> &'static str {
        match self {
            Paged::Dense => "PagedAttention",
            Paged::Sparse => "SparsePagedAttention",
        }
    }
}

/// `PagedAttention(query, key, value, key_cache, value_cache, cumulative_sequence_length,
/// past_seqlens, block_table, ...)` and `SparsePagedAttention(query, key, value, key_cache,
/// value_cache, cumulative_sequence_length, past_seqlens, block_table, slot_mapping,
/// selected_indices, selected_counts, ...)`: `output`, `key_cache_out`, `value_cache_out`.
pub(crate) fn paged_attention(ctx: &Ctx<'_>, which: Paged) -> Result<Inferred, RuleError> {
    let op = which.op();
    let query = ctx.required(0)?;
    let num = heads(ctx, "num_heads")?;
    let latent = match ctx.attrs().string("kv_cache_layout")? {
        None | Some("SEPARATE") => false,
        Some("LATENT") if which == Paged::Dense => true,
        Some(other) => {
            let requires = format!("{op}'s kv_cache_layout must be 'SEPARATE' or 'LATENT'");
            return Err(Constraint::new(requires, format!("it is '{other}'"), &[]).unmet());
        }
    };
    let requires = format!("{op}'s query must be 2-D (num_tokens, hidden_size)");
    let q = exact(query.shape, 2, &requires, 0)?;
    let (tokens, hidden) = (dim_at(q, 0), dim_at(q, 1));
    let output = if q.is_none() {
        Shape::Unranked
    } else if latent {
        Shape::Ranked(vec![tokens, latent_width(ctx, op, &hidden, num)?])
    } else if ctx.input(2).is_some() {
        query.shape.clone()
    } else {
        let n_kv = ctx
            .attrs()
            .int("kv_num_heads")?
            .ok_or_else(|| crate::ops::spec::missing_attr(op, "kv_num_heads"))?;
        let columns = num.saturating_add(n_kv.saturating_mul(2));
        if let Some(h) = hidden
            .as_known()
            .filter(|h| columns > 0 && h % columns != 0)
        {
            let requires = format!(
                "{op}'s packed QKV hidden size must be divisible by (num_heads + 2 * kv_num_heads)"
            );
            let found = format!("{h} vs {columns}");
            return Err(Constraint::new(requires, found, &[0]).unmet());
        }
        let head = hidden.div_exact(&Dim::known(columns));
        Shape::Ranked(vec![tokens, head.mul(&Dim::known(num))])
    };
    let cache = |slot: usize| -> Result<Shape, RuleError> {
        let Some(c) = ctx.input(slot) else {
            return Ok(Shape::Unranked);
        };
        let requires = format!(
            "{op}'s block-based KV cache must be 4-D (num_blocks, block_size, kv_num_heads, head_size)"
        );
        exact(c.shape, 4, &requires, slot)?;
        Ok(c.shape.clone())
    };
    let (key_cache, value_cache) = (cache(3)?, cache(4)?);
    let mut pending = Pending::default();
    if let (Some(v), Some(k)) = (ctx.input(2), ctx.input(1).and_then(|k| k.shape.dims())) {
        let requires = format!("{op}'s value must have key's shape (num_tokens, kv_hidden_size)");
        same_shape(&mut pending, v.shape, k, &requires, &[1, 2])?;
    }
    if let (Shape::Ranked(k), Some(v)) = (&key_cache, ctx.input(4)) {
        let requires = format!("{op}'s value_cache must have key_cache's shape");
        same_shape(&mut pending, v.shape, k, &requires, &[3, 4])?;
    }
    let cache_elem = |slot: usize| ctx.input(slot).and_then(|i| i.elem);
    let mut outputs = vec![
        Output::shape(output).elem(query.elem),
        Output::shape(key_cache).elem(cache_elem(3)),
    ];
    if ctx.node().outputs().len() > 2 {
        outputs.push(Output::shape(value_cache).elem(cache_elem(4)));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// The `LATENT` cache's output width: the query's when `v_head_size` is unset, else
/// `num_heads * v_head_size` with `v_head_size` at most `hidden / num_heads`.
fn latent_width(ctx: &Ctx<'_>, op: &str, hidden: &Dim, num: i64) -> Result<Dim, RuleError> {
    let v_head = ctx.int("v_head_size", 0)?;
    if v_head == 0 {
        return Ok(hidden.clone());
    }
    if let Some(h) = hidden.as_known() {
        if h % num != 0 {
            let requires = format!("{op}'s query hidden size must be divisible by num_heads");
            return Err(Constraint::new(requires, format!("{h} vs {num}"), &[0]).unmet());
        }
        if v_head > h / num {
            let requires = format!("{op}'s v_head_size must not exceed head_size");
            let found = format!("v_head_size is {v_head}, head_size {}", h / num);
            return Err(Constraint::new(requires, found, &[0]).unmet());
        }
    }
    Ok(Dim::known(num.saturating_mul(v_head)))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft, string_attr};

    // As onnxruntime 1.31's shape inference gives them (CUDA-only kernels).

    fn paged(
        op: &str,
        q: &[&str],
        kv: Option<(&[&str], &[&str])>,
        cache: &[&str],
        value_cache: &[&str],
        extra: Vec<crate::proto::AttributeProto>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let mut attrs = vec![int_attr("num_heads", 4), int_attr("kv_num_heads", 2)];
        attrs.extend(extra);
        let (k, v) = kv.map_or((None, None), |(k, v)| (dims(k), dims(v)));
        let inputs = [
            dims(q),
            k,
            v,
            dims(cache),
            dims(value_cache),
            dims(&["3"]),
            dims(&["2"]),
            dims(&["2", "4"]),
        ];
        run_microsoft(op, &inputs, attrs, 3)
    }

    const CACHE: [&str; 4] = ["4", "16", "2", "8"];

    #[test]
    fn output_is_the_query_or_its_query_heads_of_packed_qkv() {
        for op in ["PagedAttention", "SparsePagedAttention"] {
            let kv: (&[&str], &[&str]) = (&["t", "16"], &["t", "16"]);
            let r = paged(op, &["t", "32"], Some(kv), &CACHE, &CACHE, vec![]).unwrap();
            assert_eq!(
                output_shapes(&r),
                ["[t, 32]", "[4, 16, 2, 8]", "[4, 16, 2, 8]"]
            );
            let packed = paged(op, &["t", "64"], None, &CACHE, &CACHE, vec![]).unwrap();
            assert_eq!(output_shapes(&packed)[0], "[t, 32]");
        }
    }

    #[test]
    fn latent_cache_outputs_num_heads_times_v_head_size() {
        let latent = || {
            vec![
                string_attr("kv_cache_layout", "LATENT"),
                int_attr("v_head_size", 6),
            ]
        };
        let r = paged(
            "PagedAttention",
            &["t", "32"],
            None,
            &CACHE,
            &CACHE,
            latent(),
        )
        .unwrap();
        assert_eq!(output_shapes(&r)[0], "[t, 24]");
        let mut wide = latent();
        wide[1] = int_attr("v_head_size", 9);
        assert!(unmet(&paged(
            "PagedAttention",
            &["t", "32"],
            None,
            &CACHE,
            &CACHE,
            wide
        )));
        // SparsePagedAttention has no latent layout.
        assert!(unmet(&paged(
            "SparsePagedAttention",
            &["t", "32"],
            None,
            &CACHE,
            &CACHE,
            latent()
        )));
    }

    #[test]
    fn ranks_packed_width_and_cache_shapes_are_required() {
        // onnxruntime: "Input 0 (query) shall be 2 dimensions", "Hidden size must be divisible
        // by (num_heads + 2 * kv_num_heads)", "The block-based KV cache inputs shall be 4
        // dimensions".
        for op in ["PagedAttention", "SparsePagedAttention"] {
            assert!(unmet(&paged(
                op,
                &["1", "t", "32"],
                None,
                &CACHE,
                &CACHE,
                vec![]
            )));
            assert!(unmet(&paged(
                op,
                &["t", "60"],
                None,
                &CACHE,
                &CACHE,
                vec![]
            )));
            assert!(unmet(&paged(
                op,
                &["t", "64"],
                None,
                &["4", "16", "16"],
                &CACHE,
                vec![]
            )));
            assert!(unmet(&paged(
                op,
                &["t", "64"],
                None,
                &CACHE,
                &["4", "16", "2", "4"],
                vec![]
            )));
            let kv: (&[&str], &[&str]) = (&["t", "16"], &["t", "8"]);
            assert!(unmet(&paged(
                op,
                &["t", "32"],
                Some(kv),
                &CACHE,
                &CACHE,
                vec![]
            )));
        }
    }
}
