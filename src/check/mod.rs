//! Checks: turn the model's structure and the propagation results into findings, one module per
//! code, then sort them into graph order and drop the codes the user allowed.

mod assumed;
mod bound;
pub(crate) mod branch;
mod broadcast;
mod caps;
mod constraint;
mod declared;
mod legacy;
mod sink;
mod site;
mod structure;
pub(crate) mod tally;
mod unsupported;

use std::collections::BTreeSet;

use crate::diag::{Code, Finding, Omitted};
use crate::infer::Inference;
use crate::model::Model;
use crate::shape::Binding;
pub(crate) use sink::Exempt;
use sink::Sink;

pub(crate) use bound::{attribute, bound_axes};

/// What the checks need besides the model and its inference.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Symbol values of one deployment (`--dim batch=8`), already written into the model's
    /// declarations (`bind.rs`): settling keeps a branch whose own findings this deployment
    /// meets.
    pub binding: Binding,
    /// Codes not to report (`--allow W1`).
    pub allowed: BTreeSet<Code>,
    /// Inference assumed initializers listed as graph inputs keep their values: findings that
    /// may depend on them say so.
    pub initializers_as_constants: bool,
    /// A condition that fails only for a dim above this size is not reported: no real input
    /// reaches it (Keras writes `min(tokens, 1000000000)` for "no limit").
    pub size_limit: SizeLimit,
}

/// The largest dim size a real input is taken to reach (see [`CheckOptions::size_limit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeLimit(pub i64);

impl SizeLimit {
    /// The default: 10^9. Just below 2^30, so that the 10^9 exporters write for "no limit"
    /// (Keras' `min(tokens, 1000000000)`, magika's `bytes ≤ 1000000000`) counts as one.
    pub const DEFAULT: SizeLimit = SizeLimit(crate::limits::SIZE_LIMIT);
}

impl Default for SizeLimit {
    fn default() -> Self {
        SizeLimit::DEFAULT
    }
}

/// Runs every check and returns the findings in graph order (what the stage benchmark times;
/// a lint runs [`run_capped`]).
#[cfg(feature = "bench")]
pub fn run(model: &Model, inference: &Inference, options: &CheckOptions) -> Vec<Finding> {
    run_capped(
        model,
        inference,
        options,
        (None, None),
        &mut Omitted::default(),
        Vec::new(),
    )
}

/// [`run`] keeping the first `max` findings in graph order and counting the others into
/// `omitted`: the checks offer each finding to a bounded sink, which builds and keeps only
/// those that can still be among the first `max`, and the provenance walk sees only those kept.
/// With `exempt` (a gate's test), the findings it matches are kept beside the cap (`sink.rs`).
/// `settled` are the findings settling made on its trial runs (their provenance attached there).
pub(crate) fn run_capped(
    model: &Model,
    inference: &Inference,
    options: &CheckOptions,
    (max, exempt): (Option<usize>, Option<Exempt<'_>>),
    omitted: &mut Omitted,
    settled: Vec<Finding>,
) -> Vec<Finding> {
    let mut sink = Sink::new(max, Some(&options.allowed)).with_exempt(exempt);
    offer_all(model, inference, options, &mut sink);
    sink.extend(settled);
    let (mut findings, left_out) = sink.finish();
    omitted.absorb(left_out);
    if options.initializers_as_constants {
        assumed::note(model, &mut findings);
    }
    crate::provenance::attach(model, inference, &mut findings);
    findings
}

/// Runs every check into `sink`, in a fixed order that breaks ties of the sort key.
fn offer_all(model: &Model, inference: &Inference, options: &CheckOptions, sink: &mut Sink<'_>) {
    structure::check(model, sink);
    broadcast::check(model, inference, options.size_limit.0, sink);
    constraint::check(model, inference, sink);
    declared::check(model, inference, sink);
    legacy::check(model, inference, sink);
    unsupported::check(model, inference, sink);
    // One I2 per limit: a few dozen at most, built whatever the sink keeps.
    sink.extend(caps::check(model, inference));
}
