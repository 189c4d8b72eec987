//! The subgraph a finding's drawing shows, built from the report's data alone: the finding's
//! node, each of its inputs, and for each offending dim the producer chain its provenance holds
//! (the source value, the nodes that change the dim, a "…" box for the nodes that pass it on
//! unchanged). Every edge carries the value it stands for, with the value's shape where the
//! report knows it and the offending axis marked.
//!
//! The provenance lists only the nodes that change a dim and counts the rest (`nodes`); where
//! those others sit in the chain is not recorded. The "…" box goes where the data places it:
//! after the source when the last changing node makes the finding's input itself, else just
//! before the finding's node.

use crate::diag::{DimProvenance, Facts, Finding, InputSite, SourceKind};
use crate::lint::LintReport;
use crate::shape::Dim;

/// Boxes past this many are left out (and the drawing says so): a drawing is for a few dozen.
pub(super) const MAX_BOXES: usize = 60;

/// What a box stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// The finding's node.
    Finding,
    /// A node of a chain that changes the dim.
    Step,
    /// Where a chain starts (graph input, initializer, Constant), or an input without a chain.
    Source,
    /// Nodes the chain passes through unchanged.
    Elided,
}

/// One box of the drawing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Block {
    /// What it is.
    pub kind: Kind,
    /// First line: the op type, or what the value is (`graph input`).
    pub title: String,
    /// Second line: the node's or value's name.
    pub name: String,
    /// Third line, when there is one: the attributes that decide the dim.
    pub detail: Option<String>,
    /// What identifies it across chains (`step main/3`), so shared producers are drawn once.
    key: String,
}

/// The value an edge stands for, as its label prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Label {
    /// The value's name.
    pub value: String,
    /// Its dims, when its rank is known (`None` text for an unknown dim); `None` when only one
    /// axis is known (`axis`, `dim`) or the rank is unknown.
    pub dims: Option<Vec<String>>,
    /// The axes to mark, in increasing order.
    pub marked: Vec<usize>,
    /// For a value whose whole shape the report lacks: the one traced axis (`None` when not
    /// known either: past a "…" box) and its dim.
    pub axis_dim: Option<(Option<usize>, String)>,
}

/// One edge, from producer to consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Edge {
    /// Index of the producing box.
    pub from: usize,
    /// Index of the consuming box.
    pub to: usize,
    /// The value.
    pub label: Label,
    /// Whether the value is one of the finding's offending inputs or on their chains.
    pub offending: bool,
}

/// The boxes and edges of one finding's drawing; box 0 is the finding's node.
#[derive(Debug, Clone, Default)]
pub(super) struct Subgraph {
    /// The boxes.
    pub boxes: Vec<Block>,
    /// The edges.
    pub edges: Vec<Edge>,
    /// Whether boxes were left out past [`MAX_BOXES`].
    pub cut: bool,
}

impl Subgraph {
    /// The drawing of `finding`, or `None` for a finding without a node (model-level).
    pub(super) fn of(finding: &Finding, report: Option<&LintReport>) -> Option<Subgraph> {
        let node = finding.node.as_ref()?;
        let mut graph = Subgraph::default();
        graph.boxes.push(Block {
            kind: Kind::Finding,
            title: node.op_type.clone(),
            name: node.name.clone(),
            detail: None,
            key: format!("node {}/{}", node.graph, node.index),
        });
        for input in &finding.inputs {
            let marked = marked_axes(finding, input);
            let dims = input
                .shape
                .whole()
                .and_then(crate::shape::Shape::dims)
                .map(|dims| dims.iter().map(dim_text).collect());
            // A shape cut to `shape-dims` is drawn by its first marked axis, as a chain's value
            // whose shape the report lacks.
            let axis_dim = match (&dims, input.shape.rank()) {
                (None, Some(_)) => marked
                    .iter()
                    .find_map(|&axis| Some((Some(axis), dim_text(input.shape.dim(axis)?)))),
                _ => None,
            };
            let label = Label {
                value: input.name.clone(),
                dims,
                marked,
                axis_dim,
            };
            let offending = input.offending || !label.marked.is_empty();
            let chains: Vec<&DimProvenance> = input.provenance.iter().collect();
            if chains.is_empty() {
                let from = graph.add_box(Block {
                    kind: Kind::Source,
                    title: "value".to_owned(),
                    name: input.name.clone(),
                    detail: None,
                    key: format!("value {}", input.name),
                });
                if let Some(from) = from {
                    graph.add_edge(from, 0, label, offending);
                }
                continue;
            }
            for chain in chains {
                graph.add_chain(input, chain, &label, report);
            }
        }
        Some(graph)
    }

    fn add_box(&mut self, new: Block) -> Option<usize> {
        if let Some(found) = self.boxes.iter().position(|b| b.key == new.key) {
            return Some(found);
        }
        if self.boxes.len() >= MAX_BOXES {
            self.cut = true;
            return None;
        }
        self.boxes.push(new);
        Some(self.boxes.len() - 1)
    }

