//! `ValueSet`: the exact set of values of one symbol that satisfy a condition, described in the
//! forms people use: values (`n ∈ {1, 77}`), bounds (`seq ≤ 64`, `samples ≥ 20`), ranges
//! (`81 ≤ w ≤ 128`), divisibility (`h % 32 = 0`, `⌈h/4⌉ % 8 = 0`) and their unions. Built from
//! an exact truth table (`periodic.rs`): a finite head below `from`, then a pattern repeating
//! with the smallest period from the smallest possible start.

use std::fmt::{self, Display, Formatter};

use super::periodic::Table;
use crate::shape::Dim;

/// Most pieces (ranges, lists, tail) a description may have before it stops being plain.
const MAX_PIECES: usize = crate::limits::VALUE_SET_PIECES;
/// Most values listed in one `∈ {...}`.
const MAX_LISTED: usize = crate::limits::VALUE_SET_LISTED;
/// Most values [`ValueSet::within`] tries.
const MAX_SCAN: i64 = crate::limits::VALUE_SET_SCAN;

/// The points where membership in some set of `sets` can change (added to `edges`), and the
/// lcm of their moduli, past which it repeats; `None` when that period passes `MAX_SCAN`.
fn edges_and_period(sets: &[&ValueSet], mut edges: Vec<i64>) -> Option<(Vec<i64>, i64)> {
    let mut period = 1i64;
    for set in sets {
        for &(a, b) in &set.head {
            edges.extend([a, b.saturating_add(1)]);
        }
        match &set.tail {
            Tail::Empty => {}
            Tail::All { from } => edges.push(*from),
            Tail::Residues { from, modulus, .. } => {
                edges.push(*from);
                let g = gcd(period, *modulus);
                period = (period / g.max(1))
                    .checked_mul(*modulus)
                    .filter(|p| *p <= MAX_SCAN)?;
            }
        }
    }
    Some((edges, period))
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    x
}

/// A set of non-negative integers.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct ValueSet {
    /// Members below the tail, as inclusive ranges in increasing order.
    head: Vec<(i64, i64)>,
    tail: Tail,
}

/// The members from some value on.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Tail {
    Empty,
    /// Every value `≥ from`.
    All {
        from: i64,
    },
    /// Every value `≥ from` whose remainder mod `modulus` is one of `residues` (sorted).
    Residues {
        from: i64,
        modulus: i64,
        residues: Vec<i64>,
    },
}

impl ValueSet {
    /// The description of a truth table; `None` when it would not be plain (too many pieces).
    pub(super) fn from_table(table: &Table) -> Option<ValueSet> {
        let period = table.period.max(1);
        let m = (1..=period).filter(|d| period % d == 0).find(|&d| {
            (0..period).all(|i| table.at(table.start + i) == table.at(table.start + i + d))
        })?;
        let mut a = table.start;
        while a > 0 && table.at(a - 1) == table.at(a - 1 + m) {
            a -= 1;
        }
        let head = runs((0..a).map(|s| table.at(s)));
        let members: Vec<usize> = (a..a + m).filter(|&s| table.at(s)).collect();
        let to_i64 = |v: usize| i64::try_from(v).ok();
        let tail = match members.first() {
            None => Tail::Empty,
            Some(_) if members.len() == m => Tail::All { from: to_i64(a)? },
            Some(&first) => {
                let mut residues: Vec<i64> = members
                    .iter()
                    .map(|&s| to_i64(s % m))
                    .collect::<Option<_>>()?;
                residues.sort_unstable();
                Tail::Residues {
                    from: to_i64(first)?,
                    modulus: to_i64(m)?,
                    residues,
                }
            }
        };
        let set = ValueSet {
            head: head
                .into_iter()
                .map(|(lo, hi)| Some((to_i64(lo)?, to_i64(hi)?)))
                .collect::<Option<_>>()?,
            tail,
        };
        set.is_plain().then_some(set)
    }

    fn is_plain(&self) -> bool {
        let (lists, ranges) = self.head_pieces();
        let listed = lists.len();
        let pieces = ranges.len() + usize::from(listed > 0) + usize::from(self.tail != Tail::Empty);
        let residues_ok = match &self.tail {
            Tail::Residues {
                modulus, residues, ..
            } => residue_text("s", *modulus, residues).is_some(),
            _ => true,
        };
        pieces <= MAX_PIECES && listed <= MAX_LISTED && residues_ok
    }

