//! Provenance chains (issue 17) in the machine formats: the JSON `provenance` list of an input
//! (one entry per traced dim: its source and the nodes that change it) and SARIF's
//! `relatedLocations` and `codeFlows` (SARIF 2.1.0 sections 3.27.22 and 3.36), one thread flow
//! per traced dim from its source to the finding's node. The declared sizes a finding's dims
//! rest on (issue 38, item 4) go with them: JSON's `declared`, SARIF's property bag and a
//! related location per declaration.

use serde_json::{json, Map, Value};

use super::place::node_region;
use super::values::dim_json;
use crate::diag::Finding;
use crate::provenance::{Declared, DimProvenance, Step};

/// The `provenance` list of one input.
pub(super) fn json(provenance: &[DimProvenance]) -> Value {
    Value::Array(
        provenance
            .iter()
            .map(|p| {
                json!({
                    "axis": p.axis,
                    "dim": dim_json(&p.dim),
                    "source": {
                        "kind": p.source.kind.as_str(),
                        "graph": p.source.graph,
                        "name": p.source.name,
                        "axis": p.source.axis,
                        "dim": dim_json(&p.source.dim),
                    },
                    "steps": p.steps.iter().map(step_json).collect::<Vec<_>>(),
                    "nodes": p.nodes,
                })
            })
            .collect(),
    )
}

/// The `declared` list of one input: the dims that hang on a declared size, each with the
/// declaration that gave it.
pub(super) fn declared_json(declared: &[Declared]) -> Value {
    Value::Array(
        declared
            .iter()
            .map(|d| {
                json!({
                    "axis": d.axis,
                    "dim": dim_json(&d.dim),
                    "declaration": {
                        "graph": d.graph,
                        "name": d.name,
                        "axis": d.declared_axis,
                        "dim": dim_json(&d.declared_dim),
                    },
                })
            })
            .collect(),
    )
}

fn step_json(step: &Step) -> Value {
    let attributes: Map<String, Value> = step
        .attributes
        .iter()
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect();
    json!({
        "graph": step.graph,
        "index": step.index,
        "name": step.name,
        "op_type": step.op_type,
        "attributes": attributes,
        "output": step.output,
        "axis": step.axis,
        "dim": dim_json(&step.dim),
    })
}

/// A SARIF location of a chain's node: its line in its graph's text form and its bytes, as
/// the result's own location, with `message` saying what it makes.
fn step_location(step: &Step, artifact: &Value, id: usize) -> Value {
    let region = node_region(step.index, &step.span);
    json!({
        "id": id,
        "message": {"text": format!("{} makes `{}` (axis {} of `{}`)", step.describe(), step.dim, step.axis, step.output)},
        "physicalLocation": {"artifactLocation": artifact, "region": region},
        "logicalLocations": [{
            "name": step.name,
            "fullyQualifiedName": format!("{}/{}", step.graph, step.name),
            "kind": "function",
        }],
    })
}

/// `relatedLocations` (every chain node once, by id) and `codeFlows` (one thread flow per
/// traced dim: its source, the nodes that change it, and the finding's own location), or
/// `None` when the finding has no provenance.
pub(super) fn sarif(finding: &Finding, artifact: &Value, own: &Value) -> Option<(Value, Value)> {
    let mut related: Vec<Value> = Vec::new();
    let mut ids: Vec<(String, usize)> = Vec::new();
    let mut flows = Vec::new();
    for input in &finding.inputs {
        for dim in input
            .provenance
            .iter()
            .filter(|d| !d.is_trivial(&input.name))
        {
            let mut locations = vec![json!({"location": {
                "message": {"text": dim.source.describe()},
                "logicalLocations": [{
                    "name": dim.source.name,
                    "fullyQualifiedName": format!("{}/{}", dim.source.graph, dim.source.name),
                    "kind": "variable",
                }],
            }})];
            for step in &dim.steps {
                let key = format!("{}/{}", step.graph, step.index);
                let known = ids.iter().find(|(k, _)| *k == key).map(|(_, id)| *id);
                let id = known.unwrap_or_else(|| {
                    let id = related.len();
                    related.push(step_location(step, artifact, id));
                    ids.push((key, id));
                    id
                });
                if let Some(location) = related.get(id) {
                    locations.push(json!({"location": location}));
                }
            }
            locations.push(json!({"location": own}));
            flows.push(json!({
                "message": {"text": dim.note(&input.name)},
                "threadFlows": [{"locations": locations}],
            }));
        }
    }
    (!flows.is_empty()).then(|| (Value::Array(related), Value::Array(flows)))
}

/// The declarations `finding`'s dims rest on, added to its SARIF `result`: `properties.declared`
/// (input name to the JSON's `declared` list) and one `relatedLocations` entry per declared dim,
/// a logical location naming the declared value, whose message says it is an assumption.
pub(super) fn sarif_declared(finding: &Finding, result: &mut Value) {
    let inputs: Vec<_> = finding
        .inputs
        .iter()
        .filter(|input| !input.declared.is_empty())
        .collect();
    let Some(object) = result.as_object_mut().filter(|_| !inputs.is_empty()) else {
        return;
    };
    let by_input: Map<String, Value> = inputs
        .iter()
        .map(|input| (input.name.clone(), declared_json(&input.declared)))
        .collect();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.insert("declared".into(), Value::Object(by_input));
    }
    let related = object
        .entry("relatedLocations")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(related) = related {
        for input in inputs {
            for declared in &input.declared {
                let id = related.len();
                related.push(json!({
                    "id": id,
                    "message": {"text": declared.note(&input.name)},
                    "logicalLocations": [{
                        "name": declared.name,
                        "fullyQualifiedName": format!("{}/{}", declared.graph, declared.name),
                        "kind": "variable",
                    }],
                }));
            }
        }
    }
}
