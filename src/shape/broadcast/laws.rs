//! Property laws of the broadcasting rules over random shapes (rank 0..6, sizes 1..5, symbolic
//! dims over `a`, `b`): input order is irrelevant, folding is associative (SONNX:
//! `Broadcast(X1..XN) = Broadcast(Broadcast(X1..XN-1), XN)`), a scalar changes nothing, the
//! rank is the largest rank, `Invalid` exactly when a brute-force numpy reference fails on
//! static shapes, and substituting values for the symbols agrees with that reference.

use proptest::prelude::*;

use super::{
    axis_verdicts, bidirectional, multidirectional, unidirectional, AxisVerdict, Outcome, Verdict,
};
use crate::shape::{Binding, Dim, Shape};

/// Numpy broadcasting of static shapes: `None` when some axis has two different sizes != 1.
fn reference(shapes: &[Vec<i64>]) -> Option<Vec<i64>> {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for axis in 0..rank {
        let mut size = 1;
        for s in shapes {
            if axis + s.len() < rank {
                continue;
            }
            let d = s[axis + s.len() - rank];
            if d != 1 {
                if size != 1 && size != d {
                    return None;
                }
                size = d;
            }
        }
        out.push(size);
    }
    Some(out)
}

fn static_shape() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(1..=5i64, 0..=6)
}

fn sym_dim() -> impl Strategy<Value = Dim> {
    let a = || Dim::sym("a");
    let b = || Dim::sym("b");
    prop_oneof![
        4 => (1..=5i64).prop_map(Dim::Known),
        1 => Just(a()),
        1 => Just(b()),
        1 => Just(a().add(&Dim::known(1))),
        1 => Just(b().mul(&Dim::known(2))),
        1 => Just(a().mul(&b())),
        1 => Just(a().floor_div(&Dim::known(2))),
        1 => Just(b().min(&Dim::known(3))),
        1 => Just(a().modulo(&Dim::known(2)).add(&Dim::known(1))),
    ]
}

fn sym_shape() -> impl Strategy<Value = Shape> {
    prop::collection::vec(sym_dim(), 0..=6).prop_map(Shape::Ranked)
}

fn to_shape(s: &[i64]) -> Shape {
    Shape::from_known(s)
}

/// Verdict class, for comparing outcomes whose conditions or offenders may be ordered
/// differently.
fn class(o: &Outcome) -> u8 {
    match o.verdict {
        Verdict::Valid => 0,
        Verdict::Conditional(_) => 1,
        Verdict::Invalid(_) => 2,
    }
}

fn bindings() -> Vec<Binding> {
    let values = [0, 1, 2, 3, 5];
    let mut out = Vec::new();
    for a in values {
        for b in values {
            out.push(
                [("a".to_string(), a), ("b".to_string(), b)]
                    .into_iter()
                    .collect(),
            );
        }
    }
    out
}

