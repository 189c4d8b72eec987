//! Which symbols of a condition `--dim` can bind, and where the others come from. `--dim`
//! binds the dims of the main graph's inputs (`bind::declared_symbols`); a size the model
//! computes cannot be bound: a fresh symbol the engine made for a data-dependent size
//! (`NonZero#0`), or a `dim_param` an exporter declared for a value it made
//! (`Unsqueeze/model/decoder/rnn/Unsqueeze_output_0_dim_1`). The help of a finding on such a
//! size names the node that makes it instead of advice that cannot be followed.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{NodeName, SizeOrigin};
use crate::infer::Inference;
use crate::model::Model;
use crate::shape::{Condition, Dim};

/// The symbols `--dim` can bind, and the origin of each unbindable symbol of the conditions.
pub(super) struct Origins {
    bindable: BTreeSet<String>,
    found: BTreeMap<String, SizeOrigin>,
}

impl Origins {
    /// The origins of the unbindable symbols of `conditions`, found in one pass over the
    /// model's values (none when every symbol is bindable, the common case).
    pub(super) fn of<'c>(
        model: &Model,
        inference: &Inference,
        conditions: impl IntoIterator<Item = &'c Condition>,
    ) -> Origins {
        let bindable = crate::bind::declared_symbols(model);
        let mut wanted: BTreeSet<String> = conditions
            .into_iter()
            .flat_map(Condition::symbols)
            .filter(|symbol| !bindable.contains(symbol))
            .collect();
        let mut found = BTreeMap::new();
        'graphs: for (graph, facts) in model.graphs.iter().zip(&inference.graphs) {
            for (index, value) in graph.values.iter().enumerate() {
                if wanted.is_empty() {
                    break 'graphs;
                }
                let Some(dims) = facts.values.get(index).and_then(|f| f.shape.dims()) else {
                    continue;
                };
                let held: Vec<String> = wanted
                    .iter()
                    .filter(|symbol| dims.iter().any(|d| holds(d, symbol)))
                    .cloned()
                    .collect();
                for symbol in held {
                    wanted.remove(&symbol);
                    let made_by = value.producer().and_then(|n| graph.node(n)).map(|n| {
                        NodeName::new(n.op_type().to_string(), graph.text(n.name).to_owned())
                    });
                    let origin =
                        SizeOrigin::new(symbol.clone(), graph.text(value.name).to_owned(), made_by);
                    found.insert(symbol, origin);
                }
            }
        }
        Origins { bindable, found }
    }

    /// The unbindable symbols of `condition` with their origins (in symbol order), and whether
    /// it has a symbol `--dim` can bind.
    pub(super) fn split(&self, condition: &Condition) -> (Vec<SizeOrigin>, bool) {
        let symbols = condition.symbols();
        let bindable = symbols.iter().any(|s| self.bindable.contains(s));
        let origins = symbols
            .iter()
            .filter(|s| !self.bindable.contains(*s))
            .map(|s| {
                self.found
                    .get(s)
                    .cloned()
                    .unwrap_or_else(|| SizeOrigin::new(s.clone(), String::new(), None))
            })
            .collect();
        (origins, bindable)
    }
}

/// Whether `dim` is written with `symbol`.
fn holds(dim: &Dim, symbol: &str) -> bool {
    matches!(dim, Dim::Sym(_)) && dim.symbols().contains(symbol)
}
