//! Checks: turn the model's structure and the propagation results into findings, one module per
//! code, then sort them into graph order and drop the codes the user allowed.

mod assumed;
mod bound;
mod broadcast;
mod constraint;
mod declared;
mod site;
mod structure;
mod unsupported;

use std::collections::BTreeSet;

use crate::diag::{Code, Finding, Omitted};
use crate::infer::Inference;
use crate::model::Model;
use crate::shape::Binding;

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
}

/// Runs every check and returns the findings in graph order (what the stage benchmark times;
/// a lint runs [`run_capped`]).
#[cfg(feature = "bench")]
pub fn run(model: &Model, inference: &Inference, options: &CheckOptions) -> Vec<Finding> {
    run_capped(model, inference, options, None, &mut Omitted::default())
}

/// [`run`] keeping the first `max` findings in graph order and counting the others into
/// `omitted`: capped before the provenance walk, which the dropped ones never cost.
pub(crate) fn run_capped(
    model: &Model,
    inference: &Inference,
    options: &CheckOptions,
    max: Option<usize>,
    omitted: &mut Omitted,
) -> Vec<Finding> {
    let mut findings = collect(model, inference);
    findings.retain(|finding| !options.allowed.contains(&finding.code));
    if options.initializers_as_constants {
        assumed::note(model, &mut findings);
    }
    findings.sort_by_cached_key(Finding::sort_key);
    crate::diag::omitted::cap(&mut findings, max, omitted);
    crate::provenance::attach(model, inference, &mut findings);
    findings
}

/// Every check's findings, unsorted, with none dropped: what settling (`settle.rs`) decides by.
pub(crate) fn collect(model: &Model, inference: &Inference) -> Vec<Finding> {
    let mut findings = structure::check(model);
    findings.extend(broadcast::check(model, inference));
    findings.extend(constraint::check(model, inference));
    findings.extend(declared::check(model, inference));
    findings.extend(unsupported::check(model, inference));
    findings
}
