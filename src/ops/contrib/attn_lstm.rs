//! `AttnLSTM` (com.microsoft, CPU kernel): one LSTM layer whose cell input is X concatenated with
//! a Bahdanau attention over a memory. With `S` steps, batch `B`, input size `I`, hidden size
//! `H`, `D` directions, memory `M` of `(B, max_memory, MD)`, attention depth `A` (QW's last dim)
//! and the wrapper's width `AW` (AW's last dim, or `MD` without AW): W is `(D, 4H, I + AW)`, R
//! `(D, 4H, H)`, B `(D, 8H)`, the sequence lengths `(B)`, the initial states `(D, B, H)`, P
//! `(D, 3H)`, QW `(D, H, A)`, MW `(D, MD, A)`, V `(D, A)`, the memory lengths `(B)` and AW
//! `(D, MD + H, AW)`, each as onnxruntime 1.31's kernel checks them ("Input W must have shape
//! {1,4*4,12}"). Y is `(S, D, B, H)`, `Y_h` and `Y_c` `(D, B, H)`.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The dims of input `slot`, when present and ranked.
fn dims<'a>(ctx: &Ctx<'a>, slot: usize) -> Option<&'a [Dim]> {
    ctx.input(slot).and_then(|i| i.shape.dims())
}

/// The first known of `candidates`, else unknown.
fn first_known(candidates: &[Dim]) -> Dim {
    candidates
        .iter()
        .find(|d| !matches!(d, Dim::Unknown))
        .cloned()
        .unwrap_or(Dim::Unknown)
}

/// `AttnLSTM(X, W, R, B, sequence_lens, initial_h, initial_c, P, QW, MW, V, M,
/// memory_seq_lens, AW)`.
pub(crate) fn attn_lstm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    ctx.required(1)?;
    ctx.required(2)?;
    let x = exact(
        x_in.shape,
        3,
        "AttnLSTM's X must be 3-D (seq_length, batch_size, input_size)",
        0,
    )?;
    let directions = match ctx.attrs().string("direction")?.unwrap_or("forward") {
        "bidirectional" => 2,
        "forward" | "reverse" => 1,
        other => {
            let requires = "AttnLSTM's direction must be forward, reverse or bidirectional";
            return Err(Constraint::new(requires, format!("direction is {other}"), &[]).unmet());
        }
    };
    let d = Dim::known(directions);
    let (steps, batch, input) = (dim_at(x, 0), dim_at(x, 1), dim_at(x, 2));
    let hidden = match ctx.attrs().int("hidden_size")? {
        Some(h) => Dim::known(h),
        None => dim_at(dims(ctx, 2), 2),
    };
    let memory_depth = first_known(&[dim_at(dims(ctx, 11), 2), dim_at(dims(ctx, 9), 1)]);
    let attention = first_known(&[
        dim_at(dims(ctx, 8), 2),
        dim_at(dims(ctx, 9), 2),
        dim_at(dims(ctx, 10), 1),
    ]);
    let wrapper = if ctx.input(13).is_some() {
        dim_at(dims(ctx, 13), 2)
    } else {
        memory_depth.clone()
    };
    let k = |n: i64| hidden.mul(&Dim::known(n));
    let expected: [(usize, &str, Vec<Dim>); 13] = [
        (1, "W", vec![d.clone(), k(4), input.add(&wrapper)]),
        (2, "R", vec![d.clone(), k(4), hidden.clone()]),
        (3, "B", vec![d.clone(), k(8)]),
        (4, "sequence_lens", vec![batch.clone()]),
        (
            5,
            "initial_h",
            vec![d.clone(), batch.clone(), hidden.clone()],
        ),
        (
            6,
            "initial_c",
            vec![d.clone(), batch.clone(), hidden.clone()],
        ),
        (7, "P", vec![d.clone(), k(3)]),
        (8, "QW", vec![d.clone(), hidden.clone(), attention.clone()]),
        (
            9,
            "MW",
            vec![d.clone(), memory_depth.clone(), attention.clone()],
        ),
        (10, "V", vec![d.clone(), attention.clone()]),
        (
            11,
            "M",
            vec![
                batch.clone(),
                dim_at(dims(ctx, 11), 1),
                memory_depth.clone(),
            ],
        ),
        (12, "memory_seq_lens", vec![batch.clone()]),
        (
            13,
            "AW",
            vec![d.clone(), memory_depth.add(&hidden), wrapper.clone()],
        ),
    ];
    let mut pending = Pending::default();
    for (slot, name, want) in expected {
        let Some(given) = ctx.input(slot) else {
            continue;
        };
        let shown: Vec<String> = want.iter().map(ToString::to_string).collect();
        let requires = format!("AttnLSTM's {name} must have shape ({})", shown.join(", "));
        same_shape(&mut pending, given.shape, &want, &requires, &[0, slot])?;
    }
    let state = Shape::Ranked(vec![d.clone(), batch.clone(), hidden.clone()]);
    let y = Shape::Ranked(vec![steps, d, batch, hidden]);
    Ok(Inferred::many(vec![
        Output::shape(y).elem(x_in.elem),
        Output::shape(state.clone()).elem(x_in.elem),
        Output::shape(state).elem(x_in.elem),
    ])
    .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft, Fact};

    /// S=5 steps, B=b, I=3, H=4, one direction, attention 6, memory (b, 7, 8), AW width 9: the
    /// case onnxruntime 1.31 runs.
    fn inputs() -> Vec<Option<Fact>> {
        vec![
            dims(&["5", "b", "3"]),
            dims(&["1", "16", "12"]),
            dims(&["1", "16", "4"]),
            dims(&["1", "32"]),
            dims(&["b"]),
            dims(&["1", "b", "4"]),
            dims(&["1", "b", "4"]),
            dims(&["1", "12"]),
            dims(&["1", "4", "6"]),
            dims(&["1", "8", "6"]),
            dims(&["1", "6"]),
            dims(&["b", "7", "8"]),
            dims(&["b"]),
            dims(&["1", "12", "9"]),
        ]
    }

    fn run(inputs: &[Option<Fact>]) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        run_microsoft("AttnLSTM", inputs, vec![int_attr("hidden_size", 4)], 3)
    }

    #[test]
    fn outputs_are_the_lstm_shapes() {
        let r = run(&inputs()).unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[5, 1, b, 4]", "[1, b, 4]", "[1, b, 4]"]
        );
        assert!(r.constraints.is_empty());
        // Without AW, W's last dim is input + memory depth: 3 + 8.
        let mut no_aw = inputs();
        no_aw.truncate(13);
        no_aw[1] = dims(&["1", "16", "11"]);
        assert_eq!(shape(&run(&no_aw)), "[5, 1, b, 4]");
    }

    #[test]
    fn each_weight_is_checked_as_the_kernel_checks_it() {
        // onnxruntime 1.31 rejects each of these.
        for (slot, bad) in [
            (1, vec!["1", "16", "3"]),
            (2, vec!["1", "16", "5"]),
            (3, vec!["1", "16"]),
            (7, vec!["1", "8"]),
            (8, vec!["1", "5", "6"]),
            (9, vec!["1", "9", "6"]),
            (10, vec!["1", "7"]),
            (13, vec!["1", "13", "9"]),
        ] {
            let mut case = inputs();
            case[slot] = dims(&bad);
            assert!(unmet(&run(&case)), "slot {slot}");
        }
    }
}
