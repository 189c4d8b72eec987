//! onnxruntime's gated delta-rule recurrence ops (com.microsoft) that the `GenAI` model builder
//! writes for Qwen3-Next / Qwen3.5-style linear attention: `GatedDeltaNet` (CUDA and WebGPU
//! only, so its rule follows the schema doc and onnxruntime's inference: output `(T, max(H_q,
//! H_v), d_v)`, `final_state` `(B, H_v, d_v, d_k)`) and its gate projection
//! `LinearAttentionGate` (CPU kernel: `dt_bias` and `decay_scale` have `H` elements, `b` has
//! `a`'s shape).

use crate::model::dtype::elem;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `GatedDeltaNet`'s sizes, read from its shapes.
struct Heads {
    /// The token axes: `(T)` or `(B, S)`; `None` when the query is unranked.
    tokens: Option<Vec<Dim>>,
    /// `num_heads_q` (= `num_heads_k`).
    query: Dim,
    /// `head_size_qk`.
    key_size: Dim,
    /// `num_heads_v`.
    value: Dim,
    /// `head_size_v`.
    value_size: Dim,
}

/// Dim `from_end` places before the end of `d`.
fn from_end(d: Option<&[Dim]>, back: usize) -> Dim {
    d.and_then(|d| d.len().checked_sub(back).and_then(|i| d.get(i)))
        .cloned()
        .unwrap_or(Dim::Unknown)
}

/// Packed QKV `(tokens..., 2 * H_q * d_k + H_v * d_v)`: `H_v`, `d_v`, `d_k` from the state.
fn packed_heads(q: Option<&[Dim]>, state: Option<&[Dim]>) -> Heads {
    let tokens = q.map(|q| {
        q.get(..q.len().saturating_sub(1))
            .unwrap_or_default()
            .to_vec()
    });
    let (value, value_size, key_size) = (dim_at(state, 1), dim_at(state, 2), dim_at(state, 3));
    let query = from_end(q, 1)
        .sub(&value.mul(&value_size))
        .div_exact(&key_size.mul(&Dim::known(2)));
    Heads {
        tokens,
        query,
        key_size,
        value,
        value_size,
    }
}

/// Separate query `(tokens..., H_q, d_k)`, key of the query's shape, value `(tokens..., H_v,
/// d_v)`.
fn separate_heads(
    ctx: &Ctx<'_>,
    q: Option<&[Dim]>,
    pending: &mut Pending,
) -> Result<Heads, RuleError> {
    let tokens = q.map(|q| {
        q.get(..q.len().saturating_sub(2))
            .unwrap_or_default()
            .to_vec()
    });
    if let Some(q) = q {
        let requires = "GatedDeltaNet's key must be (tokens, num_heads_q, head_size_qk): num_heads_k equals num_heads_q";
        same_shape(pending, ctx.shape(1)?, q, requires, &[0, 1])?;
    }
    let v = ctx.shape(2)?.dims();
    if let (Some(v), Some(tokens)) = (v, &tokens) {
        let requires = "GatedDeltaNet's value must have the query's token axes and rank";
        if v.len() != tokens.len() + 2 {
            let found = format!("it has rank {}", v.len());
            return Err(Constraint::new(requires, found, &[0, 2]).unmet());
        }
        for (axis, (f, e)) in v.iter().zip(tokens).enumerate() {
            equal(
                pending,
                f,
                e,
                requires,
                &format!("value's dim {axis}"),
                &[0, 2],
            )?;
        }
    }
    Ok(Heads {
        tokens,
        query: from_end(q, 2),
        key_size: from_end(q, 1),
        value: from_end(v, 2),
        value_size: from_end(v, 1),
    })
}

