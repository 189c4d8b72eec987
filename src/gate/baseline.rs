//! Baseline files (`--baseline FILE`, `--write-baseline FILE`): the findings a team accepted
//! when adopting the gate, so that only new ones fail the run. One `path fingerprint` per line,
//! sorted, paths relative to the baseline file's directory with `/` separators (the same file
//! works from any working directory and on every platform); `#` starts a comment line.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::config::absolute;
use crate::fingerprint::Fingerprint;
use crate::report::FileReport;

/// The first line of a written baseline.
const HEADER: &str = "# onnx-bcast-lint baseline: accepted findings, `model fingerprint` per line \
                      (written by --write-baseline; paths relative to this file)";

/// A set of accepted findings, by model path and fingerprint.
#[derive(Debug)]
pub(crate) struct Baseline {
    dir: PathBuf,
    entries: BTreeSet<(String, Fingerprint)>,
}

impl Baseline {
    /// An empty baseline whose paths are relative to `file`'s directory.
    pub(crate) fn empty(file: &Path) -> Baseline {
        let file = absolute(file);
        Baseline {
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
            entries: BTreeSet::new(),
        }
    }

    /// Reads a baseline; a line that is not `path fingerprint` is an error naming it.
    pub(crate) fn read(file: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("{}: cannot read the baseline: {e}", file.display()))?;
        let mut baseline = Baseline::empty(file);
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parsed = line
                .rsplit_once(char::is_whitespace)
                .and_then(|(path, fp)| Some((path.trim_end(), Fingerprint::parse(fp)?)));
            match parsed {
                Some((path, fingerprint)) if !path.is_empty() => {
                    baseline.entries.insert((path.to_owned(), fingerprint));
                }
                _ => {
                    return Err(format!(
                        "{}:{}: expected `model-path fingerprint`, got `{line}`",
                        file.display(),
                        number + 1
                    ))
                }
            }
        }
        Ok(baseline)
    }

    /// The key of a model path as given on the command line: relative to the baseline's
    /// directory (with `..` when it lies elsewhere, so the file stays free of machine paths),
    /// `/`-separated; `-` for standard input.
    pub(crate) fn key_of(&self, model: &str) -> String {
        if model == "-" || model == "<stdin>" {
            return "-".to_owned();
        }
        let model = absolute(Path::new(model));
        let mut base = self.dir.components().peekable();
        let mut rest = model.components().peekable();
        while let (Some(a), Some(b)) = (base.peek(), rest.peek()) {
            if a != b {
                break;
            }
            base.next();
            rest.next();
        }
        let mut parts: Vec<String> = base.map(|_| "..".to_owned()).collect();
        parts.extend(rest.map(|c| c.as_os_str().to_string_lossy().into_owned()));
        parts.join("/")
    }

    /// Accepts `fingerprint` in the model of baseline key `key` (tests).
    #[cfg(test)]
    pub(crate) fn insert(&mut self, key: String, fingerprint: Fingerprint) {
        self.entries.insert((key, fingerprint));
    }

    /// Whether the baseline accepts `fingerprint` in the model keyed `key`.
    pub(crate) fn contains(&self, key: &str, fingerprint: &Fingerprint) -> bool {
        self.entries
            .contains(&(key.to_owned(), fingerprint.clone()))
    }

    /// Adds every finding of `reports`.
    pub(crate) fn record(&mut self, reports: &[FileReport]) {
        for file in reports {
            let key = self.key_of(&file.path);
            if let Ok(report) = &file.outcome {
                for finding in &report.findings {
                    self.entries.insert((key.clone(), finding.fingerprint()));
                }
            }
        }
    }

    /// How many findings it accepts.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The file's text: the header, then one sorted line per entry.
    pub(crate) fn text(&self) -> String {
        let mut text = format!("{HEADER}\n");
        for (path, fingerprint) in &self.entries {
            let _ = writeln!(text, "{path} {fingerprint}");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_text_reads_back_to_the_same_entries() {
        let dir = std::env::temp_dir().join(format!("obl-baseline-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("zoo dir")).unwrap();
        let file = dir.join("baseline.txt");
        let mut baseline = Baseline::empty(&file);
        let model = dir.join("zoo dir/b.onnx");
        let key = baseline.key_of(&model.display().to_string());
        assert_eq!(key, "zoo dir/b.onnx");
        let sibling = dir.with_file_name("elsewhere").join("c.onnx");
        assert_eq!(
            baseline.key_of(&sibling.display().to_string()),
            "../elsewhere/c.onnx"
        );
        assert_eq!(baseline.key_of("-"), "-");
        let fp = Fingerprint::parse("E1:0123456789abcdef").unwrap();
        let other = Fingerprint::parse("W1:0123456789abcdef").unwrap();
        baseline.entries.insert((key.clone(), other.clone()));
        baseline.entries.insert(("a.onnx".into(), fp.clone()));
        baseline.entries.insert((key.clone(), fp.clone()));
        std::fs::write(&file, baseline.text()).unwrap();
        let read = Baseline::read(&file).unwrap();
        assert_eq!(read.entries, baseline.entries);
        assert!(read.contains(&key, &fp) && read.contains(&key, &other));
        assert!(!read.contains("a.onnx", &other));
        let text = baseline.text();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "a.onnx E1:0123456789abcdef",
                "zoo dir/b.onnx E1:0123456789abcdef",
                "zoo dir/b.onnx W1:0123456789abcdef"
            ]
        );
        std::fs::write(&file, "a.onnx not-a-fingerprint\n").unwrap();
        let error = Baseline::read(&file).unwrap_err();
        assert!(
            error
                .ends_with(":1: expected `model-path fingerprint`, got `a.onnx not-a-fingerprint`"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
