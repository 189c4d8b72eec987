//! A provenance as a person reads it, for the notes under a human report and SARIF messages:
//! "`min(seq, 64)` (axis 0 of `positions`) is axis 0 of initializer `position_embeddings.weight`
//! (64) through Slice `/embeddings/Slice` (starts = [0], ends = [seq])".

use std::fmt::Write as _;

use super::{Declared, DimProvenance, Source, SourceKind, Step};

impl DimProvenance {
    /// Whether the chain says nothing a reader does not see: the input is itself the source
    /// (a graph input or initializer used directly). Human and SARIF output leave it out.
    pub fn is_trivial(&self, input: &str) -> bool {
        self.nodes == 0 && self.source.name == input
    }

    /// The sentence for this dim of the input called `input`. Runs of nodes of one operator
    /// are told together, their attributes listed in order: `3 Conv (strides = [5], [2], [2])`.
    pub fn note(&self, input: &str) -> String {
        let mut text = format!(
            "{} (axis {} of `{input}`) is {}",
            self.dim,
            self.axis,
            self.source.describe()
        );
        if self.source.dim != self.dim {
            let _ = write!(text, " ({})", self.source.dim);
        }
        let mut rest: &[Step] = &self.steps;
        let mut first = true;
        while let Some(head) = rest.first() {
            let run = rest
                .iter()
                .take_while(|s| s.op_type == head.op_type)
                .count()
                .max(1);
            let (group, tail) = rest.split_at(run.min(rest.len()));
            text.push_str(if first { " through " } else { ", " });
            first = false;
            text.push_str(&match group {
                [one] => one.describe(),
                _ => describe_run(group),
            });
            rest = tail;
        }
        text
    }
}

impl Declared {
    /// The sentence for this dim of the input called `input`: which declaration it rests on,
    /// and why that matters (issue 38, item 4: a declaration is an assumption, W2 says they
    /// can be wrong).
    pub fn note(&self, input: &str) -> String {
        format!(
            "{} (axis {} of `{input}`) assumes the size {} declared for `{}` (axis {}, graph `{}`): \
             inference could not compute it, and a declaration can be wrong",
            self.dim, self.axis, self.declared_dim, self.name, self.declared_axis, self.graph
        )
    }
}

/// `3 Conv (kernel_shape = [5], [2], [2]; strides = [5], [2], [2])`, or `4 Conv (strides =
/// [2, 2] each)` when the nodes agree.
fn describe_run(run: &[Step]) -> String {
    let op = run.first().map_or("", |s| s.op_type.as_str());
    let mut names: Vec<&str> = Vec::new();
    for step in run {
        for (name, _) in &step.attributes {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let columns: Vec<String> = names
        .iter()
        .map(|name| {
            let values: Vec<&str> = run
                .iter()
                .map(|s| {
                    s.attributes
                        .iter()
                        .find(|(n, _)| n == name)
                        .map_or("-", |(_, v)| v.as_str())
                })
                .collect();
            if values.windows(2).all(|w| w.first() == w.get(1)) {
                format!("{name} = {} each", values.first().copied().unwrap_or("-"))
            } else {
                format!("{name} = {}", values.join(", "))
            }
        })
        .collect();
    if columns.is_empty() {
        format!("{} {op}", run.len())
    } else {
        format!("{} {op} ({})", run.len(), columns.join("; "))
    }
}

impl Source {
    /// "axis 1 of graph input `input_ids`", "axis 0 of initializer `w`".
    pub fn describe(&self) -> String {
        let what = match self.kind {
            SourceKind::GraphInput if self.graph == "main" => "graph input",
            SourceKind::GraphInput => "input",
            SourceKind::Initializer => "initializer",
            SourceKind::Constant => "Constant",
        };
        let mut text = format!("axis {} of {what} `{}`", self.axis, self.name);
        if self.graph != "main" {
            let _ = write!(text, " of graph `{}`", self.graph);
        }
        text
    }
}

impl Step {
    /// `Conv `c1` (kernel_shape = [2], strides = [2])`.
    pub fn describe(&self) -> String {
        let mut text = format!("{} `{}`", self.op_type, self.name);
        if !self.attributes.is_empty() {
            let _ = write!(text, " ({})", self.attributes_text());
        }
        text
    }

    /// `kernel_shape = [2], strides = [2]`: what decides the dim, empty when nothing does.
    pub fn attributes_text(&self) -> String {
        let shown: Vec<String> = self
            .attributes
            .iter()
            .map(|(name, value)| format!("{name} = {value}"))
            .collect();
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use crate::provenance::{DimProvenance, Source, SourceKind, Step};
    use crate::shape::Dim;

    #[test]
    fn a_sliced_table_row_count_names_the_initializer_and_the_slice() {
        let seq = Dim::sym("seq");
        let provenance = DimProvenance {
            axis: 0,
            dim: seq.min(&Dim::known(64)),
            source: Source {
                kind: SourceKind::Initializer,
                graph: "main".into(),
                name: "position_embeddings.weight".into(),
                axis: 0,
                dim: Dim::known(64),
            },
            steps: vec![Step {
                graph: "main".into(),
                index: 2,
                name: "/embeddings/Slice".into(),
                op_type: "Slice".into(),
                attributes: vec![("ends".into(), "[seq]".into())],
                output: "positions".into(),
                axis: 0,
                dim: seq.min(&Dim::known(64)),
                span: 0..0,
            }],
            nodes: 1,
        };
        assert_eq!(
            provenance.note("positions"),
            "min(seq, 64) (axis 0 of `positions`) is axis 0 of initializer \
             `position_embeddings.weight` (64) through Slice `/embeddings/Slice` (ends = [seq])"
        );
    }

    #[test]
    fn an_input_of_a_subgraph_names_its_graph() {
        let source = Source {
            kind: SourceKind::GraphInput,
            graph: "main/If_0/then_branch".into(),
            name: "x".into(),
            axis: 2,
            dim: Dim::sym("n"),
        };
        assert_eq!(
            source.describe(),
            "axis 2 of input `x` of graph `main/If_0/then_branch`"
        );
    }
}
