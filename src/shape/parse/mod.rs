//! `Dim::parse_dim_param`: reads ONNX `dim_param` strings as exporters write them. Plain names
//! (`batch`) become symbols; `PyTorch`'s symbolic expressions (`((samples//20)) - 1`, `2*s0`,
//! `s0 + 1`, `s0*s1`, `Min(s0, 5)`, `Mod(s0, 2)`, `floor(s0/2)`, `s0//2`, `s0**2`) are parsed
//! with Python precedence into canonical expressions. Tool-invented placeholders (`unk__<N>`
//! from onnxruntime / tf2onnx, `DynamicDimension.<N>` from `OpenVINO`, the empty string) are no
//! interface symbols: they give `Dim::Unknown`. Anything else, including a valid expression the
//! algebra cannot represent (a symbolic divisor), is an opaque symbol named by the whole string.

#![allow(
    clippy::many_single_char_names,
    reason = "arithmetic reads best with the usual names: k divisor, q quotient, r remainder"
)]

mod lex;

use super::Dim;
use lex::{tokenize, Tok};

/// Parsed value: an integer dim, or a true quotient that only `floor`/`ceiling` may consume.
#[derive(Clone, Debug)]
enum Val {
    Int(Dim),
    Ratio(Dim, Dim),
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
}

const MAX_DEPTH: usize = crate::limits::PARSE_DEPTH;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, op: &str) -> bool {
        let hit = matches!(self.peek(), Some(Tok::Op(o)) if *o == op);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn int(v: Val) -> Option<Dim> {
        match v {
            Val::Int(d) => Some(d),
            // A true quotient outside floor/ceiling is an integer only when exact.
            Val::Ratio(a, b) => match (a.as_known(), b.as_known()) {
                (Some(x), Some(y)) if x.checked_rem(y) == Some(0) => {
                    x.checked_div(y).map(Dim::Known)
                }
                _ => None,
            },
        }
    }

    fn sum(&mut self) -> Option<Val> {
        let mut acc = self.product()?;
        loop {
            if self.eat("+") {
                acc = Val::Int(Self::int(acc)?.add(&Self::int(self.product()?)?));
            } else if self.eat("-") {
                acc = Val::Int(Self::int(acc)?.sub(&Self::int(self.product()?)?));
            } else {
                return Some(acc);
            }
        }
    }

    fn product(&mut self) -> Option<Val> {
        let mut acc = self.unary()?;
        loop {
            if self.eat("*") {
                acc = Val::Int(Self::int(acc)?.mul(&Self::int(self.unary()?)?));
            } else if self.eat("//") {
                acc = Val::Int(Self::int(acc)?.floor_div(&Self::int(self.unary()?)?));
            } else if self.eat("/") {
                acc = Val::Ratio(Self::int(acc)?, Self::int(self.unary()?)?);
            } else if self.eat("%") {
                acc = Val::Int(Self::int(acc)?.modulo(&Self::int(self.unary()?)?));
            } else {
                return Some(acc);
            }
        }
    }

    fn unary(&mut self) -> Option<Val> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let v = if self.eat("-") {
            Val::Int(Self::int(self.unary()?)?.neg())
        } else if self.eat("+") {
            self.unary()?
        } else {
            self.power()?
        };
        self.depth -= 1;
        Some(v)
    }

    fn power(&mut self) -> Option<Val> {
        let base = self.primary()?;
        if !self.eat("**") {
            return Some(base);
        }
        let base = Self::int(base)?;
        let exp = Self::int(self.unary()?)?.as_known()?;
        let mut acc = Dim::Known(1);
        for _ in 0..u32::try_from(exp).ok().filter(|e| *e <= 16)? {
            acc = acc.mul(&base);
        }
        Some(Val::Int(acc))
    }

    fn primary(&mut self) -> Option<Val> {
        match self.peek()?.clone() {
            Tok::Num(v) => {
                self.pos += 1;
                Some(Val::Int(Dim::Known(v)))
            }
            Tok::Op("(") => {
                self.pos += 1;
                let v = self.sum()?;
                self.eat(")").then_some(v)
            }
            Tok::Name(name) => {
                self.pos += 1;
                if self.eat("(") {
                    let mut args = vec![self.sum()?];
                    while self.eat(",") {
                        args.push(self.sum()?);
                    }
                    if !self.eat(")") {
                        return None;
                    }
                    call(&name, &args).map(Val::Int)
                } else {
                    Some(Val::Int(Dim::sym(&name)))
                }
            }
            Tok::Op(_) => None,
        }
    }
}

fn call(name: &str, args: &[Val]) -> Option<Dim> {
    match (name, args) {
        ("floor" | "Floor", [Val::Ratio(a, b)]) => Some(a.floor_div(b)),
        ("ceiling" | "ceil" | "Ceiling" | "CeilDiv", [Val::Ratio(a, b)]) => {
            Some(a.neg().floor_div(b).neg())
        }
        ("floor" | "Floor" | "ceiling" | "ceil" | "Ceiling", [v]) => Parser::int(v.clone()),
        ("FloorDiv", [a, b]) => Some(Parser::int(a.clone())?.floor_div(&Parser::int(b.clone())?)),
        ("Mod", [a, b]) => Some(Parser::int(a.clone())?.modulo(&Parser::int(b.clone())?)),
        ("Min" | "min" | "Max" | "max", [first, rest @ ..]) if !rest.is_empty() => {
            let is_min = name.eq_ignore_ascii_case("min");
            rest.iter().try_fold(Parser::int(first.clone())?, |acc, v| {
                let d = Parser::int(v.clone())?;
                Some(if is_min {
                    Dim::min(&acc, &d)
                } else {
                    Dim::max(&acc, &d)
                })
            })
        }
        _ => None,
    }
}

