//! onnxruntime's rotary-embedding variants (com.microsoft): `GemmaRotaryEmbedding` (CUDA only:
//! the rule follows the schema doc, whose onnxscript body computes `q * cos + q_rot * sin` and
//! `k * cos + k_rot * sin` on `(batch, num_heads, seq, dim)` states with the `(batch, seq, dim)`
//! embedding unsqueezed at axis 1) and `MRotaryEmbedding` (CPU kernel, Qwen-VL's multimodal
//! `RoPE`: `position_ids` `(3, batch, seq)`, caches `(max_seq, rotary_dim / 2)` split by
//! `mrope_section` into three parts summing to `rotary_dim / 2`). Outputs keep the inputs'
//! shapes.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

/// `GemmaRotaryEmbedding(emb, q, q_rot, k, k_rot)`: `output1` has q's shape and `output2` k's.
/// `q_rot` must have q's shape and `k_rot` k's; `emb` is `(batch, seq, dim)` of q.
pub(crate) fn gemma_rotary_embedding(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let q = ctx.required(1)?;
    let k = ctx.required(3)?;
    let mut pending = Pending::default();
    let state = "GemmaRotaryEmbedding's q, q_rot, k and k_rot must be 4-D (batch_size, num_heads, seq_len, dim)";
    let q_dims = exact(q.shape, 4, state, 1)?;
    let k_dims = exact(k.shape, 4, state, 3)?;
    for (slot, of, dims) in [(2, 1, q_dims), (4, 3, k_dims)] {
        let Some(dims) = dims else { continue };
        let requires = if of == 1 {
            "GemmaRotaryEmbedding's q_rot must have q's shape"
        } else {
            "GemmaRotaryEmbedding's k_rot must have k's shape"
        };
        same_shape(&mut pending, ctx.shape(slot)?, dims, requires, &[of, slot])?;
    }
    if let Some(q_dims) = q_dims {
        let requires = "GemmaRotaryEmbedding's emb must be (batch_size, seq_len, dim) of q";
        let want = [
            dim_at(Some(q_dims), 0),
            dim_at(Some(q_dims), 2),
            dim_at(Some(q_dims), 3),
        ];
        same_shape(&mut pending, ctx.shape(0)?, &want, requires, &[0, 1])?;
    }
    Ok(Inferred::many(vec![
        Output::shape(q.shape.clone()).elem(q.elem),
        Output::shape(k.shape.clone()).elem(k.elem),
    ])
    .with_conditions(pending.into_checks()))
}

const MROPE: &str = "MRotaryEmbedding";

fn mrope_unmet(requires: &str, found: String, slots: &[usize]) -> RuleError {
    Constraint::new(format!("{MROPE}'s {requires}"), found, slots).unmet()
}

