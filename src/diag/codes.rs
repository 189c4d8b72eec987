//! Every diagnostic code, declared once: its number, severity, SARIF name, the facts that carry
//! it and its documentation (what `--explain` prints). `Code`, `Facts::code`, `--explain` and
//! SARIF's rules are generated from this table ([`declare_codes!`]); the JSON schema, the Python
//! stub and the README's tables are checked against it (`codes_tests.rs`). A new code is one
//! entry here, plus its facts variant (`facts.rs`) and their rendering (`render.rs`). Example
//! models are in ONNX text syntax, as `onnx.parser.parse_model` reads and `onnx.printer.to_text`
//! prints them.

use serde::Serialize;

use super::declare::{declare_codes, Explanation};
use super::{Facts, Severity};

/// The `why` heading of a finding that fails a run (and of a file that cannot be read).
const FAILS: &str = "Why it fails at run time";
/// The `why` heading of a warning on a model that runs, and of a retired code.
const RUNS: &str = "What happens at run time";
/// The `why` heading of an info.
const LOST: &str = "What is lost";

declare_codes! {
    findings {
        /// Inputs of a broadcasting node can never be broadcast together.
        E1 = 0 {
            severity: Error,
            sarif: "IncompatibleBroadcast",
            facts: [BroadcastClash, BroadcastBroken, BroadcastEmptyOnly, BranchFailure { broadcast: true, every_branch: true }],
            summary: "inputs of a broadcasting node can never be broadcast together",
            meaning: "inputs of a broadcasting node can never be broadcast together: multidirectional (element-wise binary and variadic ops, `Where`, `MatMul` batch dims), unidirectional (`Gemm` C, `PRelu` slope, `LayerNormalization` scale and bias, `Attention` mask), bidirectional (`Expand`), and the opset < 7 `broadcast`/`axis` form; also a condition made false by `--dim`, and one that holds only when some dim is 0 (it fails for every non-empty input)",
            why_heading: FAILS,
            why: "The sizes that conflict are fixed by the model, so every run fails: runtimes check broadcast compatibility when the node executes (onnxruntime: `Add: left operand cannot broadcast on dim 1`) or refuse the model at session creation when their own shape inference sees it. Under `--dim` (or `dims` in a configuration) a size may come from the binding instead: the message then says so (`axis 1 is 77 vs 64 (seq = 77, bound by --dim)`) and the facts carry the binding, and only runs of that deployment fail; the model may run with other sizes (without the binding, such a node is a `W1`).",
            example: r#"<ir_version: 8, opset_import: ["" : 18]>
main (float[2, 3] x, float[4] y) => (float[2, 3] z) {
    z = Add (x, y)
}"#,
            fix: "Make the sizes agree: reshape, unsqueeze or transpose one input so that its axes line up with the other's (shapes align from the right), or correct the declared shape the exporter wrote. Under `--dim`, check that the bound value is right for this model.",
            spec: "ONNX `docs/Broadcasting.md` (multidirectional and unidirectional broadcasting) and the operator's page in `docs/Operators.md` (`Expand`: bidirectional; opset < 7: the `broadcast`/`axis` attributes); the `Broadcast` spec of ONNX's safety-related profile, SONNX (github.com/onnx/working-groups, `safety-related-profile/`); MLIR's `Broadcastable` trait (mlir.llvm.org/docs/Traits/Broadcastable). ONNX's docs are at github.com/onnx/onnx/tree/main/docs.",
        }
        /// Broadcasting is valid only under a condition on symbolic dims.
        W1 = 1 {
            severity: Warning,
            sarif: "ConditionalBroadcast",
            facts: [ConditionalBroadcast, ForcedValue { constraints_only: false }, BranchFailure { broadcast: true, every_branch: false }],
            summary: "broadcasting is valid only under a condition on symbolic dims",
            meaning: "valid only under a condition on symbolic dims; the message states the condition and a binding that breaks it; conditions of all nodes are combined (a `dim_param` names one value across the model)",
            why_heading: FAILS,
            why: "The model runs for some values of its symbolic dims and fails for the others: a deployment whose sizes break the condition (the message names one) fails at run time exactly as an `E1` does.",
            example: r#"<ir_version: 8, opset_import: ["" : 18]>
main (float[batch, seq] x, float[batch, 77] y) => (float[batch, 77] z) {
    z = Add (x, y)
}"#,
            fix: "Bind your deployment's sizes with `--dim` (`--dim seq=77`) to check it: the condition then holds (no finding) or fails (`E1`). To make the model right for every size, declare the dim as the size it must be, or broadcast explicitly (`Expand`, `Reshape`) where a 1 is meant.",
            spec: "ONNX `docs/Broadcasting.md` (multidirectional and unidirectional broadcasting) and the operator's page in `docs/Operators.md` (`Expand`: bidirectional; opset < 7: the `broadcast`/`axis` attributes); the `Broadcast` spec of ONNX's safety-related profile, SONNX (github.com/onnx/working-groups, `safety-related-profile/`); MLIR's `Broadcastable` trait (mlir.llvm.org/docs/Traits/Broadcastable). ONNX's docs are at github.com/onnx/onnx/tree/main/docs. ONNX `docs/IR.md`, \"Static tensor shapes\": a `dim_param` names one value across the model.",
        }
        /// Retired: declared-shape contradictions are reported as [`Code::W2`] (onnxruntime runs
        /// such models). Still recognised by `--allow`, `ignore` and `--explain`.
        E2 = 2 {
            severity: Error,
            sarif: "RetiredDeclaredShapeError",
            facts: [],
            summary: "retired: a declared shape that contradicts the inferred one is reported as W2",
            meaning: "retired, no longer reported: a declared shape (`value_info`, graph output) that contradicts the inferred one is a `W2` warning, as onnxruntime runs such models; `E2` stays a known code so that configurations and baselines naming it still load",
            why_heading: RUNS,
            why: "It no longer fails a run: onnxruntime merges a contradicting declaration leniently when it loads the model and warns when an output's shape differs from its declaration, then returns the computed shape, so the model is valid and an error on it would be a false alarm.",
            example: r#"<ir_version: 8, opset_import: ["" : 18]>
main (float[2, 3] x, float[2, 3] y) => (float[2, 4] z) {
    z = Add (x, y)
}"#,
            fix: "Nothing to change in the model for this code: see `W2`. Remove `E2` from `allow`, `ignore` and baselines when convenient; the same findings now carry `W2` fingerprints.",
            spec: "ONNX `docs/IR.md`, \"Graphs\" and \"Static tensor shapes\"; see `W2`.",
        }
        /// A structural problem (cycle, undefined input, duplicate producer, missing op type, no graph).
        E3 = 3 {
            severity: Error,
            sarif: "StructuralProblem",
            facts: [Structure],
            summary: "the graph is structurally broken",
            meaning: "a structural problem: cycle, undefined input, value produced twice, node without op_type, model without graph",
            why_heading: FAILS,
            why: "A runtime cannot order or resolve such a graph: a cycle, a name that nothing defines or one defined twice makes the session fail to load, before any input is read.",
            example: r#"<ir_version: 8, opset_import: ["" : 18]>
main (float[2] x) => (float[2] z) {
    y = Add (x, w)
    z = Relu (y)
}"#,
            fix: "Fix the exporter or graph surgery that produced the graph: every node input must be a graph input, an initializer or an output of an earlier node (or of an enclosing graph, in a subgraph); each value is produced once; every node has an `op_type`; a model has a graph.",
            spec: "ONNX `docs/IR.md`, \"Graphs\" and \"Names Within a Graph\": nodes in topological order, each name assigned once (SSA), names resolved in scope; `onnx.checker.check_model` rejects the same graphs.",
        }
        /// An operator's own shape constraint (not broadcasting) fails for every input.
        E4 = 5 {
            severity: Error,
            sarif: "OperatorConstraintViolated",
            facts: [ConstraintUnmet, ConstraintEmptyOnly, MissingInput, BadAttribute, InvalidNode, InitializerMismatch, BranchFailure { broadcast: false, every_branch: true }],
            summary: "an operator's own shape constraint fails for every input",
            meaning: "an operator's own shape constraint (not broadcasting) fails for every input the model accepts: `MatMul`/`Gemm` contracted dims (K), channels, parameter lengths, element counts, ranks, an output size onnxruntime cannot produce (below 1 for a convolution or transposed convolution, below 0 for a pool, which truncates so that a window that does not fit still gives 1), axis attributes out of range, a required input or attribute missing or mistyped; the message states the constraint from the operator doc and the dims found, the labels point at the inputs, `help` gives a likely fix; also such a condition made false by `--dim`, and one that holds only when some dim is 0 (`Reshape` element counts equal only for an empty input: it fails for every non-empty input)",
            why_heading: FAILS,
            why: "The operator checks its own constraint when it runs (MatMul's K, Conv's channels, Concat's other dims, Reshape's element count...): with the sizes fixed by the model, the session fails at run time whatever the input values (onnxruntime: `MatMul dimension mismatch`).",
            example: r#"<ir_version: 8, opset_import: ["" : 18]>
main (float[2, 3] a, float[4, 5] b) => (float[2, 5] c) {
    c = MatMul (a, b)
}"#,
            fix: "Each finding's help names the likely fix: transpose or reshape an operand, re-export a weight with the right size, correct an attribute (`axis`, `perm`, `group`) or supply the missing input.",
            spec: "The operator's page in ONNX `docs/Operators.md` for the model's opset version (its inputs' shape requirements and attribute ranges); `MatMul` follows numpy `matmul`.",
        }
        /// An operator's own shape constraint holds only under a condition on symbolic dims.
        W4 = 6 {
            severity: Warning,
            sarif: "ConditionalOperatorConstraint",
            facts: [ConditionalConstraint, ForcedValue { constraints_only: true }, BranchFailure { broadcast: false, every_branch: false }],
            summary: "an operator's own shape constraint holds only under a condition on symbolic dims",
            meaning: "an operator's own shape constraint holds only under a condition on symbolic dims (`k = 64`); stated with a binding that breaks it, and solved together with the `W1` conditions",
            why_heading: FAILS,
            why: "The model runs only for the values of its symbolic dims that satisfy the constraint (`k = 64`); any other deployment fails at run time as an `E4` does.",
            example: r#"<ir_version: 8, opset_import: ["" : 18]>
main (float[batch, k] a, float[64, 8] w) => (float[batch, 8] c) {
    c = MatMul (a, w)
}"#,
            fix: "Bind your deployment's sizes with `--dim` (`--dim k=64`) to check it; if the dim can only take one value, declare it as that size in the model.",
            spec: "The operator's page in ONNX `docs/Operators.md`; ONNX `docs/IR.md`, \"Static tensor shapes\" (a `dim_param` names one value across the model).",
        }
        /// A declared shape (`value_info`, graph output) contradicts the inferred one; onnxruntime
        /// warns and runs with the computed shape.
        W2 = 7 {
            severity: Warning,
            sarif: "DeclaredShapeMismatch",
            facts: [DeclaredMismatch],
            summary: "a declared shape contradicts the inferred one",
            meaning: "a declared shape (`value_info`, graph output) contradicts the inferred one: a different rank, two static sizes that differ, or symbolic sizes that provably differ (a placeholder such as `?` or `unk__3` contradicts nothing)",
            why_heading: RUNS,
            why: "The model still runs: onnxruntime merges the declaration leniently at load (\"Falling back to lenient merge\") and, for a graph output, warns at run time that the computed shape differs from it (`VerifyOutputSizes`), then returns the computed shape. But the declaration is the model's interface: a caller that allocates or reshapes by it, and every tool that reads it, gets another shape than the model produces.",
            example: r#"<ir_version: 8, opset_import: ["" : 18]>
main (float[2, 3] x, float[2, 3] y) => (float[2, 4] z) {
    z = Add (x, y)
}"#,
            fix: "Correct or remove the declaration (`value_info`, the graph output's type), usually by fixing the exporter; `onnx.shape_inference.infer_shapes` rewrites `value_info` from the graph.",
            spec: "ONNX `docs/IR.md`, \"Graphs\" and \"Static tensor shapes\" (`ValueInfoProto` of inputs, outputs and `value_info`); ONNX shape inference in strict mode reports the same contradiction; onnxruntime warns and runs.",
        }
        /// An opset < 7 element-wise op without `broadcast=1` whose inputs differ in shape: its
        /// doc requires equal shapes, runtimes that convert it to opset 7 broadcast.
        W5 = 9 {
            severity: Warning,
            sarif: "LegacyImplicitBroadcast",
            facts: [LegacyImplicitBroadcast],
            summary: "an opset < 7 element-wise op without broadcast=1 has inputs of different shapes",
            meaning: "an opset < 7 element-wise op (`Add`, `Sub`, `Mul`, `Div`, comparisons, logic ops) without `broadcast=1` has inputs of different shapes: its doc requires equal shapes, while runtimes that convert the model to opset 7 broadcast them (multidirectionally); the shapes broadcast, else the node is an `E1`",
            why_heading: RUNS,
            why: "The opset 1-6 docs say that `broadcast=1` must be passed to enable broadcasting: without it both inputs have one shape. ONNX's own opset-1 test models rely on implicit broadcasting all the same, and runtimes that run such models through the opset 7 version converter (onnxruntime has no kernels below opset 7) broadcast the inputs as numpy does, so the model runs there. A runtime that follows the opset's own doc rejects it.",
            example: r#"<ir_version: 3, opset_import: ["" : 6]>
main (float[2, 3] x, float[3] y) => (float[2, 3] z) {
    z = Add (x, y)
}"#,
            fix: "State the broadcast: set `broadcast=1` (with `axis` where B's dims are not A's trailing ones), or convert the model to opset 7 or later (`onnx.version_converter.convert_version`), where broadcasting is multidirectional by definition.",
            spec: "ONNX `docs/Changelog.md`, `Add-6` (and `Sub`, `Mul`, `Div`, `Pow`, `And`, `Or`, `Xor`, `Equal`, `Greater`, `Less` before opset 7): \"Attribute `broadcast=1` needs to be passed to enable broadcasting\"; onnx's version converter to opset 7 (`onnx/version_converter`); `docs/Broadcasting.md` for opset 7 on.",
        }
        /// Shape knowledge stops here (unsupported operator or custom domain).
        I1 = 4 {
            severity: Info,
            sarif: "UnsupportedOperator",
            facts: [Unsupported],
            summary: "shape knowledge stops at an unsupported operator",
            meaning: "shape knowledge stops: an operator the engine does not know, or an ONNX operator version it has no rule for (an opset newer than its schema table, a version not in its registry, a domain the model does not import), naming the version (once per op type and version, listing the nodes)",
            why_heading: LOST,
            why: "It does not fail by itself: the engine cannot compute the shapes past this node, so the nodes downstream are checked with unknown dims, and an unknown dim never produces `E1` or `E4`. A runtime without the operator or that version fails to load the model.",
            example: r#"<ir_version: 8, opset_import: ["" : 18, "com.example" : 1]>
main (float[2] x) => (float[2] z) {
    z = com.example.Custom (x)
}"#,
            fix: "Nothing to fix when the runtime provides the operator: `--allow I1` hides the note. Otherwise import the domain, or use an opset version the operator has a schema for.",
            spec: "ONNX `docs/Versioning.md` (operator sets, `since_version`) and `docs/IR.md`, \"Operator Sets\"; the registry of the `onnx` package (`src/ops/schemas.tsv`).",
        }
        /// A limit on the linter's work was reached: a check was not made there.
        I2 = 8 {
            severity: Info,
            sarif: "CapReached",
            facts: [CapReached],
            summary: "a check was not made: a limit on the linter's work was reached",
            meaning: "a check was not made: one of the linter's limits (the README's limits table) was reached at a node, or in a graph for a whole-model limit, naming the limit and how to raise it when a flag does (once per limit: at its first node, listing the others, as `I1` lists an operator's nodes)",
            why_heading: LOST,
            why: "It does not fail by itself: past the limit the engine stops computing what the limit guards (a body's outputs, carried values, a condition's later clauses), so the shapes or conditions there are unknown, not wrong, and an unknown dim never produces `E1` or `E4`. The limits keep a small hostile file from costing unbounded time or memory; real models stay below them.",
            example: r"a function calling itself (tests/cap_reached.rs builds one): the calls past `infer-depth` get unknown outputs",
            fix: "Nothing to fix in a model the runtime accepts: `--allow I2` hides the note. Where the limit has a flag (`--size-limit`, `--max-findings`, or the library's `Limits`), raise it for a model you trust; otherwise simplify the graph there (fewer nested calls, smaller constant tensors) if the check matters.",
            spec: "The limits are this tool's, not ONNX's: the README's limits table lists each with its default and what it bounds (`src/limits.rs`).",
        }
    }
    files {
        "load/io" {
            summary: "the file cannot be read",
            meaning: "the file cannot be read: missing, no permission, or an I/O error (exit code 2; the other files are still linted)",
            why_heading: FAILS,
            why: "No runtime can load it either: the file is not a model it can read.",
            example: r"onnx-bcast-lint missing.onnx",
            fix: "Check the path and the file's permissions.",
            spec: "ONNX `docs/IR.md`: a model file is one serialized `ModelProto` of `onnx/onnx.proto` (vendored as `proto/onnx.proto`).",
        }
        "load/directory" {
            summary: "a directory was given where a model was expected",
            meaning: "a directory named like a model (`*.onnx`) was given: directories are searched for models, but one named `*.onnx` is taken for a model (exit code 2)",
            why_heading: FAILS,
            why: "No runtime can load it either: the file is not a model it can read.",
            example: r"mkdir broken.onnx && onnx-bcast-lint broken.onnx",
            fix: "Pass the model file, or the directory without the `.onnx` name.",
            spec: "ONNX `docs/IR.md`: a model file is one serialized `ModelProto` of `onnx/onnx.proto` (vendored as `proto/onnx.proto`).",
        }
        "load/empty" {
            summary: "the file is empty",
            meaning: "the file is empty: no bytes, so no model (exit code 2), often a failed download or a Git LFS file not fetched",
            why_heading: FAILS,
            why: "No runtime can load it either: the file is not a model it can read.",
            example: r": > empty.onnx && onnx-bcast-lint empty.onnx",
            fix: "Re-export or re-download the model; with Git LFS, run `git lfs pull`.",
            spec: "ONNX `docs/IR.md`: a model file is one serialized `ModelProto` of `onnx/onnx.proto` (vendored as `proto/onnx.proto`).",
        }
        "load/lfs-pointer" {
            summary: "the file is a Git LFS pointer, not the model",
            meaning: "the file is a Git LFS pointer (`version https://git-lfs...`, a few lines of text standing for a model stored in Git LFS), not the model: the model was not fetched (exit code 2)",
            why_heading: FAILS,
            why: "No runtime can load it either: the checkout holds the pointer's text, not the model's bytes, until Git LFS fetches the object.",
            example: r"GIT_LFS_SKIP_SMUDGE=1 git clone https://example.com/models.git && onnx-bcast-lint models/model.onnx",
            fix: "Fetch the model: `git lfs pull` (or `git lfs pull --include model.onnx`); in GitHub Actions, check out with `lfs: true` (`actions/checkout` with `with: lfs: true`).",
            spec: "Git LFS specification v1 (`docs/spec.md` of git-lfs): a pointer file is `version`, `oid` and `size` lines of at most 1024 bytes.",
        }
        "load/decode" {
            summary: "the file is not a valid ONNX protobuf",
            meaning: "the file is not a valid ONNX protobuf: truncated, another format, or a wrong wire type; the message gives the byte offset (exit code 2)",
            why_heading: FAILS,
            why: "No runtime can load it either: the file is not a model it can read. `onnx.load` raises `DecodeError`.",
            example: r"head -c 100 model.onnx > truncated.onnx && onnx-bcast-lint truncated.onnx",
            fix: "Re-export the model, or check the transfer that truncated it.",
            spec: "ONNX `docs/IR.md`: a model file is one serialized `ModelProto` of `onnx/onnx.proto` (vendored as `proto/onnx.proto`).",
        }
        "load/limit" {
            summary: "the model is beyond a resource limit",
            meaning: "the model is beyond a resource limit: nesting depth of subgraphs, rank, node count (exit code 2); the limits keep a hostile file from exhausting memory or time",
            why_heading: FAILS,
            why: "A model this deep or large exhausts a runtime's stack or memory, or was crafted to; real models stay far below the limits.",
            example: r"a model with 10000 nested If subgraphs (tests/models/load_nested_if_10000.onnx)",
            fix: "Check how the model was produced; through the library, `Limits` raises the limits for a model you trust.",
            spec: "ONNX `docs/IR.md`: a model file is one serialized `ModelProto` of `onnx/onnx.proto` (vendored as `proto/onnx.proto`). The limits are this tool's, not the spec's.",
        }
        "load/dims" {
            summary: "tensor dims are negative or overflow",
            meaning: "tensor dims are negative or their product overflows (exit code 2)",
            why_heading: FAILS,
            why: "A tensor with a negative size or more elements than fit in 64 bits cannot exist: runtimes reject the model when they load its initializers.",
            example: r"an initializer declaring dims [-3, 4] (tests/models/load_negative_dims.onnx)",
            fix: "Re-export the model; the exporter wrote a corrupt `TensorProto`.",
            spec: "ONNX `docs/IR.md`: a model file is one serialized `ModelProto` of `onnx/onnx.proto` (vendored as `proto/onnx.proto`). `TensorProto.dims` are sizes, so non-negative.",
        }
    }
}
