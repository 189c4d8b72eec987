//! Inference beside the builder (issue 34, `docs/design/overlap.md`): the main graph's nodes
//! run on this thread in file order, a sealed chunk at a time, while the builder builds the
//! next ones. One thread, one order, one memo: the facts are those of an inference run after
//! the build, or none when the builder ended the pipeline early.

use std::time::{Duration, Instant};

use super::engine::Suspended;
use super::{Assumptions, Inference};
use crate::error::Limits;
use crate::model::{Drain, Model, Next};

/// A main graph inferred beside its building, waiting for the finished model.
pub(crate) struct Pipelined {
    run: Suspended,
    /// Time this thread spent inferring (not waiting for chunks).
    busy: Duration,
}

impl Pipelined {
    /// The facts of the run, fitted to the finished `model` (the values declared after the
    /// nodes, such as outputs nothing defines, are unknown as in a run after the build).
    pub(crate) fn into_inference(self, model: &Model) -> Inference {
        self.run.finish(model)
    }

    /// Time the inference thread spent inferring, overlapped with the build.
    pub(crate) fn busy(&self) -> Duration {
        self.busy
    }
}

/// Infers the main graph handed over through `drain` until the builder finishes it (the facts)
/// or ends the pipeline (`None`). Every node handed over is given back either way.
pub(crate) fn consume(
    drain: Drain,
    limits: &Limits,
    assumptions: Assumptions,
) -> Option<Pipelined> {
    let mut mirror = drain.start()?;
    let start = Instant::now();
    let mut run = Suspended::begin(
        mirror.model(),
        limits,
        assumptions,
        mirror.expected_values(),
    );
    let mut busy = start.elapsed();
    loop {
        match mirror.next() {
            Next::Chunk => {
                let start = Instant::now();
                run = run.run(mirror.model(), mirror.late(), mirror.last_chunk());
                busy += start.elapsed();
            }
            Next::Finish => {
                mirror.give_back();
                return Some(Pipelined { run, busy });
            }
            Next::Stop => {
                mirror.give_back();
                return None;
            }
        }
    }
}
