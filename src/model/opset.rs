//! Opset versions per domain, from `opset_import` (ONNX IR: `""` and `ai.onnx` are one domain).

use std::collections::BTreeMap;

use crate::proto::OperatorSetIdProto;

/// The opset version imported for each domain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Opsets(BTreeMap<String, i64>);

impl Opsets {
    /// Builds the table from `opset_import` entries; the last entry for a domain wins.
    pub(crate) fn from_imports(imports: &[OperatorSetIdProto]) -> Self {
        let mut table = BTreeMap::new();
        for import in imports {
            let domain = normalise(import.domain.as_deref().unwrap_or(""));
            table.insert(domain.to_owned(), import.version.unwrap_or(0));
        }
        Self(table)
    }

    /// Adds (or overrides with) the entries of `other`.
    pub(crate) fn extend(&mut self, other: &Opsets) {
        for (domain, version) in &other.0 {
            self.0.insert(domain.clone(), *version);
        }
    }

    /// The version imported for `domain`, if any.
    pub(crate) fn version(&self, domain: &str) -> Option<i64> {
        self.0.get(normalise(domain)).copied()
    }
}

/// Maps `ai.onnx` to the default domain `""`.
pub(crate) fn normalise(domain: &str) -> &str {
    if domain == "ai.onnx" {
        ""
    } else {
        domain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ai_onnx_is_the_default_domain() {
        let imports = [
            OperatorSetIdProto {
                domain: Some("ai.onnx".into()),
                version: Some(13),
            },
            OperatorSetIdProto {
                domain: Some("ai.onnx.ml".into()),
                version: Some(3),
            },
        ];
        let opsets = Opsets::from_imports(&imports);
        assert_eq!(opsets.version(""), Some(13));
        assert_eq!(opsets.version("ai.onnx"), Some(13));
        assert_eq!(opsets.version("ai.onnx.ml"), Some(3));
        assert_eq!(opsets.version("com.microsoft"), None);
    }
}