/// The per-token and per-head inputs: decay `(tokens, H_v[, d_k])`, beta `(tokens, H_v)`,
/// `a_log` and `dt_bias` `(H_v)`.
fn per_head_inputs(ctx: &Ctx<'_>, heads: &Heads, pending: &mut Pending) -> Result<(), RuleError> {
    if let Some(tokens) = &heads.tokens {
        let mut per_head = tokens.clone();
        per_head.push(heads.value.clone());
        if let Some(beta) = ctx.input(5) {
            let requires = "GatedDeltaNet's beta must be (tokens, num_heads_v)";
            same_shape(pending, beta.shape, &per_head, requires, &[0, 5])?;
        }
        if let Some(decay) = ctx.input(4) {
            let requires = "GatedDeltaNet's decay must be (tokens, num_heads_v) or (tokens, num_heads_v, head_size_qk)";
            let mut want = per_head.clone();
            if decay.shape.rank() == Some(per_head.len() + 1) {
                want.push(heads.key_size.clone());
            }
            same_shape(pending, decay.shape, &want, requires, &[0, 4])?;
        }
    }
    for (slot, name) in [(7, "a_log"), (8, "dt_bias")] {
        if let Some(input) = ctx.input(slot) {
            let requires = format!("GatedDeltaNet's {name} must be (num_heads_v)");
            let want = std::slice::from_ref(&heads.value);
            same_shape(pending, input.shape, want, &requires, &[slot])?;
        }
    }
    Ok(())
}

/// The state's agreement with the heads and `cu_seqlens` `(batch_size + 1)`.
fn state_checks(
    ctx: &Ctx<'_>,
    state: &[Dim],
    heads: &Heads,
    packed: bool,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    if !packed {
        let requires = "GatedDeltaNet's initial_state must be (batch_size, num_heads_v, head_size_v, head_size_qk)";
        for (axis, want) in [
            (1, &heads.value),
            (2, &heads.value_size),
            (3, &heads.key_size),
        ] {
            let found = dim_at(Some(state), axis);
            let what = format!("initial_state's dim {axis}");
            equal(pending, &found, want, requires, &what, &[0, 2, 6])?;
        }
    }
    if let Some(cu) = ctx.input(3) {
        let requires =
            "GatedDeltaNet's cu_seqlens must be (batch_size + 1), batch_size from initial_state";
        let batch = dim_at(Some(state), 0).add(&Dim::known(1));
        same_shape(
            pending,
            cu.shape,
            std::slice::from_ref(&batch),
            requires,
            &[3, 6],
        )?;
    }
    Ok(())
}

