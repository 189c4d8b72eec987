//! Sliding-window arithmetic shared by convolutions and pools: `auto_pad`, `pads`, `strides`,
//! `dilations` and `ceil_mode` per spatial axis (ONNX Conv-11, MaxPool-12, ConvTranspose-11).
//!
//! A symbolic size is given only when the formula is exact for every accepted input: floor
//! division needs a provably non-negative numerator (with stride 1 there is no division), and
//! `ceil_mode` is used only when no window can start in the end padding, the case where
//! runtimes differ (some drop that window).

use super::constraint::Constraint;
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

/// Attribute `name` with `n` values (`default` each when absent). `onnx.shape_inference`
/// rejects any other length, an empty list included ("Attribute pads has incorrect size").
fn per_axis(ctx: &Ctx<'_>, name: &str, n: usize, default: i64) -> Result<Vec<i64>, RuleError> {
    match ctx.attrs().ints(name)? {
        None => Ok(vec![default; n]),
        Some(v) if v.len() == n => Ok(v.to_vec()),
        Some(v) => {
            let op = ctx.node().op_type.as_str();
            let wanted = if name == "pads" {
                "two values (begin and end) per spatial axis"
            } else {
                "one value per spatial axis"
            };
            Err(Constraint::new(
                format!("{op}'s {name} must have {wanted}"),
                format!("{name} has {} values, {n} expected", v.len()),
                &[0],
            )
            .fix(format!("give {n} values, or drop {name}"))
            .unmet())
        }
    }
}

