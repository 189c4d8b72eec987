//! The builder's end of the inference pipeline (issue 34, `docs/design/overlap.md`): the main
//! graph's nodes handed over in sealed chunks, once nothing can change them any more, to an
//! inference thread that runs them in file order while the builder goes on, and given back one
//! by one once inferred, into the graph's node list; or, at the first thing that could still
//! change a sealed node, the nodes taken back and the graph built as without a pipeline (the
//! inference thread's facts are then dropped).

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::time::Instant;

use bytes::Bytes;

use super::super::text::Texts;
use super::super::{Initializer, Node, Value, ValueId};
use super::inputs::BuiltNodes;
use super::table::Table;
use super::{Builder, INDEX_BATCH};
use crate::proto::ValueInfoProto;

/// Chunks in flight between the builder and the inference thread: with the one being inferred
/// and the one being built, at most four batches of nodes exist outside the graph, whatever its
/// size.
const DEPTH: usize = 2;

/// Nodes from which a main graph is pipelined when no batch size is forced: a smaller graph
/// fits in one or two batches, so inference would wait for the whole build anyway.
const PIPELINE_FROM_NODES: usize = 2 * INDEX_BATCH;

/// What the builder hands to the inference thread.
pub(super) enum Handoff {
    /// The main graph's values before its nodes (inputs, initializers) and what declares the
    /// values its nodes will define.
    Start(Box<Prefix>),
    /// The next nodes in file order, final, and the values defined since the last chunk.
    Chunk(Sealed),
    /// The graph is built and every node was handed over.
    Finish,
}

/// The main graph before its nodes.
pub(super) struct Prefix {
    pub(super) ir_version: i64,
    pub(super) file: Option<Bytes>,
    /// The graph's own name buffer so far ([`Texts::own_since`]).
    pub(super) own: String,
    pub(super) values: Vec<Value>,
    /// Values the graph is expected to hold once built (the builder's table estimate).
    pub(super) expected_values: usize,
    pub(super) inputs: Vec<ValueId>,
    /// Lent, given back in [`Returned`].
    pub(super) initializers: Vec<Initializer>,
    pub(super) value_info: Vec<ValueInfoProto>,
    pub(super) outputs: Vec<ValueInfoProto>,
}

/// A sealed chunk: nodes whose slots no later step of the build changes.
pub(super) struct Sealed {
    pub(super) nodes: Vec<Node>,
    /// The values defined since the last chunk, in value order.
    pub(super) values: Vec<Value>,
    /// The names added to the own buffer since the last chunk.
    pub(super) own: String,
}

/// What the inference thread gives back, in order.
pub(super) enum Back {
    /// A chunk handed over, inferred.
    Chunk(Vec<Node>),
    /// The last answer: the pipeline ended (every chunk was given back before it).
    Done(Returned),
}

/// What [`Prefix`] lent, given back when the pipeline ends.
pub(super) struct Returned {
    pub(super) initializers: Vec<Initializer>,
    pub(super) value_info: Vec<ValueInfoProto>,
    pub(super) outputs: Vec<ValueInfoProto>,
}

/// The builder's end of a pipeline ([`pipe`]).
pub(crate) struct Feed {
    tx: SyncSender<Handoff>,
    back: Receiver<Back>,
    /// Nodes per sealed chunk when forced (tests); `None` seals every [`INDEX_BATCH`] outputs
    /// of a graph of [`PIPELINE_FROM_NODES`] nodes or more.
    forced_batch: Option<usize>,
}

/// The inference thread's end of a pipeline ([`pipe`]).
pub(crate) struct Drain {
    pub(super) rx: Receiver<Handoff>,
    pub(super) back: Sender<Back>,
}

/// Both ends of a pipeline; `forced_batch` pipelines a graph of any size, sealing a chunk every
/// that many nodes (the fixtures are small).
pub(crate) fn pipe(forced_batch: Option<usize>) -> (Feed, Drain) {
    let (tx, rx) = sync_channel(DEPTH);
    let (back_tx, back) = channel();
    let feed = Feed {
        tx,
        back,
        forced_batch: forced_batch.map(|batch| batch.max(1)),
    };
    (feed, Drain { rx, back: back_tx })
}

