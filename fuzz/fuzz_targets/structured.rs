//! Structure-aware fuzzing: the fuzzer's bytes drive a generator of well-formed `ModelProto`s
//! (ops from the engine's registry, shapes mixing static, symbolic and unknown dims, small integer
//! initializers that feed Reshape/Expand/Range targets, random wiring with occasional cycles and
//! dangling names, If/Loop/Scan subgraphs reading outer values, model-local functions), so that
//! shape propagation and the checks are exercised, not only the decoder. Each model is linted both
//! decoded (`lint_model`) and re-encoded (`lint_bytes`). The generator is `random_model.rs`,
//! shared with the `constraints` target.
#![no_main]

mod random_model;

use std::path::Path;

use arbitrary::Unstructured;
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use onnx_bcast_lint::{lint_bytes, lint_model, Options};
use prost::Message;
use random_model::Gen;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(model) = (Gen {
        u: &mut u,
        counter: 0,
    })
    .model() else {
        return;
    };
    let bytes = Bytes::from(model.encode_to_vec());
    // A generated model need not declare `batch`: it is still linted, not refused.
    let options = Options::new()
        .with_dim("batch", 2)
        .with_dims_checked(false);
    let _ = lint_model(model, &options);
    let _ = lint_bytes(bytes, Path::new("structured.onnx"), &options);
});
