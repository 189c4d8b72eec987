//! `Plain`: a condition as people read it. The clauses that mention one symbol only are
//! gathered per symbol and replaced by the exact set of values that satisfies them
//! (`min(seq, 64) = seq ∨ seq = 1 ∨ min(seq, 64) = 1` reads `seq ≤ 64`); the set comes from
//! the exact truth table of `periodic.rs`, so the plain form is equivalent to the condition
//! for every non-negative value, not only the ones tested. An equation whose terms share
//! factors is split first (`n*a*b = n*a` is `n = 0 ∨ a = 0 ∨ b = 1`). In a clause over several
//! symbols the atoms in one symbol become a set each (`n = 0 ∨ h ≤ 4 ∨ 33 ≤ w ≤ 80`). Atoms
//! over several symbols, and a symbol whose atoms fall outside that class or whose set has no
//! plain description, are shown as written.

use std::collections::BTreeMap;
use std::fmt::{self, Display, Formatter};

use super::value_set::ValueSet;
use super::{Atom, Clause, Condition};
use crate::shape::{Binding, Dim, Tri};

/// A condition in plain form; evaluates exactly as the condition it came from.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Plain {
    pub(super) parts: Vec<Part>,
    /// The clauses past the condition's work budget (`work.rs`), from the given index on, kept
    /// as written: rewriting each costs far more than showing it.
    pub(super) rest: Option<(Condition, usize)>,
}

/// One conjunct.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) enum Part {
    /// The symbol takes a value of the set (all the clauses in that symbol alone).
    Set { symbol: String, set: ValueSet },
    /// A clause over several symbols: at least one piece holds.
    Any(Vec<Piece>),
}

/// One disjunct of a clause over several symbols.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) enum Piece {
    /// The clause's atoms in this symbol alone, as a set.
    Set { symbol: String, set: ValueSet },
    /// An atom as written.
    Atom(Atom),
}

fn member(binding: &Binding, symbol: &str, set: &ValueSet) -> Tri {
    binding
        .get(symbol)
        .map_or(Tri::Unknown, |v| Tri::from_bool(set.contains(*v)))
}

impl Part {
    /// Whether `symbol` is the only symbol the part mentions.
    fn only_in(&self, symbol: &str) -> bool {
        match self {
            Part::Set { symbol: s, .. } => s == symbol,
            Part::Any(pieces) => pieces.iter().all(|piece| match piece {
                Piece::Set { symbol: s, .. } => s == symbol,
                Piece::Atom(atom) => atom
                    .dims()
                    .into_iter()
                    .flat_map(Dim::symbols)
                    .all(|name| name == symbol),
            }),
        }
    }

    fn eval(&self, binding: &Binding) -> Tri {
        match self {
            Part::Set { symbol, set } => member(binding, symbol, set),
            Part::Any(pieces) => pieces.iter().fold(Tri::No, |acc, p| {
                acc.or(match p {
                    Piece::Set { symbol, set } => member(binding, symbol, set),
                    Piece::Atom(a) => a.eval(binding),
                })
            }),
        }
    }
}

impl Display for Part {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Part::Set { symbol, set } => f.write_str(&set.describe(symbol)),
            Part::Any(pieces) if pieces.is_empty() => f.write_str("false"),
            Part::Any(pieces) => {
                let texts: Vec<String> = pieces
                    .iter()
                    .map(|p| match p {
                        Piece::Set { symbol, set } => {
                            let text = set.describe(symbol);
                            if text.contains(" ∧ ") && !text.contains(" ∨ ") {
                                format!("({text})")
                            } else {
                                text
                            }
                        }
                        Piece::Atom(a) => atom_text(a),
                    })
                    .collect();
                f.write_str(&texts.join(" ∨ "))
            }
        }
    }
}

/// An atom as a person writes it: `min(a, b) = a` is `a ≤ b` and `max(a, b) = a` is
/// `b ≤ a` (the same sets of values, so the text and the evaluation agree); any other atom as
/// written.
fn atom_text(atom: &Atom) -> String {
    if let Atom::Eq(lhs, rhs) = atom {
        for (side, other) in [(lhs, rhs), (rhs, lhs)] {
            let (Some(side), Some(other)) = (side.to_expr(), other.to_expr()) else {
                continue;
            };
            let Some((is_min, a, b)) = side.as_min_max() else {
                continue;
            };
            // min(a, b) = a and max(a, b) = b both say a ≤ b.
            let (low, high) = match (is_min, *a == other, *b == other) {
                (true, true, _) | (false, _, true) => (a, b),
                (true, _, true) | (false, true, _) => (b, a),
                _ => continue,
            };
            let (low, high) = (Dim::from_expr(low.clone()), Dim::from_expr(high.clone()));
            return format!("{low} ≤ {high}");
        }
    }
    atom.to_string()
}

