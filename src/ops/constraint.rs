//! Operator shape constraints that are not broadcasting: a contracted dim that must agree, input
//! channels that must match the weight's, a parameter whose length must be the channel count.
//! ONNX states each in the operator's doc; `onnx.shape_inference` raises on it and onnxruntime
//! rejects the model when it creates the session. One carrier, [`Constraint`], whatever its
//! verdict ([`Holds`]): one that fails for every value of the symbols fails the rule (E4, a
//! [`RuleError::Unmet`], the node's outputs unknown); one that holds only under a condition on
//! symbols travels with the rule's result ([`super::Inferred::constraints`]) and is solved with
//! the broadcast conditions (W4).

use std::fmt::{self, Display, Formatter};

use super::RuleError;
use crate::shape::{Condition, Dim, Tri};

/// One operator constraint with the dims found, as the checks report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Constraint {
    /// What the operator requires, in the words of its doc: `A's columns (K) must equal B's
    /// rows`.
    pub requires: String,
    /// What the inputs give: `3 vs 4`.
    pub found: String,
    /// The input slots involved (labelled in the report).
    pub slots: Vec<usize>,
    /// A likely fix, when one can be named.
    pub fix: Option<String>,
    /// When it holds.
    pub holds: Holds,
}

/// When an operator constraint holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Holds {
    /// For no value of the symbols (E4).
    Never,
    /// Only when the condition holds (W4); never a condition that always holds.
    If(Condition),
}

impl Constraint {
    /// A constraint on `slots`: `requires` (from the operator doc) and what was `found`.
    pub(crate) fn new(
        requires: impl Into<String>,
        found: impl Into<String>,
        slots: &[usize],
    ) -> Self {
        Self {
            requires: requires.into(),
            found: found.into(),
            slots: slots.to_vec(),
            fix: None,
            holds: Holds::Never,
        }
    }

    /// Adds a likely fix.
    #[must_use]
    pub(crate) fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    /// The constraint as a rule error (E4).
    pub(crate) fn unmet(self) -> RuleError {
        RuleError::Unmet(Box::new(Self {
            holds: Holds::Never,
            ..self
        }))
    }

    /// The condition under which it holds, if it holds under one (W4).
    pub(crate) fn condition(&self) -> Option<&Condition> {
        match &self.holds {
            Holds::Never => None,
            Holds::If(condition) => Some(condition),
        }
    }
}

impl Display for Constraint {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.found.is_empty() {
            f.write_str(&self.requires)
        } else {
            write!(f, "{} ({})", self.requires, self.found)
        }
    }
}

/// The constraints of one node that hold only under a condition on symbols, gathered while the
/// rule runs and handed to [`super::Inferred::with_conditions`].
#[derive(Debug, Default)]
pub(crate) struct Pending(Vec<Constraint>);

impl Pending {
    /// Requires `a == b`. Provably equal: nothing. Never equal for any value of the symbols: the
    /// constraint as an error. Equal for some values: a W4 condition. An unknown dim is checked
    /// at run time, as unknown dims are for broadcasting (MLIR `Broadcastable`): nothing.
    pub(crate) fn equal(
        &mut self,
        a: &Dim,
        b: &Dim,
        constraint: impl FnOnce() -> Constraint,
    ) -> Result<(), RuleError> {
        match a.eq_dim(b) {
            Tri::Yes => return Ok(()),
            Tri::No => return Err(constraint().unmet()),
            Tri::Unknown => {}
        }
        if matches!(a, Dim::Unknown) || matches!(b, Dim::Unknown) {
            return Ok(());
        }
        self.holds_if(&Condition::eq(a, b), constraint)
    }

    /// Requires `condition`: never satisfiable is an error, always true is nothing, else the
    /// constraint holds under its simplified form (W4).
    pub(crate) fn holds_if(
        &mut self,
        condition: &Condition,
        constraint: impl FnOnce() -> Constraint,
    ) -> Result<(), RuleError> {
        match holds(condition) {
            None => Ok(()),
            Some(Holds::Never) => Err(constraint().unmet()),
            Some(holds) => {
                self.0.push(Constraint {
                    holds,
                    ..constraint()
                });
                Ok(())
            }
        }
    }

    /// The gathered constraints, each holding under its condition.
    pub(crate) fn into_checks(self) -> Vec<Constraint> {
        self.0
    }
}

/// When a constraint requiring `condition` holds: `None` when always. A provably unsatisfiable
/// condition never holds, as does one whose plain form is false (the plain form is exact,
/// `condition/plain.rs`: it proves what the bounded search cannot, that a condition in one
/// symbol always or never holds); else it holds under the simplified condition. Broadcasting
/// decides its conditions alike (`shape::broadcast::verdict_of`).
fn holds(condition: &Condition) -> Option<Holds> {
    if condition.is_true() {
        return None;
    }
    if condition.never_holds() {
        return Some(Holds::Never);
    }
    let simple = condition.simplify();
    let plain = simple.plain();
    if simple.is_true() || plain.is_true() {
        None
    } else if plain.is_false() {
        Some(Holds::Never)
    } else {
        Some(Holds::If(simple))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k() -> Constraint {
        Constraint::new("K must agree", "", &[0, 1])
    }

    #[test]
    fn equal_static_dims_need_nothing() {
        let mut p = Pending::default();
        p.equal(&Dim::known(3), &Dim::known(3), k).unwrap();
        assert!(p.into_checks().is_empty());
    }

    #[test]
    fn static_3_vs_4_is_unmet() {
        let mut p = Pending::default();
        let e = p.equal(&Dim::known(3), &Dim::known(4), k).unwrap_err();
        assert!(matches!(&e, RuleError::Unmet(c) if c.holds == Holds::Never));
        assert!(e.is_fault());
    }

    #[test]
    fn symbol_vs_static_is_a_condition() {
        let mut p = Pending::default();
        p.equal(&Dim::sym("k"), &Dim::known(4), k).unwrap();
        let constraints = p.into_checks();
        assert_eq!(constraints.len(), 1);
        assert_eq!(constraints[0].condition().unwrap().to_string(), "k = 4");
        assert_eq!(constraints[0].requires, "K must agree");
    }

    #[test]
    fn two_n_vs_odd_is_unmet() {
        let mut p = Pending::default();
        let two_n = Dim::sym("n").mul(&Dim::known(2));
        assert!(p.equal(&two_n, &Dim::known(5), k).is_err());
    }

    #[test]
    fn unknown_dims_are_left_to_run_time() {
        let mut p = Pending::default();
        p.equal(&Dim::Unknown, &Dim::known(4), k).unwrap();
        p.equal(&Dim::sym("n"), &Dim::Unknown, k).unwrap();
        assert!(p.into_checks().is_empty());
    }
}
