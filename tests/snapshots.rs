//! Snapshots of the human, JSON and SARIF output of every fixture. A snapshot change is reviewed like
//! code (`cargo insta review`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use onnx_bcast_lint::report::{human, json, sarif, FileReport};
use onnx_bcast_lint::{lint_path, Options};

fn report_of(path: &Path) -> FileReport {
    // Tests run in the package root: a relative path keeps machine paths out of snapshots.
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let relative = format!("tests/models/{name}");
    FileReport {
        outcome: lint_path(Path::new(&relative), &Options::new()),
        path: relative,
    }
}

#[test]
fn human_and_json_output_of_every_fixture() {
    insta::glob!("models/*.onnx", |path| {
        if path.is_dir() {
            return;
        }
        let reports = [report_of(path)];
        let text = human::render(
            &reports,
            human::Style {
                color: false,
                width: 80,
                quiet: false,
            },
        );
        insta::assert_snapshot!("human", text);
        let document = json::render(&reports, true).replace(env!("CARGO_PKG_VERSION"), "[version]");
        insta::assert_snapshot!("json", document);
        // URIs are relative to the current directory, the package root, whose absolute
        // `file:` URI (the one machine-dependent line) is redacted.
        let log = sarif::render(&reports)
            .replace(env!("CARGO_PKG_VERSION"), "[version]")
            .replace(
                &format!("file://{}/", env!("CARGO_MANIFEST_DIR")),
                "file:///[root]/",
            );
        insta::assert_snapshot!("sarif", log);
    });
}

/// Whether `c` can be part of a value or op name in the listing (names may hold `/`, `.`, `:`).
fn is_token_char(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '(' | ')' | ',')
}

/// Every label sits under the whole token it names: each underline run (`──┬─`, `┬`) covers
/// exactly one name of the source line above it, from its first character to its last.
#[test]
fn labels_sit_under_their_tokens() {
    let mut checked = 0;
    insta::glob!("models/*.onnx", |path| {
        if path.is_dir() {
            return;
        }
        let text = human::render(
            &[report_of(path)],
            human::Style {
                color: false,
                width: 200,
                quiet: false,
            },
        );
        let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
        for pair in lines.windows(2) {
            let (source, under) = (&pair[0], &pair[1]);
            // A listing line: its line number, then the gutter.
            let is_source = {
                let line: String = source.iter().collect();
                let trimmed = line.trim_start();
                trimmed.starts_with(|c: char| c.is_ascii_digit())
                    && trimmed
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .starts_with(" │")
            };
            let Some(gutter) = under.iter().position(|c| *c == '·') else {
                continue;
            };
            if !is_source || !under.iter().any(|c| matches!(c, '─' | '┬')) {
                continue;
            }
            let mut col = gutter + 1;
            while col < under.len() {
                if under[col] == ' ' {
                    col += 1;
                    continue;
                }
                let start = col;
                while col < under.len() && under[col] != ' ' {
                    col += 1;
                }
                let token: String = source[start..col].iter().collect();
                let before = start.checked_sub(1).map(|i| source[i]);
                let after = source.get(col).copied();
                assert!(
                    token.chars().all(is_token_char)
                        && !before.is_some_and(is_token_char)
                        && !after.is_some_and(is_token_char),
                    "{}: label at columns {start}..{col} is not under one whole token:\n{}\n{}",
                    path.display(),
                    source.iter().collect::<String>(),
                    under.iter().collect::<String>()
                );
                checked += 1;
            }
        }
    });
    assert!(checked > 40, "only {checked} labels checked");
}