/// The clause with each equation split at the atoms all its terms share (`n*a*b = n*a` holds
/// exactly when `n = 0 ∨ a = 0 ∨ b = 1`: a product of integers is 0 when a factor is), then
/// renormalised; `None` when that makes it always true.
fn factored(clause: &Clause) -> Option<Condition> {
    let mut atoms = Vec::new();
    for atom in clause.atoms() {
        let (lhs, rhs) = match atom {
            Atom::Eq(lhs, rhs) => (lhs, rhs),
            Atom::IsOne(lhs) => (lhs, &Dim::Known(1)),
        };
        let split = lhs
            .to_expr()
            .zip(rhs.to_expr())
            .and_then(|(l, r)| l.sub(&r))
            .and_then(|h| h.common_factors());
        match split {
            Some((factors, rest)) => atoms.extend(
                factors
                    .into_iter()
                    .chain([rest])
                    .map(|e| Atom::Eq(Dim::from_expr(e), Dim::Known(0))),
            ),
            None => atoms.push(atom.clone()),
        }
    }
    let c = Condition::any_of(atoms);
    (!c.is_true()).then_some(c)
}

/// The set of `symbol`'s values satisfying `c`, when it is decided and plain.
fn set_of(c: &Condition, symbol: &str) -> Option<ValueSet> {
    c.table(symbol)
        .and_then(|t| ValueSet::from_table(&t))
        .or_else(|| c.clamped_set(symbol))
}

/// A clause over several symbols as pieces: its atoms in one symbol gathered into a set per
/// symbol, the others as written; `None` when a piece always holds (so does the clause).
fn pieces(clause: &Condition) -> Option<Vec<Piece>> {
    let mut out: Vec<Piece> = Vec::new();
    let mut by_symbol: BTreeMap<String, Vec<Atom>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for atom in clause.atoms() {
        let symbols: Vec<&Dim> = atom.dims();
        let names: std::collections::BTreeSet<String> =
            symbols.iter().flat_map(|d| d.symbols()).collect();
        match names.iter().collect::<Vec<_>>().as_slice() {
            [one] => {
                if !by_symbol.contains_key(*one) {
                    order.push((*one).clone());
                }
                by_symbol
                    .entry((*one).clone())
                    .or_default()
                    .push(atom.clone());
            }
            _ => out.push(Piece::Atom(atom.clone())),
        }
    }
    for symbol in order {
        let atoms = by_symbol.remove(&symbol).unwrap_or_default();
        let c = Condition::of(vec![Clause(atoms.clone())]);
        match set_of(&c, &symbol) {
            Some(set) if set.is_everything() => return None,
            Some(set) if set.is_empty() => {}
            Some(set) => out.push(Piece::Set { symbol, set }),
            None => out.extend(atoms.into_iter().map(Piece::Atom)),
        }
    }
    Some(out)
}

impl Condition {
    /// The plain form of the condition (see the module docs). Only the clauses within the
    /// condition's work budget are rewritten; the others follow as written.
    pub(crate) fn plain(&self) -> Plain {
        let head = self.head_len();
        let rest = head.map(|from| (self.clone(), from));
        // Slots in order of first appearance: a symbol's clauses, or one multi-symbol clause.
        let mut slots: Vec<Result<String, Condition>> = Vec::new();
        let mut by_symbol: BTreeMap<String, Vec<Clause>> = BTreeMap::new();
        let rewritten = self.clauses.get(..head.unwrap_or(self.clauses.len()));
        for clause in rewritten.unwrap_or_default() {
            let Some(one) = factored(clause) else {
                continue;
            };
            let symbols = one.symbols();
            match symbols.iter().collect::<Vec<_>>().as_slice() {
                [symbol] => {
                    let group = by_symbol.entry((*symbol).clone()).or_insert_with(|| {
                        slots.push(Ok((*symbol).clone()));
                        Vec::new()
                    });
                    group.extend(one.clauses.iter().cloned());
                }
                _ => slots.push(Err(one)),
            }
        }
        let mut parts = Vec::new();
        for slot in slots {
            match slot {
                Err(clause) => {
                    if let Some(p) = pieces(&clause) {
                        parts.push(Part::Any(p));
                    }
                }
                Ok(symbol) => {
                    let Some(group) = by_symbol.remove(&symbol) else {
                        continue;
                    };
                    let group = Condition::of(group);
                    match set_of(&group, &symbol) {
                        Some(set) if set.is_everything() => {}
                        Some(set) => parts.push(Part::Set { symbol, set }),
                        None => parts.extend(
                            group
                                .clauses
                                .iter()
                                .map(|c| Part::Any(c.0.iter().cloned().map(Piece::Atom).collect())),
                        ),
                    }
                }
            }
        }
        Plain { parts, rest }
    }

