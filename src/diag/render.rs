//! The one place a finding's message and help are written: from its [`Facts`] and its node.
//! Messages state the fact and name the op and node (STYLE.md, "A diagnostic"); help says what
//! would make the node legal and, when one can be named, the likely fix.

use std::fmt::Write as _;

use super::facts::{Facts, NodeName, Operand, SizeAt, SizeOrigin, Structure};
use super::NodeSite;
use crate::shape::broadcast::{Offender, Violation, ViolationKind};
use crate::shape::{Binding, Rule};

/// The note appended to the help of a finding that depends on `--initializers-as-constants`.
const ASSUMED: &str =
    "assuming initializers that are also graph inputs keep their values (--initializers-as-constants)";

/// The help's note on a failure whose sizes come from `--dim`.
const DEPLOYMENT: &str =
    "the sizes come from --dim: this deployment fails, and other sizes may not";

/// `Add node `add``, or `node `n`` for a node without an op type.
fn what(node: Option<&NodeSite>) -> String {
    match node {
        Some(n) if n.op_type.is_empty() => format!("node `{}`", n.name),
        Some(n) => format!("{} node `{}`", n.op_type, n.name),
        None => "the model".to_owned(),
    }
}

/// The message of a finding with `facts` at `node`.
pub(super) fn message(facts: &Facts, node: Option<&NodeSite>) -> String {
    let what = what(node);
    match facts {
        Facts::BroadcastClash { .. } => clash_message(facts, &what),
        Facts::BroadcastBroken {
            condition, binding, ..
        } => format!(
            "{what}: inputs cannot broadcast when {}: it needs {condition}",
            show_binding(binding)
        ),
        Facts::ConditionalBroadcast { condition, .. } => {
            format!("{what}: broadcasting is valid only if {condition}")
        }
        Facts::BroadcastEmptyOnly { condition, .. } => format!(
            "{what}: inputs cannot broadcast for any non-empty input: it holds only if {condition}"
        ),
        Facts::ConstraintEmptyOnly {
            constraint,
            condition,
            ..
        } => format!(
            "{what}: {constraint}, which fails for every non-empty input: it holds only if {condition}"
        ),
        Facts::ConditionalConstraint {
            constraint,
            condition,
            ..
        } => format!("{what}: {constraint}, which holds only if {condition}"),
        Facts::ForcedValue { .. } => forced_message(facts),
        Facts::DeclaredMismatch {
            value,
            declared,
            inferred,
            mismatch,
        } => format!(
            "{what}: output `{value}` is declared {declared} but inferred {inferred} ({mismatch})"
        ),
        Facts::Structure { problem } => structure_message(problem, node.map(|_| what.as_str())),
        Facts::LegacyImplicitBroadcast { opset, shapes } => {
            let shapes: Vec<String> = shapes.iter().map(ToString::to_string).collect();
            format!(
                "{what}: inputs of shapes {} without `broadcast=1`, which opset {opset} requires to be equal",
                shapes.join(" and ")
            )
        }
        Facts::Unsupported {
            op_type,
            domain,
            reason,
            nodes,
            count,
            ..
        } => unsupported_message(op_type, domain, reason.as_deref(), nodes, *count),
        Facts::CapReached {
            limit,
            value,
            bounds,
            graph,
            nodes,
            count,
            ..
        } => {
            let at = match (node, *count) {
                (None, _) => format!("graph `{graph}`"),
                (Some(_), 0 | 1) => what.clone(),
                (Some(_), count) => format!("{count} nodes ({})", listed(nodes, count)),
            };
            format!("a check was not made: limit `{limit}` ({bounds}, {value}) reached at {at}")
        }
        Facts::ConstraintUnmet { .. } => unmet_message(facts, &what),
        Facts::MissingInput { slot } => format!("{what}: required input {slot} is missing"),
        Facts::BadAttribute {
            attribute,
            expected,
        } => format!("{what}: attribute `{attribute}` must be {expected}"),
        Facts::InvalidNode { reason } => format!("{what}: {reason}"),
        Facts::InitializerMismatch {
            input,
            graph,
            declared,
            stored,
        } => format!(
            "graph input `{input}` of {graph} is declared {declared} but its initializer is {stored}"
        ),
        Facts::BranchFailure { .. } => branch_message(facts, node),
    }
}

