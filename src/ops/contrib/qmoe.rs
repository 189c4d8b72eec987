//! onnxruntime's `QMoE` (com.microsoft): the quantized mixture-of-experts block of the `GenAI`
//! model builder. The output has the input's shape, `(tokens, hidden)` packed or
//! `(batch, seq, hidden)` dense; `router_probs` (and `router_weights`) is `(tokens, num_experts)`
//! and every expert tensor leads with `num_experts` (ContribOperators.md). onnxruntime's
//! `moe_helper.h` checks each when the node runs (`Input 'fc1_experts_weights' is expected to
//! have shape {4,16,4}`): for integer quantization fc1 is `(E, fusion * inter, hidden * bits / 8)`
//! and fc2 `(E, hidden, inter * bits / 8)`, where `fusion` is 2 for a fused `SwiGLU`; the scales
//! and biases have the weights' row count. The FP4/FP8 modes pack K differently and are checked
//! only where all modes agree (the leading `E`, fc2's `hidden` rows, the biases).

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

/// The expert tensors by slot: weights, scales, biases of fc1..fc3, then the zero points.
const EXPERT_SLOTS: [(usize, &str); 12] = [
    (2, "fc1_experts_weights"),
    (3, "fc1_scales"),
    (4, "fc1_experts_bias"),
    (5, "fc2_experts_weights"),
    (6, "fc2_scales"),
    (7, "fc2_experts_bias"),
    (8, "fc3_experts_weights"),
    (9, "fc3_scales"),
    (10, "fc3_experts_bias"),
    (11, "fc1_zero_points"),
    (12, "fc2_zero_points"),
    (13, "fc3_zero_points"),
];

/// `dim * bits / 8`, the packed byte width of `dim` values of `bits` bits.
fn packed(dim: &Dim, bits: i64) -> Dim {
    match bits {
        8 => dim.clone(),
        4 => dim.div_exact(&Dim::known(2)),
        2 => dim.div_exact(&Dim::known(4)),
        _ => Dim::Unknown,
    }
}

/// The logical width of a packed row of `bytes` bytes of `bits`-bit values.
fn unpacked(bytes: &Dim, bits: i64) -> Dim {
    match bits {
        8 | 4 | 2 => bytes.mul(&Dim::known(8 / bits)),
        _ => Dim::Unknown,
    }
}

/// Dim `axis` of input `slot`, unknown when absent or unranked.
fn dim_of(ctx: &Ctx<'_>, slot: usize, axis: usize) -> Dim {
    dim_at(ctx.input(slot).and_then(|i| i.shape.dims()), axis)
}

/// Requires dim `axis` of input `slot` (when present) to be `expected`.
fn require_dim(
    ctx: &Ctx<'_>,
    pending: &mut Pending,
    slot: usize,
    axis: usize,
    expected: &Dim,
    requires: &str,
    name: &str,
) -> Result<(), RuleError> {
    if ctx.input(slot).is_none() {
        return Ok(());
    }
    let found = dim_of(ctx, slot, axis);
    equal(
        pending,
        &found,
        expected,
        requires,
        &format!("{name}' dim {axis}"),
        &[slot],
    )
}

