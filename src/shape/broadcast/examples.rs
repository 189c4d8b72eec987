//! Worked examples of the specs in `shared/spec/`, as table tests: `OpenVINO` numpy, pdpd and
//! bidirectional examples (002), MLIR `Broadcastable` correct and incorrect uses (000), and the
//! examples of the ONNX opset-6 `Add` doc (legacy `broadcast`/`axis`).

use super::{bidirectional, legacy, multidirectional, pdpd};
use crate::shape::verify::{compare, compare_strict};
use crate::shape::{Dim, Shape};

/// `"2,3"` -> `[2, 3]`; `""` -> scalar; `"*"` -> unranked; `?` unknown; names are symbols.
fn sh(s: &str) -> Shape {
    match s {
        "" => Shape::scalar(),
        "*" => Shape::Unranked,
        _ => Shape::Ranked(
            s.split(',')
                .map(|d| match d.trim() {
                    "?" => Dim::Unknown,
                    t => Dim::parse_dim_param(t),
                })
                .collect(),
        ),
    }
}

/// Expected result: the output shape, or the axis and sizes of the violation.
enum Want {
    Shape(&'static str),
    Clash(&'static str),
}

fn check(name: &str, got: &super::Outcome, want: &Want) {
    match want {
        Want::Shape(s) => {
            assert!(got.is_valid(), "{name}: {:?}", got.verdict);
            assert_eq!(got.shape, sh(s), "{name}");
        }
        Want::Clash(msg) => {
            let v = got
                .violation()
                .unwrap_or_else(|| panic!("{name}: not invalid"));
            assert_eq!(v.to_string(), *msg, "{name}");
        }
    }
}

#[test]
fn openvino_numpy_examples() {
    let table = [
        ("", "", Want::Shape("")),
        ("2,3", "1", Want::Shape("2,3")),
        ("3", "2,3", Want::Shape("2,3")),
        ("2,3,5", "", Want::Shape("2,3,5")),
        ("2,1,5", "1,4,5", Want::Shape("2,4,5")),
        ("6,5", "2,1,5", Want::Shape("2,6,5")),
        ("2,1,5", "4,1", Want::Shape("2,4,5")),
        ("3,2,1,4", "5,4", Want::Shape("3,2,5,4")),
        ("1,5,3", "5,2,1,3", Want::Shape("5,2,5,3")),
        ("3", "2", Want::Clash("axis 0 is 3 vs 2")),
        // "mismatch on the leftmost axis"
        ("3,1,5", "4,4,5", Want::Clash("axis 0 is 3 vs 4")),
    ];
    for (a, b, want) in &table {
        let got = multidirectional(&[&sh(a), &sh(b)]);
        check(&format!("numpy {a} | {b}"), &got, want);
    }
}

#[test]
fn openvino_pdpd_examples() {
    let table = [
        ("3,4", 1, "2,3,4,5"),
        ("3,1", 1, "2,3,4,5"),
        ("4,5", -1, "2,3,4,5"),
        ("4,5", 2, "2,3,4,5"),
        ("1,3", 0, "2,3,4,5"),
        ("", -1, "2,3,4,5"),
        ("5", -1, "2,3,4,5"),
    ];
    for (b, axis, want) in &table {
        let got = pdpd(&sh("2,3,4,5"), &sh(b), *axis);
        check(&format!("pdpd {b} axis {axis}"), &got, &Want::Shape(want));
    }
}

#[test]
fn openvino_bidirectional_examples() {
    let table = [
        ("5", "1", "5"),
        ("2,3", "3", "2,3"),
        ("3,1", "3,4", "3,4"),
        ("3,4", "", "3,4"),
        ("3,1", "2,1,6", "2,3,6"),
    ];
    for (input, target, want) in &table {
        let got = bidirectional(&sh(input), &sh(target));
        check(
            &format!("bidir {input} -> {target}"),
            &got,
            &Want::Shape(want),
        );
    }
}

#[test]
fn mlir_correct_examples() {
    // (operands, result type)
    let table: [(&[&str], &str); 8] = [
        (&["1,2", "1,2"], "1,2"),
        (&["?", "?"], "?"),
        (&["1", "4"], "4"),
        (&["4"], "?"),
        (&["4", "2,3,4"], "2,3,4"),
        (&["2", "2"], "2"),
        (&["2"], "*"),
        (&["*", "*"], "2"),
    ];
    for (operands, result) in &table {
        let shapes: Vec<Shape> = operands.iter().map(|s| sh(s)).collect();
        let refs: Vec<&Shape> = shapes.iter().collect();
        let got = multidirectional(&refs);
        assert!(got.is_valid(), "{operands:?}: {:?}", got.verdict);
        assert_eq!(compare(&got.shape, &sh(result)), Ok(()), "{operands:?}");
        assert_eq!(
            compare_strict(&got.shape, &sh(result)),
            Ok(()),
            "{operands:?}"
        );
    }
}

#[test]
fn mlir_incorrect_examples() {
    let bad = multidirectional(&[&sh("3"), &sh("2")]);
    assert_eq!(
        bad.violation().map(ToString::to_string).as_deref(),
        Some("axis 0 is 3 vs 2")
    );

    let table: [(&str, &str, &str, &str); 4] = [
        ("3", "3", "1,3", "rank 1 inferred, 2 declared"),
        ("?", "?", "4", "axis 0 is ? inferred, 4 declared"),
        ("2", "2", "4", "axis 0 is 2 inferred, 4 declared"),
        ("1", "1", "4", "axis 0 is 1 inferred, 4 declared"),
    ];
    for (a, b, result, msg) in &table {
        let got = multidirectional(&[&sh(a), &sh(b)]);
        assert!(got.is_valid(), "{a} {b}");
        let err = compare_strict(&got.shape, &sh(result)).unwrap_err();
        assert_eq!(err.to_string(), *msg);
    }
    // The MLIR verification table says `? | static | OK` while its pseudo-code and this
    // example reject it; `compare` follows the table (no finding without static evidence).
    assert_eq!(compare(&sh("?"), &sh("4")), Ok(()));
}

#[test]
fn onnx_opset6_add_examples() {
    let a = sh("2,3,4,5");
    let table: [(&str, Option<i64>); 6] = [
        ("", None),
        ("1,1", None),
        ("5", None),
        ("4,5", None),
        ("3,4", Some(1)),
        ("2", Some(0)),
    ];
    for (b, axis) in &table {
        let got = legacy(&a, &sh(b), true, *axis);
        check(
            &format!("legacy {b} axis {axis:?}"),
            &got,
            &Want::Shape("2,3,4,5"),
        );
    }
    // "1-dim expansion doesn't work yet", and broadcast=1 must be passed.
    check(
        "no expansion",
        &legacy(&a, &sh("1,5"), true, None),
        &Want::Clash("axis 2 is 4 vs 1"),
    );
    check(
        "suffix",
        &legacy(&a, &sh("3,4"), true, None),
        &Want::Clash("axis 2 is 4 vs 3"),
    );
    assert!(legacy(&a, &sh("5"), false, None).is_invalid());
}