/// A pipeline under way in the builder.
pub(super) struct Piping {
    feed: Feed,
    /// Values handed over so far (the prefix's and the sealed chunks').
    values_sent: usize,
    /// Bytes of the own name buffer handed over so far.
    own_sent: usize,
    /// A name was defined twice since the pipeline started: the builder renumbers slots after
    /// the fact, which a pipeline does not follow.
    spoiled: bool,
    /// The chunks given back so far, in order, in a list made at the graph's size: the graph's
    /// first nodes once the pipeline ends, so the node list is never copied whole (issue 34).
    done: Vec<Node>,
    /// Nodes the graph has ([`Builder::start_pipeline`]'s count).
    node_count: usize,
    /// The inference thread's last answer, if it came while chunks were taken as they came.
    ended: Option<Returned>,
}

/// What the builder keeps of a pipeline: the feed before it starts, then the pipeline.
#[derive(Default)]
pub(super) enum Pipeline {
    /// No pipeline, or one that ended.
    #[default]
    None,
    Ready(Feed),
    Running(Piping),
}

impl Pipeline {
    /// Nodes per decoded chunk and per indexed batch: smaller when a test forces them.
    pub(super) fn batch(&self) -> Option<usize> {
        match self {
            Pipeline::Ready(feed) => feed.forced_batch,
            Pipeline::Running(piping) => piping.feed.forced_batch,
            Pipeline::None => None,
        }
    }

    /// Marks the pipeline spoiled by a name defined twice.
    pub(super) fn spoil(&mut self) {
        if let Pipeline::Running(piping) = self {
            piping.spoiled = true;
        }
    }
}

/// A copy of a value for the inference thread's mirror of the graph.
fn copy_value(value: &Value) -> Value {
    Value {
        name: value.name,
        origin: value.origin,
        declared: value.declared.clone(),
        initializer: value.initializer,
    }
}

/// Whether every input of `nodes` is written by an earlier node (or is no node's output): the
/// file order is then their order ([`Builder::finish`]'s test, chunk by chunk).
fn forward(nodes: &[Node], table: &Table) -> bool {
    nodes.iter().all(|node| {
        node.inputs().iter().flatten().all(|value| {
            table
                .values
                .get(value.0 as usize)
                .and_then(Value::producer)
                .is_none_or(|producer| producer < node.index())
        })
    })
}

/// Whether `node` is one of onnxruntime's blocked-layout ops, whose rules need the model's
/// block size, known only once every node is built.
fn blocked(node: &Node) -> bool {
    node.domain().as_str() == "com.microsoft.nchwc"
}

