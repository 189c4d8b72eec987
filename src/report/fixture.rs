//! Tests' reports of the committed fixtures, shared by the formats' unit tests.

use std::path::Path;

use super::FileReport;
use crate::{lint_path, Options};

/// The report of fixture `name` (`tests/models/`), under the path `shown` that a format prints.
pub(super) fn fixture_report(name: &str, shown: &str) -> FileReport {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name);
    FileReport {
        path: shown.into(),
        outcome: lint_path(&file, &Options::new()),
    }
}
