//! Project configuration of the command: `onnx-bcast-lint.toml`, or `[tool.onnx-bcast-lint]` in
//! `pyproject.toml`, found from each model's directory upward (the nearest wins, and within one
//! directory `onnx-bcast-lint.toml` wins over `pyproject.toml`), or one file forced with
//! `--config`. The keys are declared in [`keys`]; command-line flags are layered over them.
//! The library's `Options` stays the API: this module only builds `Options` for the command.

mod ignore;
mod keys;
mod values;

use std::collections::{BTreeSet, HashMap};
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::{Code, Options};
pub(crate) use ignore::Scoped;
pub(crate) use keys::Settings;
pub(crate) use values::{CodeName, DimValue};

/// The configuration file's name.
pub(crate) const FILE_NAME: &str = "onnx-bcast-lint.toml";

/// A configuration file, read and checked.
#[derive(Debug)]
pub(crate) struct ConfigFile {
    /// Its path (absolute, lexically normalised).
    pub(crate) path: PathBuf,
    /// The directory its globs are relative to.
    dir: PathBuf,
    /// Its text, to quote lines in messages.
    text: String,
    table: keys::FileTable,
}

impl ConfigFile {
    /// `path:line:col` of a byte offset in the file.
    pub(crate) fn locate(&self, offset: usize) -> String {
        let (line, col) = line_col(&self.text, offset);
        format!("{}:{line}:{col}", self.path.display())
    }
}

/// A configuration file that cannot be used: unreadable, not TOML, an unknown key, a value of the
/// wrong type, a bad glob, code or fingerprint. Displayed as `path:line:col: message` followed
/// by the offending line and a caret under the value.
#[derive(Debug)]
pub(crate) struct ConfigError {
    path: PathBuf,
    /// `(line, column, the line's text, width of the caret)` when the error has a place.
    place: Option<(usize, usize, String, usize)>,
    message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            None => write!(f, "{}: {}", self.path.display(), self.message),
            Some((line, col, text, width)) => {
                let gutter = line.to_string().len();
                write!(
                    f,
                    "{}:{line}:{col}: {}\n {line} | {text}\n {:gutter$} | {}{}",
                    self.path.display(),
                    self.message,
                    "",
                    " ".repeat(col.saturating_sub(1)),
                    "^".repeat((*width).max(1)),
                )
            }
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before.get(start..).map_or(0, |s| s.chars().count()) + 1;
    (line, col)
}

fn toml_error(path: &Path, text: &str, error: &toml::de::Error) -> ConfigError {
    let message = error.message().trim_end().to_owned();
    let place = error.span().map(|span| {
        let (line, col) = line_col(text, span.start);
        let line_text = text.lines().nth(line - 1).unwrap_or("").to_owned();
        // The caret covers the span, up to the end of its line.
        let rest = line_text.chars().count().saturating_sub(col - 1);
        let width = text
            .get(span.clone())
            .map_or(1, |s| s.lines().next().map_or(1, |l| l.chars().count()))
            .min(rest.max(1));
        (line, col, line_text, width)
    });
    ConfigError {
        path: path.to_owned(),
        place,
        message,
    }
}

#[derive(Deserialize)]
struct PyProject {
    tool: Option<PyTools>,
}

#[derive(Deserialize)]
struct PyTools {
    #[serde(rename = "onnx-bcast-lint")]
    this: Option<keys::FileTable>,
    /// The other tools' tables, by name (to point at a misspelt one).
    #[serde(flatten)]
    others: std::collections::BTreeMap<String, toml::Value>,
}

/// Why `--config` naming a `pyproject.toml` without `[tool.onnx-bcast-lint]` is refused: the
/// flag asks for that file's settings on every model, and linting with none would pass what
/// the intended settings (`deny-warnings`, `dims`) fail. A table spelt with underscores or
/// other capitals is named.
fn no_table(tools: Option<&PyTools>) -> String {
    let mut message = "no [tool.onnx-bcast-lint] table, so this file configures nothing \
                       (--isolated lints without a configuration)"
        .to_owned();
    let near = tools
        .into_iter()
        .flat_map(|t| t.others.keys())
        .find(|name| name.to_ascii_lowercase().replace('_', "-") == "onnx-bcast-lint");
    if let Some(name) = near {
        let _ = write!(
            message,
            "; found [tool.{name}]: the table is spelt [tool.onnx-bcast-lint]"
        );
    }
    message
}

/// Reads a configuration file. `pyproject.toml` gives `None` when it has no
/// `[tool.onnx-bcast-lint]` table (so the search goes on upward); with `forced` (`--config`)
/// that is an error.
fn read(path: &Path, forced: bool) -> Result<Option<ConfigFile>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError {
        path: path.to_owned(),
        place: None,
        message: format!("cannot read the configuration: {error}"),
    })?;
    let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    let table = if is_pyproject {
        let project: PyProject = toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?;
        let mut tools = project.tool;
        match tools.as_mut().and_then(|t| t.this.take()) {
            Some(table) => table,
            None if forced => {
                return Err(ConfigError {
                    path: path.to_owned(),
                    place: None,
                    message: no_table(tools.as_ref()),
                })
            }
            None => return Ok(None),
        }
    } else {
        toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?
    };
    let path = absolute(path);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(Some(ConfigFile {
        path,
        dir,
        text,
        table,
    }))
}

