//! Declared sizes are assumptions, not facts (issue 38, item 4): a size a `value_info` or graph
//! output declares fills a dim inference cannot compute, a finding that hangs on one names the
//! declaration (help and JSON), and a declaration that contradicts what inference found is
//! never taken (a W2 one, a loop body's one that an iteration changes). Also the Slice bounds
//! of a sign that depends on the sizes (item 3), against onnxruntime's shapes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::path::{Path, PathBuf};

use onnx_bcast_lint::{lint_path, Code, Dim, Options, Shape};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
}

fn shape(name: &str, options: &Options, value: &str) -> Shape {
    lint_path(&fixture(name), options)
        .unwrap()
        .shape(value)
        .unwrap()
        .clone()
}

#[test]
fn a_finding_on_a_declared_size_names_the_declaration() {
    let report = lint_path(&fixture("e1_declared_size.onnx"), &Options::new()).unwrap();
    let e1: Vec<_> = report
        .findings()
        .iter()
        .filter(|f| f.code == Code::E1)
        .collect();
    assert_eq!(e1.len(), 1, "{:?}", report.findings());
    let finding = e1[0];
    assert_eq!(finding.node.as_ref().unwrap().name, "add_s");
    let help = finding.help.as_deref().unwrap();
    assert!(
        help.contains("assuming the sizes declared for `s`"),
        "{help}"
    );
    let s = finding.inputs.iter().find(|i| i.name == "s").unwrap();
    assert_eq!(s.declared.len(), 1, "{:?}", s.declared);
    let declared = &s.declared[0];
    assert_eq!((declared.axis, &declared.dim), (1, &Dim::known(6)));
    assert_eq!((declared.name.as_str(), declared.declared_axis), ("s", 1));
    // The 6 is the declaration's, not the Slice's: no chain through the Slice to `x`'s 8.
    assert!(s.provenance.is_empty(), "{:?}", s.provenance);
    // The initializer's 5 is a fact: nothing declared on that side.
    let b = finding.inputs.iter().find(|i| i.name == "b").unwrap();
    assert!(b.declared.is_empty());
}

