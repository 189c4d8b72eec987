//! JSON documents written piece by piece, byte for byte as `serde_json::to_string_pretty` writes
//! the whole document, so that a report's findings need not all be JSON values at once.
//!
//! A model with a million undefined inputs has a million findings: as one `serde_json::Value`
//! tree, then a pretty string, then its indented and joined copies, its JSON took 7 KB per
//! finding (13.8 GB for a 47 MB file). Written one finding at a time to the command's buffered
//! stdout, it takes only the findings themselves (a caller that renders into a `String` holds
//! the output too).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::PrettyFormatter;
use serde_json::Value;

/// A part of a document: a value written whole, or an object or array written member by member.
pub(crate) enum Part<'a> {
    /// Written whole.
    Value(Value),
    /// Members in order.
    Object(Vec<(&'static str, Part<'a>)>),
    /// Elements in order.
    Array(Vec<Part<'a>>),
    /// Elements made one at a time, each written before the next is made.
    Items(Box<dyn Iterator<Item = Value> + 'a>),
}

/// What `write` writes to memory, as a string: the `render*` face of each `write*` function.
/// Writing to memory fails only if serializing does, which a `Value` does not.
pub(crate) fn to_string(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = write(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes `part` as the pretty printer writes it at nesting `depth` (its first line is not
/// indented: it follows a key or an element's indentation).
pub(crate) fn write(out: &mut dyn Write, part: Part<'_>, depth: usize) -> io::Result<()> {
    match part {
        Part::Value(value) => write_value(out, &value, depth),
        Part::Object(members) => {
            let mut members = members.into_iter().peekable();
            if members.peek().is_none() {
                return out.write_all(b"{}");
            }
            out.write_all(b"{")?;
            let mut first = true;
            for (key, member) in members {
                separate(out, &mut first, depth + 1)?;
                serde_json::to_writer(&mut *out, key)?;
                out.write_all(b": ")?;
                write(out, member, depth + 1)?;
            }
            close(out, depth, b"}")
        }
        Part::Array(elements) => write_elements(out, elements.into_iter(), depth),
        Part::Items(items) => write_elements(out, items.map(Part::Value), depth),
    }
}

fn write_elements<'a>(
    out: &mut dyn Write,
    elements: impl Iterator<Item = Part<'a>>,
    depth: usize,
) -> io::Result<()> {
    let mut first = true;
    for element in elements {
        if first {
            out.write_all(b"[")?;
        }
        separate(out, &mut first, depth + 1)?;
        write(out, element, depth + 1)?;
    }
    if first {
        return out.write_all(b"[]");
    }
    close(out, depth, b"]")
}

/// Before a member or an element: a comma after the previous one, a newline, the indentation.
fn separate(out: &mut dyn Write, first: &mut bool, depth: usize) -> io::Result<()> {
    if !std::mem::take(first) {
        out.write_all(b",")?;
    }
    out.write_all(b"\n")?;
    indent(out, depth)
}

fn close(out: &mut dyn Write, depth: usize, bracket: &[u8]) -> io::Result<()> {
    out.write_all(b"\n")?;
    indent(out, depth)?;
    out.write_all(bracket)
}

fn indent(out: &mut dyn Write, depth: usize) -> io::Result<()> {
    for _ in 0..depth {
        out.write_all(b"  ")?;
    }
    Ok(())
}

/// A whole value, pretty-printed, its inner lines indented by `depth` levels more. A JSON string
/// holds no raw newline, so every newline the printer writes starts a line to indent.
pub(crate) fn write_value(out: &mut dyn Write, value: &Value, depth: usize) -> io::Result<()> {
    let mut indented = Indented { out, depth };
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut indented, PrettyFormatter::new());
    value.serialize(&mut serializer).map_err(io::Error::from)
}

struct Indented<'w> {
    out: &'w mut dyn Write,
    depth: usize,
}

impl Write for Indented<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.depth == 0 {
            return self.out.write_all(bytes);
        }
        let mut lines = bytes.split(|&byte| byte == b'\n');
        if let Some(line) = lines.next() {
            self.out.write_all(line)?;
        }
        for line in lines {
            self.out.write_all(b"\n")?;
            indent(self.out, self.depth)?;
            self.out.write_all(line)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
/// The same document as one value, for `to_string_pretty` (tests compare).
pub(crate) fn whole(part: Part<'_>) -> Value {
    match part {
        Part::Value(value) => value,
        Part::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(key, part)| (key.to_owned(), whole(part)))
                .collect(),
        ),
        Part::Array(parts) => Value::Array(parts.into_iter().map(whole).collect()),
        Part::Items(items) => Value::Array(items.collect()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn document(items: usize) -> Part<'static> {
        let finding = |i: usize| {
            json!({"code": "E1", "node": {"index": i, "range": [i, i + 1], "nested": {"empty": {}, "none": []}},
                   "message": "a \"quoted\"\nline", "inputs": [{"shape": [1, "seq", null]}]})
        };
        Part::Object(vec![
            ("version", Part::Value(json!(1))),
            ("empty", Part::Object(Vec::new())),
            ("none", Part::Array(Vec::new())),
            ("nothing", Part::Items(Box::new(std::iter::empty()))),
            (
                "runs",
                Part::Array(vec![
                    Part::Object(vec![
                        ("tool", Part::Value(json!({"name": "x", "rules": [1, 2]}))),
                        ("results", Part::Items(Box::new((0..items).map(finding)))),
                    ]),
                    Part::Value(json!([])),
                ]),
            ),
        ])
    }

    #[test]
    fn writes_what_the_pretty_printer_writes_for_the_whole_document() {
        for items in [0, 1, 3] {
            let mut written = Vec::new();
            write(&mut written, document(items), 0).unwrap();
            let expected = serde_json::to_string_pretty(&whole(document(items))).unwrap();
            assert_eq!(
                String::from_utf8(written).unwrap(),
                expected,
                "{items} items"
            );
        }
    }

    #[test]
    fn a_value_written_deeper_has_its_inner_lines_indented() {
        let mut written = Vec::new();
        write_value(&mut written, &json!({"a": [1]}), 2).unwrap();
        assert_eq!(
            String::from_utf8(written).unwrap(),
            "{\n      \"a\": [\n        1\n      ]\n    }"
        );
    }
}