    /// Adds the edge, or marks more axes on the edge already there for the same value.
    fn add_edge(&mut self, from: usize, to: usize, label: Label, offending: bool) {
        let same = self
            .edges
            .iter_mut()
            .find(|e| e.from == from && e.to == to && e.label.value == label.value);
        match same {
            Some(edge) => {
                for axis in label.marked {
                    if !edge.label.marked.contains(&axis) {
                        edge.label.marked.push(axis);
                    }
                }
                edge.label.marked.sort_unstable();
                edge.offending |= offending;
            }
            None => self.edges.push(Edge {
                from,
                to,
                label,
                offending,
            }),
        }
    }

    /// One dim's chain: source, the nodes that change it, the finding's input into box 0.
    fn add_chain(
        &mut self,
        input: &InputSite,
        chain: &DimProvenance,
        input_label: &Label,
        report: Option<&LintReport>,
    ) {
        let source = &chain.source;
        let what = match source.kind {
            SourceKind::GraphInput => "graph input",
            SourceKind::Initializer => "initializer",
            SourceKind::Constant => "Constant",
        };
        let Some(mut at) = self.add_box(Block {
            kind: Kind::Source,
            title: what.to_owned(),
            name: source.name.clone(),
            detail: None,
            key: format!("source {}/{}", source.graph, source.name),
        }) else {
            return;
        };
        // The value leaving `at`, with the axis its chain follows.
        let mut value = (
            source.graph.as_str(),
            source.name.as_str(),
            source.axis,
            &source.dim,
        );
        let skipped = chain.nodes.saturating_sub(chain.steps.len());
        let last_makes_input = chain.steps.last().is_some_and(|s| s.output == input.name);
        let trivial = chain.steps.is_empty() && source.name == input.name;
        // Past a "…" box the value's name is not known, only that the dim is passed on.
        let mut past_dots = false;
        if skipped > 0 && last_makes_input {
            at = self.elide(at, skipped, value, report);
            past_dots = true;
        }
        for step in &chain.steps {
            let attributes = step.attributes_text();
            let Some(next) = self.add_box(Block {
                kind: Kind::Step,
                title: step.op_type.clone(),
                name: step.name.clone(),
                detail: (!attributes.is_empty()).then_some(attributes),
                key: format!("step {}/{}", step.graph, step.index),
            }) else {
                return;
            };
            let label = if std::mem::take(&mut past_dots) {
                dots_label(value.3)
            } else {
                value_label(value, report)
            };
            self.add_edge(at, next, label, true);
            at = next;
            value = (
                step.graph.as_str(),
                step.output.as_str(),
                step.axis,
                &step.dim,
            );
        }
        if skipped > 0 && !last_makes_input && !trivial {
            at = self.elide(at, skipped, value, report);
        }
        let mut label = input_label.clone();
        label.marked = marked_with(&label.marked, chain.axis);
        self.add_edge(at, 0, label, true);
    }

    /// A "…" box after `at` for `skipped` nodes, fed by `value`; returns it (or `at` when the
    /// drawing is full).
    fn elide(
        &mut self,
        at: usize,
        skipped: usize,
        value: (&str, &str, usize, &Dim),
        report: Option<&LintReport>,
    ) -> usize {
        let plural = if skipped == 1 { "node" } else { "nodes" };
        let Some(dots) = self.add_box(Block {
            kind: Kind::Elided,
            title: "…".to_owned(),
            name: format!("{skipped} {plural}"),
            detail: None,
            key: format!("elided {}/{}/{at}", value.0, value.1),
        }) else {
            return at;
        };
        self.add_edge(at, dots, value_label(value, report), true);
        dots
    }
}

/// The label of the edge leaving a "…" box: only the dim it carries is known.
fn dots_label(dim: &Dim) -> Label {
    Label {
        value: "…".to_owned(),
        dims: None,
        marked: Vec::new(),
        axis_dim: Some((None, dim_text(dim))),
    }
}

/// The label of a chain's value: its whole shape from the report when it has it, else the one
/// traced axis.
fn value_label(
    (graph, name, axis, dim): (&str, &str, usize, &Dim),
    report: Option<&LintReport>,
) -> Label {
    let dims = report
        .and_then(|r| r.shape_in(graph, name))
        .and_then(|shape| shape.dims())
        .filter(|dims| dims.len() > axis)
        .map(|dims| dims.iter().map(dim_text).collect::<Vec<_>>());
    let axis_dim = dims.is_none().then(|| (Some(axis), dim_text(dim)));
    Label {
        value: name.to_owned(),
        dims,
        marked: vec![axis],
        axis_dim,
    }
}

fn marked_with(marked: &[usize], axis: usize) -> Vec<usize> {
    let mut all = marked.to_vec();
    if !all.contains(&axis) {
        all.push(axis);
    }
    all.sort_unstable();
    all
}

/// The input's offending axes: those its provenance traces and those a clash names.
fn marked_axes(finding: &Finding, input: &InputSite) -> Vec<usize> {
    let mut axes: Vec<usize> = input.provenance.iter().map(|p| p.axis).collect();
    if let Facts::BroadcastClash { sizes, .. } = &finding.facts {
        axes.extend(
            sizes
                .iter()
                .filter(|s| s.input == input.name)
                .map(|s| s.axis),
        );
    }
    axes.sort_unstable();
    axes.dedup();
    axes
}

/// A dim as the JSON prints it, `?` for an unknown one.
pub(super) fn dim_text(dim: &Dim) -> String {
    match dim {
        Dim::Unknown => "?".to_owned(),
        dim => dim.to_string(),
    }
}
