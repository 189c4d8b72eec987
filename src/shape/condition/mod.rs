//! `Condition`: what must hold of the symbols for a broadcast to succeed. A conjunction of
//! clauses, each a disjunction of atoms `a = b` / `a = 1`. Atoms are normalised when built: a
//! provably true atom makes its clause true (dropped), a provably false one is dropped from its
//! clause, and an equation is written `positive terms = the rest` after dividing by the gcd of
//! its coefficients (`n+1 = 1` becomes `n = 0`). Satisfiability and counterexamples are found
//! by the bounded search in `search.rs`; `plain.rs` rewrites them as people read them.

mod candidates;
mod clamp;
mod conjunction;
mod joint;
#[cfg(test)]
mod laws;
mod periodic;
mod plain;
#[cfg(test)]
mod plain_laws;
mod required;
mod scope;
mod search;
mod value_set;
mod work;

pub(crate) use conjunction::Conjunction;
pub(crate) use joint::forced_jointly;
pub(crate) use plain::Plain;
pub(crate) use required::Required;
pub(crate) use scope::Scope;

use std::collections::BTreeSet;
use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use super::{Binding, Dim, Tri};

/// An elementary fact about dims.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Atom {
    /// The two dims are equal.
    Eq(Dim, Dim),
    /// The dim is 1.
    IsOne(Dim),
}

/// Result of normalising an atom.
enum Lit {
    True,
    False,
    Atom(Atom),
}

impl Atom {
    fn normalise(self) -> Lit {
        let (a, b) = match &self {
            Atom::Eq(a, b) => (a.clone(), b.clone()),
            Atom::IsOne(a) => (a.clone(), Dim::Known(1)),
        };
        match a.eq_dim(&b) {
            Tri::Yes => return Lit::True,
            Tri::No => return Lit::False,
            Tri::Unknown => {}
        }
        let Some(d) = a.sub(&b).to_expr() else {
            // An unknown side or an overflow: keep the atom as written.
            return Lit::Atom(self);
        };
        let g = d.content();
        let sign = d.leading_sign();
        let split = d
            .div_exact(g.max(1))
            .and_then(|d| d.scale(if sign < 0 { -1 } else { 1 }))
            .and_then(|d| d.split_signs());
        match split {
            Some((lhs, rhs)) => {
                let (lhs, rhs) = (Dim::from_expr(lhs), Dim::from_expr(rhs));
                if rhs == Dim::Known(1) {
                    Lit::Atom(Atom::IsOne(lhs))
                } else {
                    Lit::Atom(Atom::Eq(lhs, rhs))
                }
            }
            None => Lit::Atom(self),
        }
    }

    /// The truth value under `binding`; `Unknown` if a side cannot be evaluated.
    pub(crate) fn eval(&self, binding: &Binding) -> Tri {
        let (a, b) = match self {
            Atom::Eq(a, b) => (a.eval(binding), b.eval(binding)),
            Atom::IsOne(a) => (a.eval(binding), Some(1)),
        };
        match (a, b) {
            (Some(x), Some(y)) => Tri::from_bool(x == y),
            _ => Tri::Unknown,
        }
    }

    /// The atom with `binding` substituted into its dims (not renormalised).
    #[must_use]
    pub(crate) fn substitute(&self, binding: &Binding) -> Atom {
        match self {
            Atom::Eq(a, b) => Atom::Eq(a.substitute(binding), b.substitute(binding)),
            Atom::IsOne(a) => Atom::IsOne(a.substitute(binding)),
        }
    }

    fn dims(&self) -> Vec<&Dim> {
        match self {
            Atom::Eq(a, b) => vec![a, b],
            Atom::IsOne(a) => vec![a],
        }
    }

    /// `(dim, value)` when the atom pins one dim to a constant.
    fn pin(&self) -> Option<(&Dim, i64)> {
        match self {
            Atom::IsOne(d) => Some((d, 1)),
            Atom::Eq(d, Dim::Known(v)) => Some((d, *v)),
            Atom::Eq(..) => None,
        }
    }
}

impl Display for Atom {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Eq(a, b) => write!(f, "{a} = {b}"),
            Atom::IsOne(a) => write!(f, "{a} = 1"),
        }
    }
}

/// A disjunction of atoms; empty means false.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Clause(Vec<Atom>);

impl Clause {
    /// The atoms, in the order given.
    pub(crate) fn atoms(&self) -> &[Atom] {
        &self.0
    }

