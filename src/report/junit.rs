//! `--format junit`: a `JUnit` XML test report, which every CI system shows. One `testsuite` per
//! model file (named by its path), one `testcase` per finding, so that a `JUnit` viewer reads as
//! the gate does:
//!
//! - a finding that fails the run (an error, or a warning with `--deny warnings`) is a testcase
//!   with a `failure` (`type` the code, `message` the message; its text adds the help and the
//!   fingerprint);
//! - a finding that does not fail the run is a passing testcase whose `system-out` holds the
//!   same text, so that it is seen without turning the report red;
//! - a file without findings is one passing testcase, `clean`;
//! - a file that cannot be read is one testcase with an `error` (the code and message), as
//!   `JUnit` marks a test that could not run.
//!
//! A testcase's `name` is the code and the node (`E1 main/bias`), its `classname` the file, and
//! `file`/`line` where it is (the line as SARIF's `startLine`). Nothing depends on the time or
//! the machine: the same input gives the same bytes. Each testcase is written as it is made; a
//! suite's counts are counted from the findings first, without rendering them.

use std::fmt::Write as _;
use std::io::{self, Write};

use miette::Diagnostic as _;

use super::place::{fails, line_col};
use super::{FileReport, Totals};
use crate::diag::Finding;

/// Writes the report for a batch of files. `deny_warnings[i]` says whether warnings fail the
/// run in `files[i]`; `totals` gives the document's counts.
pub(crate) fn write(
    out: &mut dyn Write,
    files: &[FileReport],
    deny_warnings: &[bool],
    totals: &Totals,
) -> io::Result<()> {
    let denied = |i: usize| deny_warnings.get(i).copied().unwrap_or(false);
    let mut tests = 0;
    let mut failures = 0;
    for (i, file) in files.iter().enumerate() {
        let (cases, failed) = counts(file, denied(i));
        tests += cases;
        failures += failed;
    }
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="{}" tests="{tests}" failures="{failures}" errors="{}">"#,
        env!("CARGO_PKG_NAME"),
        totals.unreadable
    )?;
    for (i, file) in files.iter().enumerate() {
        suite(out, file, denied(i))?;
    }
    writeln!(out, "</testsuites>")
}

/// A file's testcases and failures.
fn counts(file: &FileReport, deny_warnings: bool) -> (usize, usize) {
    match &file.outcome {
        Err(_) => (1, 0),
        Ok(report) => (
            report.findings.len().max(1),
            report
                .findings
                .iter()
                .filter(|f| fails(f.severity(), deny_warnings))
                .count(),
        ),
    }
}

fn suite(out: &mut dyn Write, file: &FileReport, deny_warnings: bool) -> io::Result<()> {
    let (tests, failures) = counts(file, deny_warnings);
    let errors = usize::from(file.outcome.is_err());
    let path = attribute(&file.path);
    writeln!(
        out,
        r#"  <testsuite name="{path}" tests="{tests}" failures="{failures}" errors="{errors}" skipped="0">"#
    )?;
    match &file.outcome {
        Err(error) => {
            let mut body = error.to_string();
            if let Some(help) = error.help() {
                let _ = write!(body, "\nhelp: {help}");
            }
            writeln!(
                out,
                r#"    <testcase name="load" classname="{path}" file="{path}">"#
            )?;
            writeln!(
                out,
                r#"      <error type="{}" message="{}">{}</error>"#,
                attribute(error.code()),
                attribute(&error.to_string()),
                text(&body)
            )?;
            writeln!(out, "    </testcase>")?;
        }
        Ok(report) if report.findings.is_empty() => {
            writeln!(
                out,
                r#"    <testcase name="clean" classname="{path}" file="{path}"/>"#
            )?;
        }
        Ok(report) => {
            for finding in &report.findings {
                case(out, &path, finding, deny_warnings)?;
            }
        }
    }
    writeln!(out, "  </testsuite>")
}

