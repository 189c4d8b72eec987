//! `--explain CODE`: the documentation of every code, in one place. The README code table (a test
//! checks each row), `--explain` and SARIF's rule descriptions (`shortDescription`,
//! `fullDescription`, `help`) all read these texts.

mod texts;

use std::fmt::Write as _;

use crate::diag::Code;

/// The documentation of one code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Explanation {
    /// The code as printed: `E1`, `load/decode`.
    pub code: &'static str,
    /// `error`, `warning`, `info` or `file error` (the README's severity column).
    pub severity: &'static str,
    /// One line (SARIF `shortDescription`).
    pub summary: &'static str,
    /// What the code means: the README table's meaning column and SARIF `fullDescription`.
    pub meaning: &'static str,
    /// Why the model fails at run time (or, for an info, what is lost).
    pub why: &'static str,
    /// A minimal model in ONNX text syntax (`onnx.parser`), or how the case arises.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// The specification it comes from.
    pub spec: &'static str,
}

/// Every code's documentation: the finding codes in [`Code::ALL`] order, then the `load/...`
/// codes.
pub(crate) const ALL: &[Explanation] = texts::ALL;

/// The documentation of `code` (case-insensitive), if it is one.
pub(crate) fn find(code: &str) -> Option<&'static Explanation> {
    let code = code.trim();
    ALL.iter().find(|e| e.code.eq_ignore_ascii_case(code))
}

/// The documentation of a finding code.
pub(crate) fn of(code: Code) -> &'static Explanation {
    // Every finding code has an entry: `every_finding_code_is_explained` checks it.
    find(code.as_str()).unwrap_or(&texts::MISSING)
}

/// Every known code, comma-separated (for the error on an unknown one).
#[cfg(feature = "cli")]
pub(crate) fn known_codes() -> String {
    ALL.iter().map(|e| e.code).collect::<Vec<_>>().join(", ")
}

/// Text width of `--explain` (a terminal's default).
const WIDTH: usize = 80;

/// A paragraph wrapped at [`WIDTH`], each line indented.
fn wrapped(out: &mut String, text: &str, indent: &str) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > WIDTH {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
}

/// A titled section: prose wrapped, an example kept line for line.
fn section(out: &mut String, title: &str, body: &str, verbatim: bool) {
    let _ = writeln!(out, "\n{title}");
    if verbatim {
        for line in body.lines() {
            let _ = writeln!(out, "    {line}");
        }
    } else {
        wrapped(out, body, "  ");
    }
}

/// Codes no longer reported, kept so that configurations and baselines naming them still load.
const RETIRED: &[&str] = &["E2"];

/// The heading of an explanation's `why` part: a finding that fails a run says why; a warning
/// on a model that runs (`W2`), a retired code and an info say what happens instead.
pub(crate) fn why_heading(explanation: &Explanation) -> &'static str {
    match explanation.code {
        "W2" | "E2" => "What happens at run time",
        "I1" => "What is lost",
        _ => "Why it fails at run time",
    }
}

/// The severity as `--explain` heads it: a retired code says so.
fn severity_label(explanation: &Explanation) -> String {
    if RETIRED.contains(&explanation.code) {
        format!("retired; was {}", explanation.severity)
    } else {
        explanation.severity.to_owned()
    }
}

/// What `--explain` prints: the code, its severity and summary, then one section per part.
pub(crate) fn render(explanation: &Explanation) -> String {
    let mut out = format!(
        "{} ({}): {}\n",
        explanation.code,
        severity_label(explanation),
        explanation.summary
    );
    section(&mut out, "What it means", explanation.meaning, false);
    section(&mut out, why_heading(explanation), explanation.why, false);
    section(&mut out, "Example", explanation.example, true);
    section(&mut out, "How to fix it", explanation.fix, false);
    section(&mut out, "Spec", explanation.spec, false);
    out
}

/// SARIF's rule `help` in Markdown: the same parts as [`render`].
pub(crate) fn markdown(explanation: &Explanation) -> String {
    let mut example = String::new();
    for line in explanation.example.lines() {
        let _ = writeln!(example, "    {line}");
    }
    format!(
        "{}\n\n**{}.** {}\n\n**Example.**\n\n{example}\n**How to fix it.** {}\n\n**Spec.** {}\n",
        explanation.meaning,
        why_heading(explanation),
        explanation.why,
        explanation.fix,
        explanation.spec
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_code_is_explained() {
        for code in Code::ALL {
            let e = find(code.as_str()).expect("explained");
            assert_eq!(e.severity, code.severity().as_str());
            assert_ne!(*e, texts::MISSING);
        }
    }

    #[test]
    fn every_part_is_written() {
        for e in ALL {
            for (part, text) in [
                ("summary", e.summary),
                ("meaning", e.meaning),
                ("why", e.why),
                ("example", e.example),
                ("fix", e.fix),
                ("spec", e.spec),
            ] {
                assert!(!text.trim().is_empty(), "{} {part}", e.code);
            }
            // The README table holds the meaning in one cell.
            assert!(!e.meaning.contains('\n'), "{}", e.code);
        }
    }

    #[test]
    fn codes_are_unique_and_found_in_any_case() {
        for e in ALL {
            assert_eq!(ALL.iter().filter(|o| o.code == e.code).count(), 1);
            assert_eq!(find(&e.code.to_lowercase()), Some(e));
        }
        assert_eq!(find("not-a-code"), None);
    }

    #[test]
    fn the_readme_code_table_is_these_texts() {
        let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));
        let rows: Vec<&str> = readme
            .lines()
            .filter(|line| {
                line.starts_with("| `")
                    && ALL
                        .iter()
                        .any(|e| line.starts_with(&format!("| `{}` |", e.code)))
            })
            .collect();
        assert_eq!(rows.len(), ALL.len(), "one README row per code: {rows:#?}");
        for e in ALL {
            let row = format!("| `{}` | {} | {} |", e.code, e.severity, e.meaning);
            assert!(
                rows.contains(&row.as_str()),
                "README lacks or differs: {row}"
            );
        }
    }
}
