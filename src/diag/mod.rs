//! Findings: what the checks report, with everything the three output formats need (code,
//! severity, message, help, the node's identity and the inputs involved with their shapes), and
//! the facts the message states as data ([`Facts`]), from which message and help are rendered.

mod about;
pub(crate) mod bounded;
mod codes;
#[cfg(test)]
mod codes_tests;
mod declare;
pub(crate) mod explain;
mod facts;
pub(crate) mod omitted;
mod provenance;
mod render;
mod stated;

use std::ops::Range;

use serde::Serialize;

use crate::shape::Binding;
// Every code is declared once, in `codes.rs`.
pub(crate) use about::offending_axes;
pub use codes::Code;
pub use facts::{Facts, ImpliedAt, Mismatch, NodeName, Operand, SizeAt, SizeOrigin, Structure};
pub use omitted::Omitted;
pub use stated::StatedShape;
// Where an offending dim comes from: the data of `InputSite::provenance`.
pub use provenance::{Declared, DimProvenance, Source, SourceKind, Step};

impl Code {
    /// One line saying what the code means (SARIF `shortDescription`); the full texts are
    /// `onnx-bcast-lint --explain CODE`.
    pub fn summary(self) -> &'static str {
        self.explanation().summary
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
    pub const fn as_str(self) -> &'static str {
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
    /// Inferred shape, as the finding states it (`shape-dims`).
    #[serde(skip)]
    pub shape: StatedShape,
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
    pub provenance: Vec<DimProvenance>,
    /// Its dims that hang on a declared size (issue 38, item 4), one entry per dim.
    #[serde(skip)]
    pub declared: Vec<Declared>,
}

/// One finding. Its message and help are rendered from its [`Facts`] when it is made, so the
/// text and the data say the same.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// What the message states, as data.
    pub facts: Facts,
    /// Whether the finding may hang on `--initializers-as-constants` (its help says so).
    pub assumes_constant_initializers: bool,
}

impl Finding {
    /// A finding stating `facts` at `node`, with the inputs involved. Its shapes and lists of
    /// nodes are cut here, where it is made (`bounded.rs`): the checks give them whole.
    pub(crate) fn new(mut facts: Facts, node: Option<NodeSite>, inputs: Vec<InputSite>) -> Finding {
        bounded::shapes(&mut facts);
        bounded::node_lists(&mut facts);
        let mut finding = Finding {
            code: facts.code(),
            message: String::new(),
            help: None,
            node,
            inputs,
            facts,
            assumes_constant_initializers: false,
        };
        finding.render();
        // After the message, whose symbols a lone input is about; no text states input shapes.
        bounded::inputs(
            &mut finding.inputs,
            &finding.facts,
            finding.code,
            &finding.message,
        );
        finding
    }

    /// Writes code, message and help from the facts (after they change).
    fn render(&mut self) {
        self.code = self.facts.code();
        self.message = render::message(&self.facts, self.node.as_ref());
        let declared = self.declared_values();
        self.help = Some(render::help(
            &self.facts,
            self.node.as_ref(),
            self.assumes_constant_initializers,
            &declared,
        ));
    }

    /// Records that later nodes need the same condition as this W1 or W4 (reported once). All
    /// of them at once: the help names the nodes, and rendering it again for each one was
    /// quadratic (100k nodes sharing a condition ran past two minutes). The first
    /// `finding-nodes` are named, the others counted.
    pub(crate) fn also_needed_at(&mut self, nodes: impl IntoIterator<Item = NodeName>) {
        if let Facts::ConditionalBroadcast {
            also_at,
            also_at_left_out,
            ..
        }
        | Facts::ConditionalConstraint {
            also_at,
            also_at_left_out,
            ..
        } = &mut self.facts
        {
            if bounded::extend_nodes(also_at, also_at_left_out, nodes) {
                self.render();
            }
        }
    }

    /// Records that the sizes an E1 clash or an E4 constraint compares come from `binding`
    /// (`--dim`): the failure is this deployment's. Other findings are left as they are.
    pub(crate) fn bound_by(&mut self, binding: Binding) {
        match &mut self.facts {
            Facts::BroadcastClash { binding: bound, .. } => *bound = binding,
            Facts::ConstraintUnmet {
                binding: bound @ None,
                ..
            } => *bound = Some(binding),
            _ => return,
        }
        self.render();
    }

    /// The values whose declared sizes the finding hangs on, each once, in input order.
    fn declared_values(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for declared in self.inputs.iter().flat_map(|input| &input.declared) {
            if !names.contains(&declared.name.as_str()) {
                names.push(&declared.name);
            }
        }
        names
    }

    /// Records the declared sizes the finding's inputs hang on (filled in
    /// `InputSite::declared`), so its help names them.
    pub(crate) fn hangs_on_declarations(&mut self) {
        if self.inputs.iter().any(|input| !input.declared.is_empty()) {
            self.render();
        }
    }

