//! Sliding-window arithmetic shared by convolutions and pools: `auto_pad`, `pads`, `strides`,
//! `dilations` and `ceil_mode` per spatial axis (ONNX Conv-11, MaxPool-12, ConvTranspose-11).
//!
//! A symbolic size is given only when the formula is exact for every input onnxruntime accepts:
//! convolutions fail on a negative numerator, so floor holds; pools truncate, so floor is used
//! only where the numerator cannot be negative for a non-empty input (non-decreasing and
//! non-negative with every symbol at 1), `max(floor, 1)` where it stays above `-stride`, and an
//! exact truncation otherwise; `ceil_mode` is used only when no window can start in the end
//! padding, the case where runtimes differ (some drop that window).

use super::constraint::{Constraint, Pending};
use super::overflow::sized;
use super::{Ctx, RuleError};
use crate::shape::{Binding, Condition, Dim};

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
pub(crate) struct Window {
    kernel: Vec<Dim>,
    /// The dilated kernel extent `(k - 1) * d + 1` per axis.
    extents: Vec<Dim>,
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
            let op = ctx.node().op_type().as_str();
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
    pub(crate) fn from_attrs(ctx: &Ctx<'_>, kernel: Vec<Dim>) -> Result<Window, RuleError> {
        let n = kernel.len();
        let strides = per_axis(ctx, "strides", n, 1)?;
        let dilations = per_axis(ctx, "dilations", n, 1)?;
        let pads = per_axis(ctx, "pads", 2 * n, 0)?;
        let op = ctx.node().op_type().as_str();
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
        let extents = kernel
            .iter()
            .zip(&dilations)
            .enumerate()
            .map(|(i, (k, &d))| {
                let what = format!(
                    "the dilated kernel extent ((k - 1) * dilation + 1) on spatial axis {i}"
                );
                let checked = sized(&what, &[]);
                let span = checked.mul(&checked.sub(k, &Dim::known(1))?, &Dim::known(d))?;
                checked.add(&span, &Dim::known(1))
            })
            .collect::<Result<_, _>>()?;
        Ok(Window {
            kernel,
            extents,
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

    /// How axis `i` is padded, as a finding states it: the `pads` pair, or the `auto_pad` mode
    /// (whose padding depends on the input and is not a pair of attribute values).
    fn padding_text(&self, i: usize) -> String {
        match self.auto_pad {
            AutoPad::NotSet => {
                let (begin, end) = self.pads_of(i);
                format!("pads {begin}+{end}")
            }
            AutoPad::Valid => "auto_pad VALID".to_owned(),
            AutoPad::Same => "auto_pad SAME".to_owned(),
        }
    }

    /// The dilated kernel extent `(k - 1) * d + 1` on axis `i`.
    fn extent(&self, i: usize) -> Dim {
        self.extents.get(i).cloned().unwrap_or(Dim::Unknown)
    }

    /// Output sizes of a convolution or pool for input spatial dims `spatial` (unknown input
    /// gives unknown sizes, one per kernel axis).
    fn sizes(&self, spatial: Option<&[Dim]>, sizing: Sizing) -> Result<Vec<Dim>, RuleError> {
        (0..self.kernel.len())
            .map(|i| {
                let input = input_at(spatial, i);
                self.axis_out(i, &input, sizing)
            })
            .collect()
    }

    /// The output sizes, each required to be one the node can produce. A known size it cannot
    /// produce is an error (E4); a symbolic one that falls short when every input symbol is 1
    /// is a condition on the symbols (W4: a speech encoder's first convolution needs as many
    /// samples as its window). Sizes that fail only when an input dim is 0 (every padded
    /// convolution) are not reported: an empty input is no deployment, and every size is
    /// non-decreasing in the input dims, so a size that holds at 1 holds above it. What each
    /// operator can produce is in [`Sizing`].
    pub(crate) fn checked_out(
        &self,
        op: &str,
        spatial: Option<&[Dim]>,
        sizing: Sizing,
        pending: &mut Pending,
    ) -> Result<Vec<Dim>, RuleError> {
        let out = self.sizes(spatial, sizing)?;
        self.require(op, spatial, out, sizing.least(), pending)
    }

    /// Requires each of `out` (the sizes made of `spatial`) to be at least `least`, as
    /// [`Window::checked_out`] states it; `ConvTranspose` too ("Computed output dimension is
    /// <= 0").
    pub(super) fn require(
        &self,
        op: &str,
        spatial: Option<&[Dim]>,
        out: Vec<Dim>,
        least: i64,
        pending: &mut Pending,
    ) -> Result<Vec<Dim>, RuleError> {
        // Every axis that can fall short, in one condition: one finding per node.
        let mut holds = Condition::truth();
        let mut found = Vec::new();
        for (i, size) in out.iter().enumerate() {
            let input = input_at(spatial, i);
            let reportable = match size {
                Dim::Known(v) => *v < least,
                // Every size here is non-decreasing in its input dim (floor, truncation and
                // `s * (in - 1)` all are), so one that grows with its symbols falls short first
                // at all ones.
                Dim::Sym(_) => input.is_monotone() && at_ones(size).is_some_and(|v| v < least),
                Dim::Unknown => false,
            };
            if !reportable {
                continue;
            }
            let stride = self.strides.get(i).copied().unwrap_or(1);
            found.push(format!(
                "spatial axis {i}: input {input}, {}, window {}, stride {stride} give {size}",
                self.padding_text(i),
                self.extent(i)
            ));
            // `max(size, least) = size` holds exactly when `size >= least`.
            holds = holds.and(&Condition::eq(&size.max(&Dim::known(least)), size));
        }
        if found.is_empty() {
            return Ok(out);
        }
        let constraint = || {
            let requires = if least > 0 {
                format!("{op}'s output must have a size of at least {least} on every spatial axis")
            } else {
                format!("{op}'s output size must not be negative on any spatial axis")
            };
            Constraint::new(requires, found.join("; "), &[0]).fix(
                "give a larger input, or a smaller kernel, stride or dilation, or more padding",
            )
        };
        pending.holds_if(&holds, constraint)?;
        Ok(out)
    }

    /// Pools under `SAME_*` pad `(ceil(in / s) - 1) * s + kernel - in` (the ONNX doc's
    /// `pad_shape`), and onnxruntime's float `MaxPool` and `AveragePool` kernels fail when that
    /// is negative ("padding values must be non-negative"): a stride above the window, at the
    /// lengths it does not divide closely enough (a 1-wide window of stride 3 fails at 2, 3, 5
    /// and 6). The caller says which forms reach that kernel (`pool::same_padding_checked`).
    /// Checked for known
    /// lengths and undilated axes, where this matches onnxruntime at every kernel 1..4, stride
    /// 1..5 and length 1..12; a dilated axis, or a symbolic length (whose condition is one of
    /// divisibility), is not reported.
    pub(super) fn require_same_padding(
        &self,
        op: &str,
        spatial: Option<&[Dim]>,
    ) -> Result<(), RuleError> {
        if self.auto_pad != AutoPad::Same {
            return Ok(());
        }
        let mut found = Vec::new();
        for i in 0..self.kernel.len() {
            let input = input_at(spatial, i).as_known();
            let extent = self.extent(i).as_known();
            let stride = self.strides.get(i).copied().unwrap_or(1);
            let dilated = self.dilations.get(i).is_some_and(|&d| d != 1);
            let (Some(input), Some(extent), false) = (input, extent, dilated) else {
                continue;
            };
            if input < 1 || stride < 1 {
                continue;
            }
            let pad = input
                .checked_add(stride - 1)
                .map(|n| n / stride)
                .and_then(|out| (out - 1).checked_mul(stride))
                .and_then(|covered| covered.checked_add(extent))
                .and_then(|needed| needed.checked_sub(input));
            if let Some(pad) = pad.filter(|&pad| pad < 0) {
                found.push(format!(
                    "spatial axis {i}: input {input}, window {extent}, stride {stride} give \
                     padding {pad}"
                ));
            }
        }
        if found.is_empty() {
            return Ok(());
        }
        Err(Constraint::new(
            format!("{op}'s SAME padding must not be negative on any spatial axis"),
            found.join("; "),
            &[0],
        )
        .fix("use a window at least as large as the stride, explicit pads, or an input length the stride fits")
        .unmet())
    }

    fn axis_out(&self, i: usize, input: &Dim, sizing: Sizing) -> Result<Dim, RuleError> {
        let s = self.strides.get(i).copied().unwrap_or(1);
        let stride = Dim::known(s);
        Ok(match self.auto_pad {
            // ceil(in / s) = (in + s - 1) // s, exact for in >= 0.
            AutoPad::Same => input.add(&Dim::known(s - 1)).floor_div(&stride),
            AutoPad::Valid | AutoPad::NotSet => {
                let (begin, end) = self.pads_of(i);
                let extent = self.extent(i);
                let what = format!("the padded input size (input + pads) on spatial axis {i}");
                let checked = sized(&what, &[0]);
                let padding = checked.add(&Dim::known(begin), &Dim::known(end))?;
                let numerator = checked.add(input, &padding)?.sub(&extent);
                if self.ceil && s > 1 {
                    ceil_out(input, &numerator, &extent, s, begin, end)
                } else if sizing == Sizing::Pool {
                    truncated_out(&numerator, s)
                } else {
                    floor_out(&numerator, s)
                }
            }
        })
    }

    /// `ConvTranspose` sizes: `s * (in - 1) + output_padding + extent - begin - end`. With
    /// `SAME_*` the doc's `in * s`, which needs the padding `extent + output_padding - s` to be
    /// non-negative: onnxruntime pads nothing below that, giving `s * (in - 1) + extent +
    /// output_padding` (a 1-wide kernel of stride 2 makes 1, 3, 9 of 1, 2, 5).
    pub(super) fn transpose_out(
        &self,
        spatial: Option<&[Dim]>,
        output_padding: &[i64],
    ) -> Result<Vec<Dim>, RuleError> {
        (0..self.kernel.len())
            .map(|i| {
                let input = input_at(spatial, i);
                let stride = self.strides.get(i).copied().unwrap_or(1);
                let s = Dim::known(stride);
                let extra = output_padding.get(i).copied().unwrap_or(0);
                if self.auto_pad == AutoPad::Same {
                    let padding = self
                        .extent(i)
                        .as_known()
                        .and_then(|e| e.checked_add(extra)?.checked_sub(stride));
                    let what = format!("the output size (input * stride) on spatial axis {i}");
                    let checked = sized(&what, &[0]);
                    return match padding {
                        Some(p) if p >= 0 => checked.mul(&input, &s),
                        Some(p) => checked.add(&checked.mul(&input, &s)?, &Dim::known(p)),
                        None => Ok(Dim::Unknown),
                    };
                }
                let (begin, end) = self.pads_of(i);
                let what = format!(
                    "the output size (stride * (input - 1) + output_padding + extent - pads) \
                     on spatial axis {i}"
                );
                let checked = sized(&what, &[0]);
                let strided = checked.mul(&input.sub(&Dim::known(1)), &s)?;
                let grown = checked.add(&strided, &Dim::known(extra))?;
                let grown = checked.add(&grown, &self.extent(i))?;
                let trimmed = checked.sub(&grown, &Dim::known(begin))?;
                checked.sub(&trimmed, &Dim::known(end))
            })
            .collect()
    }
}

/// What a windowed operator can produce, as onnxruntime (the runtime a valid model is one that
/// runs in) and onnx's own shape inference compute it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sizing {
    /// Convolutions: the floor formula, and a size below 1 fails ("Invalid input shape"). Every
    /// input that runs has a non-negative numerator, where floor and truncation agree.
    Conv,
    /// Pools: the numerator is divided with truncation toward zero, so a window that does not
    /// fit the padded input still gives 1 when the numerator is above `-stride` (the ONNX
    /// reference's floor gives 0 there), and only a size below 0 fails ("Calculated output
    /// dimension is negative").
    Pool,
}

impl Sizing {
    fn least(self) -> i64 {
        match self {
            Sizing::Conv => 1,
            Sizing::Pool => 0,
        }
    }
}

/// Spatial input dim `i` (unknown when the input or the axis is).
fn input_at(spatial: Option<&[Dim]>, i: usize) -> Dim {
    spatial
        .and_then(|s| s.get(i))
        .cloned()
        .unwrap_or(Dim::Unknown)
}

/// The value of `dim` when every symbol in it is 1 (the smallest non-empty input).
fn at_ones(dim: &Dim) -> Option<i64> {
    let ones: Binding = dim.symbols().into_iter().map(|s| (s, 1)).collect();
    dim.eval(&ones)
}

/// A pool's `trunc(num / s) + 1`. It is the floor formula when the numerator cannot be
/// negative for a non-empty input; `max(num // s + 1, 1)` when it stays above `-s` (rapidocr's
/// recognizer pools a height of 1 or 2 with a 3-wide window for inputs up to 32 rows high, and
/// onnxruntime gives 1 there); otherwise, with `s > 1`, truncation written with floors,
/// `max(num, 0) // s - max(-num, 0) // s + 1`, exact for every numerator.
fn truncated_out(num: &Dim, s: i64) -> Dim {
    if s == 1 {
        return num.add(&Dim::known(1));
    }
    match num {
        Dim::Known(n) => n
            .checked_div(s)
            .and_then(|q| q.checked_add(1))
            .map_or(Dim::Unknown, Dim::known),
        // A numerator that grows with its inputs is smallest at all ones.
        Dim::Sym(_)
            if num.is_non_negative()
                || (num.is_monotone() && at_ones(num).is_some_and(|v| v >= 0)) =>
        {
            floor_out(num, s)
        }
        // Above `-s` at every non-empty input, truncation gives 1 where floor gives 0.
        Dim::Sym(_) if num.is_monotone() && at_ones(num).is_some_and(|v| v > -s) => {
            floor_out(num, s).max(&Dim::known(1))
        }
        Dim::Sym(_) => {
            let zero = Dim::known(0);
            let stride = Dim::known(s);
            num.max(&zero)
                .floor_div(&stride)
                .sub(&num.neg().max(&zero).floor_div(&stride))
                .add(&Dim::known(1))
        }
        Dim::Unknown => Dim::Unknown,
    }
}

/// `num // s + 1` (ONNX Conv/pool docs: floor). Convolutions fail for a negative numerator
/// in onnxruntime, so the formula holds for every input that runs, even when the numerator
/// is not provably non-negative. Pools divide with truncation ([`truncated_out`]).
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
    use crate::ops::testing::{dims as s, int_attr, ints_attr, run, run_in, string_attr, Fact};
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
        // Under auto_pad the padding is the mode's, not a pair of attribute values.
        let valid = run(
            "Conv",
            11,
            &[s(&["1", "1", "2"]), s(&["1", "1", "3"])],
            vec![string_attr("auto_pad", "VALID")],
        );
        assert!(found(valid).contains("input 2, auto_pad VALID, window 3"));
        assert!(pool("MaxPool", "2").is_ok());
        let got = found(pool("AveragePool", "1"));
        assert!(
            got.starts_with("AveragePool's output size must not be negative"),
            "{got}"
        );
        // A symbolic input short of the window is a condition (W4), not an error.
        let conditional = pool("MaxPool", "n").unwrap();
        assert_eq!(conditional.constraints.len(), 1);
        assert!(conditional.constraints[0].condition().is_some());
        let padded = run(
            "Conv",
            11,
            &[s(&["1", "1", "2"]), s(&["1", "1", "3"])],
            vec![ints_attr("pads", &[1, 1])],
        );
        assert!(padded.is_ok());
    }

