//! Every limit on the linter's work, in one table ([`TABLE`]): its stable name, default, what it
//! bounds and why, and the flag that raises it when there is one. Each cap site reads its number
//! from the constant declared here, so no number has a second copy; the README's limits table is
//! checked against [`TABLE`] (the tests below). A cap that fires at a node (or, for a
//! whole-model cap, in a graph) is recorded as a [`CapHit`], which the checks turn into an `I2`
//! finding: a check that was not made is said, not silent. (clippy lists its thresholds with
//! default and doc the same way.)
//!
//! The lowest layer: it imports nothing from the crate, so `shape/` and `model/` can read it.

/// Declares the limits: a constant per limit, [`Limit`] and [`TABLE`].
macro_rules! declare_limits {
    (
        $(
            $(#[doc = $doc:literal])*
            $variant:ident = $name:literal, $konst:ident: $ty:ty = $value:expr,
                flag: $flag:expr, bounds: $bounds:literal;
        )*
    ) => {
        $(
            $(#[doc = $doc])*
            pub(crate) const $konst: $ty = $value;
        )*

        /// A limit, by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) enum Limit {
            $(
                $(#[doc = $doc])*
                $variant,
            )*
        }

        /// Every limit, in the README's order.
        // Every default is a non-negative count that fits 64 bits.
        #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation, trivial_numeric_casts)]
        pub(crate) const TABLE: &[Spec] = &[
            $(
                Spec {
                    limit: Limit::$variant,
                    name: $name,
                    default: $konst as u64,
                    bounds: $bounds,
                    doc: concat!($($doc, "\n"),*),
                    flag: $flag,
                },
            )*
        ];
    };
}

/// One row of [`TABLE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spec {
    /// Which limit.
    pub limit: Limit,
    /// Its stable name, kebab-case (what `I2` prints).
    pub name: &'static str,
    /// Its default.
    pub default: u64,
    /// What it bounds, in a few words (the README's column).
    pub bounds: &'static str,
    /// Why it exists and what happens past it.
    pub doc: &'static str,
    /// The command's flag (or the library's option) that raises it; `None` when it is fixed.
    pub flag: Option<&'static str>,
}

impl Limit {
    /// Its row of [`TABLE`].
    pub(crate) fn spec(self) -> &'static Spec {
        // Each variant has its row: the macro writes both from one list.
        TABLE
            .iter()
            .find(|spec| spec.limit == self)
            .unwrap_or(&FALLBACK)
    }
}

/// Never read: [`TABLE`] has a row per [`Limit`].
const FALLBACK: Spec = Spec {
    limit: Limit::ValueWork,
    name: "",
    default: 0,
    bounds: "",
    doc: "",
    flag: None,
};

/// A cap that fired: `limit` was reached at `node` of graph `graph` (by index in the model's
/// graphs), or in the whole graph when `node` is `None`. The run keeps one per (limit, place).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct CapHit {
    /// The graph, by index in the model's graphs (0 is the main graph).
    pub graph: u32,
    /// The node, by index in its graph; `None` for a cap of a whole graph or model.
    pub node: Option<usize>,
    /// The limit reached.
    pub limit: Limit,
}

