//! The top-level `ignore` key: accepted findings named by model and fingerprint,
//! `ignore = { "path-or-glob" = ["E1:..."] }`, as a baseline names them (`path fingerprint`).
//!
//! A fingerprint hashes what a finding is about inside its model, not the model, so different
//! models can share one (two exports of the same architecture, a fixture and its variant). A
//! bare list at the top level would apply to every model below the file and hide a new model's
//! finding, so it is refused with the way to write it; a `[[per-file]]` table's `ignore` list
//! stays a list, since its `glob` names the models.

use std::fmt;
use std::ops::Range;

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use super::values::{Pattern, Suppression};
use crate::fingerprint::Fingerprint;

/// The top-level `ignore` table: for each model path or glob (relative to the configuration's
/// directory), the fingerprints accepted in the models it matches.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModelIgnores(pub(crate) Vec<(Pattern, Vec<Suppression>)>);

/// An `ignore` entry applied to a model: its fingerprint, where it is written, and the glob that
/// names its models (the table's key, or the `[[per-file]]` table's `glob`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scoped {
    /// The glob naming the models the entry belongs to, as written.
    pub(crate) models: String,
    /// The accepted fingerprint.
    pub(crate) fingerprint: Fingerprint,
    /// The fingerprint's byte range in the configuration file.
    pub(crate) span: Range<usize>,
}

impl Scoped {
    /// `entry` as it applies to the models `models` names.
    pub(crate) fn new(models: &Pattern, entry: &Suppression) -> Scoped {
        Scoped {
            models: models.text().to_owned(),
            fingerprint: entry.fingerprint.clone(),
            span: entry.span.clone(),
        }
    }
}

/// Why a bare list is refused, and how to write it (quoting its first fingerprint).
fn refusal(first: Option<&str>) -> String {
    let example = first
        .and_then(Fingerprint::parse)
        .map_or_else(|| "E1:...".to_owned(), |f| f.to_string());
    format!(
        "a top-level `ignore` list would apply to every model below this file, but a fingerprint \
         does not name its model (different models can share one); name the model: \
         `ignore = {{ \"path/to/model.onnx\" = [\"{example}\"] }}` (a path or glob relative to \
         this file, as in `exclude`; \"**\" for every model), or put the list in a \
         `[[per-file]]` table (`--isolated` shows each finding's model and fingerprint)"
    )
}

impl<'de> Deserialize<'de> for ModelIgnores {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Table;
        impl<'de> Visitor<'de> for Table {
            type Value = ModelIgnores;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of model paths or globs, each with a list of fingerprints")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ModelIgnores, A::Error> {
                let mut entries = Vec::new();
                while let Some(models) = map.next_key::<Pattern>()? {
                    entries.push((models, map.next_value::<Vec<Suppression>>()?));
                }
                Ok(ModelIgnores(entries))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ModelIgnores, A::Error> {
                let mut first = None;
                let mut any = false;
                while let Some(item) = seq.next_element::<toml::Value>()? {
                    any = true;
                    if let (None, toml::Value::String(text)) = (&first, item) {
                        first = Some(text);
                    }
                }
                // An empty list suppresses nothing, so nothing is unsafe about it.
                if !any {
                    return Ok(ModelIgnores::default());
                }
                Err(A::Error::custom(refusal(first.as_deref())))
            }
        }
        deserializer.deserialize_any(Table)
    }
}
