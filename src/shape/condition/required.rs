//! What other facts of a model say about its symbols' values, one symbol at a time: the
//! single-symbol conjuncts of another node's condition (the values that node runs at), or the
//! values at which a tensor's dims are all at least 1 (it is not empty). A condition none of
//! whose satisfying inputs with dims of at least 1 meets them is ruled out by them.
//! Exact on the plain form's sets; a clause with an atom kept as written is never ruled out.

use std::collections::BTreeMap;

use super::plain::{Part, Piece, Plain};
use super::value_set::ValueSet;
use super::Condition;
use crate::shape::Dim;

/// Sets each symbol's value must lie in (all of them), from facts other than a condition.
#[derive(Clone, Default, Debug)]
pub(crate) struct Required {
    sets: BTreeMap<String, Vec<ValueSet>>,
}

impl Required {
    /// The values `plain` asks of each symbol alone: a node whose condition it is fails
    /// outside them.
    pub(crate) fn of(plain: &Plain) -> Required {
        let mut required = Required::default();
        for part in &plain.parts {
            if let Part::Set { symbol, set } = part {
                required.add(symbol, set.clone());
            }
        }
        required
    }

    /// The values at which every dim of `dims` in one symbol is at least 1: a tensor of those
    /// dims is empty outside them. Dims in several symbols, or none, are left out (so the
    /// result asks less than non-emptiness, never more).
    pub(crate) fn non_empty(dims: &[Dim]) -> Required {
        let mut required = Required::default();
        for dim in dims {
            if dim.symbols().len() != 1 || matches!(dim, Dim::Known(_)) {
                continue;
            }
            let at_least_one = Condition::eq(&dim.min(&Dim::known(1)), &Dim::known(1));
            required.and(&Required::of(&at_least_one.plain()));
        }
        required
    }

    /// Adds `other`'s sets: both must hold.
    pub(crate) fn and(&mut self, other: &Required) {
        for (symbol, sets) in &other.sets {
            for set in sets {
                self.add(symbol, set.clone());
            }
        }
    }

    fn add(&mut self, symbol: &str, set: ValueSet) {
        let sets = self.sets.entry(symbol.to_owned()).or_default();
        if !sets.contains(&set) {
            sets.push(set);
        }
    }

    /// Whether some value of at least 1 lies in `set` and in every set required of `symbol`
    /// (`true` when that cannot be decided within the scan bound).
    fn admits(&self, symbol: &str, set: &ValueSet) -> bool {
        let mut all = vec![set];
        if let Some(sets) = self.sets.get(symbol) {
            all.extend(sets);
        }
        ValueSet::share_a_value(&all, 1)
    }
}

impl Plain {
    /// Whether no input whose dims are all at least 1 and whose symbols meet `required`
    /// satisfies the condition: some conjunct is a set, or a clause of sets only, that no
    /// such value meets. `false` when that cannot be shown (a clause with an atom over
    /// several symbols, an undecided scan).
    pub(crate) fn ruled_out_by(&self, required: &Required) -> bool {
        self.parts.iter().any(|part| match part {
            Part::Set { symbol, set } => !required.admits(symbol, set),
            Part::Any(pieces) => pieces.iter().all(|piece| match piece {
                Piece::Set { symbol, set } => !required.admits(symbol, set),
                Piece::Atom(_) => false,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Required;
    use crate::shape::condition::Condition;
    use crate::shape::Dim;

    fn quarter(d: &Dim) -> Dim {
        d.floor_div(&Dim::known(4))
    }

    #[test]
    fn a_product_of_quarters_is_zero_only_when_a_conv_output_is_empty() {
        // vit_interpolate_pos: the Add needs (h/4)*(w/4) = 0; the Conv's output is
        // [batch, 16, h/4, w/4].
        let (h, w) = (Dim::sym("height"), Dim::sym("width"));
        let area = quarter(&h).mul(&quarter(&w));
        let add = Condition::eq(&area, &Dim::known(0)).plain();
        assert_eq!(add.to_string(), "height ≤ 3 ∨ width ≤ 3");
        let conv = [Dim::sym("batch"), Dim::known(16), quarter(&h), quarter(&w)];
        let non_empty = Required::non_empty(&conv);
        assert!(add.ruled_out_by(&non_empty));
        // The Conv's own requirement (its output at least 1 on each spatial axis) says the same.
        let conv_needs = Condition::eq(&quarter(&h).min(&Dim::known(1)), &Dim::known(1))
            .and(&Condition::eq(
                &quarter(&w).min(&Dim::known(1)),
                &Dim::known(1),
            ))
            .plain();
        assert_eq!(conv_needs.to_string(), "height ≥ 4 ∧ width ≥ 4");
        assert!(add.ruled_out_by(&Required::of(&conv_needs)));
        // Non-emptiness of one axis alone leaves the other disjunct.
        let one_axis = Required::non_empty(&[quarter(&h)]);
        assert!(!add.ruled_out_by(&one_axis));
        assert!(!add.ruled_out_by(&Required::default()));
    }

    #[test]
    fn dims_that_a_positive_symbol_keeps_non_empty_ask_nothing() {
        let (s, p) = (Dim::sym("seq"), Dim::sym("past"));
        // A past cache of length `past` (0 on the first step) is a symbol: ≥ 1 already.
        let required = Required::non_empty(&[s.clone(), s.add(&p), p.clone(), Dim::known(0)]);
        let at_one = Condition::eq(&s, &Dim::known(1)).plain();
        let past_one = Condition::eq(&p, &Dim::known(1)).plain();
        assert!(!at_one.ruled_out_by(&required));
        assert!(!past_one.ruled_out_by(&required));
        // `seq - 1` is empty at seq = 1: being non-empty asks seq ≥ 2.
        let shifted = Required::non_empty(&[s.sub(&Dim::known(1))]);
        assert!(at_one.ruled_out_by(&shifted));
        let at_two = Condition::eq(&s, &Dim::known(2)).plain();
        assert!(!at_two.ruled_out_by(&shifted));
    }

    #[test]
    fn sets_are_met_together_not_one_by_one() {
        let n = Dim::sym("n");
        let even = Condition::eq(&n.modulo(&Dim::known(2)), &Dim::known(0)).plain();
        let by_three = Condition::eq(&n.modulo(&Dim::known(3)), &Dim::known(0)).plain();
        let mut both = Required::of(&even);
        both.and(&Required::of(&by_three));
        // n = 6 meets both: n % 6 = 0 is not ruled out, n ∈ {1, 2, 3, 4, 5} is.
        let six = Condition::eq(&n.modulo(&Dim::known(6)), &Dim::known(0)).plain();
        assert!(!six.ruled_out_by(&both));
        let small = Condition::eq(&n.min(&Dim::known(6)), &n)
            .and(&Condition::eq(&n.min(&Dim::known(5)), &n))
            .plain();
        assert!(small.ruled_out_by(&both));
    }
}
