//! Sliding-window arithmetic shared by convolutions and pools: `auto_pad`, `pads`, `strides`,
//! `dilations` and `ceil_mode` per spatial axis (ONNX Conv-11, MaxPool-12, ConvTranspose-11).
//!
//! A symbolic size is given only when the formula is exact for every accepted input: floor
//! division needs a provably non-negative numerator (with stride 1 there is no division), and
//! `ceil_mode` is used only when no window can start in the end padding, the case where
//! runtimes differ (some drop that window).

use super::{Ctx, RuleError};
use crate::shape::Dim;

/// How padding is chosen (`auto_pad`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AutoPad {
    /// Explicit `pads`.
    NotSet,
    /// No padding.
    Valid,
    /// Output is `ceil(in / stride)` (`SAME_UPPER` and `SAME_LOWER`).
    Same,
}

/// Window attributes of one node, one entry per spatial axis.
#[derive(Debug)]
pub(super) struct Window {
    kernel: Vec<Dim>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// `[begin..., end...]`.
    pads: Vec<i64>,
    auto_pad: AutoPad,
    ceil: bool,
}

fn per_axis(ctx: &Ctx<'_>, name: &str, n: usize, default: i64) -> Result<Vec<i64>, RuleError> {
    match ctx.attrs().ints(name)? {
        None => Ok(vec![default; n]),
        Some(v) if v.len() == n => Ok(v.to_vec()),
        Some(v) => Err(RuleError::Invalid(format!(
            "{name} has {} values for {n} spatial axes",
            v.len()
        ))),
    }
}

impl Window {
    /// Reads the attributes for a kernel of `kernel.len()` spatial axes.
    pub(super) fn from_attrs(ctx: &Ctx<'_>, kernel: Vec<Dim>) -> Result<Window, RuleError> {
        let n = kernel.len();
        let strides = per_axis(ctx, "strides", n, 1)?;
        let dilations = per_axis(ctx, "dilations", n, 1)?;
        let pads = per_axis(ctx, "pads", 2 * n, 0)?;
        if strides.iter().chain(&dilations).any(|&v| v < 1) || pads.iter().any(|&p| p < 0) {
            return Err(RuleError::Invalid(
                "strides and dilations must be positive, pads non-negative".into(),
            ));
        }
        let auto_pad = match ctx.attrs().string("auto_pad")?.unwrap_or("NOTSET") {
            "NOTSET" | "" => AutoPad::NotSet,
            "VALID" => AutoPad::Valid,
            "SAME_UPPER" | "SAME_LOWER" => AutoPad::Same,
            other => return Err(RuleError::Invalid(format!("unknown auto_pad `{other}`"))),
        };
        Ok(Window {
            kernel,
            strides,
            dilations,
            pads,
            auto_pad,
            ceil: ctx.int("ceil_mode", 0)? != 0,
        })
    }

    /// Padding at the start and end of axis `i`.
    fn pads_of(&self, i: usize) -> (i64, i64) {
        if self.auto_pad != AutoPad::NotSet {
            return (0, 0);
        }
        let n = self.kernel.len();
        let begin = self.pads.get(i).copied().unwrap_or(0);
        let end = self.pads.get(n + i).copied().unwrap_or(0);
        (begin, end)
    }

    /// The dilated kernel extent `(k - 1) * d + 1` on axis `i`.
    fn extent(&self, i: usize) -> Dim {
        let k = self.kernel.get(i).cloned().unwrap_or(Dim::Unknown);
        let d = self.dilations.get(i).copied().unwrap_or(1);
        k.sub(&Dim::known(1))
            .mul(&Dim::known(d))
            .add(&Dim::known(1))
    }

    /// Output sizes of a convolution or pool for input spatial dims `spatial` (unknown input
    /// gives unknown sizes, one per kernel axis).
    pub(super) fn conv_out(&self, spatial: Option<&[Dim]>) -> Vec<Dim> {
        (0..self.kernel.len())
            .map(|i| {
                let input = spatial
                    .and_then(|s| s.get(i))
                    .cloned()
                    .unwrap_or(Dim::Unknown);
                self.axis_out(i, &input)
            })
            .collect()
    }

    fn axis_out(&self, i: usize, input: &Dim) -> Dim {
        let s = self.strides.get(i).copied().unwrap_or(1);
        let stride = Dim::known(s);
        match self.auto_pad {
            // ceil(in / s) = (in + s - 1) // s, exact for in >= 0.
            AutoPad::Same => input.add(&Dim::known(s - 1)).floor_div(&stride),
            AutoPad::Valid | AutoPad::NotSet => {
                let (begin, end) = self.pads_of(i);
                let extent = self.extent(i);
                let numerator = input.add(&Dim::known(begin + end)).sub(&extent);
                if self.ceil && s > 1 {
                    ceil_out(input, &numerator, &extent, s, begin, end)
                } else {
                    floor_out(&numerator, s)
                }
            }
        }
    }

    /// `ConvTranspose` sizes: `SAME_*` gives `in * s`; otherwise
    /// `s * (in - 1) + output_padding + extent - begin - end`.
    pub(super) fn transpose_out(
        &self,
        spatial: Option<&[Dim]>,
        output_padding: &[i64],
    ) -> Vec<Dim> {
        (0..self.kernel.len())
            .map(|i| {
                let input = spatial
                    .and_then(|s| s.get(i))
                    .cloned()
                    .unwrap_or(Dim::Unknown);
                let s = Dim::known(self.strides.get(i).copied().unwrap_or(1));
                if self.auto_pad == AutoPad::Same {
                    return input.mul(&s);
                }
                let (begin, end) = self.pads_of(i);
                let extra = output_padding.get(i).copied().unwrap_or(0);
                input
                    .sub(&Dim::known(1))
                    .mul(&s)
                    .add(&Dim::known(extra))
                    .add(&self.extent(i))
                    .sub(&Dim::known(begin + end))
            })
            .collect()
    }
}

/// `num // s + 1` (ONNX Conv/pool docs: floor). Runtimes that truncate instead agree with floor
/// whenever the result is at least 0, and a negative size fails everywhere: the formula holds
/// for every input the model accepts, even when the numerator is not provably non-negative.
fn floor_out(num: &Dim, s: i64) -> Dim {
    if s == 1 {
        return num.add(&Dim::known(1));
    }
    num.floor_div(&Dim::known(s)).add(&Dim::known(1))
}

/// `ceil(num / s) + 1`, given only when no window can start past `in + begin`.
fn ceil_out(input: &Dim, num: &Dim, extent: &Dim, s: i64, begin: i64, end: i64) -> Dim {
    if !num.is_non_negative() {
        return Dim::Unknown;
    }
    let out = num
        .add(&Dim::known(s - 1))
        .floor_div(&Dim::known(s))
        .add(&Dim::known(1));
    // The last window starts at (out - 1) * s <= num + s - 1 = in + begin + (end + s - 1
    // - extent): it stays inside when end + s <= extent.
    if let Some(e) = extent.as_known() {
        if end + s <= e {
            return out;
        }
    }
    let last_start = out.sub(&Dim::known(1)).mul(&Dim::known(s));
    let limit = input.add(&Dim::known(begin));
    match (last_start.as_known(), limit.as_known()) {
        (Some(a), Some(b)) if a < b => out,
        _ => Dim::Unknown,
    }
}