declare_limits! {
    // Loading (the library's `Limits`; past them the file is a `load/limit` error).
    /// Most nested subgraphs and function bodies a file may have; past it the file is refused
    /// (`load/limit`).
    NestingDepth = "nesting-depth", NESTING_DEPTH: usize = 100,
        flag: Some("Limits::with_max_depth"), bounds: "nested subgraphs of a file";
    /// Highest rank an inferred shape may have: above it the shape's rank is unknown.
    Rank = "rank", RANK: usize = 1024,
        flag: Some("Limits::with_max_rank"), bounds: "rank of an inferred shape";
    /// Most nodes a file may have; past it the file is refused (`load/limit`).
    Nodes = "nodes", NODES: usize = 16_000_000,
        flag: Some("Limits::with_max_nodes"), bounds: "nodes of a file";
    // Values carried as data.
    /// Most elements of an initializer or `Constant` read as values (shape arithmetic reads
    /// small integer tensors; a weight is a shape only).
    TensorValueElements = "tensor-value-elements", TENSOR_VALUE_ELEMENTS: usize = 4096,
        flag: None, bounds: "elements of a stored tensor read as values";
    /// Most elements of one value that value folding computes; a larger result keeps its shape
    /// only.
    ValueElements = "value-elements", VALUE_ELEMENTS: usize = 1 << 16,
        flag: None, bounds: "elements of one folded value";
    /// Most value elements data propagation copies in a whole model: past it shapes still
    /// propagate, values no longer do, so memory and time stay proportional to the file.
    ValueWork = "value-work", VALUE_WORK: usize = 1 << 22,
        flag: None, bounds: "value elements copied in one model";
    // Inference through bodies.
    /// Deepest nesting of subgraph and function-call inference (recursive functions); past it
    /// a body's outputs are unknown.
    InferDepth = "infer-depth", INFER_DEPTH: usize = 64,
        flag: None, bounds: "nested body inference";
    /// Nodes and values inferred in bodies (function calls, loop passes) per unit of the
    /// model's own size; past `body-work-factor * size + body-work-slack` further calls and
    /// control-flow nodes get unknown outputs.
    BodyWorkFactor = "body-work-factor", BODY_WORK_FACTOR: usize = 8,
        flag: None, bounds: "body inference per unit of model size";
    /// Body inference every model may spend beyond `body-work-factor * size`.
    BodyWorkSlack = "body-work-slack", BODY_WORK_SLACK: usize = 1 << 16,
        flag: None, bounds: "body inference beyond the factor";
    /// How many `If` nodes settling tries, each costing two more inference and check runs.
    SettleTried = "settle-tried", SETTLE_TRIED: usize = 4,
        flag: None, bounds: "`If` nodes settling tries";
    // Symbolic dims.
    /// Most terms of one symbolic dim; a larger one is unknown.
    ExprTerms = "expr-terms", EXPR_TERMS: usize = 64,
        flag: None, bounds: "terms of a symbolic dim";
    /// Most nodes of one symbolic dim's expression tree; a larger one is unknown.
    ExprSize = "expr-size", EXPR_SIZE: usize = 256,
        flag: None, bounds: "size of a symbolic dim";
    /// Highest degree of a symbolic dim's term; a higher one is unknown.
    ExprDegree = "expr-degree", EXPR_DEGREE: u32 = 8,
        flag: None, bounds: "degree of a symbolic dim";
    /// Longest period a floor division's residue table may have.
    ExprPeriod = "expr-period", EXPR_PERIOD: i64 = 1 << 12,
        flag: None, bounds: "period of a floor-division residue";
    /// Latest start of a residue table's periodic part.
    ExprPeriodStart = "expr-period-start", EXPR_PERIOD_START: i64 = 1 << 14,
        flag: None, bounds: "start of a residue table's period";
    /// Deepest nesting a symbolic dim's text may have (`--dim`, `dim_param`).
    ParseDepth = "parse-depth", PARSE_DEPTH: usize = 64,
        flag: None, bounds: "nesting of a dim's text";
    /// Most expression pairs one broadcast axis compares symbolically.
    PairedExprs = "paired-exprs", PAIRED_EXPRS: usize = 16,
        flag: None, bounds: "dim pairs compared at one axis";
    /// Broadcast axes of different symbolic sizes one inference run states conditions for
    /// (each a clause or more, solved and written out later). Past it a broadcast states no
    /// condition (its static clashes are still found), so a small file repeating one
    /// high-rank broadcast cannot cost minutes; an `I2` names the nodes.
    BroadcastWork = "broadcast-work", BROADCAST_WORK: usize = 1 << 14,
        flag: None, bounds: "symbolic broadcast axes of one run";
    // Conditions.
    /// Most atoms of one condition its plain form rewrites and its searches read; past it each
    /// answers from the condition's first clauses, which the whole implies (weaker, never
    /// wrong).
    ConditionWork = "condition-work", CONDITION_WORK: usize = 512,
        flag: None, bounds: "atoms of one condition read";
    /// Most clauses of one group's combined condition in the joint forcing.
    JointClauses = "joint-clauses", JOINT_CLAUSES: usize = 1_024,
        flag: None, bounds: "clauses of a combined condition";
    /// Most assignments one bounded search tries.
    SearchTries = "search-tries", SEARCH_TRIES: usize = 4_096,
        flag: None, bounds: "assignments one search tries";
    /// Most atom evaluations of one pass of a search (64 per try).
    SearchWork = "search-work", SEARCH_WORK: usize = SEARCH_TRIES * 64,
        flag: None, bounds: "atom evaluations of one search";
    /// Most atom evaluations spent on one residue table.
    PeriodicWork = "periodic-work", PERIODIC_WORK: usize = 1 << 15,
        flag: None, bounds: "atom evaluations of one residue table";
    /// Most pieces (ranges, lists, tail) a plain description of a dim's values may have.
    ValueSetPieces = "value-set-pieces", VALUE_SET_PIECES: usize = 3,
        flag: None, bounds: "pieces of a stated value set";
    /// Most values listed in one plain `∈ {...}`; a longer list is stated as the condition.
    ValueSetListed = "value-set-listed", VALUE_SET_LISTED: usize = 6,
        flag: None, bounds: "values listed in one stated set";
    /// Most values one value set's scan tries.
    ValueSetScan = "value-set-scan", VALUE_SET_SCAN: i64 = 1 << 16,
        flag: None, bounds: "values a value set's scan tries";
    /// Most clamps a condition may have in the value-set solver.
    Clamps = "clamps", CLAMPS: usize = 8,
        flag: None, bounds: "clamps of one condition";
    /// Most conditional findings whose conditions are compared to fold the implied ones.
    FoldedConditions = "folded-conditions", FOLDED_CONDITIONS: usize = 512,
        flag: None, bounds: "conditions compared for implication";
    /// The largest dim size a real input is taken to reach: a condition failing only above it
    /// is not reported.
    InputSize = "size-limit", SIZE_LIMIT: i64 = 1_000_000_000,
        flag: Some("--size-limit"), bounds: "dim size a real input reaches";
    // Provenance and output.
    /// Most states (value, axis) one dim's provenance walk visits.
    ProvenanceVisitsPerDim = "provenance-visits-per-dim", PROVENANCE_VISITS_PER_DIM: usize = 4_096,
        flag: None, bounds: "states one provenance walk visits";
    /// Most states all provenance walks of one model visit; later findings get none.
    ProvenanceVisitsPerModel = "provenance-visits-per-model",
        PROVENANCE_VISITS_PER_MODEL: usize = 1 << 16,
        flag: None, bounds: "states all provenance walks visit";
    /// Most conjuncts (clauses) of a condition a finding states; the others are counted
    /// (`… and 997 more clauses`) and never written out, so human, JSON and SARIF carry the
    /// same bounded text.
    ConditionClauses = "condition-clauses", CONDITION_CLAUSES: usize = 64,
        flag: None, bounds: "clauses of a finding's condition text";
    /// Most dims of a shape a finding states: a longer shape states the axes the finding is
    /// about (a clash at axis 900 of 1,000) and then its first axes, up to this many in all,
    /// and counts the others (`… and 984 more dims`, with its rank); the provenance and
    /// declarations of its dims are those of the stated axes only. (ONNX models rarely pass
    /// rank 8; numpy stopped at 32 dims for years.)
    ShapeDims = "shape-dims", SHAPE_DIMS: usize = 16,
        flag: None, bounds: "dims of a shape a finding states";
    /// Most nodes one list of a finding names (`also_at`, `implied_at`, a forced value's
    /// nodes); the others are counted (`… and 12,345 more nodes`).
    FindingNodes = "finding-nodes", FINDING_NODES: usize = 64,
        flag: None, bounds: "nodes one list of a finding names";
    /// Findings kept per model; the others are only counted.
    MaxFindings = "max-findings", MAX_FINDINGS: usize = 1_000,
        flag: Some("--max-findings"), bounds: "findings kept per model";
}