#[test]
fn the_declaration_is_in_the_json_and_only_where_a_size_hangs_on_one() {
    let out = common::run(&[
        "--format",
        "json",
        fixture("e1_declared_size.onnx").to_str().unwrap(),
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diagnostics = doc["files"][0]["diagnostics"].as_array().unwrap();
    let e1 = diagnostics.iter().find(|d| d["code"] == "E1").unwrap();
    let s = &e1["inputs"][0];
    assert_eq!(s["name"], "s");
    assert_eq!(
        s["declared"],
        serde_json::json!([{"axis": 1, "dim": 6,
            "declaration": {"graph": "main", "name": "s", "axis": 1, "dim": 6}}])
    );
    assert!(e1["inputs"][1].get("declared").is_none());
    let w2 = diagnostics.iter().find(|d| d["code"] == "W2").unwrap();
    assert!(w2["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i.get("declared").is_none()));
}

#[test]
fn a_contradicted_declaration_gives_no_size() {
    // `t` is inferred [3, ?] and declared [4, 6]: the 4 is wrong (W2), so the 6 is not taken
    // either, and `Add(t, b [5])` is left to the run-time check.
    let report = lint_path(&fixture("e1_declared_size.onnx"), &Options::new()).unwrap();
    assert_eq!(
        report.shape("t").unwrap(),
        &Shape::Ranked(vec![Dim::known(3), Dim::Unknown])
    );
    let at_add_t = report
        .findings()
        .iter()
        .filter(|f| f.node.as_ref().is_some_and(|n| n.name == "add_t"))
        .count();
    assert_eq!(at_add_t, 0, "{:?}", report.findings());
    let w2 = report
        .findings()
        .iter()
        .find(|f| f.code == Code::W2)
        .unwrap();
    assert!(w2.message.contains("inferred [3, ?]"), "{}", w2.message);
    // An agreeing declaration is taken: `s` is [3, 6].
    assert_eq!(report.shape("s").unwrap(), &Shape::from_known(&[3, 6]));
}

#[test]
fn a_loop_body_declaration_an_iteration_changes_is_not_taken() {
    // The body declares its carried value [3] in and [4] out; it grows by one per iteration,
    // so after the loop it is [3 + trips]: onnxruntime gives [4] after one and [5] after two.
    let x_final = shape("ok_loop_declared_body.onnx", &Options::new(), "x_final");
    assert_eq!(x_final, Shape::Ranked(vec![Dim::Unknown]));
    let report = lint_path(&fixture("ok_loop_declared_body.onnx"), &Options::new()).unwrap();
    assert!(report.findings().is_empty(), "{:?}", report.findings());
    // Inside the body, the carried value is not the declared [3] either.
    let x_in = report.shape_in("main/loop/body", "x_in").unwrap();
    assert_eq!(x_in, &Shape::Ranked(vec![Dim::Unknown]));
}

/// onnxruntime's lengths of `inner`, `tail` and `head` at `(n, m)` (`tests/models/README.md`).
const ONNXRUNTIME: [((i64, i64), [i64; 3]); 4] = [
    ((1, 1), [0, 1, 0]),
    ((5, 7), [1, 1, 4]),
    ((0, 2), [0, 0, 0]),
    ((2, 10), [1, 0, 2]),
];

#[test]
fn slice_bounds_of_either_sign_agree_with_onnxruntime() {
    let name = "ok_slice_computed_bounds.onnx";
    // Symbolic: `x[n-2:n-1]` is exact for every n; the bounds from `m` may count from either
    // end of `x`, so those lengths stay unknown.
    let inner = shape(name, &Options::new(), "inner");
    let [Dim::Sym(inner)] = inner.dims().unwrap() else {
        panic!("inner is {inner}");
    };
    for ((n, m), lengths) in ONNXRUNTIME {
        let binding = [("n".to_owned(), n)].into_iter().collect();
        assert_eq!(inner.eval(&binding), Some(lengths[0]), "inner at n = {n}");
        // Bound to sizes, every length is static, and onnxruntime's.
        let options = Options::new().with_dim("n", n).with_dim("m", m);
        for (value, want) in ["inner", "tail", "head"].into_iter().zip(lengths) {
            assert_eq!(
                shape(name, &options, value),
                Shape::from_known(&[want]),
                "{value} at (n, m) = ({n}, {m})"
            );
        }
    }
    for value in ["tail", "head"] {
        assert_eq!(
            shape(name, &Options::new(), value),
            Shape::Ranked(vec![Dim::Unknown]),
            "{value}"
        );
    }
}

#[test]
fn sarif_and_html_name_the_declaration_too() {
    let model = fixture("e1_declared_size.onnx");
    let out = common::run(&["--format", "sarif", model.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let e1 = results.iter().find(|r| r["ruleId"] == "E1").unwrap();
    // The property bag carries the JSON's list, keyed by input; `b` rests on no declaration.
    assert_eq!(
        e1["properties"]["declared"],
        serde_json::json!({"s": [{"axis": 1, "dim": 6,
            "declaration": {"graph": "main", "name": "s", "axis": 1, "dim": 6}}]})
    );
    let related = e1["relatedLocations"].as_array().unwrap();
    let declaration = related
        .iter()
        .find(|r| r["logicalLocations"][0]["fullyQualifiedName"] == "main/s")
        .unwrap();
    let text = declaration["message"]["text"].as_str().unwrap();
    assert!(
        text.contains("assumes the size 6 declared for `s` (axis 1"),
        "{text}"
    );
    // Ids stay the positions of the list (SARIF 3.27.22's relatedLocations ids are unique).
    for (i, location) in related.iter().enumerate() {
        assert_eq!(location["id"], i, "{related:?}");
    }
    // A finding on no declared size has no such key.
    let w2 = results.iter().find(|r| r["ruleId"] == "W2").unwrap();
    assert!(w2["properties"].get("declared").is_none());

    let page = common::run(&["--format", "html", model.to_str().unwrap()]);
    let html = String::from_utf8(page.stdout).unwrap();
    assert!(
        html.contains("assumes the size 6 declared for `s` (axis 1"),
        "the HTML report's provenance notes name the declaration"
    );
}
