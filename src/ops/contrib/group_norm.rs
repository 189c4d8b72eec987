//! onnxruntime's `GroupNorm` and `SkipGroupNorm` (the stable-diffusion optimizer's fusions,
//! `fusion_group_norm.py`, `fusion_skip_group_norm.py`): Y (and `SkipGroupNorm`'s S) have X's
//! shape; X is `(N, H, W, C)` with `channels_last` (the default, 1) or `(N, C, H, W)`; "The
//! `num_channels` must be divisible by `num_groups`"; gamma, beta and `SkipGroupNorm`'s bias have shape
//! `(C)`; its skip is `(N, H, W, C)`, `(N, 1, 1, C)` or `(N, C)` (ContribOperators.md).

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::per_channel::{self, Channels};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::equal;
use crate::ops::{spec, Ctx, Inferred, Input, Output, RuleError};
use crate::shape::condition::Atom;
use crate::shape::{Condition, Dim};

/// The checks both ops share; returns X.
fn common<'a>(
    ctx: &Ctx<'a>,
    op: &str,
    pending: &mut Pending,
) -> Result<(Input<'a>, Dim), RuleError> {
    let x = ctx.required(0)?;
    let groups = ctx
        .attrs()
        .int("groups")?
        .ok_or_else(|| spec::missing_attr(op, "groups"))?;
    if groups < 1 {
        return Err(Constraint::new(
            format!("{op}'s groups must be positive"),
            format!("groups is {groups}"),
            &[],
        )
        .unmet());
    }
    let dims = x.shape.dims();
    let c = if ctx.int("channels_last", 1)? == 0 {
        dim_at(dims, 1)
    } else {
        dims.and_then(<[Dim]>::last)
            .cloned()
            .unwrap_or(Dim::Unknown)
    };
    let requires = format!("{op}'s channels (C) must be divisible by groups");
    equal(
        pending,
        &c.modulo(&Dim::known(groups)),
        &Dim::known(0),
        &requires,
        &format!("C % {groups}"),
        &[0],
    )?;
    for (slot, what) in [(1, "gamma"), (2, "beta")] {
        ctx.required(slot)?;
        let channels = Channels {
            len: &c,
            name: "C",
            slot: 0,
        };
        per_channel::require(ctx, slot, what, channels, pending)?;
    }
    Ok((x, c))
}

/// `GroupNorm(X, gamma, beta)`.
pub(crate) fn group_norm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let mut pending = Pending::default();
    let (x, _) = common(ctx, "GroupNorm", &mut pending)?;
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

/// `SkipGroupNorm(X, gamma, beta, skip, bias)`: Y and S have X's shape.
pub(crate) fn skip_group_norm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "SkipGroupNorm";
    let mut pending = Pending::default();
    let (x, c) = common(ctx, OP, &mut pending)?;
    let skip = ctx.required(3)?;
    let channels = Channels {
        len: &c,
        name: "C",
        slot: 0,
    };
    per_channel::require(ctx, 4, "bias", channels, &mut pending)?;
    let channels_last = ctx.int("channels_last", 1)? != 0;
    if let (Some(xd), Some(sd), true) = (x.shape.dims(), skip.shape.dims(), channels_last) {
        let requires = format!("{OP}'s skip must be (N, H, W, C), (N, 1, 1, C) or (N, C)");
        let n = dim_at(Some(xd), 0);
        match sd {
            [sn, sc] => {
                equal(&mut pending, sn, &n, &requires, "skip's N", &[0, 3])?;
                equal(&mut pending, sc, &c, &requires, "skip's C", &[0, 3])?;
            }
            [sn, middle @ .., sc] if sd.len() == xd.len() => {
                equal(&mut pending, sn, &n, &requires, "skip's N", &[0, 3])?;
                equal(&mut pending, sc, &c, &requires, "skip's C", &[0, 3])?;
                for (axis, (s, full)) in middle.iter().zip(xd.iter().skip(1)).enumerate() {
                    if matches!(s, Dim::Unknown) || matches!(full, Dim::Unknown) {
                        continue;
                    }
                    let condition = Condition::any_of([
                        Atom::Eq(s.clone(), full.clone()),
                        Atom::IsOne(s.clone()),
                    ]);
                    pending.holds_if(&condition, || {
                        Constraint::new(
                            requires.clone(),
                            format!("skip's dim {} is {s}, X's {full}", axis + 1),
                            &[0, 3],
                        )
                    })?;
                }
            }
            _ => {
                return Err(Constraint::new(
                    requires,
                    format!("skip has rank {}, X {}", sd.len(), xd.len()),
                    &[0, 3],
                )
                .unmet());
            }
        }
    }
    let out = || Output::shape(x.shape.clone()).elem(x.elem);
    Ok(Inferred::many(vec![out(), out()]).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft};

    fn groups(n: i64) -> Vec<crate::proto::AttributeProto> {
        vec![int_attr("groups", n)]
    }

    #[test]
    fn group_norm_keeps_x_and_checks_channels() {
        let r = run_microsoft(
            "GroupNorm",
            &[dims(&["N", "H", "W", "32"]), dims(&["32"]), dims(&["32"])],
            groups(8),
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[N, H, W, 32]"]);
        assert!(unmet(&run_microsoft(
            "GroupNorm",
            &[dims(&["1", "4", "4", "30"]), dims(&["30"]), dims(&["30"])],
            groups(8),
            1
        )));
        assert!(unmet(&run_microsoft(
            "GroupNorm",
            &[dims(&["1", "4", "4", "32"]), dims(&["16"]), dims(&["32"])],
            groups(8),
            1
        )));
        let r = run_microsoft(
            "GroupNorm",
            &[dims(&["1", "4", "4", "c"]), dims(&["c"]), dims(&["c"])],
            groups(8),
            1,
        );
        assert_eq!(conditions(&r).len(), 1);
        assert!(unmet(&run_microsoft(
            "GroupNorm",
            &[dims(&["1", "4", "4", "32"]), dims(&["32"]), dims(&["32"])],
            vec![],
            1
        )));
    }

    #[test]
    fn skip_group_norm_takes_three_skip_forms() {
        let x = || dims(&["2", "4", "4", "32"]);
        let p = || dims(&["32"]);
        for skip in [
            ["2", "4", "4", "32"].as_slice(),
            &["2", "1", "1", "32"],
            &["2", "32"],
        ] {
            let r = run_microsoft(
                "SkipGroupNorm",
                &[x(), p(), p(), dims(skip), p()],
                groups(8),
                2,
            )
            .unwrap();
            assert_eq!(output_shapes(&r), ["[2, 4, 4, 32]"; 2]);
        }
        for skip in [
            ["2", "4", "4", "16"].as_slice(),
            &["2", "3", "4", "32"],
            &["2", "4", "32"],
        ] {
            assert!(
                unmet(&run_microsoft(
                    "SkipGroupNorm",
                    &[x(), p(), p(), dims(skip)],
                    groups(8),
                    2
                )),
                "{skip:?}"
            );
        }
    }
}
