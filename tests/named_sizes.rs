//! Sizes taken from values the engine cannot compute (a `TopK` `k` given as an input, a
//! `Resize` size computed in float) are named once, and every reader of the value shares the
//! name: later broadcasts between them are proven, and those against other sizes become
//! conditions on the name (issue 18: detection heads keep carrying the symbol).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;

use onnx_bcast_lint::proto::{Message, ModelProto};
use onnx_bcast_lint::{lint_model, lint_path, Code, Dim, Options, Shape};

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/ok_named_sizes.onnx")
}

fn dims(shape: &Shape) -> Vec<Dim> {
    shape.dims().expect("ranked").to_vec()
}

fn is_symbol(dim: &Dim) -> bool {
    matches!(dim, Dim::Sym(_))
}

#[test]
fn one_k_feeding_two_top_k_nodes_is_one_size() {
    let report = lint_path(&fixture(), &Options::new()).unwrap();
    assert!(report.findings().is_empty(), "{:?}", report.findings());
    let a = dims(report.shape("top_a").unwrap());
    let b = dims(report.shape("index_b").unwrap());
    assert!(is_symbol(&a[1]), "top_a is {a:?}");
    assert_eq!(a[1], b[1], "both TopK nodes read the same k");
    assert_eq!(dims(report.shape("top_sum").unwrap())[1], a[1]);
}

#[test]
fn a_resize_size_computed_in_float_is_named_for_every_reader() {
    let report = lint_path(&fixture(), &Options::new()).unwrap();
    let image = dims(report.shape("small").unwrap());
    let mask = dims(report.shape("small_mask").unwrap());
    assert_eq!(image[..2], [Dim::known(1), Dim::known(3)]);
    assert!(is_symbol(&image[2]) && is_symbol(&image[3]), "{image:?}");
    assert_ne!(image[2], image[3], "height and width are two sizes");
    assert_eq!(image, mask, "one sizes value resizes both");
    // The value itself now carries the names, so a reader of `sizes` sees them too.
    assert_eq!(dims(report.shape("masked").unwrap()), image);
}

#[test]
fn a_named_size_against_another_size_is_a_condition_on_it() {
    // Add the top-k scores [n, k] to the scores themselves [n, 100]: valid only if k is 1 or 100.
    let bytes = std::fs::read(fixture()).unwrap();
    let mut model = ModelProto::decode(bytes.as_slice()).unwrap();
    let graph = model.graph.as_mut().unwrap();
    let add = graph
        .node
        .iter_mut()
        .find(|n| n.name.as_deref() == Some("/head/add"))
        .unwrap();
    add.input[1] = "scores".into();
    let report = lint_model(model, &Options::new()).unwrap();
    let finding = report
        .findings()
        .iter()
        .find(|f| f.code == Code::W1)
        .unwrap_or_else(|| panic!("no W1 in {:?}", report.findings()));
    assert!(
        finding.message.contains("TopK") && finding.message.contains("100"),
        "{}",
        finding.message
    );
    assert!(!report.has_errors(), "{:?}", report.findings());
}