    /// A binding that breaks the condition: one symbol at its smallest breaking positive value
    /// when the plain form has one (it breaks the condition whatever the other symbols are),
    /// else the bounded search's [`Condition::counterexample`].
    #[cfg(test)]
    pub(crate) fn smallest_counterexample(&self) -> Option<Binding> {
        self.plain().breaking().or_else(|| self.counterexample())
    }
}

impl Plain {
    /// The truth value under `binding`, equal to the original condition's.
    #[cfg(test)]
    pub(crate) fn eval(&self, binding: &Binding) -> Tri {
        let rest = self
            .rest_clauses()
            .fold(Tri::Yes, |acc, c| acc.and(c.eval(binding)));
        self.parts
            .iter()
            .fold(rest, |acc, p| acc.and(p.eval(binding)))
    }

    /// The clauses kept as written (past the work budget).
    fn rest_clauses(&self) -> impl Iterator<Item = &Clause> {
        self.rest
            .iter()
            .flat_map(|(c, from)| c.clauses.get(*from..).unwrap_or_default())
    }

    /// Whether clauses past the condition's work budget are kept as written.
    #[cfg(test)]
    pub(crate) fn is_capped(&self) -> bool {
        self.rest.is_some()
    }

    /// Holds for every value of the symbols.
    pub(crate) fn is_true(&self) -> bool {
        self.parts.is_empty() && self.rest.is_none()
    }

    /// Holds for no value of the symbols.
    pub(crate) fn is_false(&self) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Set { set, .. } => set.is_empty(),
            Part::Any(pieces) => pieces.is_empty(),
        })
    }

    /// One symbol at its smallest positive breaking value (see
    /// [`Condition::smallest_counterexample`]).
    ///
    /// Failing that, a clause over several symbols whose pieces are all sets breaks when every
    /// symbol is at its smallest breaking value.
    pub(crate) fn breaking(&self) -> Option<Binding> {
        let single = self.parts.iter().find_map(|p| match p {
            Part::Set { symbol, set } => {
                let v = set.smallest_missing()?;
                Some([(symbol.clone(), v)].into_iter().collect())
            }
            Part::Any(_) => None,
        });
        let found = single.or_else(|| {
            self.parts.iter().find_map(|p| match p {
                Part::Any(pieces) if !pieces.is_empty() => pieces
                    .iter()
                    .map(|piece| match piece {
                        Piece::Set { symbol, set } => {
                            Some((symbol.clone(), set.smallest_missing()?))
                        }
                        Piece::Atom(_) => None,
                    })
                    .collect(),
                _ => None,
            })
        });
        // Another part in the same symbol alone (an atom no value set describes, `b*b = 3`)
        // may break at a smaller value than the set's: the smallest is the first that any of
        // them breaks at. The scan is bounded; past it the set's value stands (it breaks too).
        found.map(|binding: Binding| {
            let lowered = binding
                .iter()
                .next()
                .filter(|_| binding.len() == 1)
                .and_then(|(symbol, &value)| {
                    let own: Vec<&Part> = self.parts.iter().filter(|p| p.only_in(symbol)).collect();
                    (1..value.min(1 << 16)).find_map(|v| {
                        let at: Binding = [(symbol.clone(), v)].into_iter().collect();
                        own.iter().any(|p| p.eval(&at) == Tri::No).then_some(at)
                    })
                });
            lowered.unwrap_or(binding)
        })
    }
}

impl Plain {
    /// How many conjuncts the text states: the parts, then the clauses past the work budget.
    pub(crate) fn clause_count(&self) -> usize {
        self.parts.len() + self.rest_clauses().count()
    }

