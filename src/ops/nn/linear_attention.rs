//! `LinearAttention-27` (ONNX): linear attention over 3-D packed inputs. query is
//! `(B, T, H_q * d_k)`, key `(B, T, H_kv * d_k)`, value `(B, T, H_kv * d_v)`, past and present
//! state `(B, H_kv, d_k, d_v)`; decay is `(B, T, H_kv * d_k)` or `(B, T, H_kv)`, beta `(B, T,
//! H_kv)` or `(B, T, 1)`; the output is `(B, T, H_q * d_v)`. `onnx.shape_inference` checks each
//! of these (ranks, "Dimension mismatch in unification", "Packed query last dim (30) must be
//! divisible by `q_num_heads` (4)", "`q_num_heads` (3) must be a multiple of `kv_num_heads`
//! (2)", "`update_rule` `gated_delta` requires decay input", "`update_rule` 'gated' forbids beta
//! input"),
//! so each is an operator constraint here.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{spec, Ctx, Inferred, Input, Output, RuleError};
use crate::shape::condition::Atom;
use crate::shape::{Condition, Dim, Shape};

const OP: &str = "LinearAttention";

/// A required positive head-count attribute ("`q_num_heads` must be > 0").
fn heads(ctx: &Ctx<'_>, name: &str) -> Result<i64, RuleError> {
    let n = ctx
        .attrs()
        .int(name)?
        .ok_or_else(|| spec::missing_attr(OP, name))?;
    if n < 1 {
        return Err(Constraint::new(
            format!("{OP}'s {name} must be positive"),
            format!("{name} is {n}"),
            &[],
        )
        .unmet());
    }
    Ok(n)
}

/// The per-head size of a packed last dim `packed` of `heads` heads: the doc packs heads into the
/// last dim, so it must be a multiple of the head count (E4 when a known size is not, W4 on a
/// symbol). Unknown unless it divides exactly.
pub(crate) fn per_head(
    pending: &mut Pending,
    packed: &Dim,
    heads: i64,
    what: &str,
    slot: usize,
) -> Result<Dim, RuleError> {
    let n = Dim::known(heads);
    let requires = format!("{OP}'s packed {what} last dim must be divisible by its head count");
    equal(
        pending,
        &packed.modulo(&n),
        &Dim::known(0),
        &requires,
        &format!("{packed} % {heads}"),
        &[slot],
    )?;
    Ok(packed.div_exact(&n))
}

/// Which optional inputs an `update_rule` requires and forbids: decay for the gated rules, beta
/// for the delta rules.
fn needs(rule: &str) -> Result<(bool, bool), RuleError> {
    match rule {
        "linear" => Ok((false, false)),
        "gated" => Ok((true, false)),
        "delta" => Ok((false, true)),
        "gated_delta" => Ok((true, true)),
        other => Err(Constraint::new(
            format!("{OP}'s update_rule must be one of linear, gated, delta, gated_delta"),
            format!("update_rule is `{other}`"),
            &[],
        )
        .unmet()),
    }
}

/// The decay or beta input is present exactly when the update rule uses it.
fn presence(
    present: bool,
    needed: bool,
    rule: &str,
    what: &str,
    slot: usize,
) -> Result<(), RuleError> {
    if present == needed {
        return Ok(());
    }
    let (verb, fix) = if needed {
        ("requires", format!("give the {what} input"))
    } else {
        (
            "forbids",
            format!("drop the {what} input or change update_rule"),
        )
    };
    Err(Constraint::new(
        format!("{OP}'s update_rule `{rule}` {verb} the {what} input"),
        "",
        &[slot],
    )
    .fix(fix)
    .unmet())
}

