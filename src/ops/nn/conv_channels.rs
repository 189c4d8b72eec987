//! The channel and kernel constraints of the convolutions (ONNX Conv-1/11/22, ConvTranspose-1/
//! 11/22, ConvInteger-10, QLinearConv-10 docs): W has one spatial axis per spatial axis of X,
//! `kernel_shape` (when given) is W's spatial shape, X's channels match W's for the `group`, and
//! the bias has one entry per output channel (`per_channel.rs`).
//!
//! `onnx.shape_inference` (run by onnxruntime when it creates the session) rejects the rank
//! faults (`Number of spatial dimensions in the weight tensor (1) does not match the number of
//! spatial dimensions in the input tensor (2)`, `Attribute kernel_shape has incorrect size`);
//! onnxruntime's conv checks reject the others when the node runs, whatever the values (`Input
//! channels C is not equal to kernel channels * group`, `Output channels M is not divisible by
//! group`, `kernel_shape is not compatible with W shape`, `filter number not equal to input
//! channel number`).

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::overflow::sized;
use crate::ops::{Ctx, RuleError};
use crate::shape::Dim;

/// The X and W of one convolution node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Operands<'a> {
    /// X's dims, when ranked.
    pub(crate) x: Option<&'a [Dim]>,
    /// W's dims, when ranked.
    pub(crate) w: Option<&'a [Dim]>,
    /// W's input slot (3 for `QLinearConv`).
    pub(crate) w_slot: usize,
}

impl Operands<'_> {
    fn x_dim(&self, i: usize) -> Dim {
        self.x
            .and_then(|d| d.get(i))
            .cloned()
            .unwrap_or(Dim::Unknown)
    }

    fn w_dim(&self, i: usize) -> Dim {
        self.w
            .and_then(|d| d.get(i))
            .cloned()
            .unwrap_or(Dim::Unknown)
    }
}

/// The `group` attribute, which the docs define as a number of groups: 1 or more.
pub(crate) fn group(ctx: &Ctx<'_>) -> Result<i64, RuleError> {
    let group = ctx.int("group", 1)?;
    if group < 1 {
        return Err(Constraint::new(
            "group (the number of groups input channels and output channels are divided into) must be 1 or more",
            format!("group is {group}"),
            &[],
        )
        .fix("use group=1 for a dense convolution")
        .unmet());
    }
    Ok(group)
}

/// W's rank is X's (`M x C/group x k1 x ... x kn` against `N x C x D1 x ... x Dn`) and
/// `kernel_shape`, when given, has one entry per spatial axis and equals W's spatial dims.
pub(crate) fn kernel(
    ctx: &Ctx<'_>,
    ops: &Operands<'_>,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let op = ctx.node().op_type().as_str();
    let w_slot = ops.w_slot;
    if let Some(w) = ops.w {
        let x_rank = ops.x.map(<[Dim]>::len);
        if w.len() < 3 || x_rank.is_some_and(|r| r != w.len()) {
            let x_says =
                x_rank.map_or_else(String::new, |r| format!(", X has {}", r.saturating_sub(2)));
            return Err(Constraint::new(
                format!("{op}'s W must have one spatial dim per spatial dim of X (W is (M x C/group x k1 x ... x kn), X is (N x C x D1 x ... x Dn))"),
                format!("W has {} spatial dims{x_says}", w.len().saturating_sub(2)),
                &[0, w_slot],
            )
            .fix("re-export the weight for the input's spatial rank, or Reshape/Unsqueeze X")
            .unmet());
        }
    }
    let Some(kernel) = ctx.attrs().ints("kernel_shape")? else {
        return Ok(());
    };
    let spatial = ops.x.or(ops.w).map(|d| d.len().saturating_sub(2));
    if let Some(n) = spatial.filter(|&n| n != kernel.len()) {
        return Err(Constraint::new(
            format!("{op}'s kernel_shape must have one entry per spatial axis"),
            format!(
                "kernel_shape has {} entries for {n} spatial axes",
                kernel.len()
            ),
            &[0],
        )
        .fix("drop kernel_shape: it is read from W")
        .unmet());
    }
    for (i, &k) in kernel.iter().enumerate() {
        let found = ops.w_dim(i.saturating_add(2));
        pending.equal(&Dim::known(k), &found, || {
            Constraint::new(
                format!("{op}'s kernel_shape must be W's spatial shape"),
                format!("kernel_shape is {kernel:?}, W's spatial dim {i} is {found}"),
                &[w_slot],
            )
            .fix("drop kernel_shape: it is read from W")
        })?;
    }
    Ok(())
}

