//! The value types of configuration keys. Each checks itself while the file is deserialized, so
//! a bad value is a `toml` error carrying the value's span (file, line and column in the
//! message), exactly like a syntax error or an unknown key. The checks run inside the visitor:
//! `toml` gives an error the span of the innermost value it was raised in, so an error raised
//! after deserializing would point at the enclosing array instead of the element.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::path::Path;

use globset::GlobMatcher;
use serde::de::{Deserialize, Deserializer, Visitor};
use toml::Spanned;

/// A visitor of a string checked by `check`.
struct Checked<T, F>(F, PhantomData<T>);

impl<T, F: FnOnce(&str) -> Result<T, String>> Visitor<'_> for Checked<T, F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
        (self.0)(text).map_err(E::custom)
    }
}

fn checked_str<'de, D, T>(
    deserializer: D,
    check: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    deserializer.deserialize_str(Checked(check, PhantomData))
}

use crate::diag::Code;
use crate::fingerprint::Fingerprint;

/// A diagnostic code in `allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CodeName(pub(crate) Code);

impl<'de> Deserialize<'de> for CodeName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        checked_str(deserializer, |text| {
            Code::parse(text.trim()).map(CodeName).ok_or_else(|| {
                let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
                format!("unknown code `{text}` (known: {})", known.join(", "))
            })
        })
    }
}

/// A size bound to a symbol in `dims`: an integer, zero or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DimValue(pub(crate) i64);

impl<'de> Deserialize<'de> for DimValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Size;
        impl Visitor<'_> for Size {
            type Value = DimValue;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer (a dim's size)")
            }

            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<DimValue, E> {
                if value < 0 {
                    return Err(E::custom(format!("a dim cannot be negative ({value})")));
                }
                Ok(DimValue(value))
            }

            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<DimValue, E> {
                i64::try_from(value)
                    .map(DimValue)
                    .map_err(|_| E::custom(format!("{value} is too large for a dim")))
            }
        }
        deserializer.deserialize_i64(Size)
    }
}

/// A glob of `exclude` or of a `[[per-file]]` table, relative to the configuration's directory.
/// `*` and `?` stay within one path component and `**` crosses them; a pattern without `/`
/// matches a file or directory name at any depth (as in `.gitignore`).
#[derive(Clone)]
pub(crate) struct Pattern {
    text: String,
    matcher: GlobMatcher,
    /// Its byte range in the configuration file (empty when not read from one).
    span: Range<usize>,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({:?})", self.text)
    }
}

impl Pattern {
    /// Compiles a pattern, or says why it is not one.
    pub(crate) fn new(text: &str) -> Result<Pattern, String> {
        let trimmed = text.trim_end_matches('/');
        if trimmed.is_empty() {
            return Err("an empty glob matches nothing".to_owned());
        }
        let anchored = trimmed.trim_start_matches("./");
        let full = if anchored.contains('/') {
            anchored.trim_start_matches('/').to_owned()
        } else {
            format!("**/{anchored}")
        };
        let glob = globset::GlobBuilder::new(&full)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|error| format!("bad glob `{text}`: {}", error.kind()))?;
        Ok(Pattern {
            text: text.to_owned(),
            matcher: glob.compile_matcher(),
            span: 0..0,
        })
    }

    /// The glob as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Its byte range in the configuration file.
    pub(crate) fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// Whether `relative` (a path below the configuration's directory) or one of the
    /// directories it lies in matches.
    pub(crate) fn matches(&self, relative: &Path) -> bool {
        relative
            .ancestors()
            .filter(|p| !p.as_os_str().is_empty())
            .any(|p| self.matcher.is_match(p))
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text(Pattern);
        impl<'de> Deserialize<'de> for Text {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                checked_str(deserializer, |text| Pattern::new(text).map(Text))
            }
        }
        let text = Spanned::<Text>::deserialize(deserializer)?;
        let span = text.span();
        let mut pattern = text.into_inner().0;
        pattern.span = span;
        Ok(pattern)
    }
}

/// A fingerprint in `ignore`, with where it is written (for the warning when it matches
/// nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Suppression {
    /// The fingerprint.
    pub(crate) fingerprint: Fingerprint,
    /// Its byte range in the configuration file.
    pub(crate) span: Range<usize>,
}

impl<'de> Deserialize<'de> for Suppression {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text(Fingerprint);
        impl<'de> Deserialize<'de> for Text {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                checked_str(deserializer, |text| {
                    Fingerprint::parse(text).map(Text).ok_or_else(|| {
                        format!(
                            "`{text}` is not a fingerprint (a code, `:` and 16 hex digits, \
                             such as `E1:3f0c6a1e9b27d4c5`, as printed under each finding)"
                        )
                    })
                })
            }
        }
        let text = Spanned::<Text>::deserialize(deserializer)?;
        let span = text.span();
        Ok(Suppression {
            fingerprint: text.into_inner().0,
            span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_without_a_slash_match_names_at_any_depth() {
        let pattern = Pattern::new("legacy").unwrap();
        assert!(pattern.matches(Path::new("legacy/a.onnx")));
        assert!(pattern.matches(Path::new("zoo/legacy/b/a.onnx")));
        assert!(!pattern.matches(Path::new("zoo/legacy2/a.onnx")));
        let pattern = Pattern::new("*_old.onnx").unwrap();
        assert!(pattern.matches(Path::new("x/y/m_old.onnx")));
    }

    #[test]
    fn patterns_with_a_slash_are_anchored_and_star_stays_in_a_component() {
        let pattern = Pattern::new("vision/*.onnx").unwrap();
        assert!(pattern.matches(Path::new("vision/resnet.onnx")));
        assert!(!pattern.matches(Path::new("vision/deep/resnet.onnx")));
        assert!(!pattern.matches(Path::new("nlp/vision/resnet.onnx")));
        let pattern = Pattern::new("vision/**").unwrap();
        assert!(pattern.matches(Path::new("vision/deep/resnet.onnx")));
        let pattern = Pattern::new("./vision/").unwrap();
        assert!(pattern.matches(Path::new("vision/deep/resnet.onnx")));
    }

    #[test]
    fn bad_globs_say_why() {
        assert!(Pattern::new("a/[b")
            .unwrap_err()
            .contains("bad glob `a/[b`"));
        assert!(Pattern::new("").is_err());
    }
}