/// A 3-D gate input `(B, T, last)` whose last dim must be one of `allowed`.
fn gate(
    pending: &mut Pending,
    input: Input<'_>,
    lead: [&Dim; 2],
    allowed: &[Dim],
    what: &str,
    slot: usize,
) -> Result<(), RuleError> {
    let requires = format!("{OP}'s {what} must be 3-D (B, T, ...) as the query");
    let Some(d) = exact(input.shape, 3, &requires, slot)? else {
        return Ok(());
    };
    for (axis, expected) in lead.into_iter().enumerate() {
        equal(
            pending,
            &dim_at(Some(d), axis),
            expected,
            &requires,
            &format!("dim {axis}"),
            &[0, slot],
        )?;
    }
    let last = dim_at(Some(d), 2);
    if matches!(last, Dim::Unknown) || allowed.iter().any(|a| matches!(a, Dim::Unknown)) {
        return Ok(());
    }
    let names: Vec<String> = allowed.iter().map(ToString::to_string).collect();
    let condition = Condition::any_of(allowed.iter().map(|a| Atom::Eq(last.clone(), a.clone())));
    pending.holds_if(&condition, || {
        Constraint::new(
            format!("{OP}'s {what} last dim must be one of {}", names.join(", ")),
            format!("it is {last}"),
            &[slot],
        )
    })
}

