//! Stable fingerprints of findings: what an `ignore` entry (under its model) in a configuration,
//! a baseline file and SARIF's `partialFingerprints` use to recognise a finding across runs and
//! edits of the model.
//!
//! A fingerprint hashes what the finding is about, never where it sits: the code, the graph path,
//! the node's anchor (its name, or op type and first output when it has none) and the names of
//! the offending inputs. Node indices, shapes, messages and byte offsets are left out, so
//! reordering nodes, editing unrelated ones or rewording a message keeps it; renaming the node or
//! an offending input changes it. `I1` is one finding per operator type, so its fingerprint is
//! the operator's domain and type. A finding without a node (a model without a graph) hashes its
//! message.

use std::fmt;

use crate::diag::{Code, Finding};

/// A finding's fingerprint as printed: `E1:` then 16 lowercase hex digits (`E1:3f0c6a1e9b27d4c5`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(String);

impl Fingerprint {
    /// Parses a printed fingerprint; `None` unless it is a known code, `:`, 16 hex digits.
    pub fn parse(text: &str) -> Option<Fingerprint> {
        let (code, hash) = text.trim().split_once(':')?;
        let code = Code::parse(code)?;
        if hash.len() != 16 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(Fingerprint(format!(
            "{}:{}",
            code.as_str(),
            hash.to_ascii_lowercase()
        )))
    }

    /// The text: `E1:3f0c6a1e9b27d4c5`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The code it is a fingerprint of (`E1` of `E1:3f0c6a1e9b27d4c5`): the gate's, to tell a
    /// stale suppression from one of a code the run allows.
    #[cfg(any(feature = "cli", test))]
    pub(crate) fn code(&self) -> Option<Code> {
        self.0
            .split_once(':')
            .and_then(|(code, _)| Code::parse(code))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Finding {
    /// This finding's stable fingerprint (see the module documentation for what it covers).
    pub fn fingerprint(&self) -> Fingerprint {
        let mut hash = Fnv::new();
        hash.field(self.code.as_str());
        match &self.node {
            Some(node) if self.code == Code::I1 => {
                hash.field(&node.domain);
                hash.field(&node.op_type);
            }
            Some(node) => {
                hash.field(&node.graph);
                hash.field(&node.anchor);
                let mut offending: Vec<&str> = self
                    .inputs
                    .iter()
                    .filter(|input| input.offending)
                    .map(|input| input.name.as_str())
                    .collect();
                offending.sort_unstable();
                for name in offending {
                    hash.field(name);
                }
            }
            None => hash.field(&self.message),
        }
        Fingerprint(format!("{}:{:016x}", self.code.as_str(), hash.0))
    }
}

/// 64-bit FNV-1a: fixed constants, so a fingerprint is the same on every platform and release
/// (std's `DefaultHasher` promises neither).
struct Fnv(u64);

impl Fnv {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;

    fn new() -> Self {
        Fnv(Self::OFFSET)
    }

    fn byte(&mut self, byte: u8) {
        self.0 ^= u64::from(byte);
        self.0 = self.0.wrapping_mul(Self::PRIME);
    }

    /// One field, length-prefixed so that `("ab", "c")` and `("a", "bc")` differ.
    fn field(&mut self, text: &str) {
        for byte in (text.len() as u64).to_le_bytes() {
            self.byte(byte);
        }
        for byte in text.bytes() {
            self.byte(byte);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Facts, InputSite, NodeSite};
    use crate::shape::Shape;

    fn finding(code: Code, index: usize, anchor: &str, inputs: &[(&str, bool)]) -> Finding {
        Finding {
            code,
            message: format!("message {index}"),
            help: None,
            node: Some(NodeSite {
                graph: "main".into(),
                index,
                name: format!("Add_{index}"),
                anchor: anchor.into(),
                op_type: "Add".into(),
                domain: String::new(),
                span: index..index + 10,
            }),
            inputs: inputs
                .iter()
                .enumerate()
                .map(|(slot, (name, offending))| InputSite {
                    name: (*name).into(),
                    shape: Shape::Unranked.into(),
                    value: None,
                    slot,
                    offending: *offending,
                    provenance: Vec::new(),
                    declared: Vec::new(),
                })
                .collect(),
            facts: Facts::InvalidNode {
                reason: format!("message {index}"),
            },
            assumes_constant_initializers: false,
        }
    }

    #[test]
    fn fnv1a_matches_its_published_test_vector() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the algorithm's reference values).
        let mut hash = Fnv::new();
        hash.byte(b'a');
        assert_eq!(hash.0, 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn index_message_and_span_do_not_change_it() {
        let a = finding(Code::E1, 3, "add", &[("x", true), ("y", true)]);
        let b = finding(Code::E1, 40, "add", &[("x", true), ("y", true)]);
        assert_ne!(a.message, b.message);
        assert_eq!(a.fingerprint(), b.fingerprint());
    }

    #[test]
    fn code_node_and_offending_inputs_change_it() {
        let base = finding(Code::E1, 3, "add", &[("x", true), ("y", true)]);
        let others = [
            finding(Code::W1, 3, "add", &[("x", true), ("y", true)]),
            finding(Code::E1, 3, "add2", &[("x", true), ("y", true)]),
            finding(Code::E1, 3, "add", &[("x", true), ("z", true)]),
            finding(Code::E1, 3, "add", &[("x", true), ("y", false)]),
        ];
        for other in others {
            assert_ne!(base.fingerprint(), other.fingerprint());
        }
    }

    #[test]
    fn printed_form_round_trips_and_bad_text_is_rejected() {
        let printed = finding(Code::W4, 0, "mm", &[]).fingerprint();
        assert!(printed.as_str().starts_with("W4:"));
        assert_eq!(printed.code(), Some(Code::W4));
        assert_eq!(Fingerprint::parse(printed.as_str()), Some(printed.clone()));
        assert_eq!(
            Fingerprint::parse(&printed.as_str().to_uppercase()),
            Some(printed)
        );
        for bad in [
            "",
            "E1",
            "E1:123",
            "X9:0123456789abcdef",
            "E1:0123456789abcdeg",
        ] {
            assert_eq!(Fingerprint::parse(bad), None, "{bad}");
        }
    }
}
