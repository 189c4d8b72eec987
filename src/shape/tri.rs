//! Three-valued answers (`Tri`): what the shape algebra returns when a question about symbolic
//! or unknown dims may have no definite answer.

/// A yes/no answer that may be unknown (Kleene's strong three-valued logic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tri {
    /// Definitely true.
    Yes,
    /// Definitely false.
    No,
    /// Cannot be decided from what is known.
    Unknown,
}

impl Tri {
    /// `Yes` for `true`, `No` for `false`.
    pub fn from_bool(b: bool) -> Tri {
        if b {
            Tri::Yes
        } else {
            Tri::No
        }
    }

    /// Conjunction: `No` wins over `Unknown`, which wins over `Yes`.
    #[must_use]
    pub fn and(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::No, _) | (_, Tri::No) => Tri::No,
            (Tri::Yes, Tri::Yes) => Tri::Yes,
            _ => Tri::Unknown,
        }
    }

    /// Disjunction: `Yes` wins over `Unknown`, which wins over `No`.
    #[must_use]
    pub fn or(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::Yes, _) | (_, Tri::Yes) => Tri::Yes,
            (Tri::No, Tri::No) => Tri::No,
            _ => Tri::Unknown,
        }
    }

    /// Negation; `Unknown` stays `Unknown`.
    #[must_use]
    #[allow(
        clippy::should_implement_trait,
        reason = "an inherent method needs no `use std::ops::Not` at call sites"
    )]
    pub fn not(self) -> Tri {
        match self {
            Tri::Yes => Tri::No,
            Tri::No => Tri::Yes,
            Tri::Unknown => Tri::Unknown,
        }
    }

    /// True only for `Yes`.
    pub fn is_yes(self) -> bool {
        self == Tri::Yes
    }

    /// True only for `No`.
    pub fn is_no(self) -> bool {
        self == Tri::No
    }
}

impl From<bool> for Tri {
    fn from(b: bool) -> Tri {
        Tri::from_bool(b)
    }
}

#[cfg(test)]
mod tests {
    use super::Tri::{self, No, Unknown, Yes};

    #[test]
    fn kleene_tables() {
        let all = [Yes, No, Unknown];
        for a in all {
            for b in all {
                // De Morgan holds in Kleene logic.
                assert_eq!(a.and(b).not(), a.not().or(b.not()));
                assert_eq!(a.and(b), b.and(a));
                assert_eq!(a.or(b), b.or(a));
            }
        }
        assert_eq!(Yes.and(Unknown), Unknown);
        assert_eq!(No.and(Unknown), No);
        assert_eq!(Yes.or(Unknown), Yes);
        assert_eq!(Tri::from(false), No);
    }
}
