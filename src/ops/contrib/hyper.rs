//! onnxruntime's hyper-connection ops (com.microsoft, CPU kernels): `HyperConnectionPreMix`
//! reduces `C` residual streams `(..., C, H)` (or flattened `(..., C * H)` with `num_branches =
//! C`) to one `(..., H)` feature tensor, and `HyperConnectionPostMix` mixes them back, keeping
//! the streams' shape. Their gates have the streams' leading dims and a suffix `(C)`, `(C, 1)`
//! or `(C, H)` (`PreMix` on flattened streams also `(C * H)`), as onnxruntime's
//! `hyper_connection_helper.h` checks when the node runs. The stream layout is shared with
//! `BranchwiseRMSNorm`.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::ranks::{equal, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::condition::{Atom, Condition};
use crate::shape::{Dim, Shape};

/// Streams `(lead..., C, H)` read from a grouped or flattened input.
pub(super) struct Streams {
    /// The leading dims.
    pub(super) lead: Vec<Dim>,
    /// The branch count `C`.
    pub(super) branches: Dim,
    /// The feature size `H`.
    pub(super) features: Dim,
    /// Whether the input is flattened `(..., C * H)`.
    pub(super) flat: bool,
}

/// The stream layout of `shape` (input `slot` of `op`): `None` when unranked. Grouped streams
/// need rank 2; flattened ones a last dim divisible by `num_branches`.
pub(super) fn streams(
    ctx: &Ctx<'_>,
    op: &str,
    shape: &Shape,
) -> Result<Option<Streams>, RuleError> {
    let branches = ctx.int("num_branches", 0)?;
    if branches < 0 {
        let requires = format!("{op}'s num_branches must be non-negative");
        return Err(Constraint::new(requires, format!("it is {branches}"), &[]).unmet());
    }
    let Some(dims) = shape.dims() else {
        return Ok(None);
    };
    if branches > 0 {
        let Some((width, lead)) = dims.split_last() else {
            let requires = format!("{op}'s flattened streams must have rank at least 1");
            return Err(Constraint::new(requires, "it is a scalar", &[0]).unmet());
        };
        if let Some(w) = width.as_known().filter(|w| *w == 0 || w % branches != 0) {
            let requires = format!(
                "{op}'s flattened stream width must be positive and divisible by num_branches"
            );
            return Err(Constraint::new(requires, format!("{w} vs {branches}"), &[0]).unmet());
        }
        return Ok(Some(Streams {
            lead: lead.to_vec(),
            branches: Dim::known(branches),
            features: width.div_exact(&Dim::known(branches)),
            flat: true,
        }));
    }
    let [lead @ .., c, h] = dims else {
        let requires = format!("{op}'s grouped streams must have rank at least 2 (..., C, H)");
        return Err(Constraint::new(requires, format!("it has rank {}", dims.len()), &[0]).unmet());
    };
    Ok(Some(Streams {
        lead: lead.to_vec(),
        branches: c.clone(),
        features: h.clone(),
        flat: false,
    }))
}

/// Requires `found` to equal one of `options`: an error when it provably equals none, a W4
/// when it may; nothing when a side is unknown.
pub(super) fn one_of(
    pending: &mut Pending,
    found: &Dim,
    options: &[Dim],
    requires: &str,
    slots: &[usize],
) -> Result<(), RuleError> {
    if matches!(found, Dim::Unknown) || options.iter().any(|o| matches!(o, Dim::Unknown)) {
        return Ok(());
    }
    let listed = options
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    let condition = Condition::any_of(options.iter().map(|o| Atom::Eq(found.clone(), o.clone())));
    pending.holds_if(&condition, || {
        Constraint::new(requires, format!("{found}, {listed} expected"), slots)
    })
}

/// The gate of input `slot`: the streams' leading dims, then `(C)`, `(C, 1)` or `(C, H)` (and
/// `(C * H)` when `flat_whole` allows it).
fn gate(
    ctx: &Ctx<'_>,
    op: &str,
    slot: usize,
    s: &Streams,
    flat_whole: bool,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let Some(g) = ctx.shape(slot)?.dims() else {
        return Ok(());
    };
    let requires = format!(
        "{op}'s gate must have the streams' leading dims and a suffix (C), (C, 1) or (C, H)"
    );
    let (lead, suffix) = g.split_at(g.len().min(s.lead.len()));
    if !(1..=2).contains(&suffix.len()) {
        return Err(
            Constraint::new(requires, format!("it has rank {}", g.len()), &[0, slot]).unmet(),
        );
    }
    for (axis, (f, e)) in lead.iter().zip(&s.lead).enumerate() {
        equal(
            pending,
            f,
            e,
            &requires,
            &format!("gate's dim {axis}"),
            &[0, slot],
        )?;
    }
    match suffix {
        [c] => {
            let mut options = vec![s.branches.clone()];
            if flat_whole && s.flat {
                options.push(s.branches.mul(&s.features));
            }
            one_of(pending, c, &options, &requires, &[0, slot])
        }
        [c, h] => {
            equal(
                pending,
                c,
                &s.branches,
                &requires,
                "gate's branch dim",
                &[0, slot],
            )?;
            one_of(
                pending,
                h,
                &[Dim::known(1), s.features.clone()],
                &requires,
                &[0, slot],
            )
        }
        _ => Ok(()),
    }
}

