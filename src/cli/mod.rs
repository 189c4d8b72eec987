//! The `onnx-bcast-lint` command: flags -> library -> renderer -> exit code. The only code that
//! prints. It lives in the library so that the binary (`src/main.rs`) and the Python package's
//! `onnx-bcast-lint` entry point run the same code with the same exit codes. The flags
//! (`args.rs`), the search for models (`discover.rs`) and the progress line on long runs
//! (`progress.rs`) stand apart from the run and its exit code (`run.rs`).

#![allow(clippy::print_stderr)] // the command is the one place that prints

mod args;
mod discover;
mod progress;
mod run;

pub use run::{run, Teardown};
