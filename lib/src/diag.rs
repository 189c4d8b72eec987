//! Findings: what the checks report, with everything the three output formats need (code,
//! severity, message, help, the node's identity and the inputs involved with their shapes).

use std::ops::Range;

use serde::Serialize;

/// Stable diagnostic codes. A code never changes meaning (README: "Diagnostic codes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Code {
    /// Inputs of a broadcasting node can never be broadcast together.
    E1,
    /// Broadcasting is valid only under a condition on symbolic dims.
    W1,
    /// A declared shape contradicts the inferred one.
    E2,
    /// A structural problem (cycle, undefined input, duplicate producer, missing op type, no graph).
    E3,
    /// Shape knowledge stops here (unsupported operator or custom domain).
    I1,
    /// An operator's own shape constraint (not broadcasting) fails for every input.
    E4,
    /// An operator's own shape constraint holds only under a condition on symbolic dims.
    W4,
}

impl Code {
    /// Every code, in the order they were introduced (SARIF rule indices follow it).
    pub const ALL: [Code; 7] = [
        Code::E1,
        Code::W1,
        Code::E2,
        Code::E3,
        Code::I1,
        Code::E4,
        Code::W4,
    ];

    /// The code as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::E1 => "E1",
            Code::W1 => "W1",
            Code::E2 => "E2",
            Code::E3 => "E3",
            Code::I1 => "I1",
            Code::E4 => "E4",
            Code::W4 => "W4",
        }
    }

    /// The severity findings of this code carry.
    pub fn severity(self) -> Severity {
        match self {
            Code::E1 | Code::E2 | Code::E3 | Code::E4 => Severity::Error,
            Code::W1 | Code::W4 => Severity::Warning,
            Code::I1 => Severity::Info,
        }
    }

    /// One line saying what the code means (SARIF `shortDescription`); the full texts are
    /// [`crate::report::explain`]'s.
    pub fn summary(self) -> &'static str {
        crate::report::explain::of(self).summary
    }

    /// Parses `E1`, `w1`, ...
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL
            .into_iter()
            .find(|code| code.as_str().eq_ignore_ascii_case(text))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails at run time (static evidence).
    Error,
    /// Fails for some values of symbolic dims.
    Warning,
    /// A note.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// Identity of a node, for every output format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeSite {
    /// Graph path: `main`, `main/<node>/then_branch`, `function/<domain>/<name>`.
    pub graph: String,
    /// Index of the node in its graph.
    pub index: usize,
    /// The node's name (synthesized `<op>_<index>` when the file has none).
    pub name: String,
    /// What names the node across edits of the model, for [`Finding::fingerprint`]: its name
    /// from the file, or `<op_type>-><first output>` for an unnamed node (its synthesized
    /// name holds its index, which moves when nodes are inserted before it).
    #[serde(skip)]
    pub anchor: String,
    /// Operator type.
    pub op_type: String,
    /// Operator domain (`""` for the default domain).
    pub domain: String,
    /// Byte range of the `NodeProto` in the file (empty when unknown).
    #[serde(skip)]
    pub span: Range<usize>,
}

/// An input involved in a finding, with its inferred shape as printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputSite {
    /// Value name.
    pub name: String,
    /// Inferred shape.
    #[serde(skip)]
    pub shape: crate::shape::Shape,
    /// Its elements, for small 1-D values whose elements are known (an Expand target).
    pub value: Option<String>,
    /// The input slot of the node.
    #[serde(skip)]
    pub slot: usize,
    /// Whether this input is one of the offending ones (labelled in human output).
    #[serde(skip)]
    pub offending: bool,
    /// Where its offending dims come from (issue 17): one entry per dim a chain was found for.
    #[serde(skip)]
    pub provenance: Vec<crate::provenance::DimProvenance>,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Its code.
    pub code: Code,
    /// One sentence stating the fact, naming op and node.
    pub message: String,
    /// What would make it legal, and the likely fix.
    pub help: Option<String>,
    /// The node concerned (none for model-level findings).
    pub node: Option<NodeSite>,
    /// The inputs involved, with their shapes.
    pub inputs: Vec<InputSite>,
}

impl Finding {
    /// The severity, from the code.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// Sort key: graph order (graph path, node index), then code.
    pub(crate) fn sort_key(&self) -> (u8, String, usize, Code) {
        match &self.node {
            Some(node) => (
                u8::from(node.graph != "main"),
                node.graph.clone(),
                node.index,
                self.code,
            ),
            None => (0, String::new(), 0, self.code),
        }
    }
}

/// `error[E1]: <message>`, then `  help: <help>` on a second line when there is one: what a
/// caller of the library prints for a person (the command's renderers add the node listing).
impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}[{}]: {}",
            self.severity().as_str(),
            self.code,
            self.message
        )?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Code, Finding};

    #[test]
    fn a_finding_displays_as_a_person_reads_it() {
        let finding = Finding {
            code: Code::E1,
            message: "Add node `add`: inputs cannot broadcast: axis 1 is 3 vs 4".into(),
            help: Some("unsqueeze `b`".into()),
            node: None,
            inputs: Vec::new(),
        };
        assert_eq!(
            finding.to_string(),
            "error[E1]: Add node `add`: inputs cannot broadcast: axis 1 is 3 vs 4\n  help: unsqueeze `b`"
        );
        let warning = Finding {
            code: Code::W4,
            help: None,
            ..finding
        };
        assert_eq!(
            warning.to_string(),
            "warning[W4]: Add node `add`: inputs cannot broadcast: axis 1 is 3 vs 4"
        );
    }
}
