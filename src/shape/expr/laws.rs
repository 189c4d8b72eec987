//! Property laws of the canonical algebra: building an expression and evaluating it agrees with
//! integer arithmetic on evaluated parts (floor semantics), `+`/`*` commute, `e - e == 0`.

#![allow(
    clippy::many_single_char_names,
    reason = "arithmetic reads best with the usual names: k divisor, q quotient, r remainder"
)]

use proptest::prelude::*;

use super::Expr;
use crate::shape::{Binding, Dim};

/// A tiny expression tree, built both canonically and as plain integers.
#[derive(Clone, Debug)]
enum Tree {
    Sym(usize),
    Const(i64),
    Add(Box<Tree>, Box<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    Div(Box<Tree>, i64),
    Mod(Box<Tree>, i64),
    Min(Box<Tree>, Box<Tree>),
    Max(Box<Tree>, Box<Tree>),
}

const NAMES: [&str; 3] = ["a", "b", "c"];

fn tree() -> impl Strategy<Value = Tree> {
    tree_with(-6..7i64, prop_oneof![-4..0i64, 1..5i64])
}

fn tree_with(
    consts: impl Strategy<Value = i64> + Clone + 'static,
    divisors: impl Strategy<Value = i64> + Clone + 'static,
) -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        (0..3usize).prop_map(Tree::Sym),
        consts.prop_map(Tree::Const)
    ];
    leaf.prop_recursive(4, 24, 2, move |inner| {
        let k = divisors.clone();
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Tree::Add(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Tree::Sub(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Tree::Mul(a.into(), b.into())),
            (inner.clone(), k.clone()).prop_map(|(a, k)| Tree::Div(a.into(), k)),
            (inner.clone(), k).prop_map(|(a, k)| Tree::Mod(a.into(), k)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Tree::Min(a.into(), b.into())),
            (inner.clone(), inner).prop_map(|(a, b)| Tree::Max(a.into(), b.into())),
        ]
    })
}

fn build(t: &Tree) -> Option<Expr> {
    Some(match t {
        Tree::Sym(i) => Expr::symbol(NAMES.get(*i)?),
        Tree::Const(c) => Expr::constant(*c),
        Tree::Add(a, b) => build(a)?.add(&build(b)?)?,
        Tree::Sub(a, b) => build(a)?.sub(&build(b)?)?,
        Tree::Mul(a, b) => build(a)?.mul(&build(b)?)?,
        Tree::Div(a, k) => build(a)?.floor_div(*k)?,
        Tree::Mod(a, k) => build(a)?.modulo(*k)?,
        Tree::Min(a, b) => build(a)?.minimum(&build(b)?)?,
        Tree::Max(a, b) => build(a)?.maximum(&build(b)?)?,
    })
}

fn direct(t: &Tree, v: &[i64; 3]) -> Option<i64> {
    Some(match t {
        Tree::Sym(i) => *v.get(*i)?,
        Tree::Const(c) => *c,
        Tree::Add(a, b) => direct(a, v)?.checked_add(direct(b, v)?)?,
        Tree::Sub(a, b) => direct(a, v)?.checked_sub(direct(b, v)?)?,
        Tree::Mul(a, b) => direct(a, v)?.checked_mul(direct(b, v)?)?,
        // Python floor semantics, written out independently of div_euclid.
        Tree::Div(a, k) => {
            let x = direct(a, v)?;
            let q = x.checked_div(*k)?;
            if (x.checked_rem(*k)? != 0) && ((x < 0) != (*k < 0)) {
                q - 1
            } else {
                q
            }
        }
        Tree::Mod(a, k) => {
            let x = direct(a, v)?;
            let r = x.checked_rem(*k)?;
            if r != 0 && ((r < 0) != (*k < 0)) {
                r.checked_add(*k)?
            } else {
                r
            }
        }
        Tree::Min(a, b) => direct(a, v)?.min(direct(b, v)?),
        Tree::Max(a, b) => direct(a, v)?.max(direct(b, v)?),
    })
}

fn binding(v: &[i64; 3]) -> Binding {
    NAMES
        .iter()
        .zip(v)
        .map(|(n, x)| ((*n).to_string(), *x))
        .collect()
}

proptest! {
    #[test]
    fn eval_of_built_equals_arithmetic(t in tree(), v in prop::array::uniform3(0..9i64)) {
        if let (Some(e), Some(want)) = (build(&t), direct(&t, &v)) {
            prop_assert_eq!(e.eval(&binding(&v)), Some(want), "expr {}", e);
        }
    }

    #[test]
    fn add_and_mul_commute(a in tree(), b in tree()) {
        if let (Some(x), Some(y)) = (build(&a), build(&b)) {
            prop_assert_eq!(x.add(&y), y.add(&x));
            prop_assert_eq!(x.mul(&y), y.mul(&x));
        }
    }

    /// The display grammar is the output contract: reading it back (with `/` as Python's `//`)
    /// gives the same canonical expression, so precedence and parentheses are right.
    #[test]
    fn display_reads_back(t in tree()) {
        // Negative constants are no sizes: as a dim_param they read as unknown (`-1` = dynamic).
        if let Some(e) = build(&t).filter(|e| e.as_const().is_none_or(|c| c >= 0)) {
            let text = e.to_string().replace('/', "//");
            prop_assert_eq!(Dim::parse_dim_param(&text), Dim::from_expr(e), "{}", text);
        }
    }

    /// Extreme constants and divisors (any `i64`, including 0 and `i64::MIN`) never panic,
    /// and whatever is built never evaluates to a wrong number.
    #[test]
    fn extreme_constants_never_panic(
        t in tree_with(any::<i64>(), any::<i64>()),
        v in prop::array::uniform3(0..9i64),
    ) {
        if let Some(e) = build(&t) {
            let _ = (e.to_string(), e.never_zero(), e.neg(), e.floor_div(i64::MIN));
            // The canonical form may overflow where the direct computation does not (giving
            // `None`, i.e. unknown), but it never gives a wrong number.
            if let (Some(want), Some(got)) = (direct(&t, &v), e.eval(&binding(&v))) {
                prop_assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn e_minus_e_is_zero(a in tree()) {
        if let Some(x) = build(&a) {
            prop_assert_eq!(x.sub(&x), Some(Expr::constant(0)));
        }
    }

    #[test]
    fn constant_results_are_folded(a in tree(), v in prop::array::uniform3(0..9i64)) {
        // Substituting constants for symbols and rebuilding gives a constant expression.
        fn subst(t: &Tree, v: &[i64; 3]) -> Tree {
            let s = |x: &Tree| Box::new(subst(x, v));
            match t {
                Tree::Sym(i) => Tree::Const(v.get(*i).copied().unwrap_or(0)),
                Tree::Const(c) => Tree::Const(*c),
                Tree::Add(a, b) => Tree::Add(s(a), s(b)),
                Tree::Sub(a, b) => Tree::Sub(s(a), s(b)),
                Tree::Mul(a, b) => Tree::Mul(s(a), s(b)),
                Tree::Div(a, k) => Tree::Div(s(a), *k),
                Tree::Mod(a, k) => Tree::Mod(s(a), *k),
                Tree::Min(a, b) => Tree::Min(s(a), s(b)),
                Tree::Max(a, b) => Tree::Max(s(a), s(b)),
            }
        }
        if let (Some(e), Some(want)) = (build(&subst(&a, &v)), direct(&a, &v)) {
            prop_assert_eq!(e.as_const(), Some(want));
        }
    }
}