    fn eval(&self, binding: &Binding) -> Tri {
        self.0
            .iter()
            .fold(Tri::No, |acc, a| acc.or(a.eval(binding)))
    }
}

impl Display for Clause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // `n ∈ {1, 3}` when every atom pins the same dim.
        let pins: Option<Vec<(&Dim, i64)>> = self.0.iter().map(Atom::pin).collect();
        if let Some(pins) = pins {
            if let [(d, _), rest @ ..] = pins.as_slice() {
                if !rest.is_empty() && rest.iter().all(|(e, _)| e == d) {
                    let values: BTreeSet<i64> = pins.iter().map(|(_, v)| *v).collect();
                    let list: Vec<String> = values.iter().map(ToString::to_string).collect();
                    return write!(f, "{d} ∈ {{{}}}", list.join(", "));
                }
            }
        }
        if self.0.is_empty() {
            return f.write_str("false");
        }
        let parts: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&parts.join(" ∨ "))
    }
}

/// A conjunction of clauses; empty means true.
///
/// The clauses are shared and their hash kept: a condition is copied into every node's check,
/// finding and memo entry, and looked up by what it says; one over a rank-1000 broadcast holds
/// a thousand clauses (issue 19 hunt).
#[derive(Clone, Debug)]
pub(crate) struct Condition {
    clauses: Arc<[Clause]>,
    /// A fixed function of the clauses, so equal conditions have equal hashes.
    hash: u64,
}

impl PartialEq for Condition {
    fn eq(&self, other: &Condition) -> bool {
        self.hash == other.hash
            && (Arc::ptr_eq(&self.clauses, &other.clauses) || self.clauses == other.clauses)
    }
}

impl Eq for Condition {}

impl std::hash::Hash for Condition {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// The condition without clauses, shared (see [`Condition::of`]).
static TRUTH: std::sync::LazyLock<Condition> =
    std::sync::LazyLock::new(|| Condition::shared(Vec::new()));

impl Default for Condition {
    fn default() -> Self {
        Condition::of(Vec::new())
    }
}

impl Condition {
    /// The conjunction of `clauses`, as given.
    fn of(clauses: Vec<Clause>) -> Condition {
        if clauses.is_empty() {
            // Every broadcast starts from the true condition and most end there: it is one
            // shared value, not an allocation each (inference of a million nodes).
            return TRUTH.clone();
        }
        Condition::shared(clauses)
    }

    /// `clauses` moved behind a fresh `Arc`, with their hash.
    fn shared(clauses: Vec<Clause>) -> Condition {
        use std::hash::BuildHasher;
        let hash = foldhash::fast::FixedState::with_seed(0).hash_one(&clauses);
        Condition {
            clauses: Arc::from(clauses),
            hash,
        }
    }

    /// The condition that always holds.
    pub(crate) fn truth() -> Condition {
        Condition::default()
    }

    /// The condition that never holds.
    pub(crate) fn falsity() -> Condition {
        Condition::of(vec![Clause(Vec::new())])
    }

    /// The single clause "at least one of `atoms` holds", normalised.
    pub(crate) fn any_of(atoms: impl IntoIterator<Item = Atom>) -> Condition {
        let mut kept: Vec<Atom> = Vec::new();
        for atom in atoms {
            match atom.normalise() {
                Lit::True => return Condition::truth(),
                Lit::False => {}
                Lit::Atom(a) => {
                    if !kept.contains(&a) {
                        kept.push(a);
                    }
                }
            }
        }
        Condition::of(vec![Clause(kept)])
    }

    /// `a = b`, normalised.
    pub(crate) fn eq(a: &Dim, b: &Dim) -> Condition {
        Condition::any_of([Atom::Eq(a.clone(), b.clone())])
    }

    /// Both conditions: this one's clauses as they are, then those of `other` not held yet
    /// (hashed, see [`Conjunction`]); a false side makes the whole false.
    #[must_use]
    pub(crate) fn and(&self, other: &Condition) -> Condition {
        let mut both = Conjunction::of(self);
        both.and(other);
        both.finish()
    }

    /// The clauses, in the order added.
    pub(crate) fn clauses(&self) -> &[Clause] {
        &self.clauses
    }

    /// Whether the condition is trivially true (no clause).
    pub(crate) fn is_true(&self) -> bool {
        self.clauses.is_empty()
    }

