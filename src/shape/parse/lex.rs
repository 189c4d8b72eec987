//! Tokens of `dim_param` expressions: integers, names, and the Python operators `+ - * / //
//! % **`, parentheses and commas. Anything else makes the string an opaque symbol.

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Num(i64),
    Name(String),
    Op(&'static str),
}

pub(super) fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut end = i;
            while let Some(&(j, d)) = chars.peek() {
                if !d.is_ascii_digit() {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            out.push(Tok::Num(s.get(i..end)?.parse().ok()?));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut end = i;
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_ascii_alphanumeric() || d == '_') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            out.push(Tok::Name(s.get(i..end)?.to_string()));
        } else {
            chars.next();
            let two = chars.peek().map(|&(_, d)| d);
            let op = match (c, two) {
                ('/', Some('/')) => "//",
                ('*', Some('*')) => "**",
                ('+', _) => "+",
                ('-', _) => "-",
                ('*', _) => "*",
                ('/', _) => "/",
                ('%', _) => "%",
                ('(', _) => "(",
                (')', _) => ")",
                (',', _) => ",",
                _ => return None,
            };
            if op.len() == 2 {
                chars.next();
            }
            out.push(Tok::Op(op));
        }
    }
    Some(out)
}
