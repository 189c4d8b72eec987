//! `NGramRepeatBlock`, which onnxruntime's beam-search converter (`convert_generation.py`) puts
//! before the logits' top-k to ban repeated n-grams (ContribOperators.md): the scores come out as
//! they went in. onnxruntime's kernel (`ngram_repeat_block.h`) requires 2-D `input_ids (batch,
//! seq)` and `scores (batch, vocab)` of one batch; its schema infers only the output.

use super::super::constraint::Pending;
use super::super::ranks::exact;
use super::super::{Ctx, Inferred, Output, RuleError};
use super::activation::require_equal;

/// `NGramRepeatBlock(input_ids, scores)`: the output is `scores`' shape.
pub(crate) fn ngram_repeat_block(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let ids = ctx.required(0)?;
    let scores = ctx.required(1)?;
    let ids = exact(
        ids.shape,
        2,
        "NGramRepeatBlock's input_ids must be 2-D (batch, sequence)",
        0,
    )?;
    let by = exact(
        scores.shape,
        2,
        "NGramRepeatBlock's scores must be 2-D (batch, vocabulary)",
        1,
    )?;
    let mut pending = Pending::default();
    if let (Some([ids_batch, _]), Some([batch, _])) = (ids, by) {
        let requires = "NGramRepeatBlock's input_ids and scores must have one batch size";
        require_equal(&mut pending, batch, ids_batch, requires, &[0, 1])?;
    }
    Ok(
        Inferred::single(Output::shape(scores.shape.clone()).elem(scores.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, int_attr, output_shapes, run_in};
    use crate::ops::{Inferred, RuleError};

    // As onnxruntime 1.31 runs it (CPU, ngram_size 2): ids (2, 5) and scores (2, 10) give
    // (2, 10); "scores_dims[0] == batch_size", "scores_dims.size() == 2" and
    // "input_ids_dims.size() == 2" fail otherwise.
    fn run(ids: &[&str], scores: &[&str]) -> Result<Inferred, RuleError> {
        let attrs = vec![int_attr("ngram_size", 2)];
        run_in(
            "com.microsoft",
            "NGramRepeatBlock",
            1,
            &[s(ids), s(scores)],
            attrs,
            1,
        )
    }

    #[test]
    fn scores_pass_through_with_the_ids_batch() {
        assert_eq!(
            output_shapes(&run(&["2", "5"], &["2", "10"]).unwrap()),
            ["[2, 10]"]
        );
        assert!(matches!(
            run(&["2", "5"], &["3", "10"]),
            Err(RuleError::Unmet(_))
        ));
        assert!(matches!(
            run(&["2", "5"], &["2", "1", "10"]),
            Err(RuleError::Unmet(_))
        ));
        assert!(matches!(
            run(&["10"], &["2", "10"]),
            Err(RuleError::Unmet(_))
        ));
        assert_eq!(run(&["b", "s"], &["c", "v"]).unwrap().constraints.len(), 1);
    }
}