/// The nodes whose conditions force a symbol to one value, and their conditions; past
/// `finding-nodes`, the first ones and a count.
fn forced_message(facts: &Facts) -> String {
    let Facts::ForcedValue {
        symbol,
        value,
        nodes,
        conditions,
        nodes_left_out,
        ..
    } = facts
    else {
        return String::new();
    };
    let mut nodes: Vec<String> = nodes.iter().map(node_name).collect();
    let mut conditions = conditions.join(" and ");
    if *nodes_left_out > 0 {
        nodes.push(format!("… and {nodes_left_out} more nodes"));
        conditions.push_str(" and theirs");
    }
    format!(
        "{symbol} must be {value}: together, nodes {} need {conditions}",
        nodes.join(", "),
    )
}

/// A failure that hangs on the branch an `If` takes: the failure's own message, then the
/// branches it fails and holds under, each with the rank the `If`'s output has there.
fn branch_message(facts: &Facts, node: Option<&NodeSite>) -> String {
    let Facts::BranchFailure {
        if_node,
        failing_branch,
        every_branch,
        then_rank,
        else_rank,
        failure,
        ..
    } = facts
    else {
        return String::new();
    };
    let failure = message(failure, node);
    let name = &if_node.name;
    if *every_branch {
        return format!(
            "{failure}, which fails whichever branch `{name}` takes (then: rank {then_rank}; else: rank {else_rank})"
        );
    }
    let (failing_rank, holding, holding_rank) = if failing_branch == "then" {
        (then_rank, "else", else_rank)
    } else {
        (else_rank, "then", then_rank)
    };
    format!(
        "{failure}, which fails when `{name}` takes its {failing_branch} branch (rank {failing_rank}); holds when it takes its {holding} branch (rank {holding_rank})"
    )
}

/// The help of an E3: what the ONNX IR requires instead.
fn structure_help(problem: &Structure) -> &'static str {
    match problem {
        Structure::NoGraph => "export the model again; a ModelProto must hold a GraphProto",
        Structure::Cycle { .. } => {
            "ONNX graphs must be acyclic; loops belong in a Loop or Scan body"
        }
        Structure::UndefinedInput { .. } => {
            "add the missing initializer or graph input, or fix the input name"
        }
        Structure::DuplicateProducer { .. } => {
            "every value must have exactly one producer (SSA form)"
        }
        Structure::MissingOpType => "set the node's op_type",
    }
}

/// `` `a`, `b`, and 3 more ``: the names listed, and how many `count` leaves out.
fn listed(nodes: &[String], count: usize) -> String {
    let mut names: Vec<String> = nodes.iter().map(|n| format!("`{n}`")).collect();
    if count > nodes.len() {
        names.push(format!("and {} more", count - nodes.len()));
    }
    names.join(", ")
}

/// An I2's help: the flag that raises the limit, when one does.
fn cap_help(flag: Option<&str>) -> String {
    match flag {
        Some(flag) => {
            format!("raise it with `{flag}`; until then the result there is unknown, not wrong")
        }
        None => "the limit has no flag: the result there is unknown, not wrong".to_owned(),
    }
}

/// An E1 clash: its axis and sizes (and the bindings they come from).
fn clash_message(facts: &Facts, what: &str) -> String {
    let Facts::BroadcastClash {
        rule,
        violation,
        axis,
        sizes,
        operands,
        target,
        binding,
        ..
    } = facts
    else {
        return String::new();
    };
    let mut violation = violation_text(*rule, *violation, *axis, sizes);
    if !binding.is_empty() {
        let _ = write!(violation, " ({})", bound_by(binding));
    }
    match (rule, operands.get(1), target) {
        (Rule::Unidirectional, Some(b), Some(target)) => format!(
            "{what}: `{}` {} cannot broadcast to {target}: {violation}",
            b.name, b.shape
        ),
        _ => format!("{what}: inputs cannot broadcast: {violation}"),
    }
}

/// An E4 constraint: what it requires and what the inputs give, or the condition a binding
/// breaks, or the bindings the sizes come from.
fn unmet_message(facts: &Facts, what: &str) -> String {
    let Facts::ConstraintUnmet {
        constraint,
        found,
        condition,
        binding,
        ..
    } = facts
    else {
        return String::new();
    };
    match (condition, binding) {
        (Some(condition), Some(binding)) => format!(
            "{what}: {constraint}, which fails when {}: it needs {condition}",
            show_binding(binding)
        ),
        (None, Some(binding)) if found.is_empty() => {
            format!("{what}: {constraint} ({})", bound_by(binding))
        }
        (None, Some(binding)) => {
            format!("{what}: {constraint} ({found}; {})", bound_by(binding))
        }
        _ if found.is_empty() => format!("{what}: {constraint}"),
        _ => format!("{what}: {constraint} ({found})"),
    }
}