impl Builder<'_> {
    /// Starts the pipeline of the main graph, if one is ready and the graph is worth it,
    /// lending the inference thread its initializers and declarations until the nodes are
    /// built.
    pub(super) fn start_pipeline(
        &mut self,
        table: &Table,
        inputs: &[ValueId],
        node_count: usize,
        lent: (
            &mut Vec<Initializer>,
            &mut Vec<ValueInfoProto>,
            &mut Vec<ValueInfoProto>,
        ),
    ) {
        let Pipeline::Ready(feed) = std::mem::take(&mut self.pipeline) else {
            return;
        };
        if feed.forced_batch.is_none() && node_count < PIPELINE_FROM_NODES {
            return;
        }
        let (initializers, value_info, outputs) = lent;
        let prefix = Prefix {
            ir_version: self.ir_version,
            file: self.file.clone(),
            own: table.texts.own_since(0).to_owned(),
            values: table.values.iter().map(copy_value).collect(),
            expected_values: table.values.capacity(),
            inputs: inputs.to_vec(),
            initializers: std::mem::take(initializers),
            value_info: std::mem::take(value_info),
            outputs: std::mem::take(outputs),
        };
        let piping = Piping {
            values_sent: table.values.len(),
            own_sent: table.texts.own_len(),
            spoiled: false,
            done: Vec::new(),
            node_count,
            ended: None,
            feed,
        };
        match piping.feed.tx.send(Handoff::Start(Box::new(prefix))) {
            Ok(()) => self.pipeline = Pipeline::Running(piping),
            // The inference thread is gone: take back what was lent and build as without.
            Err(error) => {
                if let Handoff::Start(prefix) = error.0 {
                    self.lent = Some(Returned {
                        initializers: prefix.initializers,
                        value_info: prefix.value_info,
                        outputs: prefix.outputs,
                    });
                }
            }
        }
    }

    /// Hands the nodes built so far to the inference thread if nothing can change them any
    /// more; otherwise ends the pipeline ([`Builder::fall_back`]). `last`: the graph's nodes
    /// are all built and indexed; the inference thread is then waited for and everything it
    /// was given is taken back.
    pub(super) fn seal(&mut self, built: &mut BuiltNodes<'_>, table: &Table, last: bool) {
        let Pipeline::Running(piping) = &mut self.pipeline else {
            return;
        };
        // Unresolved inputs are resolved at the end, when they may be a later node's output;
        // bodies need the other graphs; a renumbered name may reach into a sealed chunk; the
        // nchwc block size is a fact of the whole model, read before inference starts
        // (`ops/contrib/nchwc_block.rs`).
        let final_nodes = !piping.spoiled
            && built.unresolved.is_empty()
            && built.deferred.is_empty()
            && built.pending.is_empty()
            && forward(&built.nodes, table)
            && !built.nodes.iter().any(blocked);
        if !final_nodes {
            return self.fall_back(built);
        }
        if !built.nodes.is_empty() {
            let values = table
                .values
                .get(piping.values_sent..)
                .unwrap_or_default()
                .iter()
                .map(copy_value)
                .collect();
            let own = table.texts.own_since(piping.own_sent).to_owned();
            // The next chunk is about as long as this one.
            let capacity = built.nodes.len();
            let sealed = Sealed {
                nodes: std::mem::replace(&mut built.nodes, Vec::with_capacity(capacity)),
                values,
                own,
            };
            let count = sealed.nodes.len();
            if let Err(error) = piping.feed.tx.send(Handoff::Chunk(sealed)) {
                if let Handoff::Chunk(sealed) = error.0 {
                    built.nodes = sealed.nodes;
                }
                return self.fall_back(built);
            }
            built.sealed += count;
            piping.values_sent = table.values.len();
            piping.own_sent = table.texts.own_len();
            // Taken as they come, so that at most the chunks in flight are outside the list.
            while piping.ended.is_none() {
                match piping.feed.back.try_recv() {
                    Ok(Back::Chunk(chunk)) => piping.take_chunk(chunk),
                    Ok(Back::Done(returned)) => piping.ended = Some(returned),
                    Err(_) => break,
                }
            }
        }
        if last {
            if piping.feed.tx.send(Handoff::Finish).is_err() {
                return self.fall_back(built);
            }
            self.take_back(built, true);
        }
    }

    /// Ends the pipeline: the inference thread stops (its facts are dropped) and gives back
    /// the nodes, which the build goes on with as without a pipeline.
    pub(super) fn fall_back(&mut self, built: &mut BuiltNodes<'_>) {
        self.take_back(built, false);
    }

    /// Ends the pipeline (completed or not) and takes back what the inference thread holds:
    /// the nodes go before the ones built since, the lent parts to [`Builder::lent`].
    fn take_back(&mut self, built: &mut BuiltNodes<'_>, completed: bool) {
        let Pipeline::Running(mut piping) = std::mem::take(&mut self.pipeline) else {
            return;
        };
        // Without a `Finish`, a closed channel tells the inference thread to stop.
        let (closed, _) = sync_channel(0);
        drop(std::mem::replace(&mut piping.feed.tx, closed));
        let start = Instant::now();
        let returned = loop {
            if let Some(returned) = piping.ended.take() {
                break Some(returned);
            }
            match piping.feed.back.recv() {
                Ok(Back::Chunk(chunk)) => piping.take_chunk(chunk),
                Ok(Back::Done(returned)) => break Some(returned),
                Err(_) => break None,
            }
        };
        if completed {
            self.waited += start.elapsed();
        }
        // The thread can only fail to answer by panicking, which the caller re-raises when it
        // joins the thread: what is built here is never read then.
        let Some(returned) = returned else {
            return;
        };
        let mut nodes = std::mem::take(&mut piping.done);
        nodes.append(&mut built.nodes);
        built.nodes = nodes;
        built.sealed = 0;
        self.lent = Some(returned);
    }
}

impl Piping {
    /// Appends a chunk given back to the graph's first nodes.
    fn take_chunk(&mut self, mut chunk: Vec<Node>) {
        if self.done.capacity() == 0 {
            self.done = Vec::with_capacity(self.node_count);
        }
        self.done.append(&mut chunk);
    }
}

/// The buffers of the inference thread's mirror of the graph: the builder's file and own
/// names.
pub(super) fn mirror_texts(file: Option<Bytes>, own: &str) -> Texts {
    let mut texts = Texts::new(file);
    texts.push_own(own);
    texts
}