/// `HyperConnectionPreMix(streams, pre_mix)`: output `(..., H)`.
pub(crate) fn pre_mix(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "HyperConnectionPreMix";
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    let output = match streams(ctx, OP, x.shape)? {
        Some(s) => {
            gate(ctx, OP, 1, &s, true, &mut pending)?;
            let mut dims = s.lead.clone();
            dims.push(s.features);
            Shape::Ranked(dims)
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(output).elem(x.elem)).with_conditions(pending.into_checks()))
}

/// `HyperConnectionPostMix(streams, block_output, post_mix, stream_mix)`: output has the
/// streams' shape; `block_output` is `(..., H)` and `stream_mix` `(..., C, C)`.
pub(crate) fn post_mix(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "HyperConnectionPostMix";
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    if let Some(s) = streams(ctx, OP, x.shape)? {
        let mut reduced = s.lead.clone();
        reduced.push(s.features.clone());
        let requires = "HyperConnectionPostMix's block_output must have shape (..., H)";
        same_shape(&mut pending, ctx.shape(1)?, &reduced, requires, &[0, 1])?;
        gate(ctx, OP, 2, &s, false, &mut pending)?;
        if let Some(mix) = ctx.input(3) {
            let mut want = s.lead.clone();
            want.extend([s.branches.clone(), s.branches.clone()]);
            let requires = "HyperConnectionPostMix's stream_mix must have shape (..., C, C)";
            same_shape(&mut pending, mix.shape, &want, requires, &[0, 3])?;
        }
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

    // As onnxruntime 1.31's CPU kernels run them (streams (2, 5, 4, 8): C = 4, H = 8).

    fn pre(
        x: &[&str],
        gate: &[&str],
        branches: i64,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let attrs = vec![int_attr("num_branches", branches)];
        run_microsoft("HyperConnectionPreMix", &[dims(x), dims(gate)], attrs, 1)
    }

    #[test]
    fn pre_mix_reduces_the_branch_axis() {
        let x = ["B", "S", "4", "8"];
        for gate in [
            &["B", "S", "4"][..],
            &["B", "S", "4", "1"],
            &["B", "S", "4", "8"],
        ] {
            assert_eq!(shape(&pre(&x, gate, 0)), "[B, S, 8]");
        }
        assert_eq!(
            shape(&pre(&["B", "S", "32"], &["B", "S", "32"], 4)),
            "[B, S, 8]"
        );
        assert_eq!(
            conditions(&pre(&["B", "S", "4", "8"], &["B", "S", "G"], 0)),
            ["G = 4"]
        );
    }

    #[test]
    fn pre_mix_gates_and_flat_widths_are_checked() {
        // onnxruntime: "gate must have suffix (C), (C, 1), or (C, H)", "gate leading dimensions
        // must match streams", "The flattened stream width must be divisible by num_branches".
        let x = ["2", "5", "4", "8"];
        assert!(unmet(&pre(&x, &["2", "5", "3"], 0)));
        assert!(unmet(&pre(&x, &["2", "5", "32"], 0)));
        assert!(unmet(&pre(&x, &["2", "5", "4", "2"], 0)));
        assert!(unmet(&pre(&x, &["1", "5", "4"], 0)));
        assert!(unmet(&pre(&x, &["4"], 0)));
        assert!(unmet(&pre(&["2", "5", "30"], &["2", "5", "4"], 4)));
        assert!(unmet(&pre(&["8"], &["4"], 0)));
    }

    fn post(
        block: &[&str],
        gate: &[&str],
        mix: Option<&[&str]>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs = [
            dims(&["2", "5", "4", "8"]),
            dims(block),
            dims(gate),
            mix.and_then(dims),
        ];
        run_microsoft("HyperConnectionPostMix", &inputs, vec![], 1)
    }

    #[test]
    fn post_mix_keeps_the_streams_and_checks_its_inputs() {
        assert_eq!(
            shape(&post(
                &["2", "5", "8"],
                &["2", "5", "4"],
                Some(&["2", "5", "4", "4"])
            )),
            "[2, 5, 4, 8]"
        );
        // onnxruntime: "block_output must have shape (..., H)", "stream_mix must have shape
        // (..., C, C)", "stream_mix leading dimensions must match streams".
        assert!(unmet(&post(&["2", "5", "7"], &["2", "5", "4"], None)));
        assert!(unmet(&post(&["1", "5", "8"], &["2", "5", "4"], None)));
        assert!(unmet(&post(&["2", "5", "8"], &["2", "5", "32"], None)));
        assert!(unmet(&post(
            &["2", "5", "8"],
            &["2", "5", "4"],
            Some(&["2", "5", "4", "3"])
        )));
        assert!(unmet(&post(
            &["2", "5", "8"],
            &["2", "5", "4"],
            Some(&["4", "4"])
        )));
    }
}