/// Checks an outcome on symbolic inputs against the reference on every grid binding.
fn agrees_with_reference(inputs: &[Shape], got: &Outcome) -> Result<(), TestCaseError> {
    for binding in bindings() {
        let concrete: Vec<Vec<i64>> = inputs
            .iter()
            .map(|s| s.substitute(&binding).as_known().unwrap())
            .collect();
        let want = reference(&concrete);
        match &got.verdict {
            Verdict::Valid => prop_assert!(want.is_some(), "valid but {concrete:?} fails"),
            Verdict::Invalid(v) => prop_assert!(want.is_none(), "{v} but {concrete:?} works"),
            Verdict::Conditional(c) => prop_assert_eq!(
                c.eval(&binding).is_yes(),
                want.is_some(),
                "condition {} at {:?} on {:?}",
                c,
                binding,
                concrete
            ),
        }
        if let (Some(want), Some(dims)) = (want, got.shape.dims()) {
            prop_assert_eq!(dims.len(), want.len());
            for (d, w) in dims.iter().zip(&want) {
                if let Some(v) = d.eval(&binding) {
                    prop_assert_eq!(v, *w, "dim {} at {:?}", d, binding);
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn invalid_exactly_when_reference_fails(shapes in prop::collection::vec(static_shape(), 1..4)) {
        let s: Vec<Shape> = shapes.iter().map(|v| to_shape(v)).collect();
        let refs: Vec<&Shape> = s.iter().collect();
        let got = multidirectional(&refs);
        let axes = axis_verdicts(&refs);
        prop_assert_eq!(Some(axes.len()), got.shape.rank());
        prop_assert_eq!(axes.contains(&AxisVerdict::Conflict), reference(&shapes).is_none());
        prop_assert!(!axes.contains(&AxisVerdict::Unproven));
        match reference(&shapes) {
            Some(want) => {
                prop_assert!(got.is_valid());
                prop_assert_eq!(got.shape, to_shape(&want));
            }
            None => prop_assert!(got.is_invalid()),
        }
    }

    #[test]
    fn order_is_irrelevant(shapes in prop::collection::vec(sym_shape(), 1..4)) {
        let forward: Vec<&Shape> = shapes.iter().collect();
        let backward: Vec<&Shape> = shapes.iter().rev().collect();
        let (f, b) = (multidirectional(&forward), multidirectional(&backward));
        prop_assert_eq!(&f.shape, &b.shape);
        prop_assert_eq!(class(&f), class(&b));
        if let (Some(cf), Some(cb)) = (f.condition(), b.condition()) {
            for binding in bindings() {
                prop_assert_eq!(cf.eval(&binding), cb.eval(&binding));
            }
        }
    }

    #[test]
    fn fold_is_associative_on_static_shapes(shapes in prop::collection::vec(static_shape(), 2..5)) {
        let s: Vec<Shape> = shapes.iter().map(|v| to_shape(v)).collect();
        let all: Vec<&Shape> = s.iter().collect();
        let (last, init) = all.split_last().unwrap();
        let head = multidirectional(init);
        let folded = multidirectional(&[&head.shape, last]);
        let direct = multidirectional(&all);
        prop_assert_eq!(direct.is_invalid(), head.is_invalid() || folded.is_invalid());
        if direct.is_valid() {
            prop_assert_eq!(direct.shape, folded.shape);
        }
    }

    #[test]
    fn fold_never_invents_a_violation(shapes in prop::collection::vec(sym_shape(), 2..4)) {
        let all: Vec<&Shape> = shapes.iter().collect();
        let (last, init) = all.split_last().unwrap();
        let head = multidirectional(init);
        let folded = multidirectional(&[&head.shape, last]);
        if head.is_invalid() || folded.is_invalid() {
            prop_assert!(multidirectional(&all).is_invalid());
        }
    }

    #[test]
    fn scalar_changes_nothing(x in sym_shape()) {
        let alone = multidirectional(&[&x]);
        prop_assert!(alone.is_valid());
        prop_assert_eq!(&alone.shape, &x);
        prop_assert_eq!(multidirectional(&[&x, &Shape::scalar()]), alone.clone());
        prop_assert_eq!(multidirectional(&[&Shape::scalar(), &x]), alone);
    }

    #[test]
    fn rank_is_max_rank(shapes in prop::collection::vec(sym_shape(), 1..4)) {
        let refs: Vec<&Shape> = shapes.iter().collect();
        let max = shapes.iter().filter_map(Shape::rank).max();
        prop_assert_eq!(multidirectional(&refs).shape.rank(), max);
    }

    #[test]
    fn symbolic_verdicts_agree_with_reference(shapes in prop::collection::vec(sym_shape(), 1..4)) {
        let refs: Vec<&Shape> = shapes.iter().collect();
        agrees_with_reference(&shapes, &multidirectional(&refs))?;
    }

    #[test]
    fn bidirectional_is_numpy_of_both(x in sym_shape(), t in sym_shape()) {
        let a = bidirectional(&x, &t);
        let b = multidirectional(&[&x, &t]);
        prop_assert_eq!(&a.shape, &b.shape);
        prop_assert_eq!(a.condition(), b.condition());
    }

    #[test]
    fn unidirectional_matches_reference(a in static_shape(), b in static_shape()) {
        let got = unidirectional(&to_shape(&a), &to_shape(&b));
        // B broadcasts to A iff numpy broadcasting of both gives A.
        let ok = b.len() <= a.len() && reference(&[a.clone(), b.clone()]) == Some(a.clone());
        prop_assert_eq!(got.is_valid(), ok);
        prop_assert_eq!(got.is_invalid(), !ok);
    }
}
