//! Ops that permute dims or trade depth for space: `Transpose` (`perm`, default reversed),
//! `DepthToSpace` and `SpaceToDepth` (`[N, C, H, W]` with `blocksize`; a divided dim is known
//! only when the division is exact).

use crate::ops::axes::unknown_dims;
use crate::ops::constraint::Constraint;
use crate::ops::overflow::sized;
use crate::ops::values::rearrange;
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `Transpose(x, perm)`: dims permuted; the default perm reverses them.
pub(crate) fn transpose(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let elem = input.elem;
    let Some(dims) = input.shape.dims() else {
        let rank = ctx.attrs().ints("perm")?.map(<[i64]>::len);
        return Ok(Inferred::single(
            Output::shape(rank.map_or(Shape::Unranked, unknown_dims)).elem(elem),
        ));
    };
    let perm: Vec<usize> = match ctx.attrs().ints("perm")? {
        Some(perm) => checked_perm(perm, dims.len())?,
        None => (0..dims.len()).rev().collect(),
    };
    if let Some(value) = input.value.and_then(|v| rearrange::permute(v, &perm)) {
        return Ok(Inferred::single(Output::value(value, elem)));
    }
    let out = perm
        .iter()
        .map(|&p| dims.get(p).cloned().unwrap_or(Dim::Unknown))
        .collect();
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(out)).elem(elem),
    ))
}

/// `perm` as indices: "a permutation of the axes" of the input (Transpose doc), so as many
/// entries as the rank, each in `[0, r)` (onnxruntime rejects negative entries: "Invalid
/// attribute perm {-1, 0}"), none repeated.
fn checked_perm(perm: &[i64], rank: usize) -> Result<Vec<usize>, RuleError> {
    let fault = |found: String| {
        Constraint::new(
            "Transpose's perm must be a permutation of [0, r) for an input of rank r",
            found,
            &[0],
        )
        .fix(format!("list each axis in [0, {rank}) once"))
        .unmet()
    };
    if perm.len() != rank {
        return Err(fault(format!(
            "perm has {} entries, the input has rank {rank}",
            perm.len()
        )));
    }
    let indices = perm
        .iter()
        .map(|&p| usize::try_from(p).ok().filter(|&p| p < rank))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| fault(format!("perm is {perm:?}")))?;
    if let Some(axis) = spec::repeated(&indices) {
        return Err(fault(format!("perm {perm:?} repeats axis {axis}")));
    }
    Ok(indices)
}

/// `DepthToSpace`: `[N, C, H, W] -> [N, C/(b*b), H*b, W*b]`.
pub(crate) fn depth_to_space(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    space_depth(ctx, true)
}

/// `SpaceToDepth`: `[N, C, H, W] -> [N, C*b*b, H/b, W/b]`.
pub(crate) fn space_to_depth(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    space_depth(ctx, false)
}

