//! Keeping the human report within the terminal's width (issue 32, item 8): exporters name
//! values by their module path (`/model/decoder/rnn/Unsqueeze_output_0`), so a node's line in a
//! listing runs to 200-400 columns, and a headline's path was wrapped in the middle of a
//! segment.
//!
//! - A listing line too wide has its longest names shortened in the middle
//!   (`/model/d…squeeze_output_0`: the end of a name says most), down to [`MIN_NAME`]
//!   characters, until the node's text fits; a line still too wide (a chain node's attributes
//!   after it, or too many names) is cut at the width, or after its last labelled name if that
//!   is further, with `…`. The labels' spans
//!   move with the text, so each stays under the token it names (whose full name its label
//!   gives).
//! - A label's text is broken into lines that fit the columns right of its connector.
//! - Wrapped prose (headline, help, provenance notes) breaks between words and after a path's
//!   `/`, never inside a segment that fits on a line.
//!
//! Widths are counted in characters (names are ASCII in practice; a wide character may
//! overflow by its extra column).

use std::ops::Range;

use textwrap::core::Word;

/// The shortest a name is cut to: a third of a long name's segment still tells it apart.
const MIN_NAME: usize = 16;

/// The narrowest a label's text is broken to, however far right its token is.
const MIN_LABEL: usize = 16;

/// What starts the comment that gives a chain node's attributes in the listing.
const COMMENT: &str = "  # ";

/// Columns miette draws before a listing line: a space, the line number, ` │ `.
pub(super) fn gutter(largest_line_number: usize) -> usize {
    largest_line_number.max(1).ilog10() as usize + 1 + 4
}

/// A listing fitted to `width` columns: `text` with its too-wide lines shortened, and `labels`
/// (spans of `text` with their texts) moved with it and broken into lines. `gutter` is what is
/// drawn left of each line ([`gutter`]).
pub(super) fn fit_listing(
    text: &str,
    labels: Vec<(Range<usize>, String)>,
    width: usize,
    gutter: usize,
) -> (String, Vec<(Range<usize>, String)>) {
    let budget = width.saturating_sub(gutter).max(MIN_NAME);
    let mut fitted = String::with_capacity(text.len());
    let mut edits: Vec<Edit> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        // The labels under this line: their spans in it and their texts' lengths.
        let under: Vec<(Range<usize>, usize)> = labels
            .iter()
            .filter(|(span, _)| span.start >= at && span.end <= at + body.len())
            .map(|(span, label)| (span.start - at..span.end - at, label.chars().count()))
            .collect();
        fit_line(
            body,
            at,
            fitted.len(),
            budget,
            &under,
            &mut edits,
            &mut fitted,
        );
        fitted.push_str(line.get(body.len()..).unwrap_or_default());
        at += line.len();
    }
    let labels = labels
        .into_iter()
        .map(|(span, label)| {
            let span = map(&edits, span.start, true)..map(&edits, span.end, false);
            // Where miette puts the label's connector: the middle of its token.
            let line_start = fitted
                .get(..span.start)
                .and_then(|before| before.rfind('\n'))
                .map_or(0, |newline| newline + 1);
            let column = |offset: usize| {
                fitted
                    .get(line_start..offset)
                    .map_or(0, |before| before.chars().count())
            };
            let middle = usize::midpoint(
                column(span.start),
                column(span.end).max(column(span.start) + 1),
            );
            let room = width.saturating_sub(gutter + middle + 4).max(MIN_LABEL);
            (span, wrap_label(&label, room))
        })
        .collect();
    (fitted, labels)
}

/// A replaced stretch: bytes `old` of the listing became bytes `new` of the fitted one.
#[derive(Debug, Clone)]
struct Edit {
    old: Range<usize>,
    new: Range<usize>,
}

/// Where offset `at` of the listing is in the fitted one. An offset inside a replaced stretch
/// goes to its start (a span's start) or its end (a span's end).
fn map(edits: &[Edit], at: usize, start: bool) -> usize {
    // Past the last stretch before `at`, text is as it was: `at` moves as that stretch's end.
    let mut moved = (0, 0);
    for edit in edits {
        if at <= edit.old.start {
            break;
        }
        if at < edit.old.end {
            return if start { edit.new.start } else { edit.new.end };
        }
        moved = (edit.old.end, edit.new.end);
    }
    at - moved.0 + moved.1
}

/// Where offset `at` of the fitted text, outside every replaced stretch, is in the listing.
fn unmap(edits: &[Edit], at: usize) -> usize {
    let mut moved = (0, 0);
    for edit in edits {
        if at < edit.new.end {
            break;
        }
        moved = (edit.new.end, edit.old.end);
    }
    at - moved.0 + moved.1
}

