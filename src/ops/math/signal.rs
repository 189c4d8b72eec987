//! Signal processing (ONNX defs section `math`, opset 17+): the window generators
//! (`HannWindow`, `HammingWindow`, `BlackmanWindow`: a 1-D tensor of `size` elements),
//! `MelWeightMatrix` (`[floor(dft_length / 2) + 1, num_mel_bins]`), `DFT` (17: `axis`
//! attribute; 20: `axis` input) and `STFT` (`[batch, frames, bins, 2]`). Shapes follow each doc
//! and onnxruntime's kernels (checked on onnxruntime 1.31); sizes read from an unknown input
//! value are fresh named sizes, as `TopK`'s `k` is.

use crate::ops::axes::input_ints;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::overflow::sized;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `floor(n / 2) + 1`, the number of unique bins of a real signal's DFT of length `n`.
fn unique_bins(n: &Dim) -> Dim {
    n.floor_div(&Dim::known(2)).add(&Dim::known(1))
}

/// The first element of integer input `slot` when known, else unknown.
fn known_element(ctx: &Ctx<'_>, slot: usize) -> Dim {
    input_ints(ctx.input(slot))
        .and_then(|v| v.first().copied())
        .map_or(Dim::Unknown, Dim::known)
}

/// `HannWindow(size)`, `HammingWindow(size)`, `BlackmanWindow(size)`: a 1-D window of `size`
/// elements (the scalar's value).
pub(crate) fn window_17(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    let size = ctx.size_element(0, 0, "size", Vec::new());
    let elem = ctx
        .attrs()
        .int("output_datatype")?
        .and_then(|t| i32::try_from(t).ok());
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(vec![size])).elem(elem.or(Some(1))),
    ))
}

/// `MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
/// upper_edge_hertz)`: `[floor(dft_length / 2) + 1, num_mel_bins]`.
pub(crate) fn mel_weight_matrix_17(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    for slot in 0..5 {
        ctx.required(slot)?;
    }
    let bins = ctx.size_element(0, 0, "num_mel_bins", Vec::new());
    // Only a known length: a fresh symbol would enter the output only through `n / 2 + 1`,
    // which the engine cannot adopt a declared size for.
    let dft_length = known_element(ctx, 1);
    let elem = ctx
        .attrs()
        .int("output_datatype")?
        .and_then(|t| i32::try_from(t).ok());
    let shape = Shape::Ranked(vec![unique_bins(&dft_length), bins]);
    Ok(Inferred::single(
        Output::shape(shape).elem(elem.or(Some(1))),
    ))
}

/// The DFT's output dims for an input of `dims` along `axis` (`None`: not known), of length
/// `length` when `dft_length` is given.
fn dft_dims(
    ctx: &Ctx<'_>,
    dims: &[Dim],
    axis: Option<i64>,
    length: Option<Dim>,
) -> Result<Vec<Dim>, RuleError> {
    let rank = dims.len();
    let last = dims.last().cloned().unwrap_or(Dim::Unknown);
    if let Some(d) = last.as_known().filter(|d| !(1..=2).contains(d)) {
        // onnxruntime: "Input layout not supported. The input tensor must have ... 1 or 2".
        return Err(Constraint::new(
            "DFT's input must end with a dimension of 1 (real) or 2 (complex)",
            format!("its last dimension is {d}"),
            &[0],
        )
        .unmet());
    }
    let inverse = ctx.int("inverse", 0)? != 0;
    let onesided = ctx.int("onesided", 0)? != 0;
    // onnx.shape_inference (DFT-17 and -20), which onnxruntime runs at session creation: "one-sided
    // DFT requires real input (last dimension must be 1)", "inverse one-sided DFT requires
    // complex input (last dimension must be 2)".
    let (wanted, kind) = if inverse { (2, "complex") } else { (1, "real") };
    if let Some(d) = last.as_known().filter(|&d| onesided && d != wanted) {
        let which = if inverse {
            "an inverse one-sided"
        } else {
            "a one-sided"
        };
        return Err(Constraint::new(
            format!("{which} DFT needs a {kind} input: its last dimension must be {wanted}"),
            format!("its last dimension is {d}"),
            &[0],
        )
        .fix(format!("give a {kind} input, or set onesided to 0"))
        .unmet());
    }
    let mut out = dims.to_vec();
    let rank_i = i64::try_from(rank).unwrap_or(i64::MAX);
    let axis = match axis {
        // onnx: "Valid values are '-rank <= axis && axis != -1 && axis < rank - 1'".
        Some(a) if a < -rank_i || a == -1 || a >= rank_i.saturating_sub(1) => {
            return Err(Constraint::new(
                "DFT's axis must satisfy -rank <= axis < rank - 1 and axis != -1 (the last axis holds the real and imaginary parts)",
                format!("axis is {a} for rank {rank}"),
                &[0],
            )
            .unmet());
        }
        Some(a) => usize::try_from(if a < 0 { a + rank_i } else { a }).ok(),
        None => None,
    };
    let changes = onesided || length.is_some();
    match axis {
        Some(axis) => {
            if let Some(slot) = out.get_mut(axis) {
                let n = length.unwrap_or_else(|| slot.clone());
                *slot = match (onesided, inverse) {
                    (false, _) => n,
                    (true, false) => unique_bins(&n),
                    (true, true) => sized("the inverse one-sided DFT's length (2 * (n - 1))", &[0])
                        .mul(&n.sub(&Dim::known(1)), &Dim::known(2))?,
                };
            }
        }
        None if changes => {
            for d in out.iter_mut().take(rank.saturating_sub(1)).skip(1) {
                *d = Dim::Unknown;
            }
        }
        None => {}
    }
    if let Some(l) = out.last_mut() {
        *l = Dim::known(if onesided && inverse { 1 } else { 2 });
    }
    Ok(out)
}

