//! The notices for models a configuration's `exclude` leaves out although the command line
//! named them. An excluded model named explicitly is still not linted (the pre-commit hook
//! names every staged model, and `exclude` is how a team keeps legacy models out of it), but a
//! run that reports nothing for a model someone asked about says why.

use std::path::{Path, PathBuf};

/// One notice per named file that is excluded (`path`, and `where` of the glob that excludes it:
/// `config:line:col (`glob`)`), and one per named directory whose every model is excluded.
/// Models found in a directory that also has linted models are left out silently, as intended.
pub(crate) fn notices(
    named: &[PathBuf],
    excluded: &[(PathBuf, String)],
    kept: &[PathBuf],
) -> Vec<String> {
    let mut notices = Vec::new();
    for input in named {
        if let Some((_, by)) = excluded.iter().find(|(file, _)| file == input) {
            notices.push(format!(
                "`{}` is not linted: the configuration excludes it, at {by}",
                input.display()
            ));
            continue;
        }
        if !is_directory_input(input) {
            continue;
        }
        let under = excluded
            .iter()
            .filter(|(f, _)| f.starts_with(input))
            .count();
        if under > 0 && !kept.iter().any(|f| f.starts_with(input)) {
            notices.push(format!(
                "no model under `{}` is linted: the configuration excludes all {under} of them",
                input.display()
            ));
        }
    }
    notices
}

/// Whether the command line's `input` was expanded into the models below it.
fn is_directory_input(input: &Path) -> bool {
    input.is_dir()
        && !input
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_files_and_wholly_excluded_directories_get_a_notice() {
        let dir = std::env::temp_dir().join(format!("obl-excluded-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("legacy")).unwrap();
        std::fs::create_dir_all(dir.join("mixed")).unwrap();
        let legacy_model = dir.join("legacy/a.onnx");
        let mixed_old = dir.join("mixed/old.onnx");
        let mixed_new = dir.join("mixed/new.onnx");
        let by = "/x/onnx-bcast-lint.toml:1:12 (`legacy`)".to_owned();
        let excluded = [
            (legacy_model.clone(), by.clone()),
            (mixed_old.clone(), by.clone()),
        ];
        let kept = [mixed_new];
        let named = [dir.join("legacy"), dir.join("mixed"), mixed_old.clone()];
        let notices = notices(&named, &excluded, &kept);
        assert_eq!(
            notices,
            [
                format!(
                    "no model under `{}` is linted: the configuration excludes all 1 of them",
                    dir.join("legacy").display()
                ),
                format!(
                    "`{}` is not linted: the configuration excludes it, at {by}",
                    mixed_old.display()
                ),
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
