//! `SequenceMap-17`: applies its `body` graph to each element of the input sequence(s). Every
//! output is a sequence (`out_sequence`), and the engine tracks tensor shapes only, so the outputs
//! stay unknown, as `SequenceConstruct`'s do; what the rule knows is that the first input, the
//! sequence that sets the number of samples, is required.

use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Shape;

/// `SequenceMap(input_sequence, additional_inputs...)`: one unknown sequence per output.
pub(crate) fn sequence_map_17(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    let outputs = ctx.node().outputs().len().max(1);
    Ok(Inferred::many(vec![
        Output::shape(Shape::Unranked);
        outputs
    ]))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims, run_in};
    use crate::shape::Shape;

    #[test]
    fn outputs_are_unknown_sequences_and_the_sequence_is_required() {
        let r = run_in(
            "",
            "SequenceMap",
            17,
            &[dims(&["2"]), dims(&["3"])],
            vec![],
            2,
        )
        .unwrap();
        assert_eq!(r.outputs.len(), 2);
        assert!(r.outputs.iter().all(|o| o.shape == Shape::Unranked));
        assert!(run_in("", "SequenceMap", 17, &[None, dims(&["3"])], vec![], 1).is_err());
    }
}
