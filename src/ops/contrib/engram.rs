//! onnxruntime's Engram ops (com.microsoft, CPU kernels): `EngramGate` gates a shared value by
//! the normalised key/query agreement of each hyper-connection, `(B, S, hc_mult, hidden)`;
//! `NGramHashMapping` and its packed twin `VarlenNGramHashMapping` hash causal n-grams of
//! token ids into `(max_ngram_size - 1) * n_head_per_ngram` head ids per token, carrying the
//! last `max_ngram_size - 1` ids per request. Requirements as onnxruntime's inference
//! functions and kernels check them (`EngramGate: key must have rank 4`, `vocab_sizes must
//! have shape ((max_ngram_size - 1) * n_head_per_ngram)`).

use crate::model::dtype::elem;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{exact, same_shape};
use crate::ops::spec::missing_attr;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `EngramGate(key, query, value, key_norm_scale, query_norm_scale, conv_norm_scale)`: both
/// outputs have key's shape `(B, S, hc_mult, hidden)`.
pub(crate) fn engram_gate(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let key = ctx.required(0)?;
    let k = exact(
        key.shape,
        4,
        "EngramGate's key must be 4-D (batch_size, sequence_length, hc_mult, hidden_size)",
        0,
    )?;
    let mut pending = Pending::default();
    if let Some(k) = k {
        let requires = "EngramGate's query must have key's shape";
        same_shape(&mut pending, ctx.shape(1)?, k, requires, &[0, 1])?;
        let requires = "EngramGate's value must be (batch_size, sequence_length, hidden_size)";
        let value = [dim_at(Some(k), 0), dim_at(Some(k), 1), dim_at(Some(k), 3)];
        same_shape(&mut pending, ctx.shape(2)?, &value, requires, &[0, 2])?;
        let scale = [dim_at(Some(k), 2), dim_at(Some(k), 3)];
        for (slot, name) in [
            (3, "key_norm_scale"),
            (4, "query_norm_scale"),
            (5, "conv_norm_scale"),
        ] {
            if let Some(s) = ctx.input(slot) {
                let requires = format!("EngramGate's {name} must be (hc_mult, hidden_size)");
                same_shape(&mut pending, s.shape, &scale, &requires, &[0, slot])?;
            }
        }
    }
    let normed = ctx.node().outputs().get(1).is_some_and(Option::is_some);
    if normed && ctx.input(5).is_none() {
        let requires =
            "EngramGate's conv_norm_scale is required to produce the gated_value_normed output";
        return Err(Constraint::new(requires, "conv_norm_scale is absent", &[]).unmet());
    }
    let out = || Output::shape(key.shape.clone()).elem(key.elem);
    let mut outputs = vec![out()];
    if ctx.node().outputs().len() > 1 {
        outputs.push(out());
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// The n-gram attributes: `(max_ngram_size - 1, heads per token)`.
fn ngram_sizes(ctx: &Ctx<'_>, op: &str) -> Result<(i64, i64), RuleError> {
    let attr = |name: &str| ctx.attrs().int(name)?.ok_or_else(|| missing_attr(op, name));
    let max = attr("max_ngram_size")?;
    let per = attr("n_head_per_ngram")?;
    if max < 2 {
        let requires = format!("{op}'s max_ngram_size must be at least 2");
        return Err(Constraint::new(requires, format!("it is {max}"), &[]).unmet());
    }
    if per < 1 {
        let requires = format!("{op}'s n_head_per_ngram must be positive");
        return Err(Constraint::new(requires, format!("it is {per}"), &[]).unmet());
    }
    let history = max - 1;
    let heads = history.checked_mul(per).ok_or_else(|| {
        let requires = format!("{op}'s (max_ngram_size - 1) * n_head_per_ngram must fit int64");
        Constraint::new(requires, format!("{history} * {per}"), &[]).unmet()
    })?;
    Ok((history, heads))
}

/// The inputs both n-gram ops share: `multipliers` (at least `max_ngram_size` entries),
/// `vocab_sizes` and `head_offsets` (one per output head, at slot `offsets`) and a scalar
/// `eos_token_id` (at slot `offsets + 1`).
fn ngram_tables(
    ctx: &Ctx<'_>,
    op: &str,
    (history, heads): (i64, i64),
    offsets: usize,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let requires = format!("{op}'s multipliers must have shape at least (max_ngram_size)");
    if let Some(m) = exact(ctx.shape(1)?, 1, &requires, 1)? {
        if let Some(n) = dim_at(Some(m), 0).as_known().filter(|n| *n <= history) {
            let found = format!("{n} vs max_ngram_size {}", history + 1);
            return Err(Constraint::new(requires, found, &[1]).unmet());
        }
    }
    for (slot, name) in [(2, "vocab_sizes"), (offsets, "head_offsets")] {
        let Some(input) = ctx.input(slot) else {
            continue;
        };
        let requires =
            format!("{op}'s {name} must have shape ((max_ngram_size - 1) * n_head_per_ngram)");
        same_shape(
            pending,
            input.shape,
            &[Dim::known(heads)],
            &requires,
            &[slot],
        )?;
    }
    let eos = offsets + 1;
    if let Some(e) = ctx.input(eos) {
        if let Some(rank) = e.shape.rank().filter(|r| *r != 0) {
            let requires = format!("{op}'s eos_token_id must be a scalar");
            return Err(Constraint::new(requires, format!("it has rank {rank}"), &[eos]).unmet());
        }
    }
    Ok(())
}

/// `NGramHashMapping(input_ids, multipliers, vocab_sizes, past_ids, head_offsets,
/// eos_token_id, segment_ids)`: `hash_ids` `(B, S, (max_ngram_size - 1) * n_head_per_ngram)`,
/// `present_ids` `(B, max_ngram_size - 1)`.
pub(crate) fn ngram_hash_mapping(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "NGramHashMapping";
    let ids = ctx.required(0)?;
    let (history, heads) = ngram_sizes(ctx, OP)?;
    let d = exact(
        ids.shape,
        2,
        "NGramHashMapping's input_ids must be 2-D (batch_size, sequence_length)",
        0,
    )?;
    let mut pending = Pending::default();
    ngram_tables(ctx, OP, (history, heads), 4, &mut pending)?;
    let (batch, seq) = (dim_at(d, 0), dim_at(d, 1));
    let carried = [batch.clone(), Dim::known(history)];
    if let Some(past) = ctx.input(3) {
        let requires =
            "NGramHashMapping's past_ids must have shape (batch_size, max_ngram_size - 1)";
        same_shape(&mut pending, past.shape, &carried, requires, &[0, 3])?;
    }
    if let (Some(seg), Some(d)) = (ctx.input(6), d) {
        let requires =
            "NGramHashMapping's segment_ids must have shape (batch_size, sequence_length)";
        same_shape(&mut pending, seg.shape, d, requires, &[0, 6])?;
    }
    let hash = if d.is_some() {
        Shape::Ranked(vec![batch, seq, Dim::known(heads)])
    } else {
        Shape::Unranked
    };
    let mut outputs = vec![Output::shape(hash).elem(ids.elem)];
    if ctx.node().outputs().len() > 1 {
        let present = if d.is_some() {
            Shape::Ranked(carried.to_vec())
        } else {
            Shape::Unranked
        };
        outputs.push(Output::shape(present).elem(ids.elem));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// `VarlenNGramHashMapping(input_ids, multipliers, vocab_sizes, cumulative_sequence_length,
/// past_ids, head_offsets, eos_token_id, segment_ids, past_segment_ids, capture_count)`:
/// `hash_ids` `(T, (max_ngram_size - 1) * n_head_per_ngram)`, `present_ids` and
/// `present_segment_ids` `(B, max_ngram_size - 1)`, `state_update` `(B, capacity,
/// max_ngram_size - 1)`, with `B` one less than `cumulative_sequence_length`'s length.
pub(crate) fn varlen_ngram_hash_mapping(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "VarlenNGramHashMapping";
    let ids = ctx.required(0)?;
    let (history, heads) = ngram_sizes(ctx, OP)?;
    let capacity = ctx.int("state_update_capacity", 0)?;
    if !(0..=8).contains(&capacity) {
        let requires = "VarlenNGramHashMapping's state_update_capacity must be in [0, 8]";
        return Err(Constraint::new(requires, format!("it is {capacity}"), &[]).unmet());
    }
    let d = exact(
        ids.shape,
        1,
        "VarlenNGramHashMapping's input_ids must be 1-D (total_tokens)",
        0,
    )?;
    let cu = exact(
        ctx.shape(3)?,
        1,
        "VarlenNGramHashMapping's cumulative_sequence_length must be 1-D (batch_size + 1)",
        3,
    )?;
    let mut pending = Pending::default();
    ngram_tables(ctx, OP, (history, heads), 5, &mut pending)?;
    let batch = cu.map_or(Dim::Unknown, |c| dim_at(Some(c), 0).sub(&Dim::known(1)));
    let carried = vec![batch.clone(), Dim::known(history)];
    for (slot, name) in [(4, "past_ids"), (8, "past_segment_ids")] {
        if let (Some(past), Some(_)) = (ctx.input(slot), cu) {
            let requires =
                format!("{OP}'s {name} must have shape (batch_size, max_ngram_size - 1)");
            same_shape(&mut pending, past.shape, &carried, &requires, &[3, slot])?;
        }
    }
    if let (Some(seg), Some(d)) = (ctx.input(7), d) {
        let requires = "VarlenNGramHashMapping's segment_ids must have shape (total_tokens)";
        same_shape(&mut pending, seg.shape, d, requires, &[0, 7])?;
    }
    if let (Some(count), Some(_)) = (ctx.input(9), cu) {
        let requires = "VarlenNGramHashMapping's capture_count must have shape (batch_size)";
        same_shape(
            &mut pending,
            count.shape,
            std::slice::from_ref(&batch),
            requires,
            &[3, 9],
        )?;
    }
    let ranked = |dims: Vec<Dim>, known: bool| {
        if known {
            Shape::Ranked(dims)
        } else {
            Shape::Unranked
        }
    };
    let hash = ranked(vec![dim_at(d, 0), Dim::known(heads)], d.is_some());
    let mut outputs = vec![Output::shape(hash).elem(ids.elem)];
    let count = ctx.node().outputs().len();
    if count > 1 {
        outputs.push(Output::shape(ranked(carried.clone(), cu.is_some())).elem(ids.elem));
    }
    if count > 2 {
        let seg = ranked(carried.clone(), cu.is_some());
        outputs.push(Output::shape(seg).elem(Some(elem::INT32)));
    }
    if count > 3 {
        let update = vec![batch, Dim::known(capacity), Dim::known(history)];
        outputs.push(Output::shape(ranked(update, cu.is_some())).elem(ids.elem));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft, Fact};

    // As onnxruntime 1.31's CPU kernels run them and its inference checks them.

    fn gate(
        key: &[&str],
        query: &[&str],
        value: &[&str],
        scale: &[&str],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs = [
            dims(key),
            dims(query),
            dims(value),
            dims(scale),
            dims(&["4", "8"]),
        ];
        run_microsoft("EngramGate", &inputs, vec![], 1)
    }

    #[test]
    fn engram_gate_keeps_key_and_checks_its_inputs() {
        let k = ["B", "S", "4", "8"];
        assert_eq!(
            output_shapes(&gate(&k, &k, &["B", "S", "8"], &["4", "8"]).unwrap()),
            ["[B, S, 4, 8]"]
        );
        // onnxruntime: "key must have rank 4", "query must have the same shape as key", "value
        // must have shape (batch_size, sequence_length, hidden_size)", "key_norm_scale must have
        // shape (hc_mult, hidden_size)".
        assert!(unmet(&gate(
            &["T", "4", "8"],
            &["T", "4", "8"],
            &["T", "8"],
            &["4", "8"]
        )));
        assert!(unmet(&gate(
            &k,
            &["B", "S", "3", "8"],
            &["B", "S", "8"],
            &["4", "8"]
        )));
        assert!(unmet(&gate(&k, &k, &["B", "S", "7"], &["4", "8"])));
        assert!(unmet(&gate(&k, &k, &["B", "S", "8"], &["8"])));
        assert_eq!(
            conditions(&gate(&k, &k, &["B", "U", "8"], &["4", "8"])),
            ["U = S"]
        );
    }

    fn ngram(
        op: &str,
        inputs: &[Option<Fact>],
        outputs: usize,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let attrs = vec![
            int_attr("pad_id", 0),
            int_attr("n_head_per_ngram", 2),
            int_attr("max_ngram_size", 3),
            int_attr("state_update_capacity", 2),
        ];
        run_microsoft(op, inputs, attrs, outputs)
    }

    #[test]
    fn ngram_hash_ids_have_one_column_per_head() {
        let inputs = [
            dims(&["B", "S"]),
            dims(&["3"]),
            dims(&["4"]),
            dims(&["B", "2"]),
        ];
        let r = ngram("NGramHashMapping", &inputs, 2).unwrap();
        assert_eq!(output_shapes(&r), ["[B, S, 4]", "[B, 2]"]);
        let varlen = [dims(&["T"]), dims(&["5"]), dims(&["4"]), dims(&["3"])];
        let r = ngram("VarlenNGramHashMapping", &varlen, 4).unwrap();
        assert_eq!(
            output_shapes(&r),
            ["[T, 4]", "[2, 2]", "[2, 2]", "[2, 2, 2]"]
        );
    }

    #[test]
    fn ngram_tables_history_and_ranks_are_checked() {
        // onnxruntime: "vocab_sizes must have shape ((max_ngram_size - 1) * n_head_per_ngram)",
        // "multipliers must have shape at least (max_ngram_size)", "past_ids must have shape
        // (batch_size, max_ngram_size - 1)", "input_ids must have rank 2".
        let ids = || dims(&["2", "5"]);
        assert!(unmet(&ngram(
            "NGramHashMapping",
            &[ids(), dims(&["3"]), dims(&["5"])],
            1
        )));
        assert!(unmet(&ngram(
            "NGramHashMapping",
            &[ids(), dims(&["2"]), dims(&["4"])],
            1
        )));
        assert!(unmet(&ngram(
            "NGramHashMapping",
            &[ids(), dims(&["3"]), dims(&["4"]), dims(&["2", "3"])],
            1
        )));
        assert!(unmet(&ngram(
            "NGramHashMapping",
            &[dims(&["2", "5", "1"]), dims(&["3"]), dims(&["4"])],
            1
        )));
        let eos = [ids(), dims(&["3"]), dims(&["4"]), None, None, dims(&["2"])];
        assert!(unmet(&ngram("NGramHashMapping", &eos, 1)));
        let past = [
            dims(&["10"]),
            dims(&["3"]),
            dims(&["4"]),
            dims(&["3"]),
            dims(&["3", "2"]),
        ];
        assert!(unmet(&ngram("VarlenNGramHashMapping", &past, 1)));
        let count = [
            dims(&["10"]),
            dims(&["3"]),
            dims(&["4"]),
            dims(&["3"]),
            None,
            None,
            None,
            None,
            None,
            dims(&["3"]),
        ];
        assert!(unmet(&ngram("VarlenNGramHashMapping", &count, 1)));
    }
}