    /// Whether some clause is empty, so the condition can never hold.
    pub(crate) fn is_false(&self) -> bool {
        self.clauses.iter().any(|c| c.0.is_empty())
    }

    /// The truth value under `binding`; `Unknown` when a needed symbol is unbound.
    pub(crate) fn eval(&self, binding: &Binding) -> Tri {
        self.clauses
            .iter()
            .fold(Tri::Yes, |acc, c| acc.and(c.eval(binding)))
    }

    /// The symbol names the condition mentions.
    pub(crate) fn symbols(&self) -> BTreeSet<String> {
        self.atoms()
            .flat_map(|a| a.dims())
            .flat_map(Dim::symbols)
            .collect()
    }

    fn atoms(&self) -> impl Iterator<Item = &Atom> {
        self.clauses.iter().flat_map(|c| c.0.iter())
    }
}

impl Display for Condition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &*self.clauses {
            [] => f.write_str("true"),
            [one] => write!(f, "{one}"),
            many => {
                let parts: Vec<String> = many
                    .iter()
                    .map(|c| {
                        if c.0.len() > 1 && c.to_string().contains(" ∨ ") {
                            format!("({c})")
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                f.write_str(&parts.join(" ∧ "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Atom, Clause, Condition};
    use crate::shape::{Binding, Dim, Tri};

    /// `and` of large sides gives what comparing with every clause gives: duplicates already
    /// in `self` kept, those of `other` (among themselves and with `self`) dropped, order kept,
    /// a false side making the whole false.
    #[test]
    fn and_of_large_conditions_is_the_scan() {
        let clause = |i: usize| Clause(vec![Atom::IsOne(Dim::sym(&format!("s{i}")))]);
        let scan = |a: &Condition, b: &Condition| {
            let mut clauses = a.clauses.to_vec();
            for c in b.clauses.iter() {
                if !clauses.contains(c) {
                    clauses.push(c.clone());
                }
            }
            Condition::of(clauses)
        };
        let left = Condition::of((0..80).map(|i| clause(i % 60)).collect());
        let right = Condition::of((40..140).map(|i| clause(i % 100)).collect());
        assert!((left.clauses.len() + right.clauses.len()) * right.clauses.len() > 4096);
        let both = left.and(&right);
        assert_eq!(both, scan(&left, &right));
        assert_eq!(both.clauses.len(), 80 + 40);
        let mut false_clauses = right.clauses.to_vec();
        false_clauses.push(Clause(Vec::new()));
        let false_right = Condition::of(false_clauses);
        assert_eq!(left.and(&false_right), Condition::falsity());
    }

    fn n() -> Dim {
        Dim::sym("n")
    }

    #[test]
    fn readable_display() {
        let c = Condition::any_of([Atom::Eq(n(), Dim::known(3)), Atom::IsOne(n())]);
        assert_eq!(c.to_string(), "n ∈ {1, 3}");
        let m = Dim::sym("m");
        let c2 = Condition::any_of([Atom::Eq(n(), m.clone()), Atom::IsOne(n()), Atom::IsOne(m)]);
        assert_eq!(c2.to_string(), "n = m ∨ n = 1 ∨ m = 1");
        assert_eq!(
            c.and(&c2).to_string(),
            "n ∈ {1, 3} ∧ (n = m ∨ n = 1 ∨ m = 1)"
        );
    }

    #[test]
    fn atoms_are_normalised() {
        let c = Condition::eq(&n().add(&Dim::known(1)), &Dim::known(1));
        assert_eq!(c.to_string(), "n = 0");
        let c = Condition::eq(&n().mul(&Dim::known(2)), &Dim::known(6));
        assert_eq!(c.to_string(), "n = 3");
        assert!(Condition::eq(&n().mul(&Dim::known(2)), &Dim::known(3)).is_false());
        assert!(Condition::eq(&n(), &n()).is_true());
        let m = Dim::sym("m");
        assert_eq!(Condition::eq(&m, &n()), Condition::eq(&n(), &m));
    }

    #[test]
    fn eval_with_missing_symbol_is_unknown() {
        let c = Condition::eq(&n(), &Dim::known(3));
        assert_eq!(c.eval(&Binding::new()), Tri::Unknown);
        let b: Binding = [("n".to_string(), 3)].into_iter().collect();
        assert_eq!(c.eval(&b), Tri::Yes);
    }
}