    /// Whether `v` is a member.
    pub(super) fn contains(&self, v: i64) -> bool {
        if self.head.iter().any(|(lo, hi)| (*lo..=*hi).contains(&v)) {
            return true;
        }
        match &self.tail {
            Tail::Empty => false,
            Tail::All { from } => v >= *from,
            Tail::Residues {
                from,
                modulus,
                residues,
            } => v >= *from && residues.contains(&v.rem_euclid(*modulus)),
        }
    }

    /// Every non-negative value is a member.
    pub(super) fn is_everything(&self) -> bool {
        self.head.is_empty() && self.tail == Tail::All { from: 0 }
    }

    /// No value is a member.
    pub(super) fn is_empty(&self) -> bool {
        self.head.is_empty() && self.tail == Tail::Empty
    }

    /// The smallest positive non-member (0 only when every positive value is a member): the
    /// counterexample people expect (`fails when seq=65`).
    pub(super) fn smallest_missing(&self) -> Option<i64> {
        let last_head = self.head.last().map_or(0, |(_, hi)| *hi);
        let tail_end = match &self.tail {
            Tail::Empty => 0,
            Tail::All { from } => *from,
            Tail::Residues { from, modulus, .. } => from.checked_add(*modulus)?,
        };
        let bound = last_head.max(tail_end).checked_add(1)?;
        (1..=bound)
            .find(|v| !self.contains(*v))
            .or_else(|| (!self.contains(0)).then_some(0))
    }

    /// The set of the values in `ranges` (inclusive, increasing, apart) and, with `from`, every
    /// value from it on; `None` when it would not be plain.
    pub(super) fn from_ranges(ranges: Vec<(i64, i64)>, from: Option<i64>) -> Option<ValueSet> {
        let mut head = ranges;
        let mut tail = from.map_or(Tail::Empty, |from| Tail::All { from });
        // A run that ends where the tail starts is the tail.
        while let (Some(&(lo, hi)), Tail::All { from }) = (head.last(), &tail) {
            if hi.checked_add(1) != Some(*from) {
                break;
            }
            tail = Tail::All { from: lo };
            head.pop();
        }
        let set = ValueSet { head, tail };
        set.is_plain().then_some(set)
    }

    /// Whether every value of `lo..=hi` is a member.
    pub(super) fn covers(&self, lo: i64, hi: i64) -> bool {
        let mut v = lo;
        while v <= hi {
            if let Some(&(_, end)) = self.head.iter().find(|(a, b)| (*a..=*b).contains(&v)) {
                let Some(next) = end.checked_add(1) else {
                    return true;
                };
                v = next;
                continue;
            }
            match &self.tail {
                Tail::All { from } if *from <= v => return true,
                // Not every class is a member, so this walks less than one period.
                Tail::Residues { .. } if self.contains(v) => v += 1,
                _ => return false,
            }
        }
        true
    }

    /// Whether no value `≥ lo` is a member.
    pub(super) fn empty_from(&self, lo: i64) -> bool {
        self.tail == Tail::Empty && self.head.iter().all(|(_, hi)| *hi < lo)
    }

    /// The same set with 0 a member (`member`) or not.
    fn with_zero(&self, member: bool) -> ValueSet {
        let mut set = self.clone();
        if self.contains(0) == member {
            return set;
        }
        if member {
            match set.head.first_mut() {
                Some((lo, _)) if *lo == 1 => *lo = 0,
                _ => set.head.insert(0, (0, 0)),
            }
            if let (true, Tail::All { from: 1 }) = (self.head.is_empty(), &self.tail) {
                set.head.clear();
                set.tail = Tail::All { from: 0 };
            }
            return set;
        }
        match set.head.first().copied() {
            Some((0, 0)) => {
                set.head.remove(0);
            }
            Some((0, hi)) => {
                if let Some(first) = set.head.first_mut() {
                    *first = (1, hi);
                }
            }
            _ => match &mut set.tail {
                Tail::All { from } => *from = 1,
                Tail::Residues {
                    from,
                    modulus,
                    residues,
                } => {
                    // The first member above 0: the smallest positive value of its classes.
                    *from = residues
                        .iter()
                        .map(|r| if *r == 0 { *modulus } else { *r })
                        .min()
                        .unwrap_or(*modulus);
                }
                Tail::Empty => {}
            },
        }
        set
    }

