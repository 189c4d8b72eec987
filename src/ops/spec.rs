//! Helpers shared by the tensor-movement rules for their operator constraints (E4/W4): a
//! required attribute, the length of a 1-D list input (from its value or its declared shape), an
//! axis list's range and repeats.

use super::constraint::Constraint;
use super::{Input, RuleError};

/// The E4 for a required attribute the node lacks (`op` names the versions: `Concat-4+`):
/// onnxruntime rejects the model at load ("Required attribute 'axis' is missing").
pub(crate) fn missing_attr(op: &str, attr: &str) -> RuleError {
    Constraint::new(
        format!("{op} requires the `{attr}` attribute"),
        format!("`{attr}` is absent"),
        &[],
    )
    .fix(format!("set `{attr}` on the node"))
    .unmet()
}

/// The number of elements of a 1-D list input (`pads`, `starts`, `repeats`): its value's length
/// when known, else its declared length when static. `None` when neither is known, or when the
/// input is not 1-D (its own rank rule is the runtime's to report).
pub(crate) fn list_len(input: Option<Input<'_>>) -> Option<usize> {
    let input = input?;
    if let Some(value) = input.value {
        return (value.shape.len() == 1).then_some(value.data.len());
    }
    match input.shape.dims()? {
        [n] => n.as_known().and_then(|n| usize::try_from(n).ok()),
        _ => None,
    }
}

/// The first axis listed twice (after normalisation), if any.
pub(crate) fn repeated(axes: &[usize]) -> Option<usize> {
    axes.iter()
        .enumerate()
        .find(|(i, a)| axes.get(..*i).unwrap_or_default().contains(a))
        .map(|(_, a)| *a)
}

/// The E4 for an axis listed twice: the ops that take an axis list (`Unsqueeze`, `Slice`)
/// reject it ("Axis 0 is referred to more than once").
pub(crate) fn repeated_axis(op: &str, list: &str, axis: usize, slot: usize) -> RuleError {
    Constraint::new(
        format!("{op}'s {list} must not name an axis twice"),
        format!("axis {axis} appears more than once"),
        &[slot],
    )
    .fix(format!("remove the repeated entry from {list}"))
    .unmet()
}

/// The E4 for a list whose length must be `expected`: `what` names the list and the reason
/// (`"pads must have 2 * rank values"`).
pub(crate) fn wrong_len(
    requires: impl Into<String>,
    found: usize,
    expected: usize,
    slots: &[usize],
) -> RuleError {
    Constraint::new(
        requires,
        format!("{found} values given, {expected} expected"),
        slots,
    )
    .fix(format!("give exactly {expected} values"))
    .unmet()
}

/// Test support: what a rule's result says about its constraints.
#[cfg(test)]
pub(super) mod verdict {
    use crate::ops::{Inferred, RuleError};

    /// Whether the rule failed with an operator constraint (E4).
    pub(crate) fn unmet(r: &Result<Inferred, RuleError>) -> bool {
        matches!(r, Err(RuleError::Unmet(_)))
    }

    /// The conditions of the rule's W4 checks, as printed.
    pub(crate) fn conditions(r: &Result<Inferred, RuleError>) -> Vec<String> {
        r.as_ref().map_or_else(
            |_| Vec::new(),
            |r| {
                r.constraints
                    .iter()
                    .filter_map(|c| c.condition().map(ToString::to_string))
                    .collect()
            },
        )
    }

    /// The rule's first output shape, or its error.
    pub(crate) fn shape(r: &Result<Inferred, RuleError>) -> String {
        match r {
            Ok(r) => r
                .outputs
                .first()
                .map_or_else(String::new, |o| o.shape.to_string()),
            Err(e) => format!("error: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_found_after_the_first() {
        assert_eq!(repeated(&[0, 2, 1]), None);
        assert_eq!(repeated(&[0, 2, 0]), Some(0));
        assert_eq!(repeated(&[]), None);
    }

    #[test]
    fn missing_attributes_are_faults() {
        assert!(missing_attr("Concat-4+", "axis").is_fault());
    }
}
