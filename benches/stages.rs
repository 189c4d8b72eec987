//! Criterion benchmarks of each pipeline stage on the 10k-node transformer
//! (`bench/models/tx_10k.onnx`, written by `bench/gen_models.py`): wire scan + decode + graph
//! building (`load`), prost's decode alone, graph building from a decoded model, shape
//! propagation, settling, checks and JSON output: the stages a lint runs, each once. Skips with a message when the model is missing.
//!
//!     cargo bench --features bench --bench stages

#![allow(missing_docs, clippy::expect_used, clippy::print_stderr)]

use std::path::Path;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use onnx_bcast_lint::proto::ModelProto;
use onnx_bcast_lint::report::{json, FileReport};
use onnx_bcast_lint::stages::{check, infer, load_bytes, load_proto, settle, CheckOptions};
use onnx_bcast_lint::{lint_bytes, Limits, Options};
use prost::Message;

const MODEL: &str = "bench/models/tx_10k.onnx";

fn stages(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(MODEL);
    let Ok(data) = std::fs::read(&path) else {
        eprintln!("{MODEL} missing: run bench/.venv/bin/python bench/gen_models.py 10k");
        return;
    };
    let bytes = Bytes::from(data);
    let limits = Limits::default();
    let mut group = c.benchmark_group("tx_10k");
    group.sample_size(20);

    group.bench_function("decode", |b| {
        b.iter(|| ModelProto::decode(bytes.clone()).expect("decodes"));
    });
    group.bench_function("load (scan + decode + graph)", |b| {
        b.iter(|| load_bytes(bytes.clone(), &path, limits).expect("loads"));
    });
    group.bench_function("graph", |b| {
        b.iter_batched(
            || ModelProto::decode(bytes.clone()).expect("decodes"),
            |proto| load_proto(proto, limits).expect("builds"),
            criterion::BatchSize::LargeInput,
        );
    });
    let loaded = load_bytes(bytes.clone(), &path, limits).expect("loads");
    group.bench_function("propagation", |b| {
        b.iter(|| infer(&loaded));
    });
    group.bench_function("settling", |b| {
        b.iter_batched(
            || infer(&loaded),
            |inference| settle(&loaded, inference),
            criterion::BatchSize::LargeInput,
        );
    });
    let inference = settle(&loaded, infer(&loaded));
    let options = CheckOptions::default();
    group.bench_function("checks", |b| {
        b.iter(|| check(&loaded, &inference, &options));
    });
    // The whole pipeline once more, for the report the output stage renders.
    let reports = [FileReport {
        path: MODEL.to_owned(),
        outcome: Ok(lint_bytes(bytes.clone(), &path, &Options::new()).expect("lints")),
    }];
    group.bench_function("output (json)", |b| {
        b.iter(|| json::render(&reports, false));
    });
    group.bench_function("output (json --shapes)", |b| {
        b.iter(|| json::render(&reports, true));
    });
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