    #[test]
    fn same_pools_with_a_stride_above_the_window_need_non_negative_padding() {
        // onnxruntime: MaxPool and AveragePool, auto_pad SAME_UPPER or SAME_LOWER, a 1-wide
        // window of stride 3, fail at lengths 2, 3, 5 and 6 and run at 1 and 4; a 2-wide one
        // fails at 6 only. LpPool runs at every length.
        let same = |op: &str, length: &str, kernel: i64, auto: &str| {
            run(
                op,
                12,
                &[s(&["1", "1", length])],
                vec![
                    ints_attr("kernel_shape", &[kernel]),
                    ints_attr("strides", &[3]),
                    string_attr("auto_pad", auto),
                ],
            )
        };
        for op in ["MaxPool", "AveragePool"] {
            for auto in ["SAME_UPPER", "SAME_LOWER"] {
                for length in 1..=6 {
                    let fails = [2, 3, 5, 6].contains(&length);
                    let got = same(op, &length.to_string(), 1, auto);
                    assert_eq!(got.is_err(), fails, "{op} {auto} {length}: {got:?}");
                }
                let got = found(same(op, "6", 2, auto));
                assert!(
                    got.contains("input 6, window 2, stride 3 give padding -1"),
                    "{got}"
                );
                assert!(same(op, "4", 2, auto).is_ok());
            }
        }
        assert!(same("LpPool", "2", 1, "SAME_UPPER").is_ok());
        // onnxruntime runs MaxPool's other kernels at those lengths: with Indices, a column-major
        // storage order, double (or 8-bit) data.
        let attrs = |extra: Vec<AttributeProto>| {
            let mut attrs = vec![
                ints_attr("kernel_shape", &[1]),
                ints_attr("strides", &[3]),
                string_attr("auto_pad", "SAME_UPPER"),
            ];
            attrs.extend(extra);
            attrs
        };
        let x = || s(&["1", "1", "2"]);
        let indices = run_in("", "MaxPool", 12, &[x()], attrs(vec![]), 2);
        assert!(indices.is_ok(), "{indices:?}");
        let column_major = run(
            "MaxPool",
            12,
            &[x()],
            attrs(vec![int_attr("storage_order", 1)]),
        );
        assert!(column_major.is_ok());
        let double = x().map(|fact| Fact {
            elem: Some(11),
            ..fact
        });
        assert!(run("MaxPool", 12, std::slice::from_ref(&double), attrs(vec![])).is_ok());
        assert!(run("AveragePool", 11, &[double], attrs(vec![])).is_ok());
        assert!(run("MaxPool", 12, &[x()], attrs(vec![])).is_err());
        // AveragePool-19 runs at every length; a dilated window is not checked.
        assert!(run("AveragePool", 19, &[x()], attrs(vec![])).is_ok());
        let dilated = attrs(vec![ints_attr("dilations", &[2])]);
        assert!(run("MaxPool", 12, &[s(&["1", "1", "3"])], dilated).is_ok());
        assert!(same("MaxPool", "n", 1, "SAME_UPPER").is_ok());
    }