/// `Conv`, `ConvInteger`, `QLinearConv`: X's channels are `W.shape[1] * group`, and W's output
/// channels M are a multiple of `group`.
pub(crate) fn conv(ops: &Operands<'_>, group: i64, pending: &mut Pending) -> Result<(), RuleError> {
    let c = ops.x_dim(1);
    let per_group = ops.w_dim(1);
    let wanted = sized("W's dim 1 (C/group) times group", &[ops.w_slot])
        .mul(&per_group, &Dim::known(group))?;
    pending.equal(&c, &wanted, || {
        Constraint::new(
            "X's channels (C) must equal W's dim 1 (C/group) times group",
            format!("C is {c}, W's dim 1 is {per_group}, group is {group}"),
            &[0, ops.w_slot],
        )
        .fix(if group == 1 {
            "check that X is NCHW (not NHWC) and that W is (M, C, k...)".to_owned()
        } else {
            format!(
                "W's dim 1 must be C/group = {}",
                c.floor_div(&Dim::known(group))
            )
        })
    })?;
    if let Some(m) = ops.w_dim(0).as_known() {
        if m.checked_rem(group).is_some_and(|r| r != 0) {
            return Err(Constraint::new(
                "W's output channels (M) must be divisible by group",
                format!("M is {m}, group is {group}"),
                &[ops.w_slot],
            )
            .fix("use a group that divides both C and M")
            .unmet());
        }
    }
    Ok(())
}