/// `MRotaryEmbedding(input, position_ids, cos_cache, sin_cache)`: output has the input's shape,
/// `(batch, seq, hidden)` with `num_heads` heads or `(batch, num_heads, seq, head_size)`.
pub(crate) fn m_rotary_embedding(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let num = ctx.int("num_heads", 0)?;
    let rotary = ctx.int("rotary_embedding_dim", 0)?;
    let section = ctx.attrs().ints("mrope_section")?.unwrap_or_default();
    let [temporal, height, width] = section else {
        let found = format!("it has {} elements", section.len());
        return Err(mrope_unmet(
            "mrope_section must have exactly 3 elements",
            found,
            &[],
        ));
    };
    if rotary > 0 && num <= 0 {
        let found = format!("rotary_embedding_dim is {rotary}, num_heads {num}");
        return Err(mrope_unmet(
            "num_heads must be provided if rotary_embedding_dim is",
            found,
            &[],
        ));
    }
    let (batch, seq, head) = match x.shape.dims() {
        Some([b, s, hidden]) => {
            if num <= 0 {
                let found = format!("num_heads is {num}");
                return Err(mrope_unmet(
                    "num_heads must be greater than 0 for a 3-D input",
                    found,
                    &[0],
                ));
            }
            if let Some(hid) = hidden.as_known().filter(|hid| hid % num != 0) {
                let found = format!("{hid} vs {num} heads");
                return Err(mrope_unmet(
                    "hidden size must be divisible by num_heads",
                    found,
                    &[0],
                ));
            }
            (b.clone(), s.clone(), hidden.div_exact(&Dim::known(num)))
        }
        Some([b, _, s, head]) => (b.clone(), s.clone(), head.clone()),
        Some(d) => {
            let found = format!("it has rank {}", d.len());
            return Err(mrope_unmet(
                "input must be 3-D (batch, seq, hidden) or 4-D (batch, heads, seq, head_size)",
                found,
                &[0],
            ));
        }
        None => (Dim::Unknown, Dim::Unknown, Dim::Unknown),
    };
    let mut pending = Pending::default();
    if ctx.int("is_packed_batching", 0)? == 0 {
        let requires = "MRotaryEmbedding's position_ids must be (3, batch_size, sequence_length)";
        let want = [Dim::known(3), batch, seq];
        same_shape(&mut pending, ctx.shape(1)?, &want, requires, &[0, 1])?;
    }
    let cos = exact(
        ctx.shape(2)?,
        2,
        "MRotaryEmbedding's cos_cache must be 2-D (max_sequence_length, rotary_dim / 2)",
        2,
    )?;
    if let Some(cos) = cos {
        let requires = "MRotaryEmbedding's cos_cache and sin_cache must have the same shape";
        same_shape(&mut pending, ctx.shape(3)?, cos, requires, &[2, 3])?;
    }
    let half = if rotary > 0 {
        Dim::known(rotary / 2)
    } else {
        head.div_exact(&Dim::known(2))
    };
    let requires = "MRotaryEmbedding's cos_cache must have rotary_embedding_dim / 2 (or head_size / 2) columns";
    equal(
        &mut pending,
        &dim_at(cos, 1),
        &half,
        requires,
        "cos_cache's dim 1",
        &[0, 2],
    )?;
    let sum = temporal.saturating_add(*height).saturating_add(*width);
    let requires =
        "MRotaryEmbedding's mrope_section must sum to rotary_embedding_dim / 2 (or head_size / 2)";
    equal(
        &mut pending,
        &Dim::known(sum),
        &half,
        requires,
        "the sections' sum",
        &[0, 2],
    )?;
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints_attr, output_shapes, run_microsoft};

    fn gemma(q_rot: &[&str], emb: &[&str]) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let q = ["B", "4", "S", "8"];
        let k = ["B", "2", "S", "8"];
        let inputs = [dims(emb), dims(&q), dims(q_rot), dims(&k), dims(&k)];
        run_microsoft("GemmaRotaryEmbedding", &inputs, vec![], 2)
    }

    #[test]
    fn gemma_outputs_keep_q_and_k_and_rotated_states_must_match() {
        let r = gemma(&["B", "4", "S", "8"], &["B", "S", "8"]).unwrap();
        assert_eq!(output_shapes(&r), ["[B, 4, S, 8]", "[B, 2, S, 8]"]);
        assert!(unmet(&gemma(&["B", "4", "S", "7"], &["B", "S", "8"])));
        assert!(unmet(&gemma(&["B", "4", "S", "8"], &["B", "S", "7"])));
    }

    fn mrope(
        x: &[&str],
        pos: &[&str],
        cos: &[&str],
        attrs: Vec<crate::proto::AttributeProto>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs = [dims(x), dims(pos), dims(cos), dims(cos)];
        run_microsoft("MRotaryEmbedding", &inputs, attrs, 1)
    }

    fn attrs(section: &[i64], heads: i64) -> Vec<crate::proto::AttributeProto> {
        vec![
            ints_attr("mrope_section", section),
            int_attr("num_heads", heads),
        ]
    }

    // As onnxruntime 1.31's CPU kernel runs MRotaryEmbedding.

    #[test]
    fn mrope_keeps_the_input_shape() {
        let r = mrope(
            &["B", "S", "32"],
            &["3", "B", "S"],
            &["M", "4"],
            attrs(&[2, 1, 1], 4),
        );
        assert_eq!(shape(&r), "[B, S, 32]");
        let four = mrope(
            &["B", "4", "S", "8"],
            &["3", "B", "S"],
            &["M", "4"],
            attrs(&[2, 1, 1], 0),
        );
        assert_eq!(shape(&four), "[B, 4, S, 8]");
        let w4 = mrope(
            &["B", "S", "32"],
            &["3", "B", "P"],
            &["M", "4"],
            attrs(&[2, 1, 1], 4),
        );
        assert_eq!(conditions(&w4), ["S = P"]);
    }

    #[test]
    fn mrope_sections_heads_positions_and_caches_must_agree() {
        // onnxruntime: "sum of 'mrope_section' (5) must equal rotary_embedding_dim / 2 (4)",
        // "hidden_size=30 must be divisible by num_heads=4", "'position_ids' is expected to
        // have shape (3, batch_size, sequence_length)", "num_heads must be greater than 0".
        let x = ["2", "5", "32"];
        let pos = ["3", "2", "5"];
        assert!(unmet(&mrope(&x, &pos, &["16", "4"], attrs(&[2, 1, 2], 4))));
        assert!(unmet(&mrope(&x, &pos, &["16", "4"], attrs(&[2, 2], 4))));
        assert!(unmet(&mrope(
            &["2", "5", "30"],
            &pos,
            &["16", "4"],
            attrs(&[2, 1, 1], 4)
        )));
        assert!(unmet(&mrope(
            &x,
            &["2", "2", "5"],
            &["16", "4"],
            attrs(&[2, 1, 1], 4)
        )));
        assert!(unmet(&mrope(&x, &pos, &["16", "3"], attrs(&[2, 1, 1], 4))));
        assert!(unmet(&mrope(&x, &pos, &["16", "4"], attrs(&[2, 1, 1], 0))));
    }
}