/// A structural problem; one at a node (`at` names it) names the node first.
fn structure_message(problem: &Structure, at: Option<&str>) -> String {
    let at = at.map_or_else(String::new, |what| format!("{what}: "));
    match problem {
        Structure::NoGraph => "the model has no graph".to_owned(),
        Structure::Cycle { nodes } => format!("{at}nodes form a cycle ({nodes} nodes)"),
        Structure::UndefinedInput { name } => {
            format!("{at}input `{name}` is produced by no node, graph input or initializer")
        }
        Structure::DuplicateProducer { name } => {
            format!("{at}value `{name}` is produced more than once")
        }
        Structure::MissingOpType => format!("{at}node has no op_type"),
    }
}

fn unsupported_message(
    op_type: &str,
    domain: &str,
    reason: Option<&str>,
    nodes: &[String],
    count: usize,
) -> String {
    let qualified = if domain.is_empty() {
        op_type.to_owned()
    } else {
        format!("{domain}.{op_type}")
    };
    let stops = match reason {
        None => format!("{qualified} is not known to the shape engine"),
        Some(reason) => format!("{qualified}: {reason}"),
    };
    format!(
        "{stops}: outputs of {count} node(s) are unknown unless declared ({})",
        listed(nodes, count)
    )
}

/// The help of a finding with `facts` at `node`; `assumed` appends [`ASSUMED`], and `declared`
/// (the values whose declared sizes it hangs on) a note naming them.
pub(super) fn help(
    facts: &Facts,
    node: Option<&NodeSite>,
    assumed: bool,
    declared: &[&str],
) -> String {
    let mut help = base_help(facts, node);
    if let Facts::ConditionalBroadcast {
        also_at,
        also_at_left_out,
        ..
    }
    | Facts::ConditionalConstraint {
        also_at,
        also_at_left_out,
        ..
    } = facts
    {
        for other in also_at {
            let _ = write!(
                help,
                "; the same condition is needed at {}",
                node_name(other)
            );
        }
        if *also_at_left_out > 0 {
            let _ = write!(
                help,
                "; the same condition is needed at … and {also_at_left_out} more nodes"
            );
        }
    }
    if let Facts::ConditionalBroadcast {
        implied_at,
        implied_at_left_out,
        ..
    }
    | Facts::ConditionalConstraint {
        implied_at,
        implied_at_left_out,
        ..
    } = facts
    {
        // Nodes of one weaker condition together: `Conv `a`, Conv `b`, which need h ≥ 2`.
        for same in implied_at.chunk_by(|a, b| a.condition == b.condition) {
            let Some(first) = same.first() else {
                continue;
            };
            let nodes: Vec<String> = same.iter().map(|other| node_name(&other.node)).collect();
            let verb = if nodes.len() > 1 { "need" } else { "needs" };
            let _ = write!(
                help,
                "; it also covers {}, which {verb} {}",
                nodes.join(", "),
                first.condition
            );
        }
        if *implied_at_left_out > 0 {
            let _ = write!(
                help,
                "; it also covers … and {implied_at_left_out} more nodes, whose conditions it implies"
            );
        }
    }
    if assumed {
        help.push_str("; ");
        help.push_str(ASSUMED);
    }
    if !declared.is_empty() {
        let names: Vec<String> = declared.iter().map(|name| format!("`{name}`")).collect();
        let _ = write!(
            help,
            "; assuming the sizes declared for {} (inference could not compute them, and a declaration can be wrong)",
            names.join(", ")
        );
    }
    help
}

/// The help of the kinds whose help names no fact: I1's and W5's.
fn fixed_help(facts: &Facts) -> String {
    if matches!(facts, Facts::LegacyImplicitBroadcast { .. }) {
        "ONNX's own opset-1 test models rely on implicit broadcasting, and runtimes that convert \
         the model to opset 7 broadcast the inputs; set `broadcast=1` (and `axis`), or convert \
         the model to opset 7, to state it"
    } else {
        "declare the outputs' shapes in value_info so checks can continue past these nodes"
    }
    .to_owned()
}