/// Whether `s` is `prefix` followed by one or more ASCII digits.
fn is_placeholder(s: &str, prefix: &str) -> bool {
    s.strip_prefix(prefix)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

impl Dim {
    /// Reads a `dim_param` string; see the module documentation for what is recognised.
    pub fn parse_dim_param(s: &str) -> Dim {
        let t = s.trim();
        if t.is_empty()
            || t == "None"
            || is_placeholder(t, "unk__")
            || is_placeholder(t, "DynamicDimension.")
        {
            return Dim::Unknown;
        }
        let parsed = tokenize(t).and_then(|toks| {
            let mut p = Parser {
                toks,
                pos: 0,
                depth: 0,
            };
            let v = p.sum()?;
            (p.pos == p.toks.len()).then_some(v)
        });
        // Strings with no letter that are no expression (`?`, `*`) and negative numbers (`-1`)
        // are how several exporters (Paddle, TensorFlow) spell "unknown", like Python's `None`:
        // read as a shared symbol, two unrelated `?` dims would wrongly compare equal.
        let letterless = !t.bytes().any(|b| b.is_ascii_alphabetic());
        match parsed.and_then(Parser::int) {
            Some(Dim::Known(v)) if v < 0 => Dim::Unknown,
            Some(Dim::Unknown) | None if letterless => Dim::Unknown,
            Some(Dim::Unknown) | None => Dim::sym(s),
            Some(d) => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Dim;

    fn p(s: &str) -> String {
        Dim::parse_dim_param(s).to_string()
    }

    #[test]
    fn pytorch_expressions() {
        assert_eq!(p("batch"), "batch");
        assert_eq!(p("((samples//20)) - 1"), "samples/20-1");
        assert_eq!(p("2*s0"), "2*s0");
        assert_eq!(p("s0 + 1"), "s0+1");
        assert_eq!(p("s0*s1"), "s0*s1");
        assert_eq!(p("Min(s0, 5)"), "min(s0, 5)");
        assert_eq!(p("min(5, s0)"), "min(s0, 5)");
        assert_eq!(p("Mod(s0, 2)"), "s0%2");
        assert_eq!(p("floor(s0/2)"), "s0/2");
        assert_eq!(p("s0//2"), "s0/2");
        assert_eq!(p("s0**2"), "s0*s0");
        // ceil(s0/2) = s0 - floor(s0/2); canonical forms of floors are not unique across identities.
        assert_eq!(p("ceiling(s0/2)"), "s0-s0/2");
        assert_eq!(
            Dim::parse_dim_param("floor(s0/2)"),
            Dim::parse_dim_param("s0 // 2")
        );
    }

    proptest::proptest! {
        /// Hostile strings never panic; the result is unknown, known, or a symbol.
        #[test]
        fn any_string_parses(s in "[ a-z0-9_()+*/%,.-]{0,40}|unk__[0-9]{1,3}") {
            let d = Dim::parse_dim_param(&s);
            if s.starts_with("unk__") {
                proptest::prop_assert_eq!(d, Dim::Unknown);
            }
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}x{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(Dim::parse_dim_param(&deep), Dim::sym(&deep));
        let floors = format!("{}s0{}", "floor(".repeat(200), ")".repeat(200));
        assert_eq!(Dim::parse_dim_param(&floors), Dim::sym(&floors));
    }

    #[test]
    fn placeholders_are_unknown() {
        assert_eq!(Dim::parse_dim_param("unk__12"), Dim::Unknown);
        assert_eq!(Dim::parse_dim_param("DynamicDimension.3"), Dim::Unknown);
        assert_eq!(Dim::parse_dim_param(""), Dim::Unknown);
        assert_eq!(Dim::parse_dim_param("  "), Dim::Unknown);
        assert_eq!(Dim::parse_dim_param("?"), Dim::Unknown);
        assert_eq!(Dim::parse_dim_param("-1"), Dim::Unknown);
        assert_eq!(Dim::parse_dim_param("None"), Dim::Unknown);
        assert_eq!(p("unk__"), "unk__");
    }

    #[test]
    fn invalid_expressions_are_opaque_symbols() {
        assert_eq!(Dim::parse_dim_param("batch size"), Dim::sym("batch size"));
        assert_eq!(Dim::parse_dim_param("s0/2"), Dim::sym("s0/2"));
        assert_eq!(Dim::parse_dim_param("s0//s1"), Dim::sym("s0//s1"));
        assert_eq!(Dim::parse_dim_param("N/A"), Dim::sym("N/A"));
        assert_eq!(p("a.b"), "`a.b`");
        assert_eq!(Dim::parse_dim_param("8/2"), Dim::Known(4));
        assert_eq!(Dim::parse_dim_param("(((((x"), Dim::sym("(((((x"));
    }
}
