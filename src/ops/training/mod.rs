//! ONNX's `onnx/defs/training` operators (`ai.onnx.preview.training`, version 1): the optimizers
//! `Adagrad`, `Adam` and `Momentum`, and `Gradient`.
//!
//! An optimizer takes `R` and `T`, then its tensors in groups (`X_1..X_n`, `G_1..G_n`, then each
//! state `H_1..H_n`...), and outputs the new `X` and the new states in the same order, each with
//! the shape of the tensor it replaces (as `onnx.shape_inference` types them). Their pseudo code
//! combines `X`, its gradient and its states "element-wise ... with numpy-style broadcasting", and
//! `X_new` has `X`'s shape: so each gradient and state is recorded as a unidirectional broadcast
//! onto its `X` (E1/W1), the least the update needs.

use crate::ops::constraint::Constraint;
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::Shape;

/// An optimizer's form: how many tensors per optimized variable it reads (X, G and its states)
/// and which of them it writes back (X first).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Optimizer {
    /// `Adagrad`: X, G, H in; `X_new`, `H_new` out.
    Adagrad,
    /// `Adam`: X, G, V, H in; `X_new`, `V_new`, `H_new` out.
    Adam,
    /// `Momentum`: X, G, V in; `X_new`, `V_new` out.
    Momentum,
}

impl Optimizer {
    fn name(self) -> &'static str {
        match self {
            Optimizer::Adagrad => "Adagrad",
            Optimizer::Adam => "Adam",
            Optimizer::Momentum => "Momentum",
        }
    }

    /// Inputs per variable after R and T, and the input groups written back (0 is X; 1, the
    /// gradient, is never written).
    fn groups(self) -> (usize, &'static [usize]) {
        match self {
            Optimizer::Adagrad | Optimizer::Momentum => (3, &[0, 2]),
            Optimizer::Adam => (4, &[0, 2, 3]),
        }
    }
}

/// `Adagrad`, `Adam`, `Momentum` `(R, T, X..., G..., states...)`.
pub(crate) fn optimizer(ctx: &Ctx<'_>, form: Optimizer) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    ctx.required(1)?;
    let (per, written) = form.groups();
    let tensors = ctx.input_count().saturating_sub(2);
    if tensors == 0 || tensors % per != 0 {
        return Err(Constraint::new(
            format!(
                "{}'s inputs after R and T must come in {per} groups of equal length (X, G, ...)",
                form.name()
            ),
            format!("it has {tensors} inputs after R and T"),
            &[],
        )
        .unmet());
    }
    let n = tensors / per;
    let slot = |group: usize, i: usize| 2 + group * n + i;
    let mut outputs = Vec::with_capacity(written.len() * n);
    for &group in written {
        for i in 0..n {
            let input = ctx.required(slot(group, i))?;
            outputs.push(Output::shape(input.shape.clone()).elem(input.elem));
        }
    }
    let mut inferred = Inferred::many(outputs);
    for i in 0..n {
        let x = ctx.required(slot(0, i))?;
        for group in 1..per {
            let s = slot(group, i);
            let other = ctx.required(s)?;
            let outcome = ctx.broadcasts().unidirectional(x.shape, other.shape);
            inferred = inferred.with_check(Rule::Unidirectional, vec![slot(0, i), s], outcome);
        }
    }
    Ok(inferred)
}

/// `Gradient(inputs...)`: one output per name in `xs` ("dY/dW"), whose shape the doc does not
/// give (it depends on `y` through the differentiated graph), so the outputs stay unknown; `xs`
/// and `y` are required attributes.
pub(crate) fn gradient(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let Some(xs) = ctx.attrs().get("xs").and_then(|a| a.value.strings()) else {
        return Err(spec::missing_attr("Gradient", "xs"));
    };
    if ctx.attrs().string("y")?.is_none() {
        return Err(spec::missing_attr("Gradient", "y"));
    }
    let outputs = ctx.node().outputs().len();
    if outputs > xs.len() {
        return Err(Constraint::new(
            "Gradient has one output per tensor named in xs",
            format!("{outputs} outputs, xs names {}", xs.len()),
            &[],
        )
        .unmet());
    }
    Ok(Inferred::many(vec![
        Output::shape(Shape::Unranked);
        outputs
    ]))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims, output_shapes, run_in};
    use crate::proto::attribute_proto::AttributeType;
    use crate::proto::AttributeProto;

    const TRAINING: &str = "ai.onnx.preview.training";

    fn run(
        op: &str,
        inputs: &[&[&str]],
        outputs: usize,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let facts: Vec<_> = inputs.iter().map(|d| dims(d)).collect();
        run_in(TRAINING, op, 1, &facts, vec![], outputs)
    }

    // Output shapes as `onnx.shape_inference` (onnx 1.23) gives them.

    #[test]
    fn updates_keep_each_tensors_shape_in_order() {
        let r = run(
            "Adagrad",
            &[
                &[],
                &[],
                &["3", "4"],
                &["5"],
                &["3", "4"],
                &["5"],
                &["3", "4"],
                &["5"],
            ],
            4,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[3, 4]", "[5]", "[3, 4]", "[5]"]);
        assert_eq!(r.checks.len(), 4);
        let r = run(
            "Adam",
            &[&[], &[], &["n", "4"], &["n", "4"], &["n", "4"], &["n", "4"]],
            3,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[n, 4]"; 3]);
        let r = run(
            "Momentum",
            &[&[], &[], &["3", "4"], &["3", "4"], &["3", "4"]],
            2,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[3, 4]"; 2]);
    }

    #[test]
    fn a_gradient_that_cannot_broadcast_onto_x_is_recorded() {
        let r = run(
            "Momentum",
            &[&[], &[], &["3", "4"], &["3", "5"], &["3", "4"]],
            2,
        )
        .unwrap();
        assert!(r.checks.iter().any(|c| !c.outcome.is_valid()));
        assert!(run("Adam", &[&[], &[], &["3"], &["3"]], 3).is_err());
    }

    #[test]
    fn gradient_outputs_are_unknown_and_need_xs_and_y() {
        let strings = |name: &str, v: &[&str]| AttributeProto {
            name: Some(name.into()),
            r#type: Some(AttributeType::Strings as i32),
            strings: v.iter().map(|s| s.as_bytes().to_vec().into()).collect(),
            ..AttributeProto::default()
        };
        let y = crate::ops::testing::string_attr("y", "loss");
        let inputs = [dims(&["3"]), dims(&["4"])];
        let r = run_in(
            TRAINING,
            "Gradient",
            1,
            &inputs,
            vec![strings("xs", &["a", "b"]), y.clone()],
            2,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[...]", "[...]"]);
        assert!(run_in(TRAINING, "Gradient", 1, &inputs, vec![y], 2).is_err());
    }
}
