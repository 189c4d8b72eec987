//! Findings over the cap (`--max-findings`, [`Options::with_max_findings`](crate::Options)):
//! a lint keeps the first ones in graph order and only counts the others, per code, so that
//! the output says exactly what it left out and the exit code still counts every one.

use std::collections::BTreeMap;

use super::{Code, Severity};

/// How many findings of each code a lint left out because of the findings cap. Empty when the
/// cap was not reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Omitted {
    counts: BTreeMap<Code, usize>,
}

impl Omitted {
    /// Whether nothing was left out.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Findings left out, over every code.
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    /// Findings of `code` left out.
    pub fn of(&self, code: Code) -> usize {
        self.counts.get(&code).copied().unwrap_or(0)
    }

    /// Findings of codes of `severity` left out.
    pub fn of_severity(&self, severity: Severity) -> usize {
        self.iter()
            .filter(|(code, _)| code.severity() == severity)
            .map(|(_, n)| n)
            .sum()
    }

    /// `(code, findings left out)` for each code with any, in the codes' order.
    pub fn iter(&self) -> impl Iterator<Item = (Code, usize)> + '_ {
        self.counts.iter().map(|(code, n)| (*code, *n))
    }

    /// Counts one more finding of `code`.
    pub(crate) fn add(&mut self, code: Code) {
        *self.counts.entry(code).or_insert(0) += 1;
    }

    /// Adds `other`'s counts to these.
    pub(crate) fn absorb(&mut self, other: Omitted) {
        for (code, n) in other.counts {
            *self.counts.entry(code).or_insert(0) += n;
        }
    }
}

/// Keeps the first `max` of `findings` (already in their final order; `None` keeps all) and
/// counts the others into `omitted`: which ones are kept depends on that order only.
#[cfg(any(test, feature = "cli"))]
pub(crate) fn cap(findings: &mut Vec<super::Finding>, max: Option<usize>, omitted: &mut Omitted) {
    let Some(max) = max else { return };
    if findings.len() <= max {
        return;
    }
    for finding in findings.drain(max..) {
        omitted.add(finding.code);
    }
    findings.shrink_to_fit();
}

/// `1,234,567`: counts in the sentences that say what was left out, where they run to millions.
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped_by_commas() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (999_000, "999,000"),
            (1_234_567, "1,234,567"),
        ];
        for (n, text) in cases {
            assert_eq!(grouped(n), text);
        }
    }

    #[test]
    fn counts_add_up_per_code_and_severity() {
        let mut omitted = Omitted::default();
        for code in [Code::E3, Code::E3, Code::W1, Code::I1] {
            omitted.add(code);
        }
        assert_eq!(omitted.of(Code::E3), 2);
        assert_eq!(omitted.of(Code::E1), 0);
        assert_eq!(omitted.total(), 4);
        assert_eq!(omitted.of_severity(Severity::Error), 2);
        assert_eq!(omitted.of_severity(Severity::Warning), 1);
        assert_eq!(
            omitted.iter().collect::<Vec<_>>(),
            [(Code::W1, 1), (Code::E3, 2), (Code::I1, 1)]
        );
    }
}
