//! The text-generation loops onnxruntime's `convert_generation` writes (com.microsoft
//! `BeamSearch`, `WhisperBeamSearch`, `GreedySearch`, `Sampling`): output shapes as in
//! onnxruntime's `BeamSearchShapeInference` and `GreedySearchShapeInference`
//! (`contrib_defs.cc`), which the CPU kernels allocate at run time, and the input checks of the
//! kernels' `CheckInputs` (`generation_device_helper`, `beam_search_impl_base.h`) and
//! `BeamSearchParameters::ParseFromInputs`.
//!
//! The sequences are padded to `max_length`, an input value: a fresh named size when the value
//! is not known (as `TopK`'s `k`), as are `num_beams` and `num_return_sequences`. The vocabulary
//! size comes from the `vocab_size` attribute; without it onnxruntime reads it from the decoder
//! subgraph's logits, which this rule leaves unknown.

use crate::model::dtype::elem;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// onnxruntime's `kMaxSequenceLength`: the longest `max_length` its beam-search kernels accept.
const MAX_SEQUENCE_LENGTH: i64 = 4096;
/// onnxruntime's `kMaxNumBeams`.
const MAX_NUM_BEAMS: i64 = 128;
/// `model_type` of an encoder-decoder model (T5, BART): the decoded sequence starts at length 1.
const ENCODER_DECODER: i64 = 1;
/// `model_type` of Whisper: input 0 is the 3-D audio features.
const WHISPER: i64 = 2;

/// The generation op a rule runs for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Search {
    /// `BeamSearch` (its `model_type` may also be Whisper's).
    Beam,
    /// `WhisperBeamSearch`: always the Whisper layout.
    WhisperBeam,
    /// `GreedySearch`.
    Greedy,
    /// `Sampling`: greedy search with a presence mask and a second output.
    Sampling,
}

/// Input slots of the masks, by op.
struct Slots {
    vocab: usize,
    prefix_vocab: usize,
    attention: usize,
    presence: Option<usize>,
}

impl Search {
    fn slots(self) -> Slots {
        match self {
            Self::Beam | Self::WhisperBeam => Slots {
                vocab: 7,
                prefix_vocab: 8,
                attention: 9,
                presence: None,
            },
            Self::Greedy | Self::Sampling => Slots {
                vocab: 4,
                prefix_vocab: 5,
                attention: 6,
                presence: (self == Self::Sampling).then_some(7),
            },
        }
    }
}

