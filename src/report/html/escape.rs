//! Escaping for the HTML report: every string a model provides (node and value names, op
//! types, symbols, attribute values, paths) goes through [`text`] before it reaches the page,
//! so a name such as `<script>alert(1)</script>` is shown, never run.

/// `value` as HTML text or a quoted attribute value: the five characters that can end a text
/// run, a tag or an attribute written as character references, and the C0 controls (which a
/// name can hold and HTML reads as parse errors) as U+FFFD, the character HTML itself puts in
/// their place.
pub(super) fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `value`, with `…` in place of the rest: a drawing's boxes stay
/// readable when a converter names nodes by their whole module path. The full text goes in
/// the element's `<title>`.
pub(super) fn shorten(value: &str, max: usize) -> String {
    if value.chars().count() <= max {
        return value.to_owned();
    }
    let mut out: String = value.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_controls_are_escaped() {
        assert_eq!(
            text("<script>alert('x')</script> & \"y\"\u{0}"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;\u{fffd}"
        );
    }

    #[test]
    fn long_names_are_cut_with_an_ellipsis() {
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abcd", 4), "abcd");
        assert_eq!(shorten("ééééé", 3), "éé…");
    }
}
