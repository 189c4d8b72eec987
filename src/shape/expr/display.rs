//! `Display` for `Expr`: the JSON output contract. Grammar: integers; names bare when they match
//! `[A-Za-z_][A-Za-z0-9_]*`, otherwise between backticks; binary `+ - * / %` without spaces and
//! with Python precedence, `/` meaning floor division; `min(a, b)`, `max(a, b)`; minimal
//! parentheses. Terms print highest degree first, then in canonical order, constant last; a
//! leading negative term is swapped with the first positive one so unary minus is rare
//! (`-n+5` remains when every variable term is negative). Powers print as repeated products.

use std::fmt::{self, Display, Formatter, Write};

use super::{Atom, Expr, Mono};

/// Whether `name` can print without backticks.
pub(crate) fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a factor prints as a `/` or `%` expression (left-associative at product level).
fn is_division(atom: &Atom) -> bool {
    matches!(atom, Atom::FloorDiv(..) | Atom::Mod(..))
}

fn write_atom(f: &mut impl Write, atom: &Atom) -> fmt::Result {
    match atom {
        Atom::Sym(name) if is_plain_name(name) => f.write_str(name),
        Atom::Sym(name) => write!(f, "`{name}`"),
        Atom::FloorDiv(e, k) => write_numerator(f, e).and_then(|()| write!(f, "/{k}")),
        Atom::Mod(e, k) => write_numerator(f, e).and_then(|()| write!(f, "%{k}")),
        Atom::Min(a, b) => write!(f, "min({a}, {b})"),
        Atom::Max(a, b) => write!(f, "max({a}, {b})"),
    }
}

/// A numerator needs parentheses only when it is a sum or starts with a unary minus.
fn write_numerator(f: &mut impl Write, e: &Expr) -> fmt::Result {
    let text = e.to_string();
    if e.terms().len() > 1 || text.starts_with('-') {
        write!(f, "({text})")
    } else {
        f.write_str(&text)
    }
}

/// Writes `|c| * m` (the sign is written by the caller).
fn write_term(f: &mut impl Write, m: &Mono, c: i64) -> fmt::Result {
    let abs = c.unsigned_abs();
    if m.0.is_empty() {
        return write!(f, "{abs}");
    }
    let mut first = true;
    if abs != 1 {
        write!(f, "{abs}")?;
        first = false;
    }
    for (atom, power) in &m.0 {
        for _ in 0..*power {
            if !first {
                f.write_char('*')?;
            }
            if is_division(atom) && !first {
                f.write_char('(')?;
                write_atom(f, atom)?;
                f.write_char(')')?;
            } else {
                write_atom(f, atom)?;
            }
            first = false;
        }
    }
    Ok(())
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut order = self.display_order();
        if order.first().is_some_and(|(_, c)| *c < 0) {
            if let Some(pos) = order.iter().position(|(m, c)| *c > 0 && !m.0.is_empty()) {
                let t = order.remove(pos);
                order.insert(0, t);
            }
        }
        let mut out = String::new();
        for (i, (m, c)) in order.iter().enumerate() {
            let mut term = String::new();
            write_term(&mut term, m, *c)?;
            if *c < 0 {
                out.push('-');
                // Unary minus binds tighter than `/` and `%` in Python: `-(n/2)`.
                let leads_with_division = m.0.first().is_some_and(|(a, _)| is_division(a));
                if i == 0 && c.unsigned_abs() == 1 && leads_with_division {
                    term = format!("({term})");
                }
            } else if i > 0 {
                out.push('+');
            }
            out.push_str(&term);
        }
        if out.is_empty() {
            out.push('0');
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::Expr;

    fn s(name: &str) -> Expr {
        Expr::symbol(name)
    }

    fn c(v: i64) -> Expr {
        Expr::constant(v)
    }

    #[test]
    fn contract_examples() {
        let seq = s("seq");
        let batch = s("batch");
        assert_eq!(batch.to_string(), "batch");
        assert_eq!(seq.add(&c(1)).unwrap().to_string(), "seq+1");
        assert_eq!(seq.sub(&c(1)).unwrap().to_string(), "seq-1");
        assert_eq!(batch.scale(2).unwrap().to_string(), "2*batch");
        assert_eq!(batch.mul(&s("heads")).unwrap().to_string(), "batch*heads");
        let half = seq.add(&c(1)).unwrap().floor_div(2).unwrap();
        assert_eq!(half.to_string(), "(seq+1)/2");
        assert_eq!(seq.modulo(2).unwrap().to_string(), "seq%2");
        assert_eq!(seq.minimum(&c(512)).unwrap().to_string(), "min(seq, 512)");
    }

    #[test]
    fn odd_names_use_backticks() {
        assert_eq!(s("my dim").to_string(), "`my dim`");
        assert_eq!(s("_x9").to_string(), "_x9");
    }

    #[test]
    fn precedence_is_python() {
        let n = s("n");
        let m = s("m");
        assert_eq!(
            n.floor_div(2).unwrap().scale(3).unwrap().to_string(),
            "3*(n/2)"
        );
        assert_eq!(n.floor_div(2).unwrap().neg().unwrap().to_string(), "-(n/2)");
        assert_eq!(c(5).sub(&n).unwrap().to_string(), "-n+5");
        assert_eq!(m.sub(&n).unwrap().to_string(), "m-n");
        assert_eq!(n.mul(&n).unwrap().to_string(), "n*n");
        assert_eq!(c(0).to_string(), "0");
    }
}