    fn strided_pool(length: &str, kernel: i64, stride: i64) -> crate::shape::Dim {
        let out = run(
            "AveragePool",
            19,
            &[s(&["1", "1", length])],
            vec![
                ints_attr("kernel_shape", &[kernel]),
                ints_attr("strides", &[stride]),
            ],
        )
        .unwrap();
        out.outputs[0].shape.dims().unwrap()[2].clone()
    }

    #[test]
    fn pools_divide_with_truncation_as_onnxruntime_does() {
        use crate::shape::{Binding, Dim};
        // onnxruntime (and onnx's shape inference) give 1 where the ONNX reference's floor
        // gives 0: a 2-wide window over 1 element, a 3-wide one over 2 (rapidocr's recognizer).
        assert_eq!(strided_pool("1", 2, 2), Dim::known(1));
        assert_eq!(strided_pool("2", 3, 3), Dim::known(1));
        assert_eq!(strided_pool("1", 4, 2), Dim::known(0));
        assert_eq!(strided_pool("7", 3, 2), Dim::known(3));
        // Symbolic: exact at every size (onnxruntime: 1, 1, 1, 1, 2, 2 for n = 1..6).
        let n = strided_pool("n", 3, 3);
        for (value, want) in [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 2), (9, 3)] {
            let binding: Binding = [("n".to_string(), value)].into();
            assert_eq!(n.eval(&binding), Some(want), "n = {value}: {n}");
        }
        // A window that fits every non-empty input keeps the plain floor form.
        assert_eq!(strided_pool("n", 1, 2).to_string(), "(n+1)/2");
    }

    #[test]
    fn a_numerator_that_shrinks_as_a_symbol_grows_gets_the_exact_truncation() {
        use crate::ops::testing::shape;
        use crate::shape::{Binding, Dim, Shape};
        // A pool over `20 - n`: the value at n = 1 says nothing about n = 18 (onnxruntime: 1).
        let input = Shape::Ranked(vec![
            Dim::known(1),
            Dim::known(1),
            Dim::known(20).sub(&Dim::sym("n")),
        ]);
        let out = run(
            "MaxPool",
            12,
            &[shape(input)],
            vec![ints_attr("kernel_shape", &[3]), ints_attr("strides", &[2])],
        )
        .unwrap();
        let size = out.outputs[0].shape.dims().unwrap()[2].clone();
        // trunc((17 - n) / 2) + 1, for n = 1, 17, 18, 19.
        for (n, want) in [(1, 9), (17, 1), (18, 1), (19, 0)] {
            let binding: Binding = [("n".to_string(), n)].into();
            assert_eq!(size.eval(&binding), Some(want), "n = {n}: {size}");
        }
        assert!(
            out.checks.is_empty(),
            "no W4 from a size that is not monotone"
        );
    }

    #[test]
    fn same_padded_transpose_pads_nothing_below_the_stride() {
        // onnxruntime: `in * s` needs `extent + output_padding - s` padding; below 0 it pads
        // nothing (a 1-wide kernel of stride 2 makes 1, 3, 9 of 1, 2, 5).
        let transpose = |k: i64, padding: i64| {
            let out = run(
                "ConvTranspose",
                11,
                &[s(&["1", "1", "n"]), s(&["1", "1", &k.to_string()])],
                vec![
                    string_attr("auto_pad", "SAME_UPPER"),
                    ints_attr("strides", &[2]),
                    ints_attr("output_padding", &[padding]),
                ],
            )
            .unwrap();
            out.outputs[0].shape.dims().unwrap()[2].to_string()
        };
        assert_eq!(transpose(1, 0), "2*n-1");
        assert_eq!(transpose(1, 1), "2*n");
        assert_eq!(transpose(3, 0), "2*n");
    }
}