/// Whether `c` belongs to a name in a listing line (names may hold `/`, `.`, `:`).
fn in_name(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '(' | ')' | ',')
}

/// The names of a line: byte ranges of the runs of name characters.
fn names(line: &str) -> Vec<Range<usize>> {
    let mut names = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (in_name(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                names.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        names.push(s..line.len());
    }
    names
}

/// `name` cut to `cap` characters in the middle, keeping more of its end.
fn shorten(name: &str, cap: usize) -> String {
    let count = name.chars().count();
    if count <= cap {
        return name.to_owned();
    }
    let tail = (cap - 1) * 2 / 3;
    let head = cap - 1 - tail;
    let mut out: String = name.chars().take(head).collect();
    out.push('…');
    out.extend(name.chars().skip(count - tail));
    out
}

/// The width of `line` with every name longer than `cap` shortened to it.
fn width_at(line: &str, names: &[Range<usize>], cap: usize) -> usize {
    let mut width = line.chars().count();
    for name in names {
        let count = line.get(name.clone()).map_or(0, |n| n.chars().count());
        width -= count.saturating_sub(cap);
    }
    width
}

/// The column of `offset` of `line` with every name longer than `cap` shortened to it (an
/// offset inside a name counts the name's part before it, at most `cap`).
fn column_at(line: &str, names: &[Range<usize>], cap: usize, offset: usize) -> usize {
    let mut column = line
        .get(..offset)
        .map_or(0, |before| before.chars().count());
    for name in names.iter().filter(|name| name.start < offset) {
        let count = line
            .get(name.start..name.end.min(offset))
            .map_or(0, |n| n.chars().count());
        column -= count.saturating_sub(cap);
    }
    column
}

/// Where miette draws a label's connector under `span`, with names shortened to `cap`: the
/// middle of the span's columns.
fn middle_at(line: &str, names: &[Range<usize>], cap: usize, span: &Range<usize>) -> usize {
    let start = column_at(line, names, cap, span.start);
    let end = column_at(line, names, cap, span.end).max(start + 1);
    usize::midpoint(start, end)
}

/// Writes `line` (at offset `old_at` of the listing, `new_at` of the fitted text) to `out`,
/// shortened to `budget` columns if it is wider, recording its edits. `labels` are the spans
/// (in the line) and text lengths of the labels drawn under it: names are shortened further
/// while a label would have fewer than [`MIN_LABEL`] columns right of its connector, and a cut
/// never passes a labelled name.
fn fit_line(
    line: &str,
    old_at: usize,
    new_at: usize,
    budget: usize,
    labels: &[(Range<usize>, usize)],
    edits: &mut Vec<Edit>,
    out: &mut String,
) {
    // Names are shortened to fit the node's own text; a chain node's attributes, in a comment
    // after it (`  # strides = [2]`), are cut, never shortened.
    let code = line
        .find(COMMENT)
        .and_then(|end| line.get(..end))
        .unwrap_or(line);
    let names = names(code);
    let fits = |cap: usize| {
        width_at(code, &names, cap) <= budget
            && labels.iter().all(|(span, length)| {
                let middle = middle_at(line, &names, cap, span);
                middle + 4 + (*length).min(MIN_LABEL) <= budget
            })
    };
    let longest = names
        .iter()
        .filter_map(|n| line.get(n.clone()))
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0);
    if line.chars().count() <= budget && fits(longest) {
        out.push_str(line);
        return;
    }
    // The longest cap that fits, found by halving: widths and columns only grow with the cap.
    let (mut low, mut high) = (MIN_NAME, longest.max(MIN_NAME));
    while low < high {
        let cap = (low + high).div_ceil(2);
        if fits(cap) {
            low = cap;
        } else {
            high = cap - 1;
        }
    }
    let cap = low;
    let mut written = 0;
    let mut shortened = String::with_capacity(line.len());
    let mut line_edits = Vec::new();
    for name in &names {
        let Some(text) = line.get(name.clone()) else {
            continue;
        };
        if text.chars().count() <= cap {
            continue;
        }
        shortened.push_str(line.get(written..name.start).unwrap_or_default());
        let start = shortened.len();
        shortened.push_str(&shorten(text, cap));
        line_edits.push(Edit {
            old: old_at + name.start..old_at + name.end,
            new: new_at + start..new_at + shortened.len(),
        });
        written = name.end;
    }
    shortened.push_str(line.get(written..).unwrap_or_default());
    // Still too wide: cut after the last labelled name, or at the budget if that is further.
    if shortened.chars().count() > budget {
        let keep = labels
            .iter()
            .map(|(span, _)| span.end)
            .max()
            .map_or(0, |end| {
                map(&line_edits, old_at + end, false).saturating_sub(new_at)
            });
        let at_budget = shortened
            .char_indices()
            .nth(budget.saturating_sub(1))
            .map_or(shortened.len(), |(i, _)| i);
        let cut = new_at + at_budget.max(keep);
        if cut < new_at + shortened.len() {
            // A cut inside a shortened name replaces the whole name's stretch from its start.
            let (old_start, new_start) = match line_edits
                .iter()
                .find(|e| e.new.start < cut && cut < e.new.end)
            {
                Some(edit) => (edit.old.start, edit.new.start),
                None => (unmap(&line_edits, cut), cut),
            };
            line_edits.retain(|e| e.new.end <= new_start);
            shortened.truncate(cut - new_at);
            shortened.push('…');
            line_edits.push(Edit {
                old: old_start..old_at + line.len(),
                new: new_start..new_at + shortened.len(),
            });
        }
    }
    edits.extend(line_edits);
    out.push_str(&shortened);
}