fn space_depth(ctx: &Ctx<'_>, to_space: bool) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let Some(block) = ctx.attrs().int("blocksize")? else {
        return Err(spec::missing_attr(ctx.node().op_type(), "blocksize"));
    };
    if block <= 0 {
        return Err(Constraint::new(
            "blocksize must be positive",
            format!("blocksize is {block}"),
            &[],
        )
        .unmet());
    }
    // onnx.shape_inference computes the block area first, whatever the input.
    let block = Dim::known(block);
    let square = sized("the block area (blocksize * blocksize)", &[]).mul(&block, &block)?;
    let shape = match input.shape.dims() {
        Some([batch, depth, height, width]) => {
            // "input depth to be a multiple of (block_size * block_size)" / "input height (and
            // width) to be a multiple of block_size" (onnxruntime; the docs' reshapes need it).
            let divided: &[(&Dim, &Dim, &str)] = if to_space {
                &[(depth, &square, "depth (C)")]
            } else {
                &[(height, &block, "height (H)"), (width, &block, "width (W)")]
            };
            for (dim, by, what) in divided {
                if let (Some(d), Some(b)) = (dim.as_known(), by.as_known()) {
                    if d.checked_rem(b).is_some_and(|r| r != 0) {
                        return Err(Constraint::new(
                            format!("the input's {what} must be a multiple of {by}"),
                            format!("{what} is {d}"),
                            &[0],
                        )
                        .fix("change blocksize, or the input's layout")
                        .unmet());
                    }
                }
            }
            Shape::Ranked(if to_space {
                vec![
                    batch.clone(),
                    depth.div_exact(&square),
                    sized("the output height (H * blocksize)", &[0]).mul(height, &block)?,
                    sized("the output width (W * blocksize)", &[0]).mul(width, &block)?,
                ]
            } else {
                vec![
                    batch.clone(),
                    sized("the output depth (C * blocksize * blocksize)", &[0])
                        .mul(depth, &square)?,
                    height.div_exact(&block),
                    width.div_exact(&block),
                ]
            })
        }
        // onnx.shape_inference and onnxruntime: "Input tensor must be 4-dimensional".
        Some(dims) => {
            return Err(Constraint::new(
                format!(
                    "{}'s input must be 4-D (N x C x H x W)",
                    ctx.node().op_type()
                ),
                format!("the input has rank {}", dims.len()),
                &[0],
            )
            .fix("Reshape or Unsqueeze the input to [N, C, H, W]")
            .unmet())
        }
        None => unknown_dims(4),
    };
    Ok(Inferred::single(Output::shape(shape).elem(input.elem)))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{self, ints_attr};
    use crate::shape::{Dim, Shape};

    fn b() -> Dim {
        Dim::sym("batch")
    }
    fn s() -> Dim {
        Dim::sym("seq")
    }

    #[test]
    fn transpose_default_reverses() {
        let x = Shape::Ranked(vec![b(), s(), Dim::known(3)]);
        let out = testing::run("Transpose", 13, &[testing::shape(x.clone())], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::known(3), s(), b()])
        );
        let out = testing::run(
            "Transpose",
            13,
            &[testing::shape(x)],
            vec![ints_attr("perm", &[0, 2, 1])],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(3), s()])
        );
    }

    #[test]
    fn space_and_depth_need_a_4d_input() {
        // onnx strict inference and onnxruntime: "Input tensor must be 4-dimensional".
        for op in ["DepthToSpace", "SpaceToDepth"] {
            for rank in [0, 3, 5] {
                let x = Shape::Ranked(vec![Dim::known(4); rank]);
                let got = testing::run(
                    op,
                    13,
                    &[testing::shape(x)],
                    vec![testing::int_attr("blocksize", 2)],
                );
                let c = testing::unmet(got);
                assert_eq!(c.found, format!("the input has rank {rank}"), "{op}");
            }
            let unranked = testing::run(
                op,
                13,
                &[testing::shape(Shape::Unranked)],
                vec![testing::int_attr("blocksize", 2)],
            );
            assert_eq!(unranked.unwrap().outputs[0].shape.rank(), Some(4));
        }
    }

    #[test]
    fn depth_to_space_needs_an_exact_depth() {
        let x = Shape::Ranked(vec![b(), Dim::known(8), s(), Dim::known(3)]);
        let out = testing::run(
            "DepthToSpace",
            13,
            &[testing::shape(x.clone())],
            vec![testing::int_attr("blocksize", 2)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![
                b(),
                Dim::known(2),
                s().mul(&Dim::known(2)),
                Dim::known(6)
            ])
        );
        let x = Shape::Ranked(vec![b(), Dim::known(8), s(), Dim::known(6)]);
        let out = testing::run(
            "SpaceToDepth",
            13,
            &[testing::shape(x)],
            vec![testing::int_attr("blocksize", 2)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(32), Dim::Unknown, Dim::known(3)])
        );
    }

    #[test]
    fn perm_must_be_a_permutation_of_the_axes() {
        let perm = |p: &[i64]| {
            testing::run(
                "Transpose",
                13,
                &[testing::dims(&["2", "3"])],
                vec![ints_attr("perm", p)],
            )
        };
        assert!(unmet(&perm(&[-1, 0])));
        assert!(unmet(&perm(&[0, 0])));
        assert!(unmet(&perm(&[0, 1, 2])));
        assert!(unmet(&perm(&[0, 2])));
        assert_eq!(shape(&perm(&[1, 0])), "[3, 2]");
    }

    #[test]
    fn space_depth_blocks_must_divide() {
        let run = |op: &str, x: &[&str], attrs| testing::run(op, 13, &[testing::dims(x)], attrs);
        let block = || vec![testing::int_attr("blocksize", 2)];
        assert!(unmet(&run("DepthToSpace", &["1", "3", "2", "2"], block())));
        assert!(unmet(&run("SpaceToDepth", &["1", "3", "2", "3"], block())));
        assert!(unmet(&run("DepthToSpace", &["1", "4", "2", "2"], vec![])));
        let zero = vec![testing::int_attr("blocksize", 0)];
        assert!(unmet(&run("DepthToSpace", &["1", "4", "2", "2"], zero)));
        assert_eq!(
            shape(&run("DepthToSpace", &["1", "4", "2", "2"], block())),
            "[1, 1, 4, 4]"
        );
    }
}