    /// Writes the text of at most `max` conjuncts (at least one), then `… and N more clauses`
    /// for the others, which are never written out; returns how many were left out. Within
    /// `max` it is the whole text ([`Display`]).
    pub(crate) fn write_within(
        &self,
        out: &mut impl fmt::Write,
        max: usize,
    ) -> Result<usize, fmt::Error> {
        if self.rest.is_none() {
            match self.parts.as_slice() {
                [] => return out.write_str("true").map(|()| 0),
                [one] => return write!(out, "{one}").map(|()| 0),
                _ => {}
            }
        }
        // Past the budget: every part, then every clause as written, its atoms joined as a
        // clause over several symbols is.
        let rest = self.rest_clauses().map(|c| {
            let atoms: Vec<String> = c.0.iter().map(ToString::to_string).collect();
            atoms.join(" ∨ ")
        });
        let texts = self.parts.iter().map(ToString::to_string).chain(rest);
        let mut written = 0;
        for text in texts.take(max.max(1)) {
            if written > 0 {
                out.write_str(" ∧ ")?;
            }
            if text.contains(" ∨ ") {
                write!(out, "({text})")?;
            } else {
                out.write_str(&text)?;
            }
            written += 1;
        }
        let left = self.clause_count().saturating_sub(written);
        if left > 0 {
            let clauses = if left == 1 { "clause" } else { "clauses" };
            write!(out, " ∧ … and {left} more {clauses}")?;
        }
        Ok(left)
    }
}

impl Display for Plain {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.write_within(f, usize::MAX).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use crate::shape::condition::{Atom, Condition};
    use crate::shape::Dim;

    fn plain(c: &Condition) -> String {
        c.plain().to_string()
    }

    fn breaks(c: &Condition) -> String {
        let b = c.smallest_counterexample().unwrap();
        let parts: Vec<String> = b.iter().map(|(k, v)| format!("{k}={v}")).collect();
        parts.join(", ")
    }

    /// `a = b ∨ a = 1 ∨ b = 1`, as multidirectional broadcasting states it.
    fn broadcast(a: &Dim, b: &Dim) -> Condition {
        Condition::any_of([
            Atom::Eq(a.clone(), b.clone()),
            Atom::IsOne(a.clone()),
            Atom::IsOne(b.clone()),
        ])
    }

    /// `⌈e/2⌉` as a stride-2 convolution with padding 1 and kernel 3 gives it.
    fn half(e: &Dim) -> Dim {
        e.add(&Dim::known(1)).floor_div(&Dim::known(2))
    }

    #[test]
    fn bert_position_table_is_a_bound() {
        let seq = Dim::sym("seq");
        let c = broadcast(&seq.min(&Dim::known(64)), &seq);
        assert_eq!(plain(&c), "seq ≤ 64");
        assert_eq!(breaks(&c), "seq=65");
    }

    #[test]
    fn paddle_det_halvings_are_divisibility() {
        let h = Dim::sym("H");
        let h2 = half(&half(&h));
        let h5 = half(&half(&half(&h2)));
        let c = broadcast(&h5.mul(&Dim::known(8)), &h2);
        assert_eq!(plain(&c), "H ≤ 4 ∨ ⌈H/4⌉ % 8 = 0");
        assert_eq!(breaks(&c), "H=5");
        let h4 = half(&half(&h2));
        let c = broadcast(&h5.mul(&Dim::known(2)), &h4);
        assert_eq!(plain(&c), "H ≤ 16 ∨ ⌈H/16⌉ % 2 = 0");
    }

    #[test]
    fn wav2vec_frames_are_a_lower_bound() {
        let samples = Dim::sym("samples");
        let frames = samples
            .floor_div(&Dim::known(5))
            .floor_div(&Dim::known(2))
            .floor_div(&Dim::known(2));
        let trimmed = frames.sub(&Dim::known(1)).max(&Dim::known(0));
        let c = broadcast(&trimmed, &frames.sub(&Dim::known(1)));
        assert_eq!(plain(&c), "samples ≥ 20");
        assert_eq!(breaks(&c), "samples=1");
    }

    #[test]
    fn independent_symbols_read_apart() {
        let (n, m) = (Dim::sym("n"), Dim::sym("m"));
        let c = broadcast(&n, &Dim::known(77))
            .and(&broadcast(&m.floor_div(&Dim::known(2)), &Dim::known(3)))
            .and(&broadcast(&n, &m));
        assert_eq!(
            plain(&c),
            "n ∈ {1, 77} ∧ m ∈ {2, 3, 6, 7} ∧ (n = m ∨ n = 1 ∨ m = 1)"
        );
        assert_eq!(breaks(&c), "n=2");
    }

