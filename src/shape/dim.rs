//! `Dim`, one dimension of a shape: a known size, a symbolic expression, or unknown.
//!
//! Semantics: a symbol denotes one non-negative integer everywhere in a model (ONNX allows
//! 0-sized dims). `Dim::Unknown` is unrelated to every other dim, even another `Unknown`: its
//! derived `Eq` is structural (for maps and tests), while `eq_dim` answers `Tri::Unknown`.
//! Arithmetic never returns a wrong number: overflow, division by zero, an unknown operand or
//! an expression too big for the algebra give `Dim::Unknown`.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt::{self, Display, Formatter};

use super::{Binding, Expr, Tri};

/// One dimension of a tensor shape.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Dim {
    /// A static size.
    Known(i64),
    /// A symbolic size; never a constant (those are normalised to `Known`).
    Sym(Expr),
    /// A size nothing is known about.
    Unknown,
}

impl Dim {
    /// The static size `v`.
    pub fn known(v: i64) -> Dim {
        Dim::Known(v)
    }

    /// The symbol `name`, taken literally (see `parse_dim_param` for exporter strings).
    pub fn sym(name: &str) -> Dim {
        Dim::Sym(Expr::symbol(name))
    }

    /// Wraps an expression, turning a constant into `Known`.
    pub fn from_expr(e: Expr) -> Dim {
        match e.as_const() {
            Some(c) => Dim::Known(c),
            None => Dim::Sym(e),
        }
    }

    /// The dim as an expression; `None` for `Unknown`.
    pub fn to_expr(&self) -> Option<Expr> {
        match self {
            Dim::Known(v) => Some(Expr::constant(*v)),
            Dim::Sym(e) => Some(e.clone()),
            Dim::Unknown => None,
        }
    }

    fn lift(&self, other: &Dim, f: impl Fn(&Expr, &Expr) -> Option<Expr>) -> Dim {
        let (Some(a), Some(b)) = (self.to_expr(), other.to_expr()) else {
            return Dim::Unknown;
        };
        f(&a, &b).map_or(Dim::Unknown, Dim::from_expr)
    }

    /// `self + other`.
    #[must_use]
    #[allow(clippy::should_implement_trait, reason = "by-reference, total API")]
    pub fn add(&self, other: &Dim) -> Dim {
        // Static sizes skip the polynomial (the same result, without building two expressions):
        // a transformer's Reshape checks multiply thousands of them (issue 19).
        if let (Dim::Known(a), Dim::Known(b)) = (self, other) {
            return a.checked_add(*b).map_or(Dim::Unknown, Dim::Known);
        }
        self.lift(other, Expr::add)
    }

    /// `self - other`.
    #[must_use]
    #[allow(clippy::should_implement_trait, reason = "by-reference, total API")]
    pub fn sub(&self, other: &Dim) -> Dim {
        if let (Dim::Known(a), Dim::Known(b)) = (self, other) {
            // As `Expr::sub`: `a + (-b)`, where `-i64::MIN` overflows.
            return b
                .checked_neg()
                .and_then(|minus_b| a.checked_add(minus_b))
                .map_or(Dim::Unknown, Dim::Known);
        }
        self.lift(other, Expr::sub)
    }

    /// `self * other`.
    #[must_use]
    #[allow(clippy::should_implement_trait, reason = "by-reference, total API")]
    pub fn mul(&self, other: &Dim) -> Dim {
        if let (Dim::Known(a), Dim::Known(b)) = (self, other) {
            return a.checked_mul(*b).map_or(Dim::Unknown, Dim::Known);
        }
        self.lift(other, Expr::mul)
    }

    /// `-self`.
    #[must_use]
    #[allow(clippy::should_implement_trait, reason = "by-reference, total API")]
    pub fn neg(&self) -> Dim {
        self.to_expr()
            .and_then(|e| e.neg())
            .map_or(Dim::Unknown, Dim::from_expr)
    }

    /// `self / other` when it divides exactly as polynomials (Reshape's `-1`), else `Unknown`.
    #[must_use]
    pub fn div_exact(&self, other: &Dim) -> Dim {
        self.lift(other, Expr::div_exact_by)
    }

    /// Floor division (ONNX / Python `//`); a symbolic divisor or zero gives `Unknown`.
    #[must_use]
    pub fn floor_div(&self, other: &Dim) -> Dim {
        match other {
            Dim::Known(k) => self.lift(other, |a, _| a.floor_div(*k)),
            _ => Dim::Unknown,
        }
    }