pub(crate) use crate::paths::absolute;

/// Where settings come from.
#[derive(Debug)]
pub(crate) enum ConfigLookup {
    /// `--isolated`: no file at all.
    Isolated,
    /// `--config PATH`: one file for every model.
    Forced(Arc<ConfigFile>),
    /// The nearest file from each model's directory upward, cached per directory.
    Discover(HashMap<PathBuf, Option<Arc<ConfigFile>>>),
}

/// What governs one model: its configuration file (if any) and the settings it ends up with.
#[derive(Debug, Default)]
pub(crate) struct Effective {
    /// The library options (allowed codes, bindings).
    pub(crate) options: Options,
    /// Whether warnings fail the run for this model.
    pub(crate) deny_warnings: bool,
    /// The codes not reported (`allow`, `--allow`).
    pub(crate) allowed: BTreeSet<Code>,
    /// The configuration's `ignore` entries whose models include this one.
    pub(crate) ignore: Vec<Scoped>,
    /// The configuration file, if one applies.
    pub(crate) config: Option<Arc<ConfigFile>>,
    /// When the file's `exclude` matches the model: where (`path:line:col`) and the glob.
    pub(crate) excluded: Option<String>,
}

impl ConfigLookup {
    /// The source the flags ask for: `--isolated`, `--config PATH`, or discovery.
    pub(crate) fn new(forced: Option<&Path>, isolated: bool) -> Result<ConfigLookup, ConfigError> {
        if isolated {
            return Ok(ConfigLookup::Isolated);
        }
        match forced {
            None => Ok(ConfigLookup::Discover(HashMap::new())),
            Some(path) => match read(path, true)? {
                Some(file) => Ok(ConfigLookup::Forced(Arc::new(file))),
                None => Err(ConfigError {
                    path: path.to_owned(),
                    place: None,
                    message: "not a configuration file".to_owned(),
                }),
            },
        }
    }

    /// The settings of the model at `model` (`-` is standard input: the current directory's
    /// configuration), with `cli` layered over the file's.
    pub(crate) fn effective(
        &mut self,
        model: &Path,
        cli: &Settings,
    ) -> Result<Effective, ConfigError> {
        let stdin = model == Path::new("-");
        let model = if stdin {
            absolute(Path::new("."))
        } else {
            absolute(model)
        };
        let config = match self {
            ConfigLookup::Isolated => None,
            ConfigLookup::Forced(file) => Some(Arc::clone(file)),
            ConfigLookup::Discover(cache) => {
                let start = if stdin {
                    Some(model.as_path())
                } else {
                    model.parent()
                };
                nearest(cache, start)?
            }
        };
        let mut settings = Settings::default();
        let mut excluded = None;
        let mut ignore = Vec::new();
        if let Some(file) = &config {
            settings = file.table.settings();
            if let (Ok(relative), false) = (model.strip_prefix(&file.dir), stdin) {
                excluded = file
                    .table
                    .exclude
                    .iter()
                    .find(|p| p.matches(relative))
                    .map(|p| format!("{} (`{}`)", file.locate(p.span().start), p.text()));
                for (models, entries) in &file.table.ignore.0 {
                    if models.matches(relative) {
                        ignore.extend(entries.iter().map(|e| Scoped::new(models, e)));
                    }
                }
                for per_file in &file.table.per_file {
                    if per_file.glob.matches(relative) {
                        settings.layer(per_file.settings());
                        let entries = per_file.ignore.iter();
                        ignore.extend(entries.map(|e| Scoped::new(&per_file.glob, e)));
                    }
                }
            }
        }
        settings.layer(cli.clone());
        let mut effective = Effective {
            ignore,
            config,
            excluded,
            ..Effective::default()
        };
        settings.apply(&mut effective);
        Ok(effective)
    }
}

/// The nearest configuration from `dir` upward.
fn nearest(
    cache: &mut HashMap<PathBuf, Option<Arc<ConfigFile>>>,
    dir: Option<&Path>,
) -> Result<Option<Arc<ConfigFile>>, ConfigError> {
    let Some(dir) = dir else { return Ok(None) };
    if let Some(found) = cache.get(dir) {
        return Ok(found.clone());
    }
    let mut found = None;
    for name in [FILE_NAME, "pyproject.toml"] {
        let candidate = dir.join(name);
        if candidate.is_file() {
            if let Some(file) = read(&candidate, false)? {
                found = Some(Arc::new(file));
                break;
            }
        }
    }
    if found.is_none() {
        found = nearest(cache, dir.parent())?;
    }
    cache.insert(dir.to_path_buf(), found.clone());
    Ok(found)
}

#[cfg(test)]
mod tests;