/// `ConvTranspose`: W is `(C x M/group x k1 x ... x kn)`, so W's dim 0 is X's channels, and C
/// is a multiple of `group`.
pub(crate) fn transpose(
    ops: &Operands<'_>,
    group: i64,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let c = ops.x_dim(1);
    let filters = ops.w_dim(0);
    pending.equal(&c, &filters, || {
        Constraint::new(
            "ConvTranspose's W must be (C x M/group x k1 x ... x kn): W's dim 0 must equal X's channels (C)",
            format!("C is {c}, W's dim 0 is {filters}"),
            &[0, ops.w_slot],
        )
        .fix("a Conv weight is (M, C/group, k...): transpose W's first two axes for ConvTranspose")
    })?;
    if let Some(c) = c.as_known() {
        if c.checked_rem(group).is_some_and(|r| r != 0) {
            return Err(Constraint::new(
                "ConvTranspose's input channels (C) must be divisible by group",
                format!("C is {c}, group is {group}"),
                &[0],
            )
            .fix("use a group that divides C")
            .unmet());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{conditions, unmet};
    use crate::ops::testing::{dims as s, int_attr, ints_attr, run, Fact};
    use crate::ops::{Inferred, RuleError};
    use crate::proto::AttributeProto;

    /// Runs `op` at opset 11 on inputs written as dim lists.
    fn run11(
        op: &str,
        inputs: &[&[&str]],
        attrs: Vec<AttributeProto>,
    ) -> Result<Inferred, RuleError> {
        let facts: Vec<Option<Fact>> = inputs.iter().map(|d| s(d)).collect();
        run(op, 11, &facts, attrs)
    }

    const X: &[&str] = &["1", "3", "8", "8"];
    const W: &[&str] = &["8", "3", "3", "3"];

    #[test]
    fn conv_channels_3_vs_4_is_unmet_at_every_opset() {
        for opset in [1, 11, 22] {
            let r = run("Conv", opset, &[s(X), s(&["8", "4", "3", "3"])], vec![]);
            let c = unmet(r);
            assert_eq!(c.found, "C is 3, W's dim 1 is 4, group is 1");
            assert_eq!(c.slots, vec![0, 1]);
        }
    }

    #[test]
    fn conv_symbolic_channels_are_a_condition() {
        let r = run11("Conv", &[&["n", "c", "8", "8"], W], vec![]).unwrap();
        assert_eq!(conditions(&r), ["c = 3"]);
        assert_eq!(r.outputs[0].shape.to_string(), "[n, 8, 6, 6]");
    }

    #[test]
    fn conv_groups_divide_channels() {
        let g = |n| vec![int_attr("group", n)];
        let x4 = &["1", "4", "8", "8"][..];
        assert!(run11("Conv", &[x4, &["8", "2", "3", "3"]], g(2))
            .unwrap()
            .checks
            .is_empty());
        let c = unmet(run11("Conv", &[x4, &["5", "2", "3", "3"]], g(2)));
        assert_eq!(c.found, "M is 5, group is 2");
        assert_eq!(unmet(run11("Conv", &[X, W], g(0))).found, "group is 0");
    }

    #[test]
    fn conv_weight_rank_and_kernel_shape_must_match() {
        let c = unmet(run11("Conv", &[X, &["8", "3", "3"]], vec![]));
        assert_eq!(c.found, "W has 1 spatial dims, X has 2");
        let k = |v: &[i64]| vec![ints_attr("kernel_shape", v)];
        let c = unmet(run11("Conv", &[X, W], k(&[5, 5])));
        assert_eq!(c.found, "kernel_shape is [5, 5], W's spatial dim 0 is 3");
        let c = unmet(run11("Conv", &[X, W], k(&[3])));
        assert_eq!(c.found, "kernel_shape has 1 entries for 2 spatial axes");
        assert!(run11("Conv", &[X, W], k(&[3, 3])).is_ok());
    }

    #[test]
    fn conv_bias_has_m_values() {
        let c = unmet(run11("Conv", &[X, W, &["4"]], vec![]));
        assert_eq!(c.found, "B has 4 elements, M is 8");
        assert_eq!(c.slots, vec![1, 2]);
        // A bias of 1 does not broadcast: onnxruntime wants exactly M.
        assert!(run11("Conv", &[X, W, &["1"]], vec![]).is_err());
        assert_eq!(
            unmet(run11("Conv", &[X, W, &["1", "8"]], vec![])).found,
            "B has rank 2"
        );
        let r = run11("Conv", &[X, W, &["m"]], vec![]).unwrap();
        assert_eq!(conditions(&r), ["m = 8"]);
        assert!(run11("Conv", &[X, W, &["8"]], vec![])
            .unwrap()
            .checks
            .is_empty());
    }

    #[test]
    fn conv_integer_has_no_bias_and_qlinear_conv_has_it_at_slot_8() {
        assert!(run("ConvInteger", 10, &[s(X), s(W), s(&[]), s(&["4"])], vec![]).is_ok());
        let mut inputs: Vec<Option<Fact>> = vec![s(X)];
        inputs.extend([s(&[]), s(&[]), s(&["8", "4", "3", "3"])]);
        inputs.extend(std::iter::repeat_with(|| s(&[])).take(4));
        assert_eq!(
            unmet(run("QLinearConv", 10, &inputs, vec![])).slots,
            vec![0, 3]
        );
        inputs[3] = s(W);
        inputs.push(s(&["4"]));
        assert_eq!(
            unmet(run("QLinearConv", 10, &inputs, vec![])).slots,
            vec![3, 8]
        );
    }

    #[test]
    fn conv_transpose_weight_dim_0_is_channels() {
        let t = "ConvTranspose";
        let w = &["3", "2", "3", "3"][..];
        let c = unmet(run11(t, &[X, &["4", "2", "3", "3"]], vec![]));
        assert_eq!(c.found, "C is 3, W's dim 0 is 4");
        let c = unmet(run11(t, &[X, w], vec![int_attr("group", 2)]));
        assert_eq!(c.found, "C is 3, group is 2");
        let x4 = &["1", "4", "8", "8"][..];
        let r = run11(
            t,
            &[x4, &["4", "2", "3", "3"], &["4"]],
            vec![int_attr("group", 2)],
        );
        assert_eq!(r.unwrap().outputs[0].shape.to_string(), "[1, 4, 10, 10]");
        let c = unmet(run11(t, &[X, w, &["4"]], vec![]));
        assert_eq!(c.found, "B has 4 elements, M (W's dim 1 times group) is 2");
        let r = run11(t, &[&["1", "k", "8", "8"], w], vec![]).unwrap();
        assert_eq!(conditions(&r), ["k = 3"]);
        let c = unmet(run11(t, &[X, w], vec![ints_attr("output_padding", &[1])]));
        assert!(c.requires.contains("output_padding"));
    }

    #[test]
    fn conv_data_rank_below_3_is_unmet() {
        assert_eq!(
            unmet(run11("Conv", &[&["1", "3"], &["8", "3"]], vec![])).found,
            "X has rank 2"
        );
        let c = unmet(run11("ConvTranspose", &[&["1", "3"], &["3", "2"]], vec![]));
        assert_eq!(c.found, "X has rank 2");
    }
}