    /// The set as it reads best for dims that are never 0: with 0 added or taken out,
    /// whichever says it in fewer words (`n = 0 ∨ n ≥ 5` reads `n ≥ 5`, `1 ≤ w ≤ 80` reads
    /// `w ≤ 80`). The two agree on every positive value.
    pub(super) fn plainest_positive(&self) -> ValueSet {
        let (with, without) = (self.with_zero(true), self.with_zero(false));
        if with.describe("s").chars().count() < without.describe("s").chars().count() {
            with
        } else {
            without
        }
    }

    /// Whether every member of `self` in `lo..=hi` is a member of `other`; `false` when the
    /// check would exceed its bound.
    pub(super) fn within(&self, other: &ValueSet, lo: i64, hi: i64) -> bool {
        // Between consecutive edges of either set membership is constant or periodic with
        // the moduli's lcm, so one period after each edge decides it.
        let Some((mut edges, period)) =
            edges_and_period(&[self, other], vec![lo, hi.saturating_add(1)])
        else {
            return false;
        };
        edges.retain(|e| (lo..=hi).contains(e));
        edges.sort_unstable();
        edges.dedup();
        let mut scanned = 0i64;
        for (i, &start) in edges.iter().enumerate() {
            let end = edges.get(i + 1).copied().unwrap_or(hi.saturating_add(1));
            let stop = end.min(start.saturating_add(period));
            scanned = scanned.saturating_add(stop - start);
            if scanned > MAX_SCAN {
                return false;
            }
            if (start..stop).any(|v| self.contains(v) && !other.contains(v)) {
                return false;
            }
        }
        true
    }

    /// Whether some value `≥ lo` is a member of every set of `sets`; `true` also when the
    /// check would exceed its bound, so that `false` is a proof.
    pub(super) fn share_a_value(sets: &[&ValueSet], lo: i64) -> bool {
        // Between consecutive edges of the sets membership is constant or periodic with the
        // moduli's lcm, and so it is past the last edge: one period after each edge decides.
        let Some((mut edges, period)) = edges_and_period(sets, vec![lo]) else {
            return true;
        };
        edges.retain(|e| *e >= lo);
        edges.sort_unstable();
        edges.dedup();
        let mut scanned = 0i64;
        for (i, &start) in edges.iter().enumerate() {
            let past = start.saturating_add(period);
            let stop = edges.get(i + 1).map_or(past, |&next| next.min(past));
            scanned = scanned.saturating_add(stop - start);
            if scanned > MAX_SCAN {
                return true;
            }
            if (start..stop).any(|v| sets.iter().all(|set| set.contains(v))) {
                return true;
            }
        }
        false
    }

    /// Single values and short runs listed (`∈ {...}`); longer runs as ranges.
    fn head_pieces(&self) -> (Vec<i64>, Vec<(i64, i64)>) {
        let mut listed = Vec::new();
        let mut ranges = Vec::new();
        for &(lo, hi) in &self.head {
            if hi - lo < 2 {
                listed.extend(lo..=hi);
            } else {
                ranges.push((lo, hi));
            }
        }
        (listed, ranges)
    }

