//! `Violation`: why a broadcast can never succeed, with the rule, the kind, the output axis and
//! each offending input (its index, its own axis, its dim), so checks can say
//! "axis 1 is 3 vs 4" and label the inputs.

use std::fmt::{self, Display, Formatter};

use crate::shape::Dim;

/// Which broadcasting rule was applied.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Rule {
    /// ONNX multidirectional (numpy) broadcasting.
    Multidirectional,
    /// ONNX unidirectional broadcasting (B to A).
    Unidirectional,
    /// Expand-style bidirectional broadcasting.
    Bidirectional,
    /// ONNX opset < 7 `broadcast`/`axis` attributes.
    Legacy,
    /// `OpenVINO` pdpd broadcasting.
    Pdpd,
}

/// What went wrong.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum ViolationKind {
    /// Two static sizes on an axis differ and are not 1 (SONNX E1).
    SizeClash,
    /// Sizes on an axis are symbolic and no value of the symbols makes them compatible.
    NeverEqual,
    /// B has a higher rank than A (unidirectional, legacy, pdpd).
    RankTooHigh,
    /// Without broadcasting (legacy `broadcast=0`) the ranks differ.
    RankMismatch,
    /// A dim of B is not 1 and not A's dim on that axis (unidirectional, pdpd).
    NotBroadcastable,
    /// A dim of B differs from A's on the matched run (legacy; B's 1s do not expand).
    RunMismatch,
    /// B's run starting at `axis` goes past A's last axis.
    RunOutOfRange,
    /// The `axis` attribute is outside the allowed range.
    BadAxis,
}

/// One input taking part in a violation.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Offender {
    /// Index of the input (0 for A, 1 for B in binary rules).
    pub input: usize,
    /// Axis counted in that input's own shape.
    pub axis: usize,
    /// Its dim there.
    pub dim: Dim,
}

/// A broadcast that can never succeed.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Violation {
    /// The rule applied.
    pub rule: Rule,
    /// What went wrong.
    pub kind: ViolationKind,
    /// The output axis (A's axis for directional rules); `None` for rank and axis problems.
    pub axis: Option<usize>,
    /// The offending inputs, by input index.
    pub inputs: Vec<Offender>,
}

impl Violation {
    /// A violation on an output axis.
    pub(crate) fn new(
        rule: Rule,
        kind: ViolationKind,
        axis: usize,
        inputs: Vec<Offender>,
    ) -> Violation {
        Violation {
            rule,
            kind,
            axis: Some(axis),
            inputs,
        }
    }

    /// A violation about ranks or attributes, with no axis.
    pub(crate) fn whole(rule: Rule, kind: ViolationKind) -> Violation {
        Violation {
            rule,
            kind,
            axis: None,
            inputs: Vec::new(),
        }
    }

    /// The distinct offending dims joined by " vs ", in input order: `3 vs 4`.
    pub(crate) fn sizes(&self) -> String {
        let mut seen: Vec<&Dim> = Vec::new();
        for o in &self.inputs {
            if !seen.contains(&&o.dim) {
                seen.push(&o.dim);
            }
        }
        let parts: Vec<String> = seen.iter().map(ToString::to_string).collect();
        parts.join(" vs ")
    }
}

impl Display for Violation {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match (self.axis, self.kind) {
            (Some(axis), _) if !self.inputs.is_empty() => {
                write!(f, "axis {axis} is {}", self.sizes())
            }
            (_, ViolationKind::RankTooHigh) => f.write_str("B has a higher rank than A"),
            (_, ViolationKind::RankMismatch) => f.write_str("ranks differ"),
            (_, ViolationKind::RunOutOfRange) => f.write_str("B's run goes past A's last axis"),
            (_, ViolationKind::BadAxis) => f.write_str("axis attribute out of range"),
            (_, ViolationKind::NeverEqual) => {
                f.write_str("no values of the symbols make the shapes compatible")
            }
            (Some(axis), _) => write!(f, "axis {axis} cannot broadcast"),
            (None, _) => f.write_str("shapes cannot broadcast"),
        }
    }
}