/// A label's text in lines of at most `room` characters, broken between words and after a
/// name's `/` (miette draws each line of a label under the first).
fn wrap_label(label: &str, room: usize) -> String {
    if label.chars().count() <= room {
        return label.to_owned();
    }
    let options = textwrap::Options::new(room)
        .word_separator(textwrap::WordSeparator::Custom(words_and_segments))
        .break_words(true);
    textwrap::wrap(label, options).join("\n")
}

/// `text` in lines of at most `width` columns, the first after `first`, the others after
/// `rest`, broken as miette breaks the headline (between words and after a path's `/`).
pub(super) fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let options = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_separator(textwrap::WordSeparator::Custom(words_and_segments));
    textwrap::wrap(text, options)
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect()
}

/// Words split at spaces, and a path split after each `/`: textwrap's word separator for
/// prose that names paths, so that a path breaks only between its segments.
pub(super) fn words_and_segments(line: &str) -> Box<dyn Iterator<Item = Word<'_>> + '_> {
    let mut words = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let end_of_word = match (c, next) {
            (_, None) => true,
            (' ', Some(n)) => n != ' ',
            ('/', Some(n)) => n != ' ' && n != '/',
            _ => false,
        };
        if end_of_word {
            let end = i + c.len_utf8();
            if let Some(word) = line.get(start..end) {
                words.push(Word::from(word));
            }
            start = end;
        }
    }
    Box::new(words.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The node line of an exporter's model: four names of 30-40 characters.
    const LINE: &str = "   /model/decoder/rnn/Unsqueeze_output_0 = Add (/model/decoder/rnn/Gather_output_0, /model/decoder/embed/Constant_output_0)";

    fn span_of(text: &str, name: &str) -> Range<usize> {
        let start = text.find(name).unwrap();
        start..start + name.len()
    }

    #[test]
    fn a_wide_line_has_its_names_shortened_and_its_labels_moved_with_them() {
        let text = format!("main {{\n{LINE}\n}}");
        let first = "/model/decoder/rnn/Gather_output_0";
        let second = "/model/decoder/embed/Constant_output_0";
        let labels = vec![
            (
                span_of(&text, "Add"),
                "Add node `/model/decoder/rnn/Add`".to_owned(),
            ),
            (span_of(&text, first), format!("{first}: [1, 512]")),
            (span_of(&text, second), format!("{second}: [2, 512]")),
        ];
        let (fitted, labels) = fit_listing(&text, labels, 100, 5);
        let lines: Vec<&str> = fitted.lines().collect();
        assert_eq!(lines[0], "main {");
        assert_eq!(lines[2], "}");
        assert!(lines[1].chars().count() <= 95, "{}", lines[1]);
        // Each label has its minimum room right of its connector, and no name is shorter
        // than that takes.
        for (span, _) in &labels {
            let line_start = fitted[..span.start].rfind('\n').unwrap() + 1;
            let middle = usize::midpoint(
                fitted[line_start..span.start].chars().count(),
                fitted[line_start..span.end].chars().count(),
            );
            assert!(5 + middle + 4 + MIN_LABEL <= 100, "{fitted}");
        }
        // Each span is still its whole token: a shortened name keeps its start and its end.
        let token = |span: &Range<usize>| &fitted[span.clone()];
        assert_eq!(token(&labels[0].0), "Add");
        for (span, name) in [(&labels[1].0, first), (&labels[2].0, second)] {
            let shown = token(span);
            assert!(shown.contains('…'), "{shown}");
            let (head, tail) = shown.split_once('…').unwrap();
            assert!(name.starts_with(head) && name.ends_with(tail), "{shown}");
            assert!(tail.len() > head.len(), "the end says most: {shown}");
            assert!(!fitted[..span.start].ends_with(in_name), "{fitted}");
            assert!(!fitted[span.end..].starts_with(in_name), "{fitted}");
        }
    }

    #[test]
    fn a_line_that_fits_is_kept_byte_for_byte() {
        let text = "main {\n   z = Add (x, y)\n}".to_owned();
        let labels = vec![(span_of(&text, "Add"), "Add node `add`".to_owned())];
        let (fitted, moved) = fit_listing(&text, labels.clone(), 80, 5);
        assert_eq!(fitted, text);
        assert_eq!(moved, labels);
    }

    #[test]
    fn a_line_too_wide_with_every_name_shortened_is_cut_after_its_last_label() {
        let names: Vec<String> = (0..12)
            .map(|i| format!("/model/layers.{i}/attn/q_proj/MatMul_output_0"))
            .collect();
        let line = format!("   y = Concat ({})", names.join(", "));
        let text = format!("main {{\n{line}\n}}");
        let labels = vec![
            (span_of(&text, "Concat"), "Concat node `concat`".to_owned()),
            (span_of(&text, &names[1]), format!("{}: [2]", names[1])),
        ];
        let (fitted, labels) = fit_listing(&text, labels, 100, 5);
        let cut = fitted.lines().nth(1).unwrap();
        assert!(cut.ends_with('…'), "{cut}");
        assert!(cut.chars().count() <= 95, "{cut}");
        assert_eq!(fitted.lines().nth(2), Some("}"));
        let second = &fitted[labels[1].0.clone()];
        let (head, tail) = second.split_once('…').unwrap();
        assert!(
            names[1].starts_with(head) && names[1].ends_with(tail),
            "{second}"
        );
        // Cut: the last names are gone.
        assert!(cut.matches(", ").count() < names.len() - 1, "{cut}");
        assert_eq!(&fitted[labels[0].0.clone()], "Concat");
    }

    #[test]
    fn a_label_is_broken_to_the_columns_right_of_its_token() {
        let text = format!("main {{\n{LINE}\n}}");
        let name = "/model/decoder/embed/Constant_output_0";
        let label = format!("{name}: [batch, 1, 512] holding 1, 2, 3, 4, 5, 6, 7, 8");
        let (fitted, labels) =
            fit_listing(&text, vec![(span_of(&text, name), label.clone())], 100, 5);
        let span = &labels[0].0;
        let line_start = fitted[..span.start].rfind('\n').unwrap() + 1;
        let middle = usize::midpoint(
            fitted[line_start..span.start].chars().count(),
            fitted[line_start..span.end].chars().count(),
        );
        let lines: Vec<&str> = labels[0].1.lines().collect();
        assert!(lines.len() > 1, "{lines:?}");
        for line in &lines {
            assert!(
                5 + middle + 4 + line.chars().count() <= 100 || line.chars().count() <= MIN_LABEL,
                "{line}"
            );
        }
        // Broken at spaces or after a `/`: the pieces put back together are the label.
        let joined: String = labels[0].1.split('\n').collect::<Vec<_>>().join(" ");
        assert_eq!(
            joined.replace("/ ", "/").replace(' ', ""),
            label.replace(' ', "")
        );
    }

    #[test]
    fn prose_breaks_between_words_and_after_a_paths_slash() {
        let words: Vec<&str> = words_and_segments("see models/zoo/a.onnx:  ok //x")
            .map(|w| w.word)
            .collect();
        assert_eq!(
            words,
            ["see", "models/", "zoo/", "a.onnx:", "ok", "//", "x"]
        );
        let wrapped = textwrap::wrap(
            "models/some/rather/long/path/to/a/model.onnx: Add node `a`",
            textwrap::Options::new(20)
                .word_separator(textwrap::WordSeparator::Custom(words_and_segments)),
        );
        for line in &wrapped {
            assert!(line.chars().count() <= 20, "{wrapped:?}");
        }
        assert_eq!(
            wrapped.concat().replace(' ', ""),
            "models/some/rather/long/path/to/a/model.onnx:Addnode`a`"
        );
        assert!(
            wrapped
                .iter()
                .take(wrapped.len() - 1)
                .all(|l| l.ends_with('/') || l.ends_with(':') || !l.contains('/')),
            "{wrapped:?}"
        );
    }

    #[test]
    fn the_gutter_counts_the_line_numbers_digits() {
        assert_eq!(gutter(9), 5);
        assert_eq!(gutter(10), 6);
        assert_eq!(gutter(0), 5);
    }
}