    /// Modulo with the divisor's sign (ONNX `Mod` with `fmod=0`, Python `%`).
    #[must_use]
    pub fn modulo(&self, other: &Dim) -> Dim {
        match other {
            Dim::Known(k) => self.lift(other, |a, _| a.modulo(*k)),
            _ => Dim::Unknown,
        }
    }

    /// `min(self, other)`.
    #[must_use]
    pub fn min(&self, other: &Dim) -> Dim {
        self.lift(other, Expr::minimum)
    }

    /// `max(self, other)`.
    #[must_use]
    pub fn max(&self, other: &Dim) -> Dim {
        self.lift(other, Expr::maximum)
    }

    /// Whether the two dims are equal for every binding (`Yes`), for none (`No`), or it
    /// depends / cannot be told (`Unknown`). `Unknown` dims always give `Unknown`.
    pub fn eq_dim(&self, other: &Dim) -> Tri {
        match (self, other) {
            (Dim::Unknown, _) | (_, Dim::Unknown) => Tri::Unknown,
            (Dim::Known(a), Dim::Known(b)) => Tri::from_bool(a == b),
            // Canonical expressions: the same terms are the same size for every binding. The
            // subtraction below costs a fresh expression; a wide `Concat` of one symbolic input
            // compared each of its dims that way (issue 19 hunt: 100k inputs of rank 1000, 31 s).
            (Dim::Sym(a), Dim::Sym(b)) if a == b => Tri::Yes,
            _ => match self.sub(other) {
                Dim::Known(d) => Tri::from_bool(d == 0),
                Dim::Sym(d) if d.never_zero() => Tri::No,
                _ => Tri::Unknown,
            },
        }
    }

    /// Whether the dim is 1.
    pub fn is_one(&self) -> Tri {
        self.eq_dim(&Dim::Known(1))
    }

    /// Whether the dim is greater than 1.
    pub fn gt_one(&self) -> Tri {
        match self {
            Dim::Known(v) => Tri::from_bool(*v > 1),
            Dim::Sym(e) if e.lower_bound().is_some_and(|c| c > 1) => Tri::Yes,
            Dim::Sym(e) if e.upper_bound().is_some_and(|c| c <= 1) => Tri::No,
            _ => Tri::Unknown,
        }
    }

    /// Whether the dim is provably non-decreasing in every symbol it names (a known size is):
    /// `(n+1)/2` is, `20-n` is not. `Unknown` is not.
    pub fn is_monotone(&self) -> bool {
        match self {
            Dim::Known(_) => true,
            Dim::Sym(e) => e.is_monotone(),
            Dim::Unknown => false,
        }
    }

    /// Whether the dim is provably `>= 0` for every binding (symbols denote sizes, so are
    /// non-negative; `n - 1` is not provably so). `Unknown` is not.
    pub fn is_non_negative(&self) -> bool {
        match self {
            Dim::Known(v) => *v >= 0,
            Dim::Sym(e) => e.lower_bound().is_some_and(|low| low >= 0),
            Dim::Unknown => false,
        }
    }

    /// The static size, if known.
    pub fn as_known(&self) -> Option<i64> {
        match self {
            Dim::Known(v) => Some(*v),
            _ => None,
        }
    }

    /// The value under `binding`; `None` for `Unknown` or an unbound symbol.
    pub fn eval(&self, binding: &Binding) -> Option<i64> {
        match self {
            Dim::Known(v) => Some(*v),
            Dim::Sym(e) => e.eval(binding),
            Dim::Unknown => None,
        }
    }

    /// The symbol names the dim uses.
    pub fn symbols(&self) -> BTreeSet<String> {
        match self {
            Dim::Sym(e) => e.symbols(),
            _ => BTreeSet::new(),
        }
    }

    /// A total order for deterministic sorting: known sizes, then expressions (canonical
    /// order), then unknown. `Dim` deliberately does not implement `Ord`: `Ord::min` would
    /// shadow `Dim::min` on by-value receivers and silently compare structurally.
    pub fn total_cmp(&self, other: &Dim) -> Ordering {
        match (self, other) {
            (Dim::Known(a), Dim::Known(b)) => a.cmp(b),
            (Dim::Sym(a), Dim::Sym(b)) => a.cmp(b),
            (Dim::Unknown, Dim::Unknown) => Ordering::Equal,
            (Dim::Known(_), _) | (Dim::Sym(_), Dim::Unknown) => Ordering::Less,
            _ => Ordering::Greater,
        }
    }