/// `LinearAttention-27(query, key, value, past_state, decay, beta)`: `output` is
/// `(B, T, H_q * d_v)`, `present_state` `(B, H_kv, d_k, d_v)`.
pub(crate) fn linear_attention_27(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let q_in = ctx.required(0)?;
    let q_heads = heads(ctx, "q_num_heads")?;
    let kv_heads = heads(ctx, "kv_num_heads")?;
    if q_heads % kv_heads != 0 {
        return Err(Constraint::new(
            format!("{OP}'s q_num_heads must be a multiple of kv_num_heads"),
            format!("q_num_heads is {q_heads}, kv_num_heads {kv_heads}"),
            &[],
        )
        .unmet());
    }
    let rule = ctx.attrs().string("update_rule")?.unwrap_or("gated_delta");
    let (needs_decay, needs_beta) = needs(rule)?;
    presence(ctx.input(4).is_some(), needs_decay, rule, "decay", 4)?;
    presence(ctx.input(5).is_some(), needs_beta, rule, "beta", 5)?;
    let rank3 = |slot: usize, what: &str| {
        let requires = format!("{OP}'s {what} must be 3-D (B, T, heads * head size)");
        ctx.shape(slot).and_then(|s| exact(s, 3, &requires, slot))
    };
    let q = rank3(0, "query")?;
    let k = rank3(1, "key")?;
    let v = rank3(2, "value")?;
    let (batch, seq) = (dim_at(q, 0), dim_at(q, 1));
    let mut pending = Pending::default();
    for (dims, slot, what) in [(k, 1, "key"), (v, 2, "value")] {
        let requires = format!("{OP}'s {what} must have the query's B and T");
        equal(
            &mut pending,
            &dim_at(dims, 0),
            &batch,
            &requires,
            "B",
            &[0, slot],
        )?;
        equal(
            &mut pending,
            &dim_at(dims, 1),
            &seq,
            &requires,
            "T",
            &[0, slot],
        )?;
    }
    let d_k = per_head(&mut pending, &dim_at(q, 2), q_heads, "query", 0)?;
    let key_d_k = per_head(&mut pending, &dim_at(k, 2), kv_heads, "key", 1)?;
    let requires = format!("{OP}'s query and key must have the same head size d_k");
    equal(
        &mut pending,
        &key_d_k,
        &d_k,
        &requires,
        "key's d_k",
        &[0, 1],
    )?;
    let d_k = if matches!(d_k, Dim::Unknown) {
        key_d_k
    } else {
        d_k
    };
    let d_v = per_head(&mut pending, &dim_at(v, 2), kv_heads, "value", 2)?;
    let h_kv = Dim::known(kv_heads);
    let state = vec![batch.clone(), h_kv.clone(), d_k.clone(), d_v.clone()];
    if let Some(past) = ctx.input(3) {
        let requires = format!("{OP}'s past_state must be (B, H_kv, d_k, d_v)");
        same_shape(&mut pending, past.shape, &state, &requires, &[0, 3])?;
    }
    if let Some(decay) = ctx.input(4) {
        let allowed = [h_kv.clone(), h_kv.mul(&d_k)];
        gate(&mut pending, decay, [&batch, &seq], &allowed, "decay", 4)?;
    }
    if let Some(beta) = ctx.input(5) {
        let allowed = [Dim::known(1), h_kv.clone()];
        gate(&mut pending, beta, [&batch, &seq], &allowed, "beta", 5)?;
    }
    let output = Shape::Ranked(vec![batch, seq, Dim::known(q_heads).mul(&d_v)]);
    Ok(Inferred::many(vec![
        Output::shape(output).elem(q_in.elem),
        Output::shape(Shape::Ranked(state)).elem(ctx.input(3).and_then(|p| p.elem).or(q_in.elem)),
    ])
    .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run_in, string_attr};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    fn attrs(rule: &str) -> Vec<crate::proto::AttributeProto> {
        vec![
            int_attr("q_num_heads", 4),
            int_attr("kv_num_heads", 2),
            string_attr("update_rule", rule),
        ]
    }

    fn run(
        inputs: &[Option<crate::ops::testing::Fact>],
        rule: &str,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        run_in("", "LinearAttention", 27, inputs, attrs(rule), 2)
    }

    #[test]
    fn output_and_state_unpack_the_heads() {
        let r = run(
            &[
                dims(&["B", "T", "32"]),
                dims(&["B", "T", "16"]),
                dims(&["B", "T", "24"]),
            ],
            "linear",
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[B, T, 48]", "[B, 2, 8, 12]"]);
        let r = run(
            &[
                dims(&["2", "5", "32"]),
                dims(&["2", "5", "16"]),
                dims(&["2", "5", "24"]),
                dims(&["2", "2", "8", "12"]),
                dims(&["2", "5", "2"]),
                dims(&["2", "5", "1"]),
            ],
            "gated_delta",
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[2, 5, 48]", "[2, 2, 8, 12]"]);
    }

    #[test]
    fn what_onnx_rejects_is_unmet() {
        let q = || dims(&["2", "5", "32"]);
        let k = || dims(&["2", "5", "16"]);
        let v = || dims(&["2", "5", "24"]);
        for (inputs, rule) in [
            (vec![q(), k(), v(), dims(&["2", "2", "8", "13"])], "linear"),
            (vec![q(), dims(&["2", "5", "18"]), v()], "linear"),
            (vec![q(), dims(&["3", "5", "16"]), v()], "linear"),
            (vec![dims(&["2", "5", "30"]), k(), v()], "linear"),
            (vec![q(), k(), dims(&["2", "5", "25"])], "linear"),
            (vec![q(), k(), v()], "gated_delta"),
            (vec![q(), k(), v(), None, dims(&["2", "5", "3"])], "gated"),
            (
                vec![
                    q(),
                    k(),
                    v(),
                    None,
                    dims(&["2", "5", "2"]),
                    dims(&["2", "5", "1"]),
                ],
                "gated",
            ),
            (
                vec![q(), k(), v(), None, None, dims(&["2", "4", "1"])],
                "delta",
            ),
            (vec![q(), k(), v()], "other"),
        ] {
            assert!(unmet(&run(&inputs, rule)), "{inputs:?} {rule}");
        }
        let odd = run_in(
            "",
            "LinearAttention",
            27,
            &[q(), k(), v()],
            vec![int_attr("q_num_heads", 3), int_attr("kv_num_heads", 2)],
            2,
        );
        assert!(unmet(&odd));
    }

    #[test]
    fn a_symbolic_packed_dim_must_divide() {
        let r = run(
            &[
                dims(&["2", "5", "q"]),
                dims(&["2", "5", "16"]),
                dims(&["2", "5", "24"]),
            ],
            "linear",
        );
        assert_eq!(
            output_shapes(r.as_ref().unwrap()),
            ["[2, 5, 48]", "[2, 2, 8, 12]"]
        );
        assert!(!conditions(&r).is_empty());
    }
}