/// `QMoE(input, router_probs, fc1_experts_weights, fc1_scales, fc1_experts_bias,
/// fc2_experts_weights, fc2_scales, fc2_experts_bias, fc3..., zero points, router_weights, ...)`:
/// Y has the input's shape.
pub(crate) fn qmoe(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let (tokens, hidden) = match x.shape.dims() {
        Some([tokens, hidden]) => (tokens.clone(), hidden.clone()),
        Some([batch, seq, hidden]) => (batch.mul(seq), hidden.clone()),
        Some(d) => {
            return Err(Constraint::new(
                "QMoE's input must be 2-D (tokens, hidden) or 3-D (batch, seq, hidden)",
                format!("it has rank {}", d.len()),
                &[0],
            )
            .unmet())
        }
        None => (Dim::Unknown, Dim::Unknown),
    };
    let router = exact(
        ctx.shape(1)?,
        2,
        "QMoE's router_probs must be 2-D (tokens, num_experts)",
        1,
    )?;
    let mut pending = Pending::default();
    equal(
        &mut pending,
        &dim_at(router, 0),
        &tokens,
        "QMoE's router_probs must have one row per token of the input",
        "router_probs' dim 0",
        &[0, 1],
    )?;
    let experts = dim_at(router, 1);
    if let (Some(weights), Some(router)) = (ctx.input(14), router) {
        let requires = "QMoE's router_weights must have router_probs' shape";
        same_shape(&mut pending, weights.shape, router, requires, &[1, 14])?;
    }
    for (slot, name) in EXPERT_SLOTS {
        let Some(input) = ctx.input(slot) else {
            continue;
        };
        if input.shape.rank() == Some(0) {
            let requires = format!("QMoE's {name} must lead with num_experts");
            return Err(Constraint::new(requires, "it is a scalar", &[slot]).unmet());
        }
        let requires = format!("QMoE's {name} must lead with num_experts (router_probs' dim 1)");
        require_dim(ctx, &mut pending, slot, 0, &experts, &requires, name)?;
    }
    for (slot, name) in [(2, "fc1"), (5, "fc2"), (8, "fc3")] {
        if let Some(w) = ctx.input(slot) {
            let requires = format!("QMoE's {name}_experts_weights must be 3-D (num_experts, N, K)");
            exact(w.shape, 3, &requires, slot)?;
        }
    }
    let rows = "QMoE's fc2_experts_weights, fc2_scales and fc2_experts_bias must have hidden_size rows (the input's last dim)";
    require_dim(
        ctx,
        &mut pending,
        5,
        1,
        &hidden,
        rows,
        "fc2_experts_weights",
    )?;
    require_dim(ctx, &mut pending, 7, 1, &hidden, rows, "fc2_experts_bias")?;
    let fc1_rows = dim_of(ctx, 2, 1);
    let bias1 = "QMoE's fc1_experts_bias must have fc1_experts_weights' rows";
    require_dim(
        ctx,
        &mut pending,
        4,
        1,
        &fc1_rows,
        bias1,
        "fc1_experts_bias",
    )?;
    let bias3 = "QMoE's fc3_experts_bias must have fc3_experts_weights' rows";
    require_dim(
        ctx,
        &mut pending,
        10,
        1,
        &dim_of(ctx, 8, 1),
        bias3,
        "fc3_experts_bias",
    )?;
    let quant = ctx.attrs().string("quant_type")?.unwrap_or("int");
    if quant == "int" {
        integer_widths(ctx, &mut pending, &hidden)?;
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

/// Integer quantization's packed widths: fc1 `(E, fusion * inter, hidden * bits / 8)`, fc2
/// `(E, hidden, inter * bits / 8)` (giving `inter`), fc3 `(E, inter, hidden * bits / 8)`, and
/// the scales' rows those of their weights.
fn integer_widths(ctx: &Ctx<'_>, pending: &mut Pending, hidden: &Dim) -> Result<(), RuleError> {
    let bits = ctx.int("expert_weight_bits", 4)?;
    let bits_of = |attr: &str| ctx.int(attr, bits);
    let (bits1, bits2, bits3) = (
        bits_of("fc1_expert_weight_bits")?,
        bits_of("fc2_expert_weight_bits")?,
        bits_of("fc3_expert_weight_bits")?,
    );
    let swiglu = ctx.attrs().string("activation_type")? == Some("swiglu");
    let fusion = if swiglu && ctx.int("swiglu_fusion", 0)? != 0 {
        2
    } else {
        1
    };
    let inter = unpacked(&dim_of(ctx, 5, 2), bits2);
    let width = "QMoE's fc1/fc3 weights must be (num_experts, N, hidden_size * bits / 8)";
    require_dim(
        ctx,
        pending,
        2,
        2,
        &packed(hidden, bits1),
        width,
        "fc1_experts_weights",
    )?;
    require_dim(
        ctx,
        pending,
        8,
        2,
        &packed(hidden, bits3),
        width,
        "fc3_experts_weights",
    )?;
    let rows1 = "QMoE's fc1_experts_weights must have fusion_size * inter_size rows (inter_size from fc2_experts_weights)";
    let fc1_rows = inter.mul(&Dim::known(fusion));
    require_dim(ctx, pending, 2, 1, &fc1_rows, rows1, "fc1_experts_weights")?;
    let rows3 = "QMoE's fc3_experts_weights must have inter_size rows (from fc2_experts_weights)";
    require_dim(ctx, pending, 8, 1, &inter, rows3, "fc3_experts_weights")?;
    let scales = "QMoE's scales must have their weights' rows";
    require_dim(ctx, pending, 3, 1, &dim_of(ctx, 2, 1), scales, "fc1_scales")?;
    require_dim(ctx, pending, 6, 1, hidden, scales, "fc2_scales")?;
    require_dim(ctx, pending, 9, 1, &dim_of(ctx, 8, 1), scales, "fc3_scales")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft, string_attr, Fact};
    use crate::proto::AttributeProto;

    // As onnxruntime 1.31 runs QMoE (CPU, E = 4, hidden 8, inter 16, 4 bits, k = 2).

    fn qmoe(
        inputs: &[Option<Fact>],
        attrs: Vec<AttributeProto>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let mut attrs = attrs;
        attrs.push(int_attr("k", 2));
        run_microsoft("QMoE", inputs, attrs, 1)
    }

    fn base(x: &[&str], router: &[&str], fc1: &[&str], fc2: &[&str]) -> Vec<Option<Fact>> {
        vec![
            dims(x),
            dims(router),
            dims(fc1),
            dims(&["4", "16"]),
            None,
            dims(fc2),
            dims(&["4", "8"]),
        ]
    }

    #[test]
    fn output_is_the_input_shape_packed_or_dense() {
        let ok = qmoe(
            &base(
                &["6", "8"],
                &["6", "4"],
                &["4", "16", "4"],
                &["4", "8", "8"],
            ),
            vec![],
        );
        assert_eq!(shape(&ok), "[6, 8]");
        let dense = qmoe(
            &base(
                &["b", "s", "8"],
                &["t", "4"],
                &["4", "16", "4"],
                &["4", "8", "8"],
            ),
            vec![],
        );
        assert_eq!(shape(&dense), "[b, s, 8]");
        assert_eq!(conditions(&dense), ["b*s = t"]);
    }

    #[test]
    fn router_experts_and_packed_widths_must_agree() {
        // onnxruntime: "Input 'router_probs' is expected to have shape {6,4}, got {5,4}".
        let fc1 = ["4", "16", "4"];
        let fc2 = ["4", "8", "8"];
        assert!(unmet(&qmoe(
            &base(&["6", "8"], &["5", "4"], &fc1, &fc2),
            vec![]
        )));
        assert!(unmet(&qmoe(
            &base(&["6", "8"], &["6", "5"], &fc1, &fc2),
            vec![]
        )));
        assert!(unmet(&qmoe(
            &base(&["6", "8"], &["6", "4"], &["4", "16", "5"], &fc2),
            vec![]
        )));
        assert!(unmet(&qmoe(
            &base(&["6", "8"], &["6", "4"], &fc1, &["4", "9", "8"]),
            vec![]
        )));
        assert!(unmet(&qmoe(
            &base(&["6", "8"], &["6", "4"], &fc1, &["4", "8", "7"]),
            vec![]
        )));
        assert!(unmet(&qmoe(
            &base(&["1", "2", "3", "8"], &["6", "4"], &fc1, &fc2),
            vec![]
        )));
    }

    #[test]
    fn fused_swiglu_doubles_fc1_rows_and_8_bits_do_not_pack() {
        let swiglu = || {
            vec![
                string_attr("activation_type", "swiglu"),
                int_attr("swiglu_fusion", 1),
            ]
        };
        let mut fused = base(
            &["6", "8"],
            &["6", "4"],
            &["4", "32", "4"],
            &["4", "8", "8"],
        );
        fused[3] = dims(&["4", "32"]);
        assert_eq!(shape(&qmoe(&fused, swiglu())), "[6, 8]");
        assert!(unmet(&qmoe(
            &base(
                &["6", "8"],
                &["6", "4"],
                &["4", "16", "4"],
                &["4", "8", "8"]
            ),
            swiglu()
        )));
        let eight = base(
            &["6", "8"],
            &["6", "4"],
            &["4", "16", "8"],
            &["4", "8", "16"],
        );
        assert_eq!(
            shape(&qmoe(&eight, vec![int_attr("expert_weight_bits", 8)])),
            "[6, 8]"
        );
    }

    #[test]
    fn scales_biases_and_router_weights_follow_their_weights() {
        let fc1 = ["4", "16", "4"];
        let fc2 = ["4", "8", "8"];
        let mut bad_scale = base(&["6", "8"], &["6", "4"], &fc1, &fc2);
        bad_scale[3] = dims(&["4", "15"]);
        assert!(unmet(&qmoe(&bad_scale, vec![])));
        let mut bad_bias = base(&["6", "8"], &["6", "4"], &fc1, &fc2);
        bad_bias.push(dims(&["4", "7"]));
        assert!(unmet(&qmoe(&bad_bias, vec![])));
        let mut bad_weights = base(&["6", "8"], &["6", "4"], &fc1, &fc2);
        bad_weights.extend([None, None, None, None, None, None, None, dims(&["6", "3"])]);
        assert!(unmet(&qmoe(&bad_weights, vec![])));
    }
}