/// `GatedDeltaNet(query, key, value, cu_seqlens, decay, beta, initial_state, a_log, dt_bias,
/// capture_count, state_update_active)`: `output`, `final_state`, `state_update`. Head counts
/// and sizes come from the shapes: query `(T, H_q, d_k)`, key `(T, H_k, d_k)`, value `(T, H_v,
/// d_v)` (the token axis may be `(B, S)`), or packed QKV `(T, 2 * H_q * d_k + H_v * d_v)` whose
/// `H_v`, `d_v`, `d_k` come from `initial_state` `(B, H_v, d_v, d_k)`. The doc requires
/// `H_q = H_k` and `H_v` a multiple of `H_q`; decay `(T, H_v[, d_k])`, beta `(T, H_v)`.
pub(crate) fn gated_delta_net(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let query = ctx.required(0)?;
    let mut pending = Pending::default();
    let state = match ctx.input(6) {
        Some(s) => exact(
            s.shape,
            4,
            "GatedDeltaNet's initial_state must be 4-D (batch_size, num_heads_v, head_size_v, head_size_qk)",
            6,
        )?,
        None => None,
    };
    let capacity = ctx.int("state_update_capacity", 0)?;
    if !(0..=8).contains(&capacity) {
        let requires = "GatedDeltaNet's state_update_capacity must be in [0, 8]";
        return Err(Constraint::new(requires, format!("it is {capacity}"), &[]).unmet());
    }
    let q = query.shape.dims();
    let packed = ctx.input(1).is_none() && ctx.input(2).is_none();
    let ranks = if packed { 2..=3 } else { 3..=4 };
    if let Some(rank) = q.map(<[Dim]>::len).filter(|r| !ranks.contains(r)) {
        let requires = "GatedDeltaNet's query must be (T, num_heads_q, head_size_qk), (B, S, num_heads_q, head_size_qk), or packed QKV (T, width)";
        let found = format!("it has rank {rank}");
        return Err(Constraint::new(requires, found, &[0]).unmet());
    }
    let heads = if packed {
        packed_heads(q, state)
    } else {
        separate_heads(ctx, q, &mut pending)?
    };
    if let (Some(v), Some(h)) = (heads.value.as_known(), heads.query.as_known()) {
        if h == 0 || v == 0 || v % h != 0 {
            let requires = "GatedDeltaNet's num_heads_v must be a positive multiple of num_heads_q";
            let found = format!("num_heads_v is {v}, num_heads_q {h}");
            return Err(Constraint::new(requires, found, &[0, 2]).unmet());
        }
    }
    if let Some(state) = state {
        state_checks(ctx, state, &heads, packed, &mut pending)?;
    }
    per_head_inputs(ctx, &heads, &mut pending)?;
    let output = heads.tokens.clone().map_or(Shape::Unranked, |mut t| {
        t.push(heads.query.max(&heads.value));
        t.push(heads.value_size.clone());
        Shape::Ranked(t)
    });
    let float = Some(elem::FLOAT);
    let count = ctx.node().outputs().len();
    let mut outputs = vec![Output::shape(output).elem(query.elem)];
    if count > 1 {
        let final_state = state.map_or(Shape::Unranked, |s| Shape::Ranked(s.to_vec()));
        outputs.push(Output::shape(final_state).elem(float));
    }
    if count > 2 {
        // (B, C * (H_v + H_k * d_k + H_v * d_v)), with H_k = H_q.
        let per_token = heads
            .value
            .add(&heads.query.mul(&heads.key_size))
            .add(&heads.value.mul(&heads.value_size));
        let update = Shape::Ranked(vec![dim_at(state, 0), per_token.mul(&Dim::known(capacity))]);
        outputs.push(Output::shape(update).elem(float));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// `LinearAttentionGate(a, dt_bias, decay_scale, b)`: `decay` has `a`'s shape `(..., H)` and
/// `beta` `b`'s (which must be `a`'s); `dt_bias` and `decay_scale` hold `H` elements, and the
/// `beta` output needs `b`.
pub(crate) fn linear_attention_gate(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let heads = a
        .shape
        .dims()
        .and_then(<[Dim]>::last)
        .cloned()
        .unwrap_or(Dim::Unknown);
    let mut pending = Pending::default();
    for (slot, name) in [(1, "dt_bias"), (2, "decay_scale")] {
        let shape = ctx.shape(slot)?;
        if let Some(d) = shape.dims() {
            let count = d.iter().fold(Dim::known(1), |acc, d| acc.mul(d));
            let requires =
                format!("LinearAttentionGate's {name} must have num_heads (a's last dim) elements");
            equal(
                &mut pending,
                &count,
                &heads,
                &requires,
                &format!("{name}'s element count"),
                &[0, slot],
            )?;
        }
    }
    let beta_wanted = ctx.node().outputs().get(1).is_some_and(Option::is_some);
    let beta = match ctx.input(3) {
        Some(b) => {
            if let Some(a_dims) = a.shape.dims() {
                let requires = "LinearAttentionGate's b must have a's shape";
                same_shape(&mut pending, b.shape, a_dims, requires, &[0, 3])?;
            }
            Some(b)
        }
        None if beta_wanted => {
            let requires =
                "LinearAttentionGate's b input is required when the beta output is requested";
            return Err(Constraint::new(requires, "b is absent", &[]).unmet());
        }
        None => None,
    };
    let mut outputs = vec![Output::shape(a.shape.clone()).elem(a.elem)];
    if ctx.node().outputs().len() > 1 {
        outputs.push(beta.map_or_else(
            || Output::shape(Shape::Unranked),
            |b| Output::shape(b.shape.clone()).elem(b.elem),
        ));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft, Fact};

    // Shapes as onnxruntime 1.31's inference gives them (GatedDeltaNet: CUDA/WebGPU only) and
    // as its CPU kernel runs LinearAttentionGate.

    fn gdn(
        inputs: &[Option<Fact>],
        outputs: usize,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let attrs = vec![int_attr("state_update_capacity", 2)];
        run_microsoft("GatedDeltaNet", inputs, attrs, outputs)
    }

    fn unpacked(k: &[&str], v: &[&str], state: &[&str]) -> Vec<Option<Fact>> {
        vec![
            dims(&["T", "2", "8"]),
            dims(k),
            dims(v),
            dims(&["3"]),
            dims(&["T", "4"]),
            dims(&["T", "4"]),
            dims(state),
        ]
    }

    #[test]
    fn output_state_and_state_update_follow_the_heads() {
        let r = gdn(
            &unpacked(&["T", "2", "8"], &["T", "4", "6"], &["2", "4", "6", "8"]),
            3,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[T, 4, 6]", "[2, 4, 6, 8]", "[2, 88]"]);
        // Packed QKV (T, 2*2*8 + 4*6): the heads come from initial_state.
        let packed = [
            dims(&["T", "56"]),
            None,
            None,
            dims(&["3"]),
            None,
            None,
            dims(&["2", "4", "6", "8"]),
        ];
        assert_eq!(
            output_shapes(&gdn(&packed, 2).unwrap()),
            ["[T, 4, 6]", "[2, 4, 6, 8]"]
        );
        // The (B, S) spelling of the token axis.
        let rank4 = [
            dims(&["1", "S", "2", "8"]),
            dims(&["1", "S", "2", "8"]),
            dims(&["1", "S", "4", "6"]),
            None,
            dims(&["1", "S", "4"]),
        ];
        assert_eq!(output_shapes(&gdn(&rank4, 1).unwrap()), ["[1, S, 4, 6]"]);
    }

    #[test]
    fn head_counts_sizes_and_state_must_agree() {
        let state = ["2", "4", "6", "8"];
        assert!(unmet(&gdn(
            &unpacked(&["T", "1", "8"], &["T", "4", "6"], &state),
            2
        )));
        assert!(unmet(&gdn(
            &unpacked(&["T", "2", "7"], &["T", "4", "6"], &state),
            2
        )));
        assert!(unmet(&gdn(
            &unpacked(&["T", "2", "8"], &["T", "3", "6"], &["2", "3", "6", "8"]),
            2
        )));
        assert!(unmet(&gdn(
            &unpacked(&["T", "2", "8"], &["T", "4", "6"], &["2", "4", "8", "6"]),
            2
        )));
        assert!(unmet(&gdn(
            &unpacked(&["T", "2", "8"], &["T", "4", "6"], &["3", "4", "6", "8"]),
            2
        )));
        let w4 = gdn(&unpacked(&["U", "2", "8"], &["T", "4", "6"], &state), 2);
        assert_eq!(conditions(&w4), ["U = T"]);
    }

    fn gate(
        a: &[&str],
        dt: &[&str],
        b: Option<&[&str]>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs = [dims(a), dims(dt), dims(&["4"]), b.and_then(dims)];
        run_microsoft("LinearAttentionGate", &inputs, vec![], 2)
    }

    #[test]
    fn gate_outputs_keep_a_and_b_shapes() {
        let r = gate(&["B", "T", "4"], &["4"], Some(&["B", "T", "4"])).unwrap();
        assert_eq!(output_shapes(&r), ["[B, T, 4]", "[B, T, 4]"]);
        // onnxruntime counts dt_bias' elements: (1, 4) runs.
        assert!(gate(&["B", "T", "4"], &["1", "4"], None).is_ok());
    }

    #[test]
    fn gate_bias_counts_and_b_shape_are_required() {
        // onnxruntime: "dt_bias must have 4 elements, got 3", "b must have the same shape as a".
        assert!(unmet(&gate(&["B", "T", "4"], &["3"], None)));
        assert!(unmet(&gate(
            &["2", "5", "4"],
            &["4"],
            Some(&["1", "5", "4"])
        )));
    }
}