impl Window {
    /// Reads the attributes for a kernel of `kernel.len()` spatial axes.
    pub(super) fn from_attrs(ctx: &Ctx<'_>, kernel: Vec<Dim>) -> Result<Window, RuleError> {
        let n = kernel.len();
        let strides = per_axis(ctx, "strides", n, 1)?;
        let dilations = per_axis(ctx, "dilations", n, 1)?;
        let pads = per_axis(ctx, "pads", 2 * n, 0)?;
        let op = ctx.node().op_type.as_str();
        // onnx.shape_inference: "Attribute strides must only contain positive values", "...
        // pads must not contain negative values".
        for (name, values, least) in [
            ("strides", &strides, 1),
            ("dilations", &dilations, 1),
            ("pads", &pads, 0),
        ] {
            if values.iter().any(|&v| v < least) {
                let what = if least == 0 {
                    "non-negative"
                } else {
                    "positive"
                };
                return Err(Constraint::new(
                    format!("{op}'s {name} must be {what}"),
                    format!("{name} is {values:?}"),
                    &[],
                )
                .fix(format!("use {what} {name}"))
                .unmet());
            }
        }
        // onnxruntime rejects any other string when it creates the session ("Unknown
        // AutoPadType String"); an empty string is read as NOTSET.
        let auto_pad = match ctx.attrs().string("auto_pad")?.unwrap_or("NOTSET") {
            "NOTSET" | "" => AutoPad::NotSet,
            "VALID" => AutoPad::Valid,
            "SAME_UPPER" | "SAME_LOWER" => AutoPad::Same,
            other => {
                return Err(Constraint::new(
                    format!("{op}'s auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID"),
                    format!("auto_pad is `{other}`"),
                    &[],
                )
                .fix("use one of the four auto_pad values")
                .unmet())
            }
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

    /// [`Window::conv_out`], requiring every known size to be at least `least`: a window
    /// larger than the padded input gives a negative size, which no runtime can make (the
    /// formula is exact for every input the model accepts, so a negative known size means the
    /// node fails). Convolutions take `least` 1: onnxruntime rejects an empty output too
    /// ("Invalid input shape"), while its pools return one ("Calculated output dimension is
    /// negative" only below 0).
    pub(super) fn checked_out(
        &self,
        op: &str,
        spatial: Option<&[Dim]>,
        least: i64,
    ) -> Result<Vec<Dim>, RuleError> {
        let out = self.conv_out(spatial);
        for (i, size) in out.iter().enumerate() {
            let Some(v) = size.as_known().filter(|&v| v < least) else {
                continue;
            };
            let input = spatial
                .and_then(|s| s.get(i))
                .cloned()
                .unwrap_or(Dim::Unknown);
            let (begin, end) = self.pads_of(i);
            let stride = self.strides.get(i).copied().unwrap_or(1);
            let requires = if least > 0 {
                format!("{op}'s output must have a size of at least {least} on every spatial axis")
            } else {
                format!("{op}'s output size must not be negative on any spatial axis")
            };
            return Err(Constraint::new(
                requires,
                format!(
                    "spatial axis {i}: input {input}, pads {begin}+{end}, window {}, stride \
                     {stride} give {v}",
                    self.extent(i)
                ),
                &[0],
            )
            .fix("give a larger input, or a smaller kernel, stride or dilation, or more padding")
            .unmet());
        }
        Ok(out)
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

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, ints_attr, run, string_attr};
    use crate::ops::RuleError;
    use crate::proto::AttributeProto;

    fn conv(attrs: Vec<AttributeProto>) -> Result<crate::ops::Inferred, RuleError> {
        run(
            "Conv",
            11,
            &[s(&["1", "3", "8", "8"]), s(&["8", "3", "3", "3"])],
            attrs,
        )
    }

    fn found(r: Result<crate::ops::Inferred, RuleError>) -> String {
        match r {
            Err(RuleError::Unmet(c)) => format!("{}: {}", c.requires, c.found),
            other => panic!("expected an unmet constraint, got {other:?}"),
        }
    }

    #[test]
    fn attribute_lengths_and_signs_are_constraints() {
        let got = found(conv(vec![ints_attr("pads", &[1, 1])]));
        assert_eq!(got, "Conv's pads must have two values (begin and end) per spatial axis: pads has 2 values, 4 expected");
        let got = found(conv(vec![ints_attr("pads", &[-1, 0, 0, 0])]));
        assert_eq!(
            got,
            "Conv's pads must be non-negative: pads is [-1, 0, 0, 0]"
        );
        let got = found(conv(vec![ints_attr("strides", &[0, 1])]));
        assert_eq!(got, "Conv's strides must be positive: strides is [0, 1]");
        let got = found(conv(vec![ints_attr("dilations", &[1])]));
        assert_eq!(got, "Conv's dilations must have one value per spatial axis: dilations has 1 values, 2 expected");
    }

    #[test]
    fn auto_pad_must_be_known_and_empty_is_notset() {
        let got = found(conv(vec![string_attr("auto_pad", "FOO")]));
        assert!(got.ends_with("auto_pad is `FOO`"), "{got}");
        // onnxruntime reads an empty auto_pad as NOTSET.
        assert!(conv(vec![string_attr("auto_pad", "")]).is_ok());
    }

    fn pool(op: &str, length: &str) -> Result<crate::ops::Inferred, RuleError> {
        run(
            op,
            12,
            &[s(&["1", "1", length])],
            vec![ints_attr("kernel_shape", &[3])],
        )
    }

    #[test]
    fn a_window_past_the_padded_input_is_unmet() {
        // onnxruntime: Conv fails from an empty output ("Invalid input shape"), pools only
        // below it ("Calculated output dimension is negative").
        let input = |length: &str| {
            run(
                "Conv",
                11,
                &[s(&["1", "1", length]), s(&["1", "1", "3"])],
                vec![],
            )
        };
        let got = found(input("2"));
        assert_eq!(got, "Conv's output must have a size of at least 1 on every spatial axis: spatial axis 0: input 2, pads 0+0, window 3, stride 1 give 0");
        assert!(input("3").is_ok());
        assert!(pool("MaxPool", "2").is_ok());
        let got = found(pool("AveragePool", "1"));
        assert!(
            got.starts_with("AveragePool's output size must not be negative"),
            "{got}"
        );
        // A symbolic input is left to run time: its size is exact for the inputs that run.
        assert!(pool("MaxPool", "n").is_ok());
        let padded = run(
            "Conv",
            11,
            &[s(&["1", "1", "2"]), s(&["1", "1", "3"])],
            vec![ints_attr("pads", &[1, 1])],
        );
        assert!(padded.is_ok());
    }
}
