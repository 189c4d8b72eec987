//! The opset 23 attention helper `RotaryEmbedding-23`: Y has X's shape, X is 3-D
//! `(batch, seq, hidden)` with `num_heads` set, or 4-D `(batch, heads, seq, head_size)`, as its
//! doc and `onnx.shape_inference` state it.

use crate::ops::constraint::Constraint;
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
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(x.elem),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn rotary_keeps_x_and_needs_heads_for_3_d() {
        let caches = || [dims(&["64", "4"]), dims(&["64", "4"])];
        let [c, s] = caches();
        assert_eq!(
            shape(&run(
                "RotaryEmbedding",
                23,
                &[dims(&["b", "2", "s", "8"]), c, s],
                vec![]
            )),
            "[b, 2, s, 8]"
        );
        let [c, s] = caches();
        assert!(unmet(&run(
            "RotaryEmbedding",
            23,
            &[dims(&["b", "s", "16"]), c, s],
            vec![]
        )));
        let [c, s] = caches();
        assert_eq!(
            shape(&run(
                "RotaryEmbedding",
                23,
                &[dims(&["b", "s", "16"]), c, s],
                vec![int_attr("num_heads", 2)]
            )),
            "[b, s, 16]"
        );
    }
}
