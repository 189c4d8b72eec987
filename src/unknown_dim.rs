//! A bound dim name that no graph input declares: the one rule, and the one sentence, for the
//! library's entry points, the command's `--dim` and Python's `dims=`. A misspelled name bound
//! nothing, so the run would check the unbound model while its caller believes a deployment
//! size was checked.

use std::collections::BTreeSet;
use std::fmt;

/// Declared names listed in the message; more are counted.
const LISTED: usize = 10;

/// The shortest start of a name taken as its abbreviation: shorter ones (`b`, `s`) start too
/// many names to point at one.
const ABBREVIATION: usize = 3;

/// A name bound with [`Options::with_dim`](crate::Options::with_dim) (`--dim`, Python's `dims=`)
/// that no input of the main graph declares, with the declared names closest to it.
///
/// Its `Display` is the sentence every front end prints after its own prefix (the command:
/// ``error: --dim sequence: ``):
///
/// ```
/// use onnx_bcast_lint::{lint_path, unknown_dims, Options};
/// let report = lint_path(
///     std::path::Path::new("tests/models/w1_symbolic.onnx"),
///     &Options::new(),
/// )?;
/// let unknown = unknown_dims(["sequence", "batch"], [report.declared_dims()]);
/// assert_eq!(unknown.len(), 1);
/// assert_eq!(unknown[0].closest, ["seq"]);
/// assert_eq!(
///     unknown[0].to_string(),
///     "no graph input declares a dim named `sequence`; did you mean `seq`? \
///      (declared: `batch`, `seq`)"
/// );
/// # Ok::<(), onnx_bcast_lint::LoadError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownDim {
    /// The name as bound.
    pub name: String,
    /// The declared names close enough to be what was meant (a typo: at most a third of the
    /// characters differ; or one name starts the other: `seq` and `sequence`), sorted; empty
    /// when none is.
    pub closest: Vec<String>,
    /// Every name the inputs declare (of every model checked together), sorted.
    pub declared: Vec<String>,
}

impl fmt::Display for UnknownDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = |names: &[String]| -> Vec<String> {
            names.iter().map(|name| format!("`{name}`")).collect()
        };
        write!(f, "no graph input declares a dim named `{}`", self.name)?;
        if !self.closest.is_empty() {
            write!(f, "; did you mean {}?", quoted(&self.closest).join(" or "))?;
        }
        let mut listed = quoted(self.declared.get(..LISTED).unwrap_or(&self.declared));
        if listed.is_empty() {
            return f.write_str(" (the inputs declare no symbolic dim)");
        }
        if self.declared.len() > LISTED {
            listed.push(format!("and {} more", self.declared.len() - LISTED));
        }
        write!(f, " (declared: {})", listed.join(", "))
    }
}

impl std::error::Error for UnknownDim {}

/// The `names` that none of the models declares, in the order given: `declared` holds one set per
/// model checked together ([`LintReport::declared_dims`](crate::LintReport::declared_dims)).
///
/// Checked over every set at once, as the command checks `--dim` over its batch: a zoo's models
/// need not share every symbol, so a name declared by one of them is known. With no set at all
/// (no model could be read) nothing is checked, since nothing is known to be missing.
pub fn unknown_dims<'n, 'd>(
    names: impl IntoIterator<Item = &'n str>,
    declared: impl IntoIterator<Item = &'d BTreeSet<String>>,
) -> Vec<UnknownDim> {
    let mut any = false;
    let mut all = BTreeSet::new();
    for set in declared {
        any = true;
        all.extend(set.iter().map(String::as_str));
    }
    if !any {
        return Vec::new();
    }
    names
        .into_iter()
        .filter(|name| !all.contains(name))
        .map(|name| UnknownDim {
            name: name.to_owned(),
            closest: all
                .iter()
                .filter(|d| is_close(name, d))
                .map(|d| (*d).to_owned())
                .collect(),
            declared: all.iter().map(|d| (*d).to_owned()).collect(),
        })
        .collect()
}

/// Whether `declared` is likely what `name` meant: a typo (at most a third of the longer name's
/// characters differ, and at least one may), or one name is the other's start, three
/// characters or more (`seq` for `sequence`, `batch` for `batch_size`).
fn is_close(name: &str, declared: &str) -> bool {
    let (short, long) = if name.len() <= declared.len() {
        (name, declared)
    } else {
        (declared, name)
    };
    if short.chars().count() >= ABBREVIATION && long.starts_with(short) {
        return true;
    }
    let longer = name.chars().count().max(declared.chars().count());
    distance(name, declared) <= (longer / 3).max(1)
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let next = (diagonal + usize::from(ca != *cb))
                .min(above.saturating_add(1))
                .min(left.saturating_add(1));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = next;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("seq", "seq"), 0);
        assert_eq!(distance("sq", "seq"), 1);
        assert_eq!(distance("sequence", "seq"), 5);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_declared_name_is_known() {
        assert!(unknown_dims(["seq"], [&set(&["batch", "seq"])]).is_empty());
    }

    #[test]
    fn a_name_declared_by_one_model_of_several_is_known() {
        let one = set(&["batch"]);
        let other = set(&["seq"]);
        assert!(unknown_dims(["seq", "batch"], [&one, &other]).is_empty());
    }

    #[test]
    fn nothing_is_checked_without_a_model() {
        let none: [&BTreeSet<String>; 0] = [];
        assert!(unknown_dims(["seq"], none).is_empty());
    }

    #[test]
    fn a_typo_names_the_close_declared_names_only() {
        let declared = set(&["batch", "heads", "seq"]);
        let unknown = unknown_dims(["sq", "btch", "width"], [&declared]);
        let closest: Vec<(&str, Vec<String>)> = unknown
            .iter()
            .map(|u| (u.name.as_str(), u.closest.clone()))
            .collect();
        assert_eq!(
            closest,
            [
                ("sq", vec!["seq".to_owned()]),
                ("btch", vec!["batch".to_owned()]),
                ("width", vec![]),
            ]
        );
        assert_eq!(
            unknown[2].to_string(),
            "no graph input declares a dim named `width` (declared: `batch`, `heads`, `seq`)"
        );
    }

    #[test]
    fn a_name_that_starts_another_is_close() {
        let declared = set(&["batch_size", "seq", "sl"]);
        let closest = |name: &str| unknown_dims([name], [&declared])[0].closest.clone();
        assert_eq!(closest("sequence"), ["seq"]);
        assert_eq!(closest("batch"), ["batch_size"]);
        // Two characters start too many names to point at one.
        assert_eq!(closest("slice_len"), Vec::<String>::new());
    }

    #[test]
    fn a_model_without_symbols_says_so() {
        let unknown = unknown_dims(["batch"], [&set(&[])]);
        assert_eq!(
            unknown[0].to_string(),
            "no graph input declares a dim named `batch` (the inputs declare no symbolic dim)"
        );
    }

    #[test]
    fn a_long_declared_list_is_cut_and_counted() {
        let names: Vec<String> = (0..12).map(|i| format!("d{i:02}")).collect();
        let declared: BTreeSet<String> = names.into_iter().collect();
        let text = unknown_dims(["zzzzzz"], [&declared])[0].to_string();
        assert!(text.ends_with("`d08`, `d09`, and 2 more)"), "{text}");
    }
}
