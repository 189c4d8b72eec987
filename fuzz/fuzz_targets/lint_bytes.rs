//! Coverage-guided fuzzing of the whole pipeline from raw bytes: wire pre-scan, prost decode, graph
//! building, propagation, checks and the three renderers. Any input must give a report or a clean
//! `LoadError`; a panic, an abort (out of memory) or a timeout is a bug. Seeded with `tests/models`
//! (see `smoke.sh`).
#![no_main]

use std::path::Path;

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use onnx_bcast_lint::report::{human, json, sarif, FileReport};
use onnx_bcast_lint::{lint_bytes, Options};

fuzz_target!(|data: &[u8]| {
    let outcome = lint_bytes(
        Bytes::copy_from_slice(data),
        Path::new("fuzz.onnx"),
        &Options::new(),
    );
    let reports = [FileReport {
        outcome,
        path: "fuzz.onnx".into(),
    }];
    let _ = json::render(&reports, true);
    let _ = sarif::render(&reports);
    let _ = human::render(
        &reports,
        human::Style {
            color: false,
            width: 80,
            quiet: false,
        },
    );
});
