//! A listing whose lines carry their own line numbers: the few lines of a graph's text form that
//! the human output shows (a chain's nodes, the finding's node), each numbered as in the whole
//! text form (line 1 is the graph's `name {`, node *i* is line *i* + 2), the numbers SARIF's
//! `startLine` gives. miette numbers the lines of one snippet consecutively, so a snippet never
//! spans lines whose numbers are not consecutive: the listing is read as runs of consecutive
//! lines, and labels in different runs are drawn in separate snippets.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// Lines of a text form, with each line's number in the whole text form.
#[derive(Debug)]
pub(super) struct Numbered {
    name: String,
    text: String,
    /// Byte offset of each line's start in `text`.
    starts: Vec<usize>,
    /// Each line's number (1-based), ascending.
    numbers: Vec<usize>,
}

impl Numbered {
    /// `lines` joined by newlines, named `name`; `lines[k]` is line `numbers[k]`.
    pub(super) fn new(name: String, lines: &[(usize, String)]) -> Self {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(lines.len());
        let mut numbers = Vec::with_capacity(lines.len());
        for (k, (number, line)) in lines.iter().enumerate() {
            if k > 0 {
                text.push('\n');
            }
            starts.push(text.len());
            numbers.push(*number);
            text.push_str(line);
        }
        Numbered {
            name,
            text,
            starts,
            numbers,
        }
    }

    /// The text every span is an offset into.
    #[cfg(test)]
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// The index of the line holding byte `offset`.
    fn line_at(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    /// The first and last line (indices) of the run of consecutive numbers holding line `k`.
    fn run_of(&self, k: usize) -> (usize, usize) {
        let consecutive = |i: usize| {
            matches!(
                (self.numbers.get(i), self.numbers.get(i + 1)),
                (Some(a), Some(b)) if a + 1 == *b
            )
        };
        let mut first = k;
        while first > 0 && consecutive(first - 1) {
            first -= 1;
        }
        let mut last = k;
        while consecutive(last) {
            last += 1;
        }
        (first, last)
    }
}

impl SourceCode for Numbered {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let end = span.offset().saturating_add(span.len());
        if end > self.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let (first, last) = self.run_of(self.line_at(span.offset()));
        // A span across two runs (miette joining two labels' snippets) cannot be one snippet.
        if self.line_at(end.saturating_sub(1).max(span.offset())) > last {
            return Err(MietteError::OutOfBounds);
        }
        let start = self.starts.get(first).copied().unwrap_or(0);
        let stop = self
            .starts
            .get(last + 1)
            .copied()
            .unwrap_or(self.text.len());
        let run = self.text.get(start..stop).ok_or(MietteError::OutOfBounds)?;
        let shifted = SourceSpan::new((span.offset() - start).into(), span.len());
        let inner = run.read_span(&shifted, context_lines_before, context_lines_after)?;
        let offset = self.numbers.get(first).map_or(0, |n| n.saturating_sub(1));
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + start).into(), inner.span().len()),
            inner.line() + offset,
            inner.column(),
            inner.line_count() + offset,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::Numbered;
    use miette::SourceCode;

    fn listing() -> Numbered {
        Numbered::new(
            "g".into(),
            &[
                (4, "a = X (x)".into()),
                (5, "b = Y (a)".into()),
                (9, "c = Z (b)".into()),
            ],
        )
    }

    #[test]
    fn a_line_reads_with_its_own_number() {
        let numbered = listing();
        let at = numbered.text().find('Z').unwrap();
        let contents = numbered.read_span(&(at, 1).into(), 0, 0).unwrap();
        assert_eq!(contents.line() + 1, 9);
        assert_eq!(contents.column(), 4);
        let at = numbered.text().find('Y').unwrap();
        assert_eq!(
            numbered.read_span(&(at, 1).into(), 0, 0).unwrap().line() + 1,
            5
        );
    }

    #[test]
    fn context_stays_within_consecutive_lines() {
        let numbered = listing();
        let at = numbered.text().find('Z').unwrap();
        let contents = numbered.read_span(&(at, 1).into(), 2, 2).unwrap();
        // Line 5 is not line 8: it is no context of line 9.
        assert_eq!(std::str::from_utf8(contents.data()).unwrap(), "c = Z (b)");
        let at = numbered.text().find('Y').unwrap();
        let contents = numbered.read_span(&(at, 1).into(), 2, 2).unwrap();
        assert_eq!(contents.line() + 1, 4);
        assert_eq!(
            std::str::from_utf8(contents.data()).unwrap(),
            "a = X (x)\nb = Y (a)\n"
        );
    }

    #[test]
    fn a_span_across_a_gap_is_refused() {
        let numbered = listing();
        let from = numbered.text().find('Y').unwrap();
        let to = numbered.text().find('Z').unwrap();
        assert!(numbered
            .read_span(&(from, to - from + 1).into(), 0, 0)
            .is_err());
    }
}
