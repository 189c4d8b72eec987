//! onnxruntime's `MoE` (com.microsoft): a mixture-of-experts block whose output has the input's
//! shape, `(tokens, hidden)` packed or `(batch, seq, hidden)` dense (ContribOperators.md).
//! `router_probs` is `(tokens, num_experts)` with one row per token, and every expert weight
//! leads with `num_experts`; onnxruntime's `moe_helper.h` checks each when the node runs
//! (`Input 'router_probs' is expected to have shape {6,4}`). The weights' inner layout is not
//! checked: onnxruntime accepts both the current `(E, inter, hidden)` and the older
//! `(E, hidden, inter)` fc1.

use crate::ops::constraint::Pending;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

/// `MoE(input, router_probs, fc1_experts_weights, fc1_experts_bias, fc2_experts_weights, ...)`:
/// Y has the input's shape.
pub(crate) fn moe(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    let tokens = match x.shape.dims() {
        Some([tokens, _]) => tokens.clone(),
        Some([batch, seq, _]) => batch.mul(seq),
        Some(d) => {
            return Err(crate::ops::constraint::Constraint::new(
                "MoE's input must be 2-D (tokens, hidden) or 3-D (batch, seq, hidden)",
                format!("it has rank {}", d.len()),
                &[0],
            )
            .unmet())
        }
        None => Dim::Unknown,
    };
    let router = exact(
        ctx.shape(1)?,
        2,
        "MoE's router_probs must be 2-D (tokens, num_experts)",
        1,
    )?;
    let requires = "MoE's router_probs must have one row per token of the input";
    equal(
        &mut pending,
        &dim_at(router, 0),
        &tokens,
        requires,
        "router_probs' dim 0",
        &[0, 1],
    )?;
    let experts = dim_at(router, 1);
    let weight = "must be 3-D (num_experts, ...)";
    for (slot, name) in [
        (2, "fc1_experts_weights"),
        (4, "fc2_experts_weights"),
        (6, "fc3_experts_weights"),
    ] {
        let Some(w) = ctx.input(slot) else { continue };
        let w = exact(w.shape, 3, &format!("MoE's {name} {weight}"), slot)?;
        let requires = format!("MoE's {name} must lead with num_experts (router_probs' dim 1)");
        equal(
            &mut pending,
            &dim_at(w, 0),
            &experts,
            &requires,
            &format!("{name}' dim 0"),
            &[1, slot],
        )?;
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft};

    // As onnxruntime 1.31 runs MoE (CPU, E = 4, hidden 8, inter 16, k = 2).

    fn moe(
        x: &[&str],
        router: &[&str],
        fc1: &[&str],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        run_microsoft(
            "MoE",
            &[
                dims(x),
                dims(router),
                dims(fc1),
                dims(&["4", "16"]),
                dims(&["4", "8", "16"]),
                dims(&["4", "8"]),
            ],
            vec![int_attr("k", 2)],
            1,
        )
    }

    #[test]
    fn output_is_the_input_shape_packed_or_dense() {
        assert_eq!(
            shape(&moe(&["2", "3", "8"], &["6", "4"], &["4", "16", "8"])),
            "[2, 3, 8]"
        );
        assert_eq!(
            shape(&moe(&["t", "8"], &["t", "4"], &["4", "16", "8"])),
            "[t, 8]"
        );
        // The older (E, hidden, inter) fc1 runs too.
        assert_eq!(
            shape(&moe(&["6", "8"], &["6", "4"], &["4", "8", "16"])),
            "[6, 8]"
        );
    }

    #[test]
    fn router_rows_and_expert_counts_must_agree() {
        assert!(unmet(&moe(&["6", "8"], &["5", "4"], &["4", "16", "8"])));
        assert!(unmet(&moe(&["6", "8"], &["6", "5"], &["4", "16", "8"])));
        assert!(unmet(&moe(&["6"], &["6", "4"], &["4", "16", "8"])));
        assert_eq!(
            conditions(&moe(&["b", "s", "8"], &["t", "4"], &["4", "16", "8"])),
            ["b*s = t"]
        );
    }
}