#[cfg(test)]
mod tests {
    use super::{Limit, TABLE};
    use std::collections::BTreeSet;

    #[test]
    fn names_are_unique_kebab_case() {
        let mut seen = BTreeSet::new();
        for spec in TABLE {
            assert!(seen.insert(spec.name), "{} twice", spec.name);
            assert!(
                spec.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                spec.name
            );
            assert!(!spec.doc.trim().is_empty(), "{} has no doc", spec.name);
            assert!(spec.default > 0, "{} has no default", spec.name);
        }
    }

    /// The README's limits table is this one: name, default, bounds and flag, in order.
    #[test]
    fn the_readme_limits_table_is_the_declaration() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let header = "| limit | default | bounds | raised by |";
        let rows: Vec<&str> = readme
            .lines()
            .skip_while(|line| *line != header)
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .collect();
        let expected: Vec<String> = TABLE
            .iter()
            .map(|spec| {
                let flag = spec.flag.map_or("—".to_owned(), |f| format!("`{f}`"));
                format!(
                    "| `{}` | {} | {} | {flag} |",
                    spec.name, spec.default, spec.bounds
                )
            })
            .collect();
        assert_eq!(
            rows,
            expected,
            "README.md, \"Limits\": write the table's rows as\n{}",
            expected.join("\n")
        );
    }

    #[test]
    fn each_limit_finds_its_row() {
        assert_eq!(Limit::ValueWork.spec().name, "value-work");
        assert_eq!(Limit::MaxFindings.spec().default, 1_000);
        assert_eq!(Limit::SearchWork.spec().default, 4_096 * 64);
        assert!(TABLE.iter().all(|spec| spec.limit.spec() == spec));
    }
}