fn base_help(facts: &Facts, node: Option<&NodeSite>) -> String {
    match facts {
        Facts::BroadcastClash {
            rule,
            operands,
            fix,
            binding,
            ..
        } => {
            let mut help = format!("{}: {}", rule_text(*rule), requirement(*rule, operands));
            if let Some(fix) = fix {
                let _ = write!(help, "; {fix}");
            }
            if !binding.is_empty() {
                help.push_str("; ");
                help.push_str(DEPLOYMENT);
            }
            help
        }
        Facts::BroadcastBroken { rule, operands, .. } => format!(
            "{}: {}; this deployment's dims break that",
            rule_text(*rule),
            requirement(*rule, operands)
        ),
        Facts::ConditionalBroadcast {
            rule,
            operands,
            counterexample,
            data_dependent,
            data_dependent_left_out,
            bindable,
            ..
        } => format!(
            "{}: {}{}{}",
            rule_text(*rule),
            requirement(*rule, operands),
            breaks(counterexample.as_ref()),
            binding_advice(data_dependent, *data_dependent_left_out, *bindable)
        ),
        Facts::BroadcastEmptyOnly { .. } | Facts::ConstraintEmptyOnly { .. } => {
            empty_only_help(facts)
        }
        Facts::ConditionalConstraint {
            fix,
            counterexample,
            data_dependent,
            data_dependent_left_out,
            bindable,
            ..
        } => format!(
            "{}{}{}",
            fix.as_deref()
                .unwrap_or("the model fails for the other values"),
            breaks(counterexample.as_ref()),
            binding_advice(data_dependent, *data_dependent_left_out, *bindable)
        ),
        Facts::ForcedValue { symbol, value, .. } => format!(
            "the model fails for every {symbol} other than {value}; if {symbol} is meant to vary, fix the shapes these nodes broadcast"
        ),
        Facts::DeclaredMismatch { .. } => {
            "correct the declared shape (value_info or graph output), or the computation feeding this node"
                .to_owned()
        }
        Facts::Structure { problem } => structure_help(problem).to_owned(),
        Facts::Unsupported { .. } | Facts::LegacyImplicitBroadcast { .. } => fixed_help(facts),
        Facts::CapReached { flag, .. } => cap_help(flag.as_deref()),
        Facts::ConstraintUnmet {
            constraint,
            fix,
            condition,
            binding,
            ..
        } => unmet_help(constraint, fix.as_deref(), condition.is_none() && binding.is_some()),
        Facts::MissingInput { slot } => format!(
            "the {} operator requires input {slot}: connect it, or check the opset the model imports",
            node.map_or("", |n| n.op_type.as_str())
        ),
        Facts::BadAttribute { attribute, .. } => {
            format!("write `{attribute}` with the type the operator doc gives")
        }
        Facts::InvalidNode { .. } => format!(
            "correct the node against the {} operator's doc",
            node.map_or("", |n| n.op_type.as_str())
        ),
        Facts::InitializerMismatch { input, .. } => format!(
            "make the declaration of `{input}` match its initializer's dims, or re-export the initializer"
        ),
        Facts::BranchFailure { .. } => branch_help(facts, node),
    }
}

/// The help of a failure that hangs on the branch an `If` takes: the failure's own, then what
/// the branches must agree on, and the other nodes failing in the same runs.
fn branch_help(facts: &Facts, node: Option<&NodeSite>) -> String {
    let Facts::BranchFailure {
        if_node,
        failing_branch,
        every_branch,
        failure,
        also_at,
        also_at_left_out,
        ..
    } = facts
    else {
        return String::new();
    };
    let mut help = base_help(failure, node);
    if !*every_branch {
        let _ = write!(
            help,
            "; or make both branches of `{}` give the rank this node takes: every run in which it takes its {failing_branch} branch fails here",
            if_node.name
        );
    }
    for other in also_at {
        let _ = write!(help, "; those runs also fail at {}", node_name(other));
    }
    if *also_at_left_out > 0 {
        let _ = write!(
            help,
            "; those runs also fail at … and {also_at_left_out} more nodes"
        );
    }
    help
}

/// The help of an E1 or E4 that holds only at an empty dim: the W1's or W4's, without the
/// advice to bind the dims (no binding of non-empty dims makes it hold).
fn empty_only_help(facts: &Facts) -> String {
    match facts {
        Facts::BroadcastEmptyOnly {
            rule,
            operands,
            counterexample,
            data_dependent,
            data_dependent_left_out,
            ..
        } => format!(
            "{}: {}{}{}",
            rule_text(*rule),
            requirement(*rule, operands),
            breaks(counterexample.as_ref()),
            binding_advice(data_dependent, *data_dependent_left_out, false)
        ),
        Facts::ConstraintEmptyOnly {
            fix,
            counterexample,
            data_dependent,
            data_dependent_left_out,
            ..
        } => format!(
            "{}{}{}",
            fix.as_deref()
                .unwrap_or("the model fails for every non-empty input"),
            breaks(counterexample.as_ref()),
            binding_advice(data_dependent, *data_dependent_left_out, false)
        ),
        _ => String::new(),
    }
}