/// The DFT output of input 0 for `axis`, with `dft_length` from input 1.
fn dft(ctx: &Ctx<'_>, axis: Option<i64>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let length = ctx.input(1).map(|_| {
        if ctx.int("onesided", 0).unwrap_or(0) == 0 {
            ctx.size_element(1, 0, "dft_length", Vec::new())
        } else {
            known_element(ctx, 1)
        }
    });
    let shape = match x.shape.dims() {
        Some(dims) => Shape::Ranked(dft_dims(ctx, dims, axis, length)?),
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `DFT-17(input, dft_length)` with the `axis` attribute (default 1).
pub(crate) fn dft_17(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    dft(ctx, Some(ctx.int("axis", 1)?))
}

/// `DFT-20(input, dft_length, axis)` with `axis` an input (default -2).
pub(crate) fn dft_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let axis = match ctx.input(2) {
        None => Some(-2),
        Some(a) => input_ints(Some(a)).and_then(|v| v.first().copied()),
    };
    dft(ctx, axis)
}

/// `STFT(signal, frame_step, window, frame_length)`: `[batch, frames, bins, 2]` with
/// `frames = floor((length - frame_length) / frame_step) + 1` and `bins` the frame length, or
/// `floor(frame_length / 2) + 1` when `onesided` (default 1; onnx's inference gives the full
/// length there, onnxruntime and the doc the unique bins).
pub(crate) fn stft_17(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let signal = ctx.required(0)?;
    ctx.required(1)?;
    let mut pending = Pending::default();
    let window = ctx.input(2).and_then(|w| match w.shape.dims() {
        Some([n]) => Some(n.clone()),
        _ => None,
    });
    let given = ctx.input(3).map(|_| known_element(ctx, 3));
    let frame = match (given, window) {
        (Some(given), Some(window)) => {
            pending.equal(&given, &window, || {
                Constraint::new(
                    "STFT's window length must match frame_length when both are given",
                    format!("window has {window} elements, frame_length is {given}"),
                    &[2, 3],
                )
            })?;
            // An unknown frame_length value leaves the window's length to size the frames.
            if matches!(given, Dim::Unknown) {
                window
            } else {
                given
            }
        }
        (Some(n), None) | (None, Some(n)) => n,
        (None, None) => Dim::Unknown,
    };
    let step = input_ints(ctx.input(1)).and_then(|v| v.first().copied());
    let dims = signal.shape.dims();
    let batch = dims
        .and_then(<[Dim]>::first)
        .cloned()
        .unwrap_or(Dim::Unknown);
    let length = dims.and_then(|d| d.get(1)).cloned().unwrap_or(Dim::Unknown);
    let frames = match step {
        Some(s) if s >= 1 => length
            .sub(&frame)
            .floor_div(&Dim::known(s))
            .add(&Dim::known(1)),
        Some(s) => {
            return Err(Constraint::new(
                "STFT's frame_step must be positive",
                format!("frame_step is {s}"),
                &[1],
            )
            .unmet())
        }
        None => Dim::Unknown,
    };
    if let (Some(l), Some(f)) = (length.as_known(), frame.as_known()) {
        if f > l {
            return Err(Constraint::new(
                "STFT's frame_length must not exceed the signal length",
                format!("frame_length is {f}, the signal has {l} samples"),
                &[0, 2],
            )
            .unmet());
        }
    }
    let bins = if ctx.int("onesided", 1)? != 0 {
        unique_bins(&frame)
    } else {
        frame
    };
    let shape = Shape::Ranked(vec![batch, frames, bins, Dim::known(2)]);
    Ok(Inferred::single(Output::shape(shape).elem(signal.elem))
        .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints, run};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    // Shapes as onnxruntime 1.31 runs each op (CPU); onnx 1.23's inference agrees except where
    // a test says.

    fn scalar(v: i64) -> Option<crate::ops::testing::Fact> {
        ints(ValueTensor::new(Vec::new(), vec![Dim::known(v)]).unwrap())
    }

    #[test]
    fn windows_have_size_elements() {
        assert_eq!(shape(&run("HannWindow", 17, &[scalar(10)], vec![])), "[10]");
        let unknown = ints(ValueTensor::new(Vec::new(), vec![Dim::Unknown]).unwrap());
        let r = run("BlackmanWindow", 17, &[unknown], vec![]);
        assert!(shape(&r).contains("size#"), "{}", shape(&r));
    }

    #[test]
    fn mel_weight_matrix_is_unique_bins_by_mel_bins() {
        let inputs = [scalar(8), scalar(16), scalar(16000), dims(&[]), dims(&[])];
        assert_eq!(
            shape(&run("MelWeightMatrix", 17, &inputs, vec![])),
            "[9, 8]"
        );
    }

    #[test]
    fn one_sided_dfts_need_a_real_input_and_inverse_ones_a_complex_one() {
        // onnx strict inference and onnxruntime, DFT-17 and -20, input [1, 8, last].
        for opset in [17, 20] {
            for (last, inverse, fails) in [(1, 0, false), (1, 1, true), (2, 0, true), (2, 1, false)]
            {
                let r = run(
                    "DFT",
                    opset,
                    &[dims(&["1", "8", &last.to_string()])],
                    vec![int_attr("onesided", 1), int_attr("inverse", inverse)],
                );
                assert_eq!(
                    unmet(&r),
                    fails,
                    "DFT-{opset} last {last} inverse {inverse}"
                );
            }
        }
    }

    #[test]
    fn dft_17_replaces_the_axis_and_last_dim() {
        assert_eq!(
            shape(&run("DFT", 17, &[dims(&["2", "10", "1"])], vec![])),
            "[2, 10, 2]"
        );
        assert_eq!(
            shape(&run(
                "DFT",
                17,
                &[dims(&["2", "10", "1"])],
                vec![int_attr("onesided", 1)]
            )),
            "[2, 6, 2]"
        );
        assert_eq!(
            shape(&run(
                "DFT",
                17,
                &[dims(&["2", "10", "1"]), scalar(16)],
                vec![]
            )),
            "[2, 16, 2]"
        );
        let inverse = vec![int_attr("onesided", 1), int_attr("inverse", 1)];
        assert_eq!(
            shape(&run("DFT", 17, &[dims(&["2", "10", "2"])], inverse)),
            "[2, 18, 1]"
        );
        assert!(unmet(&run("DFT", 17, &[dims(&["2", "10", "3"])], vec![])));
        assert!(unmet(&run(
            "DFT",
            17,
            &[dims(&["2", "10", "2"])],
            vec![int_attr("axis", 2)]
        )));
    }

    #[test]
    fn dft_20_reads_the_axis_input() {
        let x = || dims(&["2", "10", "6", "1"]);
        assert_eq!(shape(&run("DFT", 20, &[x()], vec![])), "[2, 10, 6, 2]");
        let onesided = || vec![int_attr("onesided", 1)];
        assert_eq!(
            shape(&run("DFT", 20, &[x(), None, scalar(1)], onesided())),
            "[2, 6, 6, 2]"
        );
        assert_eq!(shape(&run("DFT", 20, &[x()], onesided())), "[2, 10, 4, 2]");
        assert_eq!(
            shape(&run("DFT", 20, &[x(), None, dims(&[])], onesided())),
            "[2, ?, ?, 2]"
        );
        assert!(unmet(&run("DFT", 20, &[x(), None, scalar(-1)], vec![])));
    }

    #[test]
    fn stft_frames_and_bins() {
        let window = || dims(&["16"]);
        let r = run(
            "STFT",
            17,
            &[dims(&["2", "100", "1"]), scalar(10), window()],
            vec![],
        );
        assert_eq!(shape(&r), "[2, 9, 9, 2]");
        let r = run(
            "STFT",
            17,
            &[dims(&["2", "100", "2"]), scalar(10), None, scalar(16)],
            vec![int_attr("onesided", 0)],
        );
        assert_eq!(shape(&r), "[2, 9, 16, 2]");
        let r = run(
            "STFT",
            17,
            &[dims(&["b", "n", "1"]), scalar(10), window()],
            vec![],
        );
        assert_eq!(shape(&r), "[b, (n+4)/10-1, 9, 2]");
        // onnx: "the dimension of the window must match the frame_length specified".
        assert!(unmet(&run(
            "STFT",
            17,
            &[dims(&["2", "100", "1"]), scalar(10), window(), scalar(8)],
            vec![]
        )));
        let r = run(
            "STFT",
            17,
            &[
                dims(&["2", "100", "1"]),
                scalar(10),
                dims(&["w"]),
                scalar(8),
            ],
            vec![],
        );
        assert_eq!(conditions(&r), ["w = 8"]);
    }
}
