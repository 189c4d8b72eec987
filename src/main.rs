//! The `onnx-bcast-lint` command. Flags, linting, rendering and exit codes are the library's
//! [`onnx_bcast_lint::cli`], which the Python package's command runs too.

use std::process::ExitCode;

use onnx_bcast_lint::cli::{self, Teardown};

// A model is millions of small, short-lived allocations (names, shapes, symbolic dims): mimalloc's
// thread-local free lists make them several times cheaper than glibc's malloc (issue 6). Without
// the default `mimalloc` feature the system allocator is used, which heap profilers (valgrind's
// massif) can see.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(cli::run(std::env::args_os(), Teardown::Leak))
}