    /// The description with `symbol` as the variable.
    pub(super) fn describe(&self, symbol: &str) -> String {
        if self.is_everything() {
            return "true".to_owned();
        }
        if self.is_empty() {
            return "false".to_owned();
        }
        let s = Dim::sym(symbol).to_string();
        let (listed, ranges) = self.head_pieces();
        // (lowest member, text) so pieces read in increasing order.
        let mut pieces: Vec<(i64, String)> = Vec::new();
        if let Some(&first) = listed.first() {
            let text = match listed.as_slice() {
                [one] => format!("{s} = {one}"),
                many => {
                    let values: Vec<String> = many.iter().map(ToString::to_string).collect();
                    format!("{s} ∈ {{{}}}", values.join(", "))
                }
            };
            pieces.push((first, text));
        }
        for (lo, hi) in ranges {
            let text = if lo == 0 {
                format!("{s} ≤ {hi}")
            } else {
                format!("{lo} ≤ {s} ≤ {hi}")
            };
            pieces.push((lo, text));
        }
        match &self.tail {
            Tail::Empty => {}
            Tail::All { from } => pieces.push((*from, format!("{s} ≥ {from}"))),
            Tail::Residues {
                from,
                modulus,
                residues,
            } => {
                let text = residue_text(&s, *modulus, residues).unwrap_or_default();
                // The bound can go when every smaller value of those classes is a member
                // anyway (the first of its class, or listed in the head).
                let implied = (0..*from)
                    .all(|v| !residues.contains(&v.rem_euclid(*modulus)) || self.contains(v));
                let text = match (implied, pieces.is_empty()) {
                    (true, _) => text,
                    (false, true) => format!("{text} ∧ {s} ≥ {from}"),
                    (false, false) => format!("({text} ∧ {s} ≥ {from})"),
                };
                pieces.push((*from, text));
            }
        }
        pieces.sort_by_key(|(lo, _)| *lo);
        let texts: Vec<String> = pieces.into_iter().map(|(_, t)| t).collect();
        texts.join(" ∨ ")
    }
}

impl Display for ValueSet {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe("s"))
    }
}

/// `s % m = r`, `s % m ≤ k`, `⌈s/4⌉ % 8 = 0`, `s % m ∈ {...}`, `s % m ≠ r`; `None` when none
/// fits. `residues` is sorted, non-empty and not every class.
fn residue_text(s: &str, m: i64, residues: &[i64]) -> Option<String> {
    let n = i64::try_from(residues.len()).ok()?;
    let (&lo, &hi) = (residues.first()?, residues.last()?);
    let contiguous = hi - lo + 1 == n;
    if let [r] = residues {
        return Some(format!("{s} % {m} = {r}"));
    }
    if contiguous {
        return Some(if lo == 0 {
            format!("{s} % {m} ≤ {hi}")
        } else if hi == m - 1 {
            format!("{s} % {m} ≥ {lo}")
        } else {
            format!("{lo} ≤ {s} % {m} ≤ {hi}")
        });
    }
    // {m-d+1, ..., m-1, 0}: exactly the s with ⌈s/d⌉ a multiple of m/d, when d divides m.
    let wraps = residues.first() == Some(&0)
        && residues
            .get(1..)
            .is_some_and(|rest| rest.iter().zip(m - n + 1..).all(|(r, want)| *r == want));
    if wraps && m % n == 0 {
        return Some(format!("⌈{s}/{n}⌉ % {} = 0", m / n));
    }
    if n == m - 1 {
        let missing = (0..m).find(|r| !residues.contains(r))?;
        return Some(format!("{s} % {m} ≠ {missing}"));
    }
    if residues.len() <= 4 {
        let values: Vec<String> = residues.iter().map(ToString::to_string).collect();
        return Some(format!("{s} % {m} ∈ {{{}}}", values.join(", ")));
    }
    None
}

/// Maximal runs of `true` as inclusive `(first, last)` indices.
fn runs(bits: impl Iterator<Item = bool>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, bit) in bits.enumerate() {
        if !bit {
            continue;
        }
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 == i => *hi = i,
            _ => out.push((i, i)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::residue_text;

    #[test]
    fn residue_forms() {
        assert_eq!(residue_text("h", 32, &[0]).unwrap(), "h % 32 = 0");
        assert_eq!(
            residue_text("h", 32, &[0, 29, 30, 31]).unwrap(),
            "⌈h/4⌉ % 8 = 0"
        );
        assert_eq!(residue_text("h", 4, &[0, 1]).unwrap(), "h % 4 ≤ 1");
        assert_eq!(residue_text("h", 5, &[0, 1, 3, 4]).unwrap(), "h % 5 ≠ 2");
        assert_eq!(residue_text("h", 7, &[1, 3]).unwrap(), "h % 7 ∈ {1, 3}");
        assert_eq!(residue_text("h", 20, &[1, 3, 5, 7, 9]), None);
    }
}
