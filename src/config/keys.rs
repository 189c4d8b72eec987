//! The configuration keys, declared once. The [`keys!`] list below generates the table a
//! configuration file holds (its keys, plus `ignore`, `exclude` and `[[per-file]]`), the
//! `[[per-file]]` table (`glob`, the same keys and an `ignore` list), the layering of one table
//! over another, and what each key does to a model's [`Effective`] settings. `ignore` is outside
//! the list because it is not a setting layered over others: each entry names its models (the
//! top-level table's keys, a `[[per-file]]` table's glob), and the command line has no flag for it.
//!
//! To add a key, add one entry to the list: the key as written in TOML, the field, its type, the
//! doc comment (README's "Configuration" table says the same), and a block applying the value.
//! Unknown keys stay errors, listing the keys the list declares.

use std::collections::BTreeMap;
use std::num::NonZeroU64;

use serde::Deserialize;

use super::ignore::ModelIgnores;
use super::values::{CodeName, DimValue, Pattern, Suppression};
use super::Effective;

/// How a value set in a more specific place (a `[[per-file]]` table, then the command line)
/// combines with one set before: lists add up, maps override key by key, scalars replace.
pub(crate) trait Layer {
    /// Puts `over` on top of `self`.
    fn layer(&mut self, over: Self);
}

impl<T> Layer for Vec<T> {
    fn layer(&mut self, over: Self) {
        self.extend(over);
    }
}

impl Layer for bool {
    fn layer(&mut self, over: Self) {
        *self = over;
    }
}

impl Layer for usize {
    fn layer(&mut self, over: Self) {
        *self = over;
    }
}

impl Layer for NonZeroU64 {
    fn layer(&mut self, over: Self) {
        *self = over;
    }
}

impl<K: Ord, V> Layer for BTreeMap<K, V> {
    fn layer(&mut self, over: Self) {
        self.extend(over);
    }
}

impl<T: Layer> Layer for Option<T> {
    fn layer(&mut self, over: Self) {
        match (self.as_mut(), over) {
            (Some(mine), Some(over)) => mine.layer(over),
            (None, Some(over)) => *self = Some(over),
            (_, None) => {}
        }
    }
}

macro_rules! keys {
    ($(
        $(#[$doc:meta])*
        $key:literal $field:ident: $ty:ty => |$effective:ident, $value:ident| $apply:block
    )*) => {
        /// The keys a configuration table may set, each `None` when not set.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct Settings {
            $(
                $(#[$doc])*
                #[serde(rename = $key, default)]
                pub(crate) $field: Option<$ty>,
            )*
        }

        impl Settings {
            /// Puts `over` on top of these settings ([`Layer`]).
            pub(crate) fn layer(&mut self, over: Settings) {
                $( self.$field.layer(over.$field); )*
            }

            /// What the set keys do to a model's effective settings.
            pub(crate) fn apply(self, effective: &mut Effective) {
                $(
                    if let Some($value) = self.$field {
                        let $effective = &mut *effective;
                        $apply
                    }
                )*
            }
        }

        /// The table of a configuration file (`onnx-bcast-lint.toml` itself, or
        /// `[tool.onnx-bcast-lint]` of `pyproject.toml`).
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct FileTable {
            $(
                #[serde(rename = $key, default)]
                $field: Option<$ty>,
            )*
            /// Accepted findings, by model glob (`ignore = { "glob" = ["E1:..."] }`).
            #[serde(default)]
            pub(crate) ignore: ModelIgnores,
            /// Models not linted, by glob.
            #[serde(default)]
            pub(crate) exclude: Vec<Pattern>,
            /// Settings for the models a glob matches, over the file's own.
            #[serde(rename = "per-file", default)]
            pub(crate) per_file: Vec<PerFile>,
        }

        impl FileTable {
            /// The file's own settings (outside `[[per-file]]`).
            pub(crate) fn settings(&self) -> Settings {
                Settings { $( $field: self.$field.clone(), )* }
            }
        }

        /// A `[[per-file]]` table: a glob and the settings for the models it matches.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct PerFile {
            /// Which models (relative to the configuration's directory).
            pub(crate) glob: Pattern,
            $(
                #[serde(rename = $key, default)]
                $field: Option<$ty>,
            )*
            /// Fingerprints accepted in the models `glob` matches.
            #[serde(default)]
            pub(crate) ignore: Vec<Suppression>,
        }

        impl PerFile {
            /// The table's settings.
            pub(crate) fn settings(&self) -> Settings {
                Settings { $( $field: self.$field.clone(), )* }
            }
        }
    };
}

keys! {
    /// Codes not reported (`--allow`).
    "allow" allow: Vec<CodeName> => |effective, value| {
        for code in value {
            effective.options = std::mem::take(&mut effective.options).allow(code.0);
            effective.allowed.insert(code.0);
        }
    }
    /// Warnings fail the run (`--deny warnings`).
    "deny-warnings" deny_warnings: bool => |effective, value| {
        effective.deny_warnings = value;
    }
    /// Symbol bindings (`--dim NAME=VALUE`).
    "dims" dims: BTreeMap<String, DimValue> => |effective, value| {
        for (name, size) in value {
            effective.options = std::mem::take(&mut effective.options).with_dim(&name, size.0);
        }
    }
    /// Initializers that are also graph inputs keep their values (`--initializers-as-constants`).
    "initializers-as-constants" initializers_as_constants: bool => |effective, value| {
        effective.options =
            std::mem::take(&mut effective.options).with_initializers_as_constants(value);
    }
    /// Findings kept per model, the others only counted (`--max-findings`; 0 keeps all).
    "max-findings" max_findings: usize => |effective, value| {
        effective.options = std::mem::take(&mut effective.options).with_max_findings(value);
    }
    /// The largest dim a real input reaches: a condition that fails only beyond it is not
    /// reported (`--size-limit`; default 10^9).
    "size-limit" size_limit: NonZeroU64 => |effective, value| {
        let limit = i64::try_from(value.get()).unwrap_or(i64::MAX);
        effective.options = std::mem::take(&mut effective.options).with_size_limit(limit);
    }
}
