//! Dim arithmetic that fails the rule when known sizes leave int64: a dilated kernel extent, a
//! `ConvTranspose`'s output channels, a block area, a tiled or concatenated length, a padded
//! size, an element count. `Dim`'s own arithmetic turns such a result into `Unknown` (it never
//! returns a wrong number); a rule that computes an output dim from known sizes asks here
//! instead, so that a size no tensor can have is the error it is (E4, the values named).
//! `onnx.shape_inference` raises on the same sums and products ("Integer overflow while
//! multiplying dimension values", `onnx/defs/shape_inference.h`), and onnxruntime cannot
//! allocate the tensor. Symbolic operands keep `Dim`'s arithmetic: whether they overflow
//! depends on the input.

use super::constraint::Constraint;
use super::RuleError;
use crate::shape::Dim;

/// What a checked computation produces, as the finding names it: `the dilated kernel extent
/// ((k - 1) * dilation + 1) on spatial axis 0`, and the input slots whose dims take part.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sized<'a> {
    what: &'a str,
    slots: &'a [usize],
}

/// `what`, computed from the dims of `slots`.
pub(crate) fn sized<'a>(what: &'a str, slots: &'a [usize]) -> Sized<'a> {
    Sized { what, slots }
}

impl Sized<'_> {
    /// `a + b`.
    pub(crate) fn add(self, a: &Dim, b: &Dim) -> Result<Dim, RuleError> {
        self.known(a, b, '+', i64::checked_add)
            .unwrap_or_else(|| Ok(a.add(b)))
    }

    /// `a - b`.
    pub(crate) fn sub(self, a: &Dim, b: &Dim) -> Result<Dim, RuleError> {
        self.known(a, b, '-', i64::checked_sub)
            .unwrap_or_else(|| Ok(a.sub(b)))
    }

    /// `a * b`.
    pub(crate) fn mul(self, a: &Dim, b: &Dim) -> Result<Dim, RuleError> {
        self.known(a, b, '*', i64::checked_mul)
            .unwrap_or_else(|| Ok(a.mul(b)))
    }

    /// The sum of `dims`, left to right.
    pub(crate) fn sum<'d>(self, dims: impl IntoIterator<Item = &'d Dim>) -> Result<Dim, RuleError> {
        dims.into_iter()
            .try_fold(Dim::known(0), |acc, d| self.add(&acc, d))
    }

    /// The product of `dims` (an element count). A known 0 among them makes it 0 whatever the
    /// others are: an empty tensor has no elements to count, and runtimes allocate nothing.
    pub(crate) fn product(self, dims: &[Dim]) -> Result<Dim, RuleError> {
        if dims.iter().any(|d| d.as_known() == Some(0)) {
            return Ok(Dim::known(0));
        }
        dims.iter()
            .try_fold(Dim::known(1), |acc, d| self.mul(&acc, d))
    }

    /// `Some` when both operands are known: the result, or the error when it leaves int64.
    fn known(
        self,
        a: &Dim,
        b: &Dim,
        sign: char,
        op: fn(i64, i64) -> Option<i64>,
    ) -> Option<Result<Dim, RuleError>> {
        let (Some(x), Some(y)) = (a.as_known(), b.as_known()) else {
            return None;
        };
        Some(op(x, y).map(Dim::known).ok_or_else(|| {
            Constraint::new(
                format!("{} must fit in a 64-bit signed integer", self.what),
                format!("{x} {sign} {y} is beyond {}", i64::MAX),
                self.slots,
            )
            .fix("correct the attribute or input that gives a size this large")
            .unmet()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: i64 = 1 << 62;

    fn found(r: Result<Dim, RuleError>) -> String {
        match r {
            Err(RuleError::Unmet(c)) => c.to_string(),
            other => format!("no error: {other:?}"),
        }
    }

    #[test]
    fn known_overflow_is_unmet_with_the_values() {
        let s = sized("the length", &[0]);
        let got = found(s.mul(&Dim::known(BIG), &Dim::known(4)));
        assert_eq!(
            got,
            "the length must fit in a 64-bit signed integer \
             (4611686018427387904 * 4 is beyond 9223372036854775807)"
        );
        assert!(s.add(&Dim::known(BIG), &Dim::known(BIG)).is_err());
        assert!(s.sub(&Dim::known(-BIG), &Dim::known(BIG + 1)).is_err());
        assert!(s.sum(&[Dim::known(BIG), Dim::known(BIG)]).is_err());
        assert_eq!(
            s.add(&Dim::known(BIG), &Dim::known(1)).unwrap(),
            Dim::known(BIG + 1)
        );
    }

    #[test]
    fn symbolic_operands_keep_dim_arithmetic() {
        let s = sized("the length", &[0]);
        let n = Dim::sym("n");
        assert_eq!(
            s.mul(&n, &Dim::known(BIG)).unwrap(),
            n.mul(&Dim::known(BIG))
        );
        assert_eq!(
            s.add(&Dim::Unknown, &Dim::known(BIG)).unwrap(),
            Dim::Unknown
        );
    }

    #[test]
    fn a_zero_factor_makes_an_empty_count() {
        let s = sized("the element count", &[0]);
        let dims = [Dim::known(BIG), Dim::known(BIG), Dim::known(0)];
        assert_eq!(s.product(&dims).unwrap(), Dim::known(0));
        assert!(s.product(&dims[..2]).is_err());
    }
}

/// Every rule that computes an output dim from known sizes, at sizes beyond int64: each case as
/// `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) rejects it ("Integer
/// overflow while multiplying dimension values", "... adding ...", "Integer overflow computing
/// Concat output length", "Dimension product overflow in Reshape" / "in `ArrayFeatureExtractor`").
#[cfg(test)]
mod rules {
    use crate::ops::testing::{dims, int_attr, int_list, ints_attr, run, run_in, unmet};
    use crate::ops::{Inferred, RuleError};

    const BIG: &str = "4611686018427387904";

    fn requires(r: Result<Inferred, RuleError>) -> String {
        let c = unmet(r);
        assert!(c.found.ends_with("is beyond 9223372036854775807"), "{c}");
        c.requires
    }

    #[test]
    fn convolutions_overflow_in_the_kernel_extent_channels_and_sizes() {
        let conv = |attrs| {
            run(
                "Conv",
                11,
                &[dims(&["1", "1", "8"]), dims(&["1", "1", "3"])],
                attrs,
            )
        };
        let got = requires(conv(vec![ints_attr("dilations", &[1 << 62])]));
        assert_eq!(
            got,
            "the dilated kernel extent ((k - 1) * dilation + 1) on spatial axis 0 must fit in a 64-bit signed integer"
        );
        let got = requires(conv(vec![ints_attr("pads", &[i64::MAX, 1])]));
        assert!(got.starts_with("the padded input size"), "{got}");
        // Below the limit the size is computed: (8 + 2^62 + 2^62 - 3) + 1.
        assert!(conv(vec![ints_attr("pads", &[1 << 62, (1 << 62) - 10])]).is_ok());
        let pool = run(
            "MaxPool",
            12,
            &[dims(&["1", "1", "8"])],
            vec![
                ints_attr("kernel_shape", &[3]),
                ints_attr("dilations", &[1 << 62]),
            ],
        );
        assert!(requires(pool).starts_with("the dilated kernel extent"));
        let transpose = |w: &str, attrs| {
            run(
                "ConvTranspose",
                11,
                &[dims(&["1", "4", "8"]), dims(&["4", w, "3"])],
                attrs,
            )
        };
        let got = requires(transpose(BIG, vec![int_attr("group", 4)]));
        assert_eq!(
            got,
            "the output channels (W's dim 1 times group) must fit in a 64-bit signed integer"
        );
        let got = requires(transpose("1", vec![ints_attr("strides", &[1 << 62])]));
        assert!(
            got.starts_with("the output size (stride * (input - 1)"),
            "{got}"
        );
        let grouped = run(
            "Conv",
            11,
            &[dims(&["1", "4", "8"]), dims(&["1", BIG, "3"])],
            vec![int_attr("group", 4)],
        );
        assert!(requires(grouped).starts_with("W's dim 1 (C/group) times group"));
        let unpool = run(
            "MaxUnpool",
            11,
            &[dims(&["1", "1", "8"]), dims(&["1", "1", "8"])],
            vec![
                ints_attr("kernel_shape", &[2]),
                ints_attr("strides", &[1 << 62]),
            ],
        );
        assert!(requires(unpool).starts_with("the output size (stride * (input - 1) + kernel"));
    }

    #[test]
    fn blocks_tiles_joins_and_pads_overflow() {
        let block = |op| {
            run(
                op,
                13,
                &[dims(&["1", "4", "8", "8"])],
                vec![int_attr("blocksize", 1 << 32)],
            )
        };
        for op in ["DepthToSpace", "SpaceToDepth"] {
            assert_eq!(
                requires(block(op)),
                "the block area (blocksize * blocksize) must fit in a 64-bit signed integer"
            );
        }
        let d2s = run(
            "SpaceToDepth",
            13,
            &[dims(&["1", BIG, "2", "2"])],
            vec![int_attr("blocksize", 2)],
        );
        assert!(requires(d2s).starts_with("the output depth"));
        let tile = run(
            "Tile",
            13,
            &[dims(&["4", "8"]), int_list(&[1 << 62, 1])],
            vec![],
        );
        assert_eq!(
            requires(tile),
            "Tile's output dim 0 (the input's times repeats) must fit in a 64-bit signed integer"
        );
        let concat = run(
            "Concat",
            13,
            &[dims(&[BIG]), dims(&[BIG])],
            vec![int_attr("axis", 0)],
        );
        assert!(requires(concat).starts_with("Concat's output length on axis 0"));
        let pad = |pads: &[i64]| run("Pad", 13, &[dims(&["4"]), int_list(pads)], vec![]);
        assert!(requires(pad(&[1 << 62, 1 << 62])).starts_with("Pad's output dim 0"));
        // A negative end pad brings the total back in range, as onnx adds the pads first.
        assert!(pad(&[i64::MAX, -8]).is_ok());
        let split = run_in(
            "",
            "Split",
            13,
            &[dims(&["4"]), int_list(&[1 << 62, 1 << 62])],
            vec![],
            2,
        );
        assert!(requires(split).starts_with("the sum of Split's"));
    }

    #[test]
    fn element_counts_overflow() {
        let flatten = run(
            "Flatten",
            13,
            &[dims(&["2", BIG, "3"])],
            vec![int_attr("axis", 1)],
        );
        assert!(requires(flatten).starts_with("the output's dim 1"));
        // An empty tensor counts 0 elements, however large its other dims.
        let empty = run(
            "Flatten",
            13,
            &[dims(&["0", BIG, "3"])],
            vec![int_attr("axis", 0)],
        );
        assert!(empty.is_ok());
        let reshape =
            |x: &[&str], target: &[i64]| run("Reshape", 14, &[dims(x), int_list(target)], vec![]);
        assert!(requires(reshape(&["2", BIG], &[-1])).starts_with("the input's element count"));
        let got = requires(reshape(&["n"], &[1 << 62, 4, -1]));
        assert_eq!(
            got,
            "the target's element count must fit in a 64-bit signed integer"
        );
        let picked = run_in(
            "ai.onnx.ml",
            "ArrayFeatureExtractor",
            1,
            &[dims(&["2", "5"]), dims(&[BIG, "4"])],
            vec![],
            1,
        );
        assert!(requires(picked).starts_with("the number of indices"));
    }
}