    #[test]
    fn quoted_names_and_ranges() {
        let x = Dim::sym("x:2");
        let w = half(&half(&half(&half(&x)))).floor_div(&Dim::known(3));
        let c = Condition::any_of([Atom::IsOne(w)]);
        // ⌈x/16⌉ ∈ {3, 4, 5}.
        assert_eq!(plain(&c), "33 ≤ `x:2` ≤ 80");
        assert_eq!(breaks(&c), "x:2=1");
    }

    #[test]
    fn shared_factors_split_into_sets() {
        // The rapidocr rec Reshape: batch*⌈h/4⌉/2*w' = batch*⌈h/4⌉/2.
        let (n, h, w) = (Dim::sym("n"), Dim::sym("h"), Dim::sym("w"));
        let rows = half(&half(&h)).floor_div(&Dim::known(2));
        let cols = half(&half(&half(&half(&w)))).floor_div(&Dim::known(3));
        let c = Condition::eq(&n.mul(&rows).mul(&cols), &n.mul(&rows));
        assert_eq!(plain(&c), "n = 0 ∨ h ≤ 4 ∨ 33 ≤ w ≤ 80");
        assert_eq!(breaks(&c), "h=5, n=1, w=1");
    }

    /// Past the work budget the clauses are kept as written: the plain form still states and
    /// evaluates as the whole condition.
    #[test]
    fn a_condition_past_the_budget_keeps_its_other_clauses_as_written() {
        let s = |i: usize| Dim::sym(&format!("s{}", i % 400));
        let c = (0..400).fold(Condition::truth(), |c, i| {
            c.and(&broadcast(&s(i), &s(i + 1)))
        });
        let plain = c.plain();
        assert!(plain.is_capped());
        assert!(!plain.is_true() && !plain.is_false());
        assert_eq!(plain.to_string().matches(" ∧ ").count(), 399);
        assert!(plain
            .to_string()
            .ends_with("(s399 = s0 ∨ s399 = 1 ∨ s0 = 1)"));
        for (at, value) in [(0, 3), (250, 3), (399, 1)] {
            let b = (0..400)
                .map(|i| (format!("s{i}"), if i == at { value } else { 2 }))
                .collect();
            assert_eq!(plain.eval(&b), c.eval(&b), "s{at}={value}");
        }
        assert!(!broadcast(&s(0), &s(1)).plain().is_capped());
    }

    /// `TopK`'s `k ≤ n` over two symbols: the min/max equation reads as the bound it is.
    #[test]
    fn min_and_max_against_an_operand_read_as_a_bound() {
        let (m, n) = (Dim::sym("m"), Dim::sym("n"));
        assert_eq!(plain(&Condition::eq(&m.min(&n), &m)), "m ≤ n");
        assert_eq!(plain(&Condition::eq(&n, &m.min(&n))), "n ≤ m");
        assert_eq!(plain(&Condition::eq(&m.max(&n), &m)), "n ≤ m");
        assert_eq!(plain(&Condition::eq(&m.max(&n), &n)), "m ≤ n");
        let m1 = m.add(&Dim::known(1));
        assert_eq!(plain(&Condition::eq(&m1.min(&n), &m1)), "m+1 ≤ n");
        // Any other equation with a min stays as written.
        let c = Condition::eq(&m.min(&n), &Dim::sym("k"));
        assert_eq!(plain(&c), "min(m, n) = k");
        // The plain form evaluates as the condition: text and truth agree.
        let c = Condition::eq(&m.min(&n), &m);
        for (mv, nv) in [(2, 3), (3, 3), (4, 3), (0, 0)] {
            let b = [("m".to_string(), mv), ("n".to_string(), nv)]
                .into_iter()
                .collect();
            assert_eq!(c.plain().eval(&b), c.eval(&b), "m={mv}, n={nv}");
        }
        assert_eq!(breaks(&c), "m=3, n=2");
    }

    #[test]
    fn always_true_and_never_true() {
        let n = Dim::sym("n");
        let c = Condition::any_of([
            Atom::Eq(n.modulo(&Dim::known(2)), Dim::known(0)),
            Atom::IsOne(n.modulo(&Dim::known(2))),
        ]);
        assert!(c.plain().is_true());
        let c = Condition::eq(
            &n.mul(&Dim::known(2))
                .add(&Dim::known(1))
                .modulo(&Dim::known(4)),
            &Dim::known(2),
        );
        assert!(c.plain().is_false());
    }
}
