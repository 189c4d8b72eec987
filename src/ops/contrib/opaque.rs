//! Nodes that carry a compiled or vendor model (com.microsoft): `EPContext` (an execution
//! provider's pre-compiled partition, its payload in an attribute or a file beside the model)
//! and `Snpe` (a Qualcomm SNPE DLC). Their outputs are whatever the compiled graph computes: the
//! ONNX file cannot say, by design, so a rule gives each output an unknown shape and the model's
//! declarations (which such models carry, written by the tool that compiled them) are taken
//! downstream as for any unknown output. They are not I1: no rule could know more, and a note per
//! file that says so would be noise to whoever deploys such a model.

use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Shape;

/// `EPContext(inputs...)`, `Snpe(inputs...)`: every output unknown.
#[allow(clippy::unnecessary_wraps, reason = "a rule's signature")]
pub(crate) fn compiled(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let outputs = ctx
        .node()
        .outputs()
        .iter()
        .map(|_| Output::shape(Shape::Unranked))
        .collect();
    Ok(Inferred::many(outputs))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims, output_shapes, run_microsoft};

    #[test]
    fn compiled_partitions_leave_every_output_unknown() {
        for op in ["EPContext", "Snpe"] {
            let r = run_microsoft(op, &[dims(&["1", "3", "224", "224"])], vec![], 2).unwrap();
            assert_eq!(output_shapes(&r), ["[...]", "[...]"], "{op}");
            assert!(r.checks.is_empty() && r.constraints.is_empty());
        }
    }
}
