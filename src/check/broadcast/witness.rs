//! The binding a W1 or W4 (and an only-at-an-empty-dim E1 or E4) shows as "it fails when
//! samples=1": one under which the condition fails *and* every input of the node is a tensor
//! that can exist. The condition alone does not know the second part (issue 38, item 2: dims
//! are never negative): wav2vec2's `[.., max(samples/20-2, 0)]` against `[.., samples/20-1]`
//! holds only if `20 ≤ samples ≤ 79`, and the smallest value outside is 1, where the second
//! input would have -1 rows; the model fails there, but at an earlier node, not this one.
//! The first binding that fails here is 80.

use crate::diag::InputSite;
use crate::shape::condition::Plain;
use crate::shape::{Binding, Condition};

/// Most values tried above the first breaking one: the scan is a nicety, never a cost.
const MAX_SCAN: i64 = 256;

/// Most clauses of a condition whose values are scanned (each value evaluates it once).
const MAX_CLAUSES: usize = 64;

/// The counterexample of `condition` (its plain form `plain`) at a node with `inputs`: the
/// smallest breaking binding under which no input has a negative dim, when the first breaking
/// binding gives one a negative dim and a larger value of its one symbol does not; else the
/// first breaking binding, as before.
pub(super) fn counterexample(
    plain: &Plain,
    condition: &Condition,
    inputs: &[InputSite],
) -> Option<Binding> {
    let first = plain.breaking().or_else(|| condition.counterexample())?;
    if exists(&first, inputs) || condition.clauses().len() > MAX_CLAUSES {
        return Some(first);
    }
    let Some((symbol, start)) = first.iter().next().filter(|_| first.len() == 1) else {
        return Some(first);
    };
    let found = (1..=MAX_SCAN)
        .filter_map(|step| start.checked_add(step))
        .map(|value| Binding::from([(symbol.clone(), value)]))
        .find(|b| condition.eval(b).is_no() && exists(b, inputs));
    Some(found.unwrap_or(first))
}

/// Whether no dim of `inputs` is negative under `binding` (a dim it does not fix is fine).
fn exists(binding: &Binding, inputs: &[InputSite]) -> bool {
    inputs
        .iter()
        .flat_map(|input| input.shape.stated().map(|(_, dim)| dim))
        .all(|dim| dim.eval(binding).is_none_or(|v| v >= 0))
}