    /// Substitutes `binding`: bound symbols become numbers, others stay (a fully bound dim
    /// becomes `Known`); `Unknown` stays `Unknown`, and so does an overflowing result.
    #[must_use]
    pub fn substitute(&self, binding: &Binding) -> Dim {
        match self {
            Dim::Sym(e) => e.substitute(binding).map_or(Dim::Unknown, Dim::from_expr),
            _ => self.clone(),
        }
    }
}

impl From<i64> for Dim {
    fn from(v: i64) -> Dim {
        Dim::Known(v)
    }
}

impl Display for Dim {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(v) => write!(f, "{v}"),
            Dim::Sym(e) => write!(f, "{e}"),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Dim, Expr, Tri};

    /// The static fast paths of `add`, `sub` and `mul` give what the polynomial gives.
    #[test]
    fn static_arithmetic_agrees_with_expressions() {
        let edges = [
            0,
            1,
            -1,
            2,
            -2,
            3,
            7,
            i64::MAX,
            i64::MIN,
            i64::MAX - 1,
            i64::MIN + 1,
        ];
        let edges = edges
            .iter()
            .flat_map(|&a| edges.iter().map(move |&b| (a, b)));
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut random = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            i64::from_ne_bytes(rng.to_ne_bytes()) >> (rng % 64)
        };
        let random: Vec<(i64, i64)> = (0..2000).map(|_| (random(), random())).collect();
        for (a, b) in edges.chain(random) {
            let (x, y) = (Dim::Known(a), Dim::Known(b));
            assert_eq!(x.add(&y), x.lift(&y, Expr::add), "{a} + {b}");
            assert_eq!(x.sub(&y), x.lift(&y, Expr::sub), "{a} - {b}");
            assert_eq!(x.mul(&y), x.lift(&y, Expr::mul), "{a} * {b}");
        }
    }

    #[test]
    fn symbolic_constant_becomes_known() {
        let n = Dim::sym("n");
        assert_eq!(n.sub(&n), Dim::Known(0));
        assert_eq!(n.add(&Dim::known(2)).sub(&n), Dim::Known(2));
    }

    #[test]
    fn overflow_and_division_by_zero_are_unknown() {
        assert_eq!(Dim::known(i64::MAX).add(&Dim::known(1)), Dim::Unknown);
        assert_eq!(Dim::known(4).floor_div(&Dim::known(0)), Dim::Unknown);
        assert_eq!(Dim::known(4).modulo(&Dim::known(0)), Dim::Unknown);
        assert_eq!(Dim::known(i64::MIN).neg(), Dim::Unknown);
        assert_eq!(Dim::Unknown.add(&Dim::known(1)), Dim::Unknown);
    }

    #[test]
    fn floor_semantics_for_negatives() {
        assert_eq!(Dim::known(-7).floor_div(&Dim::known(2)), Dim::Known(-4));
        assert_eq!(Dim::known(-7).modulo(&Dim::known(3)), Dim::Known(2));
        assert_eq!(Dim::known(7).modulo(&Dim::known(-3)), Dim::Known(-2));
    }

    #[test]
    fn questions() {
        let n = Dim::sym("n");
        assert_eq!(Dim::Unknown.eq_dim(&Dim::Unknown), Tri::Unknown);
        assert_eq!(n.eq_dim(&n.add(&Dim::known(1))), Tri::No);
        assert_eq!(n.eq_dim(&n), Tri::Yes);
        assert_eq!(n.is_one(), Tri::Unknown);
        assert_eq!(n.add(&Dim::known(2)).gt_one(), Tri::Yes);
        assert_eq!(n.add(&Dim::known(1)).is_one(), Tri::Unknown);
        assert_eq!(Dim::known(3).gt_one(), Tri::Yes);
        assert_eq!(Dim::from(1).gt_one(), Tri::No);
    }

    #[test]
    fn display() {
        assert_eq!(Dim::Unknown.to_string(), "?");
        assert_eq!(Dim::known(768).to_string(), "768");
        assert_eq!(Dim::sym("seq").add(&Dim::known(1)).to_string(), "seq+1");
    }
}