/// A generation op's outputs: `sequences` `(B, R, max_length)` for beam search and
/// `(B, max_length)` otherwise; beam search's `sequences_scores` `(B, R)` and `scores`
/// `(max_length - S, B, num_beams, vocab)`; Whisper's `cross_qk` `(B, R, L*H, T, F)` with
/// `T` the decoded length and `non_speech_probs` `(B)`; `Sampling`'s `filtered_logits`
/// `(B, vocab)`.
pub(crate) fn search(ctx: &Ctx<'_>, op: Search) -> Result<Inferred, RuleError> {
    let name = ctx.node().op_type().as_str();
    let input = ctx.required(0)?;
    let model_type = ctx.int("model_type", 0)?;
    let whisper = op == Search::WhisperBeam || (op == Search::Beam && model_type == WHISPER);
    let ids = if whisper {
        let requires = format!("{name}'s input_features must be 3-D (batch, features, frames)");
        exact(input.shape, 3, &requires, 0)?
    } else {
        let requires = format!("{name}'s input_ids must be 2-D (batch, sequence)");
        exact(input.shape, 2, &requires, 0)?
    };
    let batch = dim_at(ids, 0);
    let seq = if whisper {
        ctx.input(10)
            .map_or(Dim::known(1), |d| dim_at(d.shape.dims(), 1))
    } else if model_type == ENCODER_DECODER {
        Dim::known(1)
    } else {
        dim_at(ids, 1)
    };
    let max_length = ctx.size_element(1, 0, "max_length", Vec::new());
    let beam = matches!(op, Search::Beam | Search::WhisperBeam);
    check_max_length(name, beam, &max_length, &seq)?;
    let vocab = match ctx.int("vocab_size", -1)? {
        v if v > 0 => Dim::known(v),
        _ => Dim::Unknown,
    };
    let mut pending = Pending::default();
    check_masks(ctx, op, &mut pending, ids, &batch, &vocab, whisper)?;
    let sequences = Some(elem::INT32);
    let outputs = match op {
        Search::Beam | Search::WhisperBeam => {
            let beams = ctx.size_element(3, 0, "num_beams", Vec::new());
            let returned = ctx.size_element(4, 0, "num_return_sequences", Vec::new());
            check_beams(name, &beams, &returned)?;
            let scores = ctx.input(5).and_then(|p| p.elem);
            let mut outputs = vec![
                Output::shape(Shape::Ranked(vec![
                    batch.clone(),
                    returned.clone(),
                    max_length.clone(),
                ]))
                .elem(sequences),
                Output::shape(Shape::Ranked(vec![batch.clone(), returned.clone()])).elem(scores),
                Output::shape(Shape::Ranked(vec![
                    max_length.sub(&seq),
                    batch.clone(),
                    beams,
                    vocab,
                ]))
                .elem(scores),
            ];
            if op == Search::WhisperBeam {
                // The decoded length T and the frames F are known only when the loop ends.
                outputs.push(Output::shape(Shape::Ranked(vec![
                    batch.clone(),
                    returned,
                    Dim::Unknown,
                    Dim::Unknown,
                    Dim::Unknown,
                ])));
                outputs.push(Output::shape(Shape::Ranked(vec![batch])));
            }
            outputs
        }
        Search::Greedy | Search::Sampling => vec![
            Output::shape(Shape::Ranked(vec![batch.clone(), max_length])).elem(sequences),
            Output::shape(Shape::Ranked(vec![batch, vocab])),
        ],
    };
    let outputs = outputs
        .into_iter()
        .take(ctx.node().outputs().len().max(1))
        .collect();
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// `max_length` must be positive and exceed the prompt's length; beam search's also at most 4096
/// (`BeamSearchParameters::ParseFromInputs`: greedy search and sampling run past 4096);
/// checked where both are known.
fn check_max_length(op: &str, beam: bool, max_length: &Dim, seq: &Dim) -> Result<(), RuleError> {
    let Some(max) = max_length.as_known() else {
        return Ok(());
    };
    if max <= 0 || (beam && max > MAX_SEQUENCE_LENGTH) {
        let cap = if beam { " and at most 4096" } else { "" };
        let requires = format!("{op}'s max_length must be positive{cap}");
        return Err(Constraint::new(requires, format!("max_length is {max}"), &[1]).unmet());
    }
    if let Some(s) = seq.as_known().filter(|&s| max <= s) {
        let requires = format!("{op}'s max_length must be greater than the input sequence length");
        let found = format!("max_length is {max}, sequence length {s}");
        return Err(Constraint::new(requires, found, &[0, 1])
            .fix("raise max_length above the prompt's length")
            .unmet());
    }
    Ok(())
}

/// `1 <= num_return_sequences <= num_beams <= 128`, where the values are known.
fn check_beams(op: &str, beams: &Dim, returned: &Dim) -> Result<(), RuleError> {
    if let Some(b) = beams
        .as_known()
        .filter(|&b| !(1..=MAX_NUM_BEAMS).contains(&b))
    {
        let requires = format!("{op}'s num_beams must be between 1 and 128");
        return Err(Constraint::new(requires, format!("num_beams is {b}"), &[3]).unmet());
    }
    if let Some(r) = returned.as_known().filter(|&r| r < 1) {
        let requires = format!("{op}'s num_return_sequences must be positive");
        return Err(
            Constraint::new(requires, format!("num_return_sequences is {r}"), &[4]).unmet(),
        );
    }
    if let (Some(b), Some(r)) = (beams.as_known(), returned.as_known()) {
        if r > b {
            let requires = format!("{op}'s num_return_sequences must not exceed num_beams");
            let found = format!("num_return_sequences is {r}, num_beams {b}");
            return Err(Constraint::new(requires, found, &[3, 4]).unmet());
        }
    }
    Ok(())
}

/// The masks' shapes as the kernels' `CheckInputs` require: `vocab_mask` `(vocab)`,
/// `prefix_vocab_mask` and `presence_mask` `(B, vocab)`, `attention_mask` `input_ids`' shape
/// (3-D for Whisper, whose mask is not compared).
fn check_masks(
    ctx: &Ctx<'_>,
    op: Search,
    pending: &mut Pending,
    ids: Option<&[Dim]>,
    batch: &Dim,
    vocab: &Dim,
    whisper: bool,
) -> Result<(), RuleError> {
    let name = ctx.node().op_type().as_str();
    let slots = op.slots();
    if let Some(mask) = ctx.input(slots.vocab) {
        let requires = format!("{name}'s vocab_mask must be 1-D (vocab_size)");
        let dims = exact(mask.shape, 1, &requires, slots.vocab)?;
        let requires = format!("{name}'s vocab_mask must have vocab_size entries");
        let d = dim_at(dims, 0);
        equal(pending, &d, vocab, &requires, "its length", &[slots.vocab])?;
    }
    let per_batch = [Some(slots.prefix_vocab), slots.presence];
    for slot in per_batch.into_iter().flatten() {
        let Some(mask) = ctx.input(slot) else {
            continue;
        };
        let requires = format!("{name}'s input {slot} must be 2-D (batch, vocab_size)");
        let dims = exact(mask.shape, 2, &requires, slot)?;
        let requires = format!("{name}'s input {slot} must have input_ids' batch size");
        equal(
            pending,
            &dim_at(dims, 0),
            batch,
            &requires,
            "dim 0",
            &[0, slot],
        )?;
        let requires = format!("{name}'s input {slot} must have vocab_size columns");
        equal(
            pending,
            &dim_at(dims, 1),
            vocab,
            &requires,
            "dim 1",
            &[slot],
        )?;
    }
    if let Some(mask) = ctx.input(slots.attention) {
        let slot = slots.attention;
        if whisper {
            let requires = format!("{name}'s attention_mask must be 3-D");
            exact(mask.shape, 3, &requires, slot)?;
        } else if let Some(ids) = ids {
            let requires = format!("{name}'s attention_mask must have input_ids' shape");
            crate::ops::ranks::same_shape(pending, mask.shape, ids, &requires, &[0, slot])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, int_attr, ints, output_shapes, run_microsoft, Fact};
    use crate::ops::{Inferred, RuleError};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    fn scalar(v: i64) -> Option<Fact> {
        ints(ValueTensor {
            shape: vec![1],
            data: vec![Dim::known(v)],
        })
    }

    fn beam(inputs: &[Option<Fact>], model_type: i64) -> Result<Inferred, RuleError> {
        run_microsoft(
            "BeamSearch",
            inputs,
            vec![
                int_attr("model_type", model_type),
                int_attr("vocab_size", 50),
            ],
            3,
        )
    }

    #[test]
    fn beam_search_pads_to_max_length() {
        let r = beam(
            &[
                dims(&["b", "s"]),
                scalar(20),
                None,
                scalar(4),
                scalar(2),
                dims(&["1"]),
            ],
            0,
        )
        .unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[b, 2, 20]", "[b, 2]", "[-s+20, b, 4, 50]"]
        );
        // An encoder-decoder model's decoded sequence starts at one token.
        let t5 = beam(
            &[dims(&["b", "s"]), scalar(20), None, scalar(4), scalar(2)],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&t5)[2], "[19, b, 4, 50]");
    }

    #[test]
    fn unknown_values_are_named_sizes() {
        let r = beam(
            &[
                dims(&["b", "s"]),
                dims(&["1"]),
                None,
                dims(&["1"]),
                dims(&["1"]),
            ],
            0,
        );
        let shapes = output_shapes(&r.unwrap());
        // Float inputs are no sizes: the named sizes come only from integer values.
        assert_eq!(shapes[0], "[b, ?, ?]");
        let ids = || {
            ints(ValueTensor {
                shape: vec![1],
                data: vec![Dim::Unknown],
            })
        };
        let r = beam(&[dims(&["b", "s"]), ids(), None, ids(), ids()], 0).unwrap();
        let shapes = output_shapes(&r);
        assert!(
            shapes[0].starts_with("[b, `num_return_sequences#"),
            "{shapes:?}"
        );
        assert!(shapes[0].contains("max_length#"), "{shapes:?}");
    }

    #[test]
    fn beam_values_must_agree() {
        let ids = || dims(&["2", "8"]);
        // num_return_sequences 5 > num_beams 4.
        assert!(unmet(&beam(
            &[ids(), scalar(20), None, scalar(4), scalar(5)],
            0
        )));
        // max_length 8 does not exceed the 8-token prompt.
        assert!(unmet(&beam(
            &[ids(), scalar(8), None, scalar(4), scalar(1)],
            0
        )));
        assert!(unmet(&beam(
            &[ids(), scalar(5000), None, scalar(4), scalar(1)],
            0
        )));
        assert!(unmet(&beam(
            &[ids(), scalar(20), None, scalar(129), scalar(1)],
            0
        )));
        // A 3-D input is Whisper's only.
        assert!(unmet(&beam(&[dims(&["2", "80", "3000"]), scalar(20)], 0)));
        assert!(beam(&[dims(&["2", "80", "3000"]), scalar(20)], 2).is_ok());
    }

    #[test]
    fn masks_follow_input_ids_and_vocab() {
        let mut inputs = vec![dims(&["b", "s"]), scalar(20), None, scalar(4), scalar(1)];
        inputs.extend([
            None,
            None,
            dims(&["50"]),
            dims(&["b", "50"]),
            dims(&["b", "s"]),
        ]);
        assert!(beam(&inputs, 0).unwrap().constraints.is_empty());
        inputs[7] = dims(&["49"]);
        assert!(unmet(&beam(&inputs, 0)));
        inputs[7] = None;
        inputs[9] = dims(&["b", "t"]);
        assert_eq!(conditions(&beam(&inputs, 0)), ["t = s"]);
        inputs[9] = dims(&["b", "s", "1"]);
        assert!(unmet(&beam(&inputs, 0)));
    }

    #[test]
    fn only_beam_search_caps_max_length() {
        // onnxruntime 1.31's GreedySearch and Sampling kernels run with max_length 5000 and
        // return (B, 5000); its BeamSearch refuses anything above 4096.
        let ids = || dims(&["2", "8"]);
        for op in ["GreedySearch", "Sampling"] {
            let r = run_microsoft(op, &[ids(), scalar(5000)], vec![], 1).unwrap();
            assert_eq!(output_shapes(&r), ["[2, 5000]"], "{op}");
            assert!(
                unmet(&run_microsoft(op, &[ids(), scalar(0)], vec![], 1)),
                "{op}"
            );
        }
        assert!(beam(&[ids(), scalar(4096), None, scalar(4), scalar(1)], 0).is_ok());
        assert!(unmet(&beam(
            &[ids(), scalar(4097), None, scalar(4), scalar(1)],
            0
        )));
    }

    #[test]
    fn greedy_and_sampling_give_batch_by_max_length() {
        let r = run_microsoft("GreedySearch", &[dims(&["b", "s"]), scalar(30)], vec![], 1).unwrap();
        assert_eq!(output_shapes(&r), ["[b, 30]"]);
        let r = run_microsoft(
            "Sampling",
            &[
                dims(&["b", "s"]),
                scalar(30),
                None,
                None,
                None,
                None,
                None,
                dims(&["3", "7"]),
            ],
            vec![int_attr("vocab_size", 7)],
            2,
        );
        assert_eq!(conditions(&r), ["b = 3"]);
        assert_eq!(output_shapes(&r.unwrap()), ["[b, 30]", "[b, 7]"]);
    }

    #[test]
    fn whisper_beam_search_reads_decoder_input_ids() {
        let mut inputs = vec![
            dims(&["b", "80", "3000"]),
            scalar(448),
            None,
            scalar(2),
            scalar(1),
        ];
        inputs.extend([None, None, None, None, None, dims(&["b", "4"])]);
        let r = run_microsoft("WhisperBeamSearch", &inputs, vec![], 5).unwrap();
        assert_eq!(
            output_shapes(&r),
            [
                "[b, 1, 448]",
                "[b, 1]",
                "[444, b, 2, ?]",
                "[b, 1, ?, ?, ?]",
                "[b]"
            ]
        );
    }
}
