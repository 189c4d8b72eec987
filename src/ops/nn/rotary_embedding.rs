//! The opset 23 attention helper `RotaryEmbedding-23`: Y has X's shape, X is 3-D
//! `(batch, seq, hidden)` with `num_heads` set, or 4-D `(batch, heads, seq, head_size)`, as its
//! doc and `onnx.shape_inference` state it; the caches and position ids are checked against X
//! in `attention_rotary.rs`.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::spec::missing_attr;
use crate::ops::{Ctx, Inferred, Output, RuleError};

/// `RotaryEmbedding-23(X, cos_cache, sin_cache, position_ids)`: Y is X's shape.
pub(crate) fn rotary_embedding_23(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    ctx.required(1)?;
    ctx.required(2)?;
    match x.shape.rank() {
        Some(3) if ctx.attrs().int("num_heads")?.is_none() => {
            return Err(missing_attr("RotaryEmbedding-23 with a 3-D X", "num_heads"));
        }
        Some(3 | 4) | None => {}
        Some(r) => {
            return Err(Constraint::new(
                "RotaryEmbedding's X must be 3-D (batch, seq, hidden) or 4-D (batch, heads, seq, head_size)",
                format!("X has rank {r}"),
                &[0],
            )
            .unmet())
        }
    }
    let mut pending = Pending::default();
    super::attention_rotary::requirements(ctx, &mut pending)?;
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn rotary_keeps_x_and_needs_heads_for_3_d() {
        // With position_ids (the caches are indexed by position, as the doc states).
        let caches = || [dims(&["64", "4"]), dims(&["64", "4"]), dims(&["b", "s"])];
        let [c, s, p] = caches();
        assert_eq!(
            shape(&run(
                "RotaryEmbedding",
                23,
                &[dims(&["b", "2", "s", "8"]), c, s, p],
                vec![]
            )),
            "[b, 2, s, 8]"
        );
        let [c, s, p] = caches();
        assert!(unmet(&run(
            "RotaryEmbedding",
            23,
            &[dims(&["b", "s", "16"]), c, s, p],
            vec![]
        )));
        let [c, s, p] = caches();
        assert_eq!(
            shape(&run(
                "RotaryEmbedding",
                23,
                &[dims(&["b", "s", "16"]), c, s, p],
                vec![int_attr("num_heads", 2)]
            )),
            "[b, s, 16]"
        );
    }

    // Each failing case is one onnxruntime 1.31 rejects with the message quoted and onnx's
    // strict inference accepts; each passing case runs there.
    fn rope(
        x: &[&str],
        c: &[&str],
        s: &[&str],
        p: Option<&[&str]>,
        attrs: Vec<crate::proto::AttributeProto>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let mut inputs = vec![dims(x), dims(c), dims(s)];
        if let Some(p) = p {
            inputs.push(dims(p));
        }
        run("RotaryEmbedding", 23, &inputs, attrs)
    }

    #[test]
    fn caches_and_position_ids_follow_x() {
        let x = ["2", "4", "5", "8"];
        let ok = |r: &Result<crate::ops::Inferred, crate::ops::RuleError>| {
            r.as_ref().is_ok_and(|i| i.constraints.is_empty())
        };
        assert!(ok(&rope(
            &x,
            &["2", "5", "4"],
            &["2", "5", "4"],
            None,
            vec![]
        )));
        assert!(ok(&rope(
            &x,
            &["10", "4"],
            &["10", "4"],
            Some(&["2", "5"]),
            vec![]
        )));
        let partial = || vec![int_attr("rotary_embedding_dim", 4)];
        assert!(ok(&rope(
            &x,
            &["2", "5", "2"],
            &["2", "5", "2"],
            None,
            partial()
        )));
        // "Input 'cos_cache' dimension 2 should be same as head_size / 2 or rotary_embedding_dim / 2"
        assert!(unmet(&rope(
            &x,
            &["2", "5", "3"],
            &["2", "5", "3"],
            None,
            vec![]
        )));
        // "Inputs 'cos_cache' and 'sin_cache' are expected to have the same shape"
        assert!(unmet(&rope(
            &x,
            &["2", "5", "4"],
            &["2", "5", "2"],
            None,
            vec![]
        )));
        // "... the same shape as input 'x', got 3 and 5" / "got 2 and 6"
        assert!(unmet(&rope(
            &x,
            &["3", "5", "4"],
            &["3", "5", "4"],
            None,
            vec![]
        )));
        assert!(unmet(&rope(
            &x,
            &["2", "6", "4"],
            &["2", "6", "4"],
            None,
            vec![]
        )));
        // "Input 'position_ids' dimension 1 should be of size sequence_length, got 6"
        assert!(unmet(&rope(
            &x,
            &["10", "4"],
            &["10", "4"],
            Some(&["2", "6"]),
            vec![]
        )));
        // "Input 'cos_cache' is expected to have 2 dimensions, got 3" and the converse.
        assert!(unmet(&rope(
            &x,
            &["2", "5", "4"],
            &["2", "5", "4"],
            Some(&["2", "5"]),
            vec![]
        )));
        assert!(unmet(&rope(&x, &["5", "4"], &["5", "4"], None, vec![])));
        // "rotary_embedding_dim must be less than or equal to head_size"
        let wide = vec![int_attr("rotary_embedding_dim", 12)];
        assert!(unmet(&rope(
            &x,
            &["2", "5", "6"],
            &["2", "5", "6"],
            None,
            wide
        )));
        // "RotaryEmbedding: hidden_size=30 must be divisible by num_heads=4 for rank-3 input"
        let heads = || vec![int_attr("num_heads", 4)];
        assert!(unmet(&rope(
            &["2", "5", "30"],
            &["2", "5", "4"],
            &["2", "5", "4"],
            None,
            heads()
        )));
        assert!(ok(&rope(
            &["2", "5", "32"],
            &["2", "5", "4"],
            &["2", "5", "4"],
            None,
            heads()
        )));
        // A sequence length the cache may not share is a condition (W4).
        let r = rope(
            &["b", "4", "s", "8"],
            &["b", "t", "4"],
            &["b", "t", "4"],
            None,
            vec![],
        );
        assert_eq!(r.unwrap().constraints.len(), 2);
    }
}
