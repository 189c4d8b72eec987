//! Structure-aware fuzzing of operator constraints (E4/W4): each model holds one to three
//! deliberate violations of known families (`violations.rs`: MatMul/Gemm K, Concat dims and axis,
//! Transpose perm, Softmax/Gather/reduction axes, Reshape element counts, Split sums), with static
//! and symbolic dims, fed by shape-preserving chains and feeding chains of their own, mixed into
//! a random graph of the `structured` generator (`random_model.rs`) whose nodes may read the
//! violations' downstream values. Both lint paths (`lint_model`, `lint_bytes`) must give a
//! report without a panic, and the oracle (`violations::check`) must hold: the expected E4/W4 at
//! each violating node of a checked family, no E1/W1/E4/W4 up- or downstream of it. The W4
//! cases' symbols are left free, or bound (`--dim`) so that the constraint holds (no finding) or
//! fails (E4).
#![no_main]

#[allow(dead_code)]
mod random_model;
mod violations;

use std::path::Path;

use arbitrary::{Result, Unstructured};
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use onnx_bcast_lint::proto::{GraphProto, ModelProto, OperatorSetIdProto};
use onnx_bcast_lint::{lint_bytes, lint_model};
use prost::Message;
use random_model::Gen;
use violations::{Bind, Builder, Case, Pick};

/// Opsets the cases are built for: every op they use has a rule at each (11 and 12 give the
/// attribute forms of `Split` and the reductions).
const OPSETS: &[i64] = &[11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25];

/// The fuzzer's bytes as the builder's choices.
struct FuzzerPick<'a, 'd>(&'a mut Unstructured<'d>);

impl Pick for FuzzerPick<'_, '_> {
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.0.int_in_range(0..=n - 1).unwrap_or(0)
    }
}

/// Every value name a graph defines (inputs, initializers, node outputs).
fn values(graph: &GraphProto) -> Vec<String> {
    let inputs = graph.input.iter().filter_map(|v| v.name.clone());
    let initializers = graph.initializer.iter().filter_map(|t| t.name.clone());
    let outputs = graph.node.iter().flat_map(|n| n.output.iter().cloned());
    inputs
        .chain(initializers)
        .chain(outputs)
        .filter(|name| !name.is_empty())
        .collect()
}

fn build(u: &mut Unstructured<'_>) -> Result<(ModelProto, Vec<Case>)> {
    // The cases first, so that even a short input chooses its families.
    let opset = *u.choose(OPSETS)?;
    let cases = u.int_in_range(1..=3u8)?;
    let mut built = {
        let mut pick = FuzzerPick(&mut *u);
        let mut builder = Builder::new(&mut pick, opset, true);
        for _ in 0..cases {
            builder.any_case();
        }
        builder.finish()
    };
    let mut gen = Gen { u, counter: 0 };
    // A random part (a quarter of the models have none: the cases alone).
    let mut graph = if gen.u.ratio(3, 4)? {
        gen.graph(&[], 0)?
    } else {
        GraphProto {
            name: Some("main".into()),
            ..Default::default()
        }
    };
    let foreign = values(&graph);
    // Undetermined operands read a value of the random part (undefined when it has none).
    for node in &mut built.nodes {
        for input in &mut node.input {
            if built.placeholders.contains(input) && !foreign.is_empty() {
                *input = gen.u.choose(&foreign)?.clone();
            }
        }
    }
    // Random nodes reading the cases' downstream values (and the random part's).
    let mut scope = foreign;
    scope.extend(built.downstream_values.iter().cloned());
    let mut consumers = Vec::new();
    for _ in 0..gen.u.int_in_range(0..=3u8)? {
        consumers.push(gen.node(&mut scope, 0)?);
    }
    // The cases' nodes at random places: the file order need not be topological.
    for node in built.nodes.into_iter().chain(consumers) {
        let at = gen.u.int_in_range(0..=graph.node.len())?;
        graph.node.insert(at, node);
    }
    graph.input.extend(built.inputs);
    graph.initializer.extend(built.initializers);
    graph.output.extend(built.outputs);
    let mut functions = Vec::new();
    if gen.u.ratio(1, 8)? {
        let body = gen.graph(&[], 2)?;
        functions.push(onnx_bcast_lint::proto::FunctionProto {
            name: Some("FancyCustom".into()),
            domain: Some("local".into()),
            input: body.input.iter().filter_map(|v| v.name.clone()).collect(),
            output: body.output.iter().filter_map(|v| v.name.clone()).collect(),
            node: body.node,
            ..Default::default()
        });
    }
    let model = ModelProto {
        ir_version: Some(*gen.u.choose(&[7, 8, 9, 10])?),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        graph: Some(graph),
        functions,
        ..Default::default()
    };
    Ok((model, built.cases))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok((model, cases)) = build(&mut u) else {
        return;
    };
    // The W4 cases' symbols unbound, or bound so that their constraints hold or fail.
    let bind = *u.choose(&Bind::ALL).unwrap_or(&Bind::Free);
    let options = violations::options(&cases, bind);
    let bytes = Bytes::from(model.encode_to_vec());
    // A load error (a random part's negative dims, say) leaves nothing to check.
    if let Ok(report) = lint_model(model, &options) {
        violations::check(&report, &cases, bind);
    }
    if let Ok(report) = lint_bytes(bytes, Path::new("constraints.onnx"), &options) {
        violations::check(&report, &cases, bind);
    }
});
