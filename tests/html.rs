//! Issue 35, item 1: `--format html`. A snapshot of one fixture's page; every finding of every
//! fixture gets a drawing that names its node, whose SVG is well-formed XML; a model whose names
//! are markup is shown, never run; the page needs nothing from the network; the same input
//! gives the same bytes. The browser half (that the page renders and its script runs) is
//! `tests/html/run.sh`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::Path;

use onnx_bcast_lint::proto::ModelProto;
use onnx_bcast_lint::report::{html, FileReport};
use onnx_bcast_lint::{lint_model, lint_path, Options};
use prost::Message;

fn report_of(name: &str) -> FileReport {
    // A relative path keeps machine paths out of the snapshot.
    let relative = format!("tests/models/{name}");
    FileReport {
        outcome: lint_path(Path::new(&relative), &Options::new()),
        path: relative,
    }
}

/// The `<svg>...</svg>` elements of a page.
fn drawings(page: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find("<svg ") {
        let end = rest[start..].find("</svg>").expect("every <svg> is closed") + start + 6;
        found.push(&rest[start..end]);
        rest = &rest[end..];
    }
    found
}

#[test]
fn page_of_a_fixture_with_chains() {
    let page = html::render(&[report_of("w1_conv_frames.onnx")]);
    insta::assert_snapshot!("html_w1_conv_frames", page);
}

#[test]
fn every_finding_of_every_fixture_is_drawn_with_its_node() {
    let mut drawn = 0;
    for entry in std::fs::read_dir("tests/models").unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if Path::new(&name).extension().is_none_or(|e| e != "onnx") || name.starts_with("load_") {
            continue;
        }
        let file = report_of(&name);
        let Ok(report) = &file.outcome else { continue };
        let page = html::render(std::slice::from_ref(&file));
        let svgs = drawings(&page);
        let with_node: Vec<_> = report
            .findings()
            .iter()
            .filter(|f| f.node.is_some())
            .collect();
        assert_eq!(svgs.len(), with_node.len(), "{name}");
        for (svg, finding) in svgs.iter().zip(&with_node) {
            let node = finding.node.as_ref().unwrap();
            // The finding's node is the one red box, named (escaped) in its data-name.
            let escaped = node
                .name
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            assert!(
                svg.contains(&format!(r#"<g class="box finding" data-name="{escaped}">"#)),
                "{name}: {svg}"
            );
            // One labelled edge per input at least.
            let edges = svg.matches(r#"<g class="edge"#).count();
            assert!(edges >= finding.inputs.len(), "{name}: {edges} edges");
            let mut reader = quick_xml::Reader::from_str(svg);
            loop {
                match reader.read_event() {
                    Ok(quick_xml::events::Event::Eof) => break,
                    Ok(_) => {}
                    Err(error) => panic!("{name}: the SVG is not well-formed: {error}\n{svg}"),
                }
            }
            drawn += 1;
        }
    }
    assert!(drawn >= 30, "only {drawn} drawings");
}

#[test]
fn an_offending_axis_is_marked_on_each_side() {
    let page = html::render(&[report_of("e1_static_mismatch.onnx")]);
    let svg = drawings(&page)[0];
    // Two inputs whose sizes clash: each edge label marks its own size.
    assert_eq!(svg.matches(r#"<tspan class="axis""#).count(), 2, "{svg}");
}

#[test]
fn names_that_are_markup_are_shown_never_run() {
    let bytes = std::fs::read("tests/models/e1_static_mismatch.onnx").unwrap();
    let mut model = ModelProto::decode(bytes.as_slice()).unwrap();
    let hostile = "<script>alert(1)</script>";
    let graph = model.graph.as_mut().unwrap();
    let mut rename = |name: &mut String| {
        *name = format!("{hostile}\"'&{name}");
    };
    for node in &mut graph.node {
        rename(node.name.get_or_insert_with(String::new));
        node.input.iter_mut().for_each(&mut rename);
        node.output.iter_mut().for_each(&mut rename);
    }
    for value in graph.input.iter_mut().chain(&mut graph.output) {
        rename(value.name.get_or_insert_with(String::new));
    }
    for tensor in &mut graph.initializer {
        rename(tensor.name.get_or_insert_with(String::new));
    }
    let outcome = lint_model(model, &Options::new());
    assert!(
        outcome.as_ref().unwrap().findings()[0]
            .node
            .as_ref()
            .unwrap()
            .name
            .contains(hostile),
        "the rename reached the finding"
    );
    let page = html::render(&[FileReport {
        path: format!("{hostile}.onnx"),
        outcome,
    }]);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"));
    // The page's own script, and nothing else that runs.
    assert_eq!(page.matches("<script").count(), 1);
}

#[test]
fn the_page_needs_nothing_from_the_network() {
    let page = html::render(&[
        report_of("w1_conv_frames.onnx"),
        report_of("e4_matmul_k.onnx"),
        report_of("i1_custom_op.onnx"),
    ]);
    for outside in ["src=", "href=", "url(", "@import", "<link", "<img"] {
        assert!(!page.contains(outside), "{outside}");
    }
    // The one URL is the SVG namespace, a name that is never fetched.
    let urls: Vec<_> = page
        .match_indices("http")
        .map(|(i, _)| &page[i..i + 26])
        .collect();
    assert!(
        urls.iter()
            .all(|u| u.starts_with("http://www.w3.org/2000/svg")),
        "{urls:?}"
    );
}

#[test]
fn the_command_writes_the_page_and_the_same_bytes_twice() {
    let args = [
        "--format",
        "html",
        "tests/models/e1_reshape_upstream.onnx",
        "tests/models/ok_subgraphs.onnx",
        "tests/models/load_truncated.onnx",
    ];
    let first = common::run(&args);
    let second = common::run(&args);
    assert_eq!(first.status.code(), Some(2));
    assert_eq!(first.stdout, second.stdout);
    let page = common::stdout(&first);
    assert!(page.starts_with("<!DOCTYPE html>\n"));
    assert!(page.ends_with("</html>\n"));
    assert!(
        page.contains("1 clean file"),
        "ok_subgraphs is listed as clean"
    );
    assert!(
        page.contains("load/"),
        "the unreadable file's code is shown"
    );
    assert_eq!(drawings(&page).len(), 1);
}