    /// Records that the finding may hang on `--initializers-as-constants`.
    pub(crate) fn assume_constant_initializers(&mut self) {
        self.assumes_constant_initializers = true;
        self.render();
    }

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
    use super::{Code, Facts, Finding, NodeSite, Operand, SizeAt};
    use crate::shape::broadcast::ViolationKind;
    use crate::shape::{Dim, Rule, Shape};

    fn add_node() -> NodeSite {
        NodeSite {
            graph: "main".into(),
            index: 0,
            name: "add".into(),
            anchor: "add".into(),
            op_type: "Add".into(),
            domain: String::new(),
            span: 0..0,
        }
    }

    fn clash(fix: Option<&str>) -> Facts {
        Facts::BroadcastClash {
            rule: Rule::Multidirectional,
            violation: ViolationKind::SizeClash,
            axis: Some(1),
            sizes: vec![
                SizeAt::new("a".into(), 0, 1, Dim::Known(3)),
                SizeAt::new("b".into(), 1, 0, Dim::Known(4)),
            ],
            operands: vec![
                Operand::new("a".into(), Shape::from_known(&[2, 3]).into()),
                Operand::new("b".into(), Shape::from_known(&[4]).into()),
            ],
            target: None,
            fix: fix.map(str::to_owned),
            binding: crate::shape::Binding::new(),
        }
    }

    #[test]
    fn a_finding_displays_as_a_person_reads_it() {
        let finding = Finding::new(clash(Some("unsqueeze `b`")), Some(add_node()), Vec::new());
        assert_eq!(
            finding.to_string(),
            "error[E1]: Add node `add`: inputs cannot broadcast: axis 1 is 3 vs 4\n  help: \
             multidirectional (numpy) broadcasting: shapes align from the right and each pair of \
             sizes must be equal or contain a 1; unsqueeze `b`"
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

    #[test]
    fn message_and_help_follow_the_facts() {
        // Other sizes in the facts give other words: the text is rendered from them.
        let mut facts = clash(None);
        if let Facts::BroadcastClash { sizes, .. } = &mut facts {
            sizes[1].size = Dim::Known(7);
        }
        let finding = Finding::new(facts, Some(add_node()), Vec::new());
        assert_eq!(finding.code, Code::E1);
        assert!(
            finding.message.ends_with("axis 1 is 3 vs 7"),
            "{}",
            finding.message
        );
        assert!(!finding.help.unwrap().contains("unsqueeze"));
    }

    #[test]
    fn later_nodes_and_the_constants_assumption_are_rendered_into_help() {
        let facts = Facts::ConditionalBroadcast {
            rule: Rule::Multidirectional,
            operands: Vec::new(),
            condition: "seq ≤ 64".into(),
            counterexample: Some([("seq".to_owned(), 65)].into_iter().collect()),
            also_at: Vec::new(),
            also_at_left_out: 0,
            implied_at: Vec::new(),
            implied_at_left_out: 0,
            data_dependent: Vec::new(),
            data_dependent_left_out: 0,
            bindable: true,
        };
        let mut finding = Finding::new(facts, Some(add_node()), Vec::new());
        assert_eq!(finding.code, Code::W1);
        assert_eq!(
            finding.message,
            "Add node `add`: broadcasting is valid only if seq ≤ 64"
        );
        finding.also_needed_at([super::NodeName::new("Mul".into(), "mul".into())]);
        finding.assume_constant_initializers();
        let help = finding.help.as_deref().unwrap();
        assert!(help.contains("; it fails when seq=65;"), "{help}");
        assert!(
            help.contains("; the same condition is needed at Mul `mul`; assuming initializers"),
            "{help}"
        );
        let Facts::ConditionalBroadcast { also_at, .. } = &finding.facts else {
            panic!("facts changed kind");
        };
        assert_eq!(also_at.len(), 1);
    }

    #[test]
    fn a_binding_that_breaks_a_condition_is_stated_with_it() {
        let broken = Facts::BroadcastBroken {
            rule: Rule::Multidirectional,
            operands: Vec::new(),
            condition: "seq ≤ 64".into(),
            binding: [("seq".to_owned(), 65)].into_iter().collect(),
        };
        let finding = Finding::new(broken, Some(add_node()), Vec::new());
        assert_eq!(finding.code, Code::E1);
        assert_eq!(
            finding.message,
            "Add node `add`: inputs cannot broadcast when seq=65: it needs seq ≤ 64"
        );
        let unmet = Facts::ConstraintUnmet {
            constraint: "K must match".into(),
            found: "3 vs 4".into(),
            fix: None,
            condition: Some("k = 64".into()),
            binding: Some([("k".to_owned(), 3)].into_iter().collect()),
        };
        let finding = Finding::new(unmet, Some(add_node()), Vec::new());
        assert_eq!(finding.code, Code::E4);
        assert_eq!(
            finding.message,
            "Add node `add`: K must match, which fails when k=3: it needs k = 64"
        );
    }
}