fn case(out: &mut dyn Write, path: &str, finding: &Finding, deny_warnings: bool) -> io::Result<()> {
    let code = finding.code.as_str();
    let mut name = code.to_owned();
    if let Some(node) = &finding.node {
        let _ = write!(name, " {}/{}", node.graph, node.name);
    }
    write!(
        out,
        r#"    <testcase name="{}" classname="{path}" file="{path}""#,
        attribute(&name)
    )?;
    if let Some((line, _)) = line_col(finding) {
        write!(out, r#" line="{line}""#)?;
    }
    writeln!(out, ">")?;
    let mut body = finding.message.clone();
    if let Some(help) = &finding.help {
        let _ = write!(body, "\nhelp: {help}");
    }
    let _ = write!(body, "\nfingerprint: {}", finding.fingerprint());
    if fails(finding.severity(), deny_warnings) {
        writeln!(
            out,
            r#"      <failure type="{code}" message="{}">{}</failure>"#,
            attribute(&finding.message),
            text(&body)
        )?;
    } else {
        writeln!(out, "      <system-out>{}</system-out>", text(&body))?;
    }
    writeln!(out, "    </testcase>")
}

/// Character data: markup escaped, and the characters XML 1.0 cannot hold at all (most C0
/// controls, which a model's names may contain) written as Rust escapes (`\u{0}`).
fn text(value: &str) -> String {
    escape(value, false)
}

/// An attribute value in double quotes: as [`text`], and quotes and line breaks as character
/// references (a parser would turn a raw line break into a space).
fn attribute(value: &str) -> String {
    escape(value, true)
}

fn escape(value: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' | '\t' => out.push(c),
            // XML 1.0's Char production: no other C0 control, no U+FFFE or U+FFFF.
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "{}", c.escape_default());
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use quick_xml::escape::resolve_predefined_entity;
    use quick_xml::events::{BytesStart, Event};
    use quick_xml::Reader;

    use super::*;
    use crate::LoadError;

    use crate::report::fixture::fixture_report as report;

    /// An element as a conforming parser reads it: its name, its parent's index, its
    /// attributes and its text, unescaped.
    #[derive(Debug)]
    struct Element {
        name: String,
        parent: Option<usize>,
        attributes: Vec<(String, String)>,
        text: String,
    }

    impl Element {
        fn get(&self, key: &str) -> &str {
            self.attributes.iter().find(|(k, _)| k == key).map_or_else(
                || panic!("{} has no {key}: {self:?}", self.name),
                |(_, v)| v,
            )
        }
    }

    /// Parses the whole document with quick-xml, failing on anything not well-formed
    /// (mismatched or unclosed tags, an unknown entity, a bad attribute), and lists its
    /// elements in document order.
    fn parse(xml: &str) -> Vec<Element> {
        let mut reader = Reader::from_str(xml);
        reader.config_mut().check_end_names = true;
        let mut elements: Vec<Element> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let element = |tag: &BytesStart, parent: Option<usize>| Element {
            name: String::from_utf8(tag.name().as_ref().to_vec()).unwrap(),
            parent,
            attributes: tag
                .attributes()
                .map(|a| {
                    let a = a.unwrap();
                    let key = String::from_utf8(a.key.as_ref().to_vec()).unwrap();
                    (key, a.unescape_value().unwrap().into_owned())
                })
                .collect(),
            text: String::new(),
        };
        let mut roots = 0;
        loop {
            match reader.read_event().unwrap() {
                Event::Start(tag) => {
                    roots += usize::from(open.is_empty());
                    elements.push(element(&tag, open.last().copied()));
                    open.push(elements.len() - 1);
                }
                Event::Empty(tag) => {
                    roots += usize::from(open.is_empty());
                    elements.push(element(&tag, open.last().copied()));
                }
                Event::End(_) => {
                    open.pop().unwrap();
                }
                Event::Text(text) => {
                    let text = text.decode().unwrap();
                    match open.last() {
                        Some(&i) => elements[i].text.push_str(&text),
                        None => assert!(text.trim().is_empty(), "text outside the root"),
                    }
                }
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref().unwrap() {
                        Some(c) => c.to_string(),
                        None => resolve_predefined_entity(&reference.decode().unwrap())
                            .unwrap()
                            .to_owned(),
                    };
                    elements[*open.last().unwrap()].text.push_str(&resolved);
                }
                Event::Eof => break,
                _ => {}
            }
        }
        assert!(open.is_empty(), "unclosed elements");
        assert_eq!(roots, 1, "one root element");
        elements
    }

    fn written(files: &[FileReport], deny: &[bool]) -> String {
        let mut out = Vec::new();
        write(&mut out, files, deny, &Totals::of(files)).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn children<'a>(elements: &'a [Element], parent: usize, name: &str) -> Vec<&'a Element> {
        elements
            .iter()
            .filter(|e| e.parent == Some(parent) && e.name == name)
            .collect()
    }

    #[test]
    fn a_suite_per_file_a_case_per_finding_failing_as_the_gate_does() {
        let files = [
            report("e1_reshape_upstream.onnx", "models/<e1> & \"x\".onnx"),
            report("w1_symbolic.onnx", "models/w1.onnx"),
            report("ok_symbolic_batch.onnx", "models/ok.onnx"),
            FileReport {
                path: "gone.onnx".into(),
                outcome: Err(LoadError::Empty {
                    path: PathBuf::from("gone.onnx"),
                }),
            },
        ];
        let xml = written(&files, &[false, false, false, false]);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
        let elements = parse(&xml);
        let root = &elements[0];
        assert_eq!(root.name, "testsuites");
        assert_eq!(
            (root.get("tests"), root.get("failures"), root.get("errors")),
            ("4", "1", "1")
        );
        let suites = children(&elements, 0, "testsuite");
        let names: Vec<&str> = suites.iter().map(|s| s.get("name")).collect();
        assert_eq!(
            names,
            [
                "models/<e1> & \"x\".onnx",
                "models/w1.onnx",
                "models/ok.onnx",
                "gone.onnx"
            ]
        );
        let index = |suite: &Element| {
            elements
                .iter()
                .position(|e| std::ptr::eq(e, suite))
                .unwrap()
        };

        // The error: a failing case at the SARIF line, with the message, help and fingerprint.
        let e1 = &files[0].outcome.as_ref().unwrap().findings[0];
        let node = e1.node.as_ref().unwrap();
        let [case] = children(&elements, index(suites[0]), "testcase")[..] else {
            panic!("one case")
        };
        assert_eq!(case.get("name"), format!("E1 {}/{}", node.graph, node.name));
        assert_eq!(case.get("classname"), "models/<e1> & \"x\".onnx");
        assert_eq!(case.get("line"), (node.index + 2).to_string());
        let [failure] = children(&elements, index(case), "failure")[..] else {
            panic!("one failure")
        };
        assert_eq!(failure.get("type"), "E1");
        assert_eq!(failure.get("message"), e1.message);
        assert_eq!(
            failure.text,
            format!(
                "{}\nhelp: {}\nfingerprint: {}",
                e1.message,
                e1.help.as_deref().unwrap(),
                e1.fingerprint()
            )
        );
        assert_eq!(suites[0].get("failures"), "1");

        // The warning passes (it does not fail this run), its text in system-out.
        let [case] = children(&elements, index(suites[1]), "testcase")[..] else {
            panic!("one case")
        };
        assert!(children(&elements, index(case), "failure").is_empty());
        let [out] = children(&elements, index(case), "system-out")[..] else {
            panic!("system-out")
        };
        assert!(out.text.contains("fingerprint: W1:"), "{}", out.text);
        assert_eq!(suites[1].get("failures"), "0");

        // A clean file is one passing case.
        let cases = children(&elements, index(suites[2]), "testcase");
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].get("name"), "clean");
        assert!(elements.iter().all(|e| e.parent != Some(index(cases[0]))));

        // An unreadable file is an error.
        let [case] = children(&elements, index(suites[3]), "testcase")[..] else {
            panic!("one case")
        };
        let [error] = children(&elements, index(case), "error")[..] else {
            panic!("one error")
        };
        assert_eq!(error.get("type"), "load/empty");
        assert_eq!(error.get("message"), "gone.onnx is empty (0 bytes)");
        assert!(error.text.contains("\nhelp: "), "{}", error.text);
        assert_eq!(suites[3].get("errors"), "1");
    }

    #[test]
    fn denied_warnings_fail() {
        let files = [report("w1_symbolic.onnx", "w1.onnx")];
        let elements = parse(&written(&files, &[true]));
        assert_eq!(elements[0].get("failures"), "1");
        let failure = elements.iter().find(|e| e.name == "failure").unwrap();
        assert_eq!(failure.get("type"), "W1");
    }

    #[test]
    fn any_text_stays_well_formed_and_reads_back() {
        let nasty = "a<b>&c\"d'e\nf\r\tg\u{0}h\u{1b}i\u{FFFF}]]>";
        let xml = format!("<r a=\"{}\">{}</r>", attribute(nasty), text(nasty));
        let elements = parse(&xml);
        let expected = "a<b>&c\"d'e\nf\r\tg\\u{0}h\\u{1b}i\\u{ffff}]]>";
        assert_eq!(elements[0].get("a"), expected);
        assert_eq!(elements[0].text, expected);
    }
}
