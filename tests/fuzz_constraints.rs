//! The deterministic part of the `constraints` fuzz target: the same case builder and oracle
//! (`fuzz/fuzz_targets/violations.rs`, included), driven by a seeded generator instead of the
//! fuzzer's bytes, with no random graph around the cases. Every family of `CHECKED_FAMILIES` must
//! get its E4/W4 at the violating node and nothing up- or downstream of it; the other families
//! must at least lint without a panic.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[allow(dead_code)]
#[path = "../fuzz/fuzz_targets/violations.rs"]
mod violations;

use std::path::Path;

use bytes::Bytes;
use onnx_bcast_lint::proto::{GraphProto, ModelProto, OperatorSetIdProto};
use onnx_bcast_lint::{lint_bytes, lint_model, Options};
use prost::Message;
use violations::{Bind, Builder, Case, Family, Pick, CHECKED_FAMILIES};

/// xorshift64*: the same choices on every run.
struct Seeded(u64);

impl Pick for Seeded {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        if n <= 1 {
            0
        } else {
            usize::try_from(x % u64::try_from(n).unwrap()).unwrap()
        }
    }
}

const OPSETS: &[i64] = &[11, 12, 13, 14, 17, 18, 21, 23, 25];

/// A model of `cases` cases of `family`, built from `seed`.
fn model(family: Family, seed: u64, cases: usize) -> (ModelProto, Vec<Case>) {
    let mut pick = Seeded(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let opset = OPSETS[pick.below(OPSETS.len())];
    let mut builder = Builder::new(&mut pick, opset, false);
    for _ in 0..cases {
        builder.case(family);
    }
    let built = builder.finish();
    let graph = GraphProto {
        name: Some("main".into()),
        node: built.nodes,
        input: built.inputs,
        initializer: built.initializers,
        output: built.outputs,
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        graph: Some(graph),
        ..Default::default()
    };
    (model, built.cases)
}

/// Lints the model both ways (as the fuzz target does) and runs the oracle on each report.
fn lint_and_check(model: &ModelProto, cases: &[Case], bind: Bind) {
    let options = violations::options(cases, bind);
    let bytes = Bytes::from(model.encode_to_vec());
    let report = lint_model(model.clone(), &options).expect("the builder writes loadable models");
    violations::check(&report, cases, bind);
    let report = lint_bytes(bytes, Path::new("constraints.onnx"), &options)
        .expect("the builder writes loadable models");
    violations::check(&report, cases, bind);
}

/// Cases per family: each draws ranks, dims, axes, attributes, chains and the opset anew.
const SEEDS: u64 = 100;

#[test]
fn checked_families_are_reported_at_the_root_cause_only() {
    for &family in CHECKED_FAMILIES {
        for seed in 0..SEEDS {
            let count = 1 + usize::try_from(seed % 3).unwrap();
            let (model, cases) = model(family, seed, count);
            assert!(cases.iter().all(|c| c.determined && c.family == family));
            for bind in Bind::ALL {
                lint_and_check(&model, &cases, bind);
            }
        }
    }
}

#[test]
fn every_family_lints_without_a_panic() {
    for family in Family::ALL {
        for seed in 0..SEEDS / 3 {
            let (model, _) = model(family, seed, 2);
            let options = Options::new();
            lint_model(model, &options).expect("the builder writes loadable models");
        }
    }
}

/// For whoever enables a family in `CHECKED_FAMILIES` once its constraint lands:
/// `cargo test --test fuzz_constraints -- --ignored --nocapture` prints, per family, how many
/// cases whole runs of the oracle pass.
#[test]
#[ignore = "a survey that prints, not a check: run with --ignored --nocapture"]
#[allow(clippy::print_stdout)]
fn survey_of_every_family() {
    // The oracle's panics are counted, not printed.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for family in Family::ALL {
        let mut passed = 0;
        let mut first_failure = None;
        for seed in 0..SEEDS {
            let (model, cases) = model(family, seed, 1);
            for bind in Bind::ALL {
                let options = violations::options(&cases, bind);
                let report = lint_model(model.clone(), &options).unwrap();
                let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    violations::check_all(&report, &cases, bind);
                }));
                match ok {
                    Ok(()) => passed += 1,
                    Err(e) if first_failure.is_none() => {
                        first_failure = e.downcast_ref::<String>().cloned();
                    }
                    Err(_) => {}
                }
            }
        }
        println!(
            "{family:?}: {passed}/{} pass{}{}",
            SEEDS * 3,
            if CHECKED_FAMILIES.contains(&family) {
                " (checked)"
            } else {
                ""
            },
            first_failure
                .map(|f| format!("\n  first failure: {f}"))
                .unwrap_or_default()
        );
    }
    std::panic::set_hook(hook);
}