/// An E4's help: its fix, and whether its sizes come from `--dim`.
fn unmet_help(constraint: &str, fix: Option<&str>, bound: bool) -> String {
    let mut help = fix.map_or_else(
        || {
            format!(
                "{constraint}: change the inputs' shapes (or the node's attributes) so that it holds"
            )
        },
        str::to_owned,
    );
    if bound {
        help.push_str("; ");
        help.push_str(DEPLOYMENT);
    }
    help
}

/// The violation's words (`axis 1 is 3 vs 4`), from the shape module's one rendering of it.
fn violation_text(
    rule: Rule,
    kind: ViolationKind,
    axis: Option<usize>,
    sizes: &[SizeAt],
) -> String {
    let inputs = sizes
        .iter()
        .map(|s| Offender {
            input: s.operand,
            axis: s.axis,
            dim: s.size.clone(),
        })
        .collect();
    Violation {
        rule,
        kind,
        axis,
        inputs,
    }
    .to_string()
}

fn node_name(node: &NodeName) -> String {
    format!("{} `{}`", node.op_type, node.name)
}

/// `; it fails when seq=65`, or nothing when no breaking binding was found.
fn breaks(counterexample: Option<&Binding>) -> String {
    counterexample
        .map(|b| format!("; it fails when {}", show_binding(b)))
        .unwrap_or_default()
}

/// What binding can decide the condition: `--dim` for an input's dims, and for each size the
/// model computes, where it comes from (no `--dim` can bind it).
fn binding_advice(data_dependent: &[SizeOrigin], left_out: usize, bindable: bool) -> String {
    let mut advice = String::new();
    for origin in data_dependent {
        let _ = write!(advice, "; `{}` is a data-dependent size", origin.symbol);
        match (&origin.made_by, origin.value.is_empty()) {
            (Some(node), _) => {
                let _ = write!(
                    advice,
                    " (made by {} for `{}`)",
                    node_name(node),
                    origin.value
                );
            }
            (None, false) => {
                let _ = write!(advice, " (of `{}`)", origin.value);
            }
            (None, true) => {}
        }
        advice.push_str(", which --dim cannot bind");
    }
    if left_out > 0 {
        let _ = write!(
            advice,
            "; … and {left_out} more data-dependent sizes, which --dim cannot bind"
        );
    }
    if bindable {
        advice.push_str("; bind the dims with --dim to check one deployment");
    }
    advice
}

/// `seq = 77, bound by --dim`: where sizes of a failure come from.
fn bound_by(binding: &Binding) -> String {
    let values: Vec<String> = binding
        .iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    format!("{}, bound by --dim", values.join(", "))
}

/// `batch=8, seq=65`.
fn show_binding(binding: &Binding) -> String {
    binding
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn rule_text(rule: Rule) -> &'static str {
    match rule {
        Rule::Multidirectional => "multidirectional (numpy) broadcasting",
        Rule::Unidirectional => "unidirectional broadcasting",
        Rule::Bidirectional => "bidirectional broadcasting (Expand)",
        Rule::Legacy => "opset < 7 broadcast/axis rule",
        Rule::Pdpd => "pdpd broadcasting",
    }
}

/// What the rule requires. Under the unidirectional rule only one input may stretch, and the
/// help names it (`C` for Gemm, `slope` for `PRelu`), the input to change.
fn requirement(rule: Rule, operands: &[Operand]) -> String {
    match rule {
        Rule::Multidirectional | Rule::Bidirectional | Rule::Pdpd => {
            "shapes align from the right and each pair of sizes must be equal or contain a 1"
                .to_owned()
        }
        Rule::Unidirectional => {
            let stretching = operands
                .get(1)
                .map_or_else(|| "the second input".to_owned(), |o| format!("`{}`", o.name));
            format!(
                "only {stretching} stretches: each of its sizes must equal the target's or be 1, and its rank may not exceed the target's"
            )
        }
        Rule::Legacy => {
            "B must be a single element or equal a contiguous run of A's dims starting at `axis` (suffix when absent)"
                .to_owned()
        }
    }
}
