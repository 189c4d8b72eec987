//! Errors whose sizes come from `--dim`: a binding is written into the model's declarations
//! before inference, so `--dim seq=77` turns `seq ≤ 64` into a clash of 77 vs 64 that reads
//! like a bug of every run. The axes the binding fills are recorded before it is written, and
//! an E1 or E4 whose offending dims are traced back to one of them (its provenance) states the
//! binding (`seq = 77, bound by --dim`) in its message and facts: the model fails for this
//! deployment, and may run for others.

use std::collections::BTreeMap;

use crate::bind::input_axis_symbols;
use crate::diag::{Finding, SourceKind};
use crate::model::Model;
use crate::shape::Binding;

/// The main-graph input axes a binding fills, by `(input, axis)`, each with the part of the
/// binding it takes: `seq` for a dim declared `seq`, `x:0` for an anonymous one.
#[derive(Debug, Clone, Default)]
pub(crate) struct BoundAxes(BTreeMap<(String, usize), Binding>);

/// The axes `binding` fills in `model`'s main-graph inputs, read before it is written.
pub(crate) fn bound_axes(model: &Model, binding: &Binding) -> BoundAxes {
    let mut axes = BTreeMap::new();
    if binding.is_empty() {
        return BoundAxes(axes);
    }
    for (input, axis, symbols) in input_axis_symbols(model) {
        let taken: Binding = symbols
            .into_iter()
            .filter_map(|symbol| Some((symbol.clone(), *binding.get(&symbol)?)))
            .collect();
        if !taken.is_empty() {
            axes.insert((input, axis), taken);
        }
    }
    BoundAxes(axes)
}

/// States in each E1 or E4 the bindings its offending dims come from (their provenance, which
/// must be attached).
pub(crate) fn attribute(findings: &mut [Finding], bound: &BoundAxes) {
    if bound.0.is_empty() {
        return;
    }
    for finding in findings.iter_mut() {
        let mut binding = Binding::new();
        for input in &finding.inputs {
            for dim in &input.provenance {
                let source = &dim.source;
                if source.kind != SourceKind::GraphInput || source.graph != "main" {
                    continue;
                }
                if let Some(taken) = bound.0.get(&(source.name.clone(), source.axis)) {
                    binding.extend(taken.iter().map(|(k, v)| (k.clone(), *v)));
                }
            }
        }
        if !binding.is_empty() {
            finding.bound_by(binding);
        }
    }
}
