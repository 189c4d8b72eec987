//! `--explain CODE`: the documentation of every code, as declared in `diag/codes.rs`, found by
//! name and rendered for the terminal and as Markdown. The README code table (a test checks each
//! row), `--explain` and SARIF's rule descriptions (`shortDescription`, `fullDescription`,
//! `help`) all read these texts.

use std::fmt::Write as _;

pub(crate) use super::declare::Explanation;
use crate::diag::Code;

/// Every code's documentation, as declared (`diag/codes.rs`): the finding codes in the README's
/// order, then the `load/...` codes.
#[cfg(any(test, feature = "cli"))]
pub(crate) const ALL: &[Explanation] = super::codes::EXPLAINED;

/// The documentation of `code` (case-insensitive), if it is one.
#[cfg(feature = "cli")]
pub(crate) fn find(code: &str) -> Option<&'static Explanation> {
    let code = code.trim();
    ALL.iter().find(|e| e.code.eq_ignore_ascii_case(code))
}

/// The documentation of a finding code.
pub(crate) fn of(code: Code) -> &'static Explanation {
    code.explanation()
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

/// The severity as `--explain` heads it: a retired code says so.
fn severity_label(explanation: &Explanation) -> String {
    if explanation.retired {
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
    section(&mut out, explanation.why_heading, explanation.why, false);
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
        explanation.why_heading,
        explanation.why,
        explanation.fix,
        explanation.spec
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_code_is_listed_once_with_its_severity() {
        for code in Code::ALL {
            let e = find(code.as_str()).expect("listed");
            assert_eq!(e, of(code));
            assert_eq!(e.severity, code.severity().as_str());
        }
        let retired: Vec<&str> = ALL.iter().filter(|e| e.retired).map(|e| e.code).collect();
        assert_eq!(retired, ["E2"]);
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
}
