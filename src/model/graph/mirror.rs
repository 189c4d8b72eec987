//! The inference thread's end of the pipeline (`pipe.rs`): a mirror of the main graph whose
//! values are those before its nodes (inputs, initializers), whose names read as the
//! builder's, and which holds one chunk of nodes at a time, giving each back once it is
//! inferred. The values the nodes define are not copied: only the types the graph's
//! `value_info` and outputs will declare for them (the builder sets those after the nodes) are
//! kept, in [`LateDeclared`], since they are all inference reads of such a value.

use std::collections::HashMap;

use super::super::names::NameIndex;
use super::super::text::{Text, Texts};
use super::super::{DeclaredCounts, Graph, GraphId, Model, Node, Origin, Value, ValueId};
use super::pipe::{mirror_texts, Back, Drain, Handoff, Prefix, Returned};
use crate::proto::{TypeProto, ValueInfoProto};

/// What a name's declarations are: the first `value_info` entry with a type, the first and the
/// last graph output with a type (indices).
#[derive(Default, Clone, Copy)]
struct Declaring {
    info: Option<usize>,
    first_output: Option<usize>,
    last_output: Option<usize>,
}

/// The types declared for the values the main graph's nodes define, by value, in value order:
/// the mirror's graph holds only the values before the nodes, and most node outputs declare
/// nothing (a million-node graph's value table is 48 MB, its declarations a few entries).
#[derive(Default)]
pub(crate) struct LateDeclared {
    /// Sorted by value: values are handed over in order.
    types: Vec<(ValueId, Box<TypeProto>)>,
    /// Values the graph holds so far, the mirror's own and those handed over.
    count: usize,
}

impl LateDeclared {
    /// The type declared for `value`, a value some node defines.
    pub(crate) fn get(&self, value: ValueId) -> Option<&TypeProto> {
        if self.types.is_empty() {
            return None;
        }
        let at = self
            .types
            .binary_search_by_key(&value, |(id, _)| *id)
            .ok()?;
        self.types.get(at).map(|(_, declared)| &**declared)
    }

    /// How many values the graph holds so far: the ids below it are defined.
    pub(crate) fn count(&self) -> usize {
        self.count
    }
}

/// The type declared for `value` of `graph`: the graph's own, or `late`'s for a value the
/// graph does not hold (a mirror's node output).
pub(crate) fn declared_of<'a>(
    graph: &'a Graph,
    late: Option<&'a LateDeclared>,
    value: ValueId,
) -> Option<&'a TypeProto> {
    match graph.value(value) {
        Some(held) => held.declared.as_deref(),
        None => late?.get(value),
    }
}

/// The main graph as far as it was handed over.
pub(crate) struct Mirror {
    model: Model,
    drain: Drain,
    /// The chunk handed over last, given back before the next is taken.
    chunk: Vec<Node>,
    /// The declarations of the values handed over after the mirror's graph was made.
    late: LateDeclared,
    /// Values the graph is expected to hold once built (the builder's estimate), for the
    /// inference facts to be made at their size once.
    expected_values: usize,
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
            expected_values,
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
            chunk: Vec::new(),
            late: LateDeclared::default(),
            expected_values,
            value_info,
            outputs,
            declaring,
            lengths,
        };
        mirror.add_values(values, true);
        mirror
    }

    /// The model the mirror is: its main graph as far as it was handed over.
    pub(crate) fn model(&self) -> &Model {
        &self.model
    }

    /// The chunk handed over last.
    pub(crate) fn last_chunk(&self) -> &[Node] {
        &self.chunk
    }

    /// The declarations of the values the nodes handed over define.
    pub(crate) fn late(&self) -> &LateDeclared {
        &self.late
    }

    /// Values the graph is expected to hold once built.
    pub(crate) fn expected_values(&self) -> usize {
        self.expected_values
    }

    /// Gives back the chunk handed over last, then waits for what the builder hands over
    /// next.
    pub(crate) fn next(&mut self) -> Next {
        self.give_chunk_back();
        match self.drain.rx.recv() {
            Ok(Handoff::Chunk(sealed)) => {
                if let Some(graph) = self.model.graphs.first_mut() {
                    graph.texts.push_own(&sealed.own);
                }
                self.add_values(sealed.values, false);
                self.chunk = sealed.nodes;
                Next::Chunk
            }
            Ok(Handoff::Finish) => Next::Finish,
            Ok(Handoff::Start(_)) | Err(_) => Next::Stop,
        }
    }

    /// Gives the chunk inferred last back to the builder, which holds the graph's nodes.
    fn give_chunk_back(&mut self) {
        let chunk = std::mem::take(&mut self.chunk);
        if !chunk.is_empty() {
            // The builder waits for the last answer only; if it is gone, so is the need.
            let _ = self.drain.back.send(Back::Chunk(chunk));
        }
    }

    /// Gives back to the builder the last chunk and what it lent.
    pub(crate) fn give_back(mut self) {
        self.give_chunk_back();
        let Mirror {
            mut model,
            drain,
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
        let _ = drain.back.send(Back::Done(Returned {
            initializers,
            value_info,
            outputs,
        }));
    }

    /// Adds values with the types the graph will declare for them: into the graph if `held`
    /// (those before the nodes), else only their declarations into [`Mirror::late`].
    fn add_values(&mut self, values: Vec<Value>, held: bool) {
        let Some(graph) = self.model.graphs.first_mut() else {
            return;
        };
        let (value_info, outputs) = (&self.value_info, &self.outputs);
        let taken = |index: Option<usize>, list: &[ValueInfoProto]| -> Option<Box<TypeProto>> {
            let declared = list.get(index?)?.r#type.clone()?;
            Some(Box::new(declared))
        };
        if held {
            graph.values.reserve(values.len());
        }
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
            let id = ValueId(u32::try_from(self.late.count).unwrap_or(u32::MAX));
            self.late.count += 1;
            if held {
                graph.values.push(value);
            } else if let Some(declared) = value.declared {
                self.late.types.push((id, declared));
            }
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
