//! Property laws of the directional rules (unidirectional, legacy, pdpd): on random symbolic
//! shapes, under every binding of a small grid, the verdict agrees with a brute-force
//! reference written from the spec text (ONNX Broadcasting.md, the opset-6 `Add` doc,
//! `OpenVINO` pdpd rules) applied to the substituted static shapes. Also: replacing dims by
//! `?` never creates a violation (unknown is checked at run time).

use proptest::prelude::*;

use super::{legacy, multidirectional, pdpd, unidirectional, Outcome, Verdict};
use crate::shape::{Binding, Dim, Shape};

fn i(x: usize) -> i64 {
    i64::try_from(x).unwrap()
}

fn u(x: i64) -> usize {
    usize::try_from(x).unwrap()
}

fn uni_ref(a: &[i64], b: &[i64]) -> bool {
    b.len() <= a.len()
        && b.iter()
            .zip(&a[a.len() - b.len()..])
            .all(|(x, y)| *x == 1 || x == y)
}

fn legacy_ref(a: &[i64], b: &[i64], broadcast: bool, axis: Option<i64>) -> bool {
    if !broadcast {
        return a == b;
    }
    if b.len() > a.len() {
        return false;
    }
    if b.iter().all(|d| *d == 1) {
        return true;
    }
    let start = match axis {
        None => i(a.len() - b.len()),
        Some(k) if k < 0 => k + i(a.len()),
        Some(k) => k,
    };
    if start < 0 || u(start) + b.len() > a.len() {
        return false;
    }
    let s = u(start);
    b.iter().zip(&a[s..s + b.len()]).all(|(x, y)| x == y)
}

fn pdpd_ref(a: &[i64], b: &[i64], axis: i64) -> bool {
    if b.len() > a.len() || axis < -1 || axis > i(a.len()) {
        return false;
    }
    let start = if axis == -1 {
        a.len() - b.len()
    } else {
        u(axis)
    };
    let mut trimmed = b.to_vec();
    while trimmed.last() == Some(&1) {
        trimmed.pop();
    }
    start + trimmed.len() <= a.len()
        && trimmed
            .iter()
            .zip(&a[start..])
            .all(|(x, y)| *x == 1 || x == y)
}

impl Outcome {
    fn to_string_for_test(&self) -> String {
        format!("{} {}", self.shape, self.verdict)
    }
}

fn sym_dim() -> impl Strategy<Value = Dim> {
    prop_oneof![
        4 => (1..=4i64).prop_map(Dim::Known),
        1 => Just(Dim::sym("a")),
        1 => Just(Dim::sym("b")),
        1 => Just(Dim::sym("a").add(&Dim::known(1))),
        1 => Just(Dim::sym("a").mul(&Dim::sym("b"))),
    ]
}

fn sym_shape(max: usize) -> impl Strategy<Value = Shape> {
    prop::collection::vec(sym_dim(), 0..=max).prop_map(Shape::Ranked)
}

/// Checks `got` against `reference` on every binding of `a`, `b` in {0, 1, 2, 3, 5}.
fn agrees(
    shapes: &[&Shape],
    got: &Outcome,
    reference: impl Fn(&[Vec<i64>]) -> bool,
) -> Result<(), TestCaseError> {
    let values = [0, 1, 2, 3, 5];
    for x in values {
        for y in values {
            let binding: Binding = [("a".to_string(), x), ("b".to_string(), y)].into();
            let concrete: Vec<Vec<i64>> = shapes
                .iter()
                .map(|s| s.substitute(&binding).as_known().unwrap())
                .collect();
            let ok = reference(&concrete);
            match &got.verdict {
                Verdict::Valid => prop_assert!(ok, "valid but {concrete:?} fails"),
                Verdict::Invalid(v) => prop_assert!(!ok, "{v} but {concrete:?} works"),
                Verdict::Conditional(c) => {
                    prop_assert_eq!(c.eval(&binding).is_yes(), ok, "{} on {:?}", c, concrete);
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn unidirectional_agrees(a in sym_shape(5), b in sym_shape(5)) {
        let got = unidirectional(&a, &b);
        prop_assert_eq!(&got.shape, &a);
        agrees(&[&a, &b], &got, |s| uni_ref(&s[0], &s[1]))?;
    }

    #[test]
    fn legacy_agrees(
        a in sym_shape(5),
        b in sym_shape(4),
        broadcast in prop::bool::ANY,
        axis in prop::option::of(-3..6i64),
    ) {
        let got = legacy(&a, &b, broadcast, axis);
        agrees(&[&a, &b], &got, |s| legacy_ref(&s[0], &s[1], broadcast, axis))?;
    }

    #[test]
    fn pdpd_agrees(a in sym_shape(5), b in sym_shape(4), axis in -2..6i64) {
        let got = pdpd(&a, &b, axis);
        agrees(&[&a, &b], &got, |s| pdpd_ref(&s[0], &s[1], axis))?;
    }

    /// Hostile sizes (any `i64`, huge coefficients) must not overflow anywhere.
    #[test]
    fn extreme_values_never_panic(
        dims in prop::collection::vec(
            prop_oneof![
                any::<i64>().prop_map(Dim::Known),
                any::<i64>().prop_map(|k| Dim::sym("a").mul(&Dim::known(k))),
                any::<i64>().prop_map(|k| Dim::sym("b").add(&Dim::known(k))),
                any::<i64>().prop_map(|k| Dim::sym("a").floor_div(&Dim::known(k))),
                any::<i64>().prop_map(|k| Dim::sym("b").modulo(&Dim::known(k))),
            ],
            0..8,
        ),
        split in 0..8usize,
        axis in any::<i64>(),
    ) {
        let (x, y) = dims.split_at(split.min(dims.len()));
        let (x, y) = (Shape::Ranked(x.to_vec()), Shape::Ranked(y.to_vec()));
        let outcomes = [
            multidirectional(&[&x, &y]),
            unidirectional(&x, &y),
            legacy(&x, &y, true, Some(axis)),
            pdpd(&x, &y, axis),
        ];
        for o in outcomes {
            let _ = o.to_string_for_test();
            if let Some(c) = o.condition() {
                let _ = (c.satisfiable(), c.counterexample(), c.simplify(), c.forced_values());
            }
        }
        for d in &dims {
            let _ = (Dim::parse_dim_param(&d.to_string()), d.gt_one(), d.neg(), d.sub(&Dim::Unknown));
        }
    }

    #[test]
    fn forgetting_dims_never_creates_a_violation(
        shapes in prop::collection::vec(sym_shape(5), 1..4),
        mask in prop::collection::vec(prop::bool::ANY, 18),
    ) {
        let mut bits = mask.iter().cycle();
        let blurred: Vec<Shape> = shapes
            .iter()
            .map(|s| {
                let dims = s.dims().unwrap_or_default();
                Shape::Ranked(
                    dims.iter()
                        .map(|d| if *bits.next().unwrap() { Dim::Unknown } else { d.clone() })
                        .collect(),
                )
            })
            .collect();
        let sharp: Vec<&Shape> = shapes.iter().collect();
        let vague: Vec<&Shape> = blurred.iter().collect();
        if multidirectional(&vague).is_invalid() {
            prop_assert!(multidirectional(&sharp).is_invalid());
        }
    }
}
