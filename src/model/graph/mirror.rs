//! The inference thread's end of the pipeline (`pipe.rs`): a mirror of the main graph grown
//! chunk by chunk, whose values carry from the start the types the graph's `value_info` and
//! outputs will declare (the builder sets them only after the nodes), and whose names read as
//! the builder's.

use std::collections::HashMap;

use super::super::names::NameIndex;
use super::super::text::{Text, Texts};
use super::super::{DeclaredCounts, Graph, GraphId, Model, Node, Origin, Value};
use super::pipe::{mirror_texts, Drain, Handoff, Prefix, Returned};
use crate::proto::{TypeProto, ValueInfoProto};

/// What a name's declarations are: the first `value_info` entry with a type, the first and the
/// last graph output with a type (indices).
#[derive(Default, Clone, Copy)]
struct Declaring {
    info: Option<usize>,
    first_output: Option<usize>,
    last_output: Option<usize>,
}

/// The main graph as far as it was handed over.
pub(crate) struct Mirror {
    model: Model,
    drain: Drain,
    /// Every chunk handed over, to be given back.
    chunks: Vec<Vec<Node>>,
    value_info: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    declaring: HashMap<Box<[u8]>, Declaring, foldhash::fast::RandomState>,
    /// Whether some declared name has each length (up to 255; longer ones share the last):
    /// most values declare nothing, and their names are then not read.
    lengths: [bool; 256],
}

/// What the builder handed over next.
pub(crate) enum Next {
    /// A chunk, now [`Mirror::last_chunk`].
    Chunk,
    /// The graph is built: every node was handed over.
    Finish,
    /// The pipeline ended early: the facts so far are to be dropped.
    Stop,
}

impl Drain {
    /// The mirror of the main graph once the builder starts the pipeline; `None` if it builds
    /// without one.
    pub(crate) fn start(self) -> Option<Mirror> {
        match self.rx.recv() {
            Ok(Handoff::Start(prefix)) => Some(Mirror::new(*prefix, self)),
            Ok(Handoff::Chunk(_) | Handoff::Finish) | Err(_) => None,
        }
    }
}

/// The length slot of a name in [`Mirror::lengths`].
fn length_slot(len: usize) -> usize {
    len.min(255)
}

impl Mirror {
    fn new(prefix: Prefix, drain: Drain) -> Mirror {
        let Prefix {
            ir_version,
            file,
            own,
            values,
            inputs,
            initializers,
            value_info,
            outputs,
        } = prefix;
        let mut declaring: HashMap<Box<[u8]>, Declaring, _> = HashMap::default();
        let mut lengths = [false; 256];
        let mut note = |name: &Option<String>, set: &dyn Fn(&mut Declaring)| {
            let name = name.as_deref().unwrap_or_default();
            if let Some(slot) = lengths.get_mut(length_slot(name.len())) {
                *slot = true;
            }
            set(declaring.entry(name.as_bytes().into()).or_default());
        };
        for (index, info) in value_info.iter().enumerate() {
            if info.r#type.is_some() {
                note(&info.name, &|declared| {
                    declared.info.get_or_insert(index);
                });
            }
        }
        for (index, output) in outputs.iter().enumerate() {
            if output.r#type.is_some() {
                note(&output.name, &|declared| {
                    declared.first_output.get_or_insert(index);
                    declared.last_output = Some(index);
                });
            }
        }
        let graph = Graph {
            id: GraphId(0),
            path: "main".to_owned(),
            parent: None,
            owner: None,
            nodes: Vec::new(),
            values: Vec::with_capacity(values.len()),
            by_name: NameIndex::default(),
            texts: mirror_texts(file, &own),
            inputs,
            outputs: Vec::new(),
            initializers,
            counts: DeclaredCounts::default(),
            order: Vec::new(),
        };
        let mut mirror = Mirror {
            model: Model {
                ir_version,
                graphs: vec![graph],
                functions: Vec::new(),
                problems: Vec::new(),
            },
            drain,
            chunks: Vec::new(),
            value_info,
            outputs,
            declaring,
            lengths,
        };
        mirror.add_values(values);
        mirror
    }

    /// The model the mirror is: its main graph as far as it was handed over.
    pub(crate) fn model(&self) -> &Model {
        &self.model
    }

    /// The chunk handed over last.
    pub(crate) fn last_chunk(&self) -> &[Node] {
        self.chunks.last().map_or(&[], Vec::as_slice)
    }

    /// Waits for what the builder hands over next.
    pub(crate) fn next(&mut self) -> Next {
        match self.drain.rx.recv() {
            Ok(Handoff::Chunk(sealed)) => {
                if let Some(graph) = self.model.graphs.first_mut() {
                    graph.texts.push_own(&sealed.own);
                }
                self.add_values(sealed.values);
                self.chunks.push(sealed.nodes);
                Next::Chunk
            }
            Ok(Handoff::Finish) => Next::Finish,
            Ok(Handoff::Start(_)) | Err(_) => Next::Stop,
        }
    }

    /// Gives back to the builder every node and what it lent.
    pub(crate) fn give_back(self) {
        let Mirror {
            mut model,
            drain,
            chunks,
            value_info,
            outputs,
            ..
        } = self;
        let initializers = model
            .graphs
            .first_mut()
            .map(|graph| std::mem::take(&mut graph.initializers))
            .unwrap_or_default();
        // The builder waits for this answer; if it is gone, so is the need.
        let _ = drain.back.send(Returned {
            nodes: chunks,
            initializers,
            value_info,
            outputs,
        });
    }

    /// Adds values, with the types the graph will declare for them.
    fn add_values(&mut self, values: Vec<Value>) {
        let Some(graph) = self.model.graphs.first_mut() else {
            return;
        };
        let (value_info, outputs) = (&self.value_info, &self.outputs);
        let taken = |index: Option<usize>, list: &[ValueInfoProto]| -> Option<Box<TypeProto>> {
            let declared = list.get(index?)?.r#type.clone()?;
            Some(Box::new(declared))
        };
        graph.values.reserve(values.len());
        for mut value in values {
            let declaring = declaring_of(&self.declaring, &self.lengths, &graph.texts, value.name);
            let info = || taken(declaring.info, value_info);
            let first_output = || taken(declaring.first_output, outputs);
            // As `declare_value_info` then `declare_outputs` set them: a value_info entry
            // types a value with no type yet, an output types a node's output over it and
            // any other value only if it has none.
            value.declared = match value.origin {
                Origin::Initializer | Origin::SparseInitializer => value.declared,
                Origin::Node { .. } => {
                    taken(declaring.last_output, outputs).or_else(|| value.declared.or_else(info))
                }
                Origin::Input
                | Origin::Constant { .. }
                | Origin::Outer { .. }
                | Origin::Undefined => value.declared.or_else(info).or_else(first_output),
            };
            graph.values.push(value);
        }
    }
}

/// The declarations of the value called `name`.
fn declaring_of(
    declaring: &HashMap<Box<[u8]>, Declaring, foldhash::fast::RandomState>,
    lengths: &[bool; 256],
    texts: &Texts,
    name: Text,
) -> Declaring {
    let declared_length = lengths
        .get(length_slot(Texts::len_of(name)))
        .copied()
        .unwrap_or(false);
    if !declared_length {
        return Declaring::default();
    }
    declaring
        .get(texts.bytes(name))
        .copied()
        .unwrap_or_default()
}
