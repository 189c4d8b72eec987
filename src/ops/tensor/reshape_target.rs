//! The constraints of a `Reshape` target (Reshape doc; onnxruntime's `ReshapeHelper`): at most
//! one `-1`, no size below `-1`, a `0` only where the input has a dim to copy, no `0` beside a
//! `-1` under `allowzero`, and a `-1` whose other dims divide the input's element count.

use crate::ops::axes::product;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::RuleError;
use crate::shape::condition::Atom;
use crate::shape::{Condition, Dim};

/// The target's dims with `0` copied (unless `allow_zero`) and the `-1` left unknown, and the
/// index of that `-1`. Faults: two `-1`, a size below `-1`, a `0` to copy past the input's rank,
/// a literal `0` beside a `-1` under `allowzero` (each rejected by onnxruntime at load).
pub(crate) fn target_dims(
    target: &[Dim],
    input_dims: Option<&[Dim]>,
    allow_zero: bool,
) -> Result<(Vec<Dim>, Option<usize>), RuleError> {
    let fault = |requires: &str, found: String| {
        Constraint::new(requires, found, &[1])
            .fix("correct the target shape")
            .unmet()
    };
    let has = |v: i64| target.iter().any(|t| t.as_known() == Some(v));
    if allow_zero && has(0) && has(-1) {
        return Err(fault(
            "with allowzero=1 a Reshape target cannot hold both 0 and -1 (Reshape-14 doc)",
            "the target has a 0 and a -1".into(),
        ));
    }
    let mut dims = Vec::with_capacity(target.len());
    let mut inferred_at = None;
    for (i, t) in target.iter().enumerate() {
        let dim =
            match t.as_known() {
                Some(0) if !allow_zero => match input_dims {
                    Some(d) => match d.get(i) {
                        Some(d) => d.clone(),
                        None => return Err(fault(
                            "a 0 in a Reshape target copies the input's dim at the same index, \
                             which must exist",
                            format!("0 at index {i}, the input has rank {}", d.len()),
                        )),
                    },
                    None => Dim::Unknown,
                },
                Some(-1) => {
                    if inferred_at.replace(i).is_some() {
                        return Err(fault(
                            "at most one dimension of a Reshape target can be -1",
                            "the target has two -1 entries".into(),
                        ));
                    }
                    Dim::Unknown
                }
                Some(n) if n < -1 => {
                    return Err(fault(
                        "Reshape target dims must be -1, 0 or positive",
                        format!("the target has {n}"),
                    ))
                }
                _ => t.clone(),
            };
        dims.push(dim);
    }
    Ok((dims, inferred_at))
}

/// Fills the `-1` at `at` with `total / product(others)` when exact. Static sizes that do not
/// divide can never reshape; a product of 0 is left unknown (onnxruntime's own rule there). A
/// symbolic count over a static product must divide by it (onnxruntime's `ReshapeHelper`:
/// `input_shape_size % size == 0`): that is the condition `total % product = 0`, given to
/// `pending` (W4, or E4 when it never holds or holds only at an empty dim).
pub(crate) fn minus_one(
    mut dims: Vec<Dim>,
    at: usize,
    total: &Dim,
    pending: &mut Pending,
) -> Result<Vec<Dim>, RuleError> {
    let others = product(
        &dims
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(_, d)| d.clone())
            .collect::<Vec<_>>(),
    );
    let fault = || {
        Constraint::new(
            "the -1 of a Reshape target must be inferable: the other target dims must \
             divide the input's element count",
            format!("{total} elements, the other target dims multiply to {others}"),
            &[0, 1],
        )
        .fix("correct the target shape")
    };
    if let (Some(t), Some(o)) = (total.as_known(), others.as_known()) {
        if o != 0 && t.checked_rem(o).is_some_and(|r| r != 0) {
            return Err(fault().unmet());
        }
    }
    let quotient = total.div_exact(&others);
    if quotient == Dim::Unknown && total.as_known().is_none() && *total != Dim::Unknown {
        if let Some(o) = others.as_known().filter(|&o| o > 1) {
            let rest = total.modulo(&Dim::known(o));
            if rest != Dim::Unknown {
                pending.holds_if(&Condition::eq(&rest, &Dim::known(0)), fault)?;
            }
        } else if let Some(divides) = divides_symbolic(total, &others) {
            pending.holds_if(&divides, fault)?;
        }
    }
    if let Some(slot) = dims.get_mut(at) {
        *slot = quotient;
    }
    Ok(dims)
}

/// `total % others = 0` for a symbolic product of the other dims, stated through the factor
/// they share: with `others = c*q` (`c` the gcd of its coefficients, `q` one monomial) and
/// `total = q*r` exactly, `total / others = r / c`, so the count divides when `r % c = 0`, or
/// when `q = 0` (the division is then undefined and not modelled: the disjunct keeps the
/// condition from asking anything of an empty product). `None` when `q` does not divide the
/// count as a polynomial (`[n, 3] -> [-1, m]`): `%` has only constant divisors, and a
/// condition that stated less than "`3*n % m = 0`" would be unsound as a requirement.
fn divides_symbolic(total: &Dim, others: &Dim) -> Option<Condition> {
    let (count, product) = (total.to_expr()?, others.to_expr()?);
    if product.as_const().is_some() {
        return None;
    }
    let c = product.content();
    let q = product.div_exact(c)?;
    let r = count.div_exact_by(&q)?;
    let rest = Dim::from_expr(r).modulo(&Dim::known(c));
    if rest == Dim::Unknown {
        return None;
    }
    Some(Condition::any_of([
        Atom::Eq(Dim::from_expr(q), Dim::Known(0)),
        Atom::Eq(rest, Dim::Known(0)),
    ]))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{self, dims as s, int_attr, ints_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    fn target(values: &[i64]) -> Option<testing::Fact> {
        testing::ints(
            ValueTensor::vector(values.iter().copied().map(Dim::known).collect()).unwrap(),
        )
    }

    fn reshape(
        opset: i64,
        x: &[&str],
        to: &[i64],
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        testing::run("Reshape", opset, &[s(x), target(to)], vec![])
    }

    #[test]
    fn element_counts_must_agree() {
        assert!(unmet(&reshape(13, &["2", "3"], &[4, 2])));
        let ok = reshape(13, &["2", "3"], &[3, 2]);
        assert_eq!(shape(&ok), "[3, 2]");
        assert!(conditions(&ok).is_empty());
        // Reshape-1 reads the attribute, and onnxruntime needs it.
        let r = testing::run(
            "Reshape",
            4,
            &[s(&["2", "3"])],
            vec![ints_attr("shape", &[4, 2])],
        );
        assert!(unmet(&r));
        assert!(unmet(&testing::run(
            "Reshape",
            4,
            &[s(&["2", "3"])],
            vec![]
        )));
    }

    #[test]
    fn symbolic_counts_give_a_condition() {
        let r = reshape(13, &["batch", "seq", "768"], &[0, 1536]);
        // Holds for seq = 2 (or an empty batch).
        assert_eq!(conditions(&r), ["batch*seq = 2*batch"]);
        let r = reshape(13, &["batch", "seq", "768"], &[0, 0, 12, 64]);
        assert!(conditions(&r).is_empty());
        assert_eq!(shape(&r), "[batch, seq, 12, 64]");
        // A product the input's count can never be is an error: 768*n is never 1000.
        assert!(unmet(&reshape(13, &["n", "768"], &[1000])));
    }

    #[test]
    fn minus_one_must_divide() {
        assert!(unmet(&reshape(13, &["2", "3"], &[-1, 4])));
        assert_eq!(shape(&reshape(13, &["2", "3"], &[-1, 2])), "[3, 2]");
        assert!(unmet(&reshape(13, &["2", "3"], &[-1, -1])));
        assert!(unmet(&reshape(13, &["2", "3"], &[-2, -3])));
    }

    /// The plain forms of the conditions a rule's constraints hold under, as people read them.
    fn plain_conditions(r: Result<crate::ops::Inferred, crate::ops::RuleError>) -> Vec<String> {
        r.unwrap()
            .constraints
            .iter()
            .filter_map(|c| c.condition().map(|c| c.plain().to_string()))
            .collect()
    }

    #[test]
    fn a_symbolic_count_must_divide_by_the_other_dims_of_a_minus_one() {
        // onnxruntime: [3, 2] into [-1, 4] fails, [4, 2] runs.
        let r = reshape(13, &["n", "2"], &[-1, 4]);
        assert_eq!(conditions(&r), ["n%2 = 0"]);
        assert_eq!(plain_conditions(r), ["n % 2 = 0"]);
        // Exact divisions and products the count always holds need nothing.
        assert!(conditions(&reshape(13, &["n", "4"], &[-1, 2])).is_empty());
        assert!(conditions(&reshape(13, &["n", "3"], &[-1, 3])).is_empty());
        // 2n+1 elements never split into pairs.
        let odd = testing::run(
            "Reshape",
            13,
            &[
                testing::shape(crate::shape::Shape::Ranked(vec![Dim::sym("n")
                    .mul(&Dim::known(2))
                    .add(&Dim::known(1))])),
                target(&[-1, 2]),
            ],
            vec![],
        );
        assert!(unmet(&odd));
    }

    fn reshape_to(x: &[&str], to: &[&str]) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let to = to
            .iter()
            .map(|t| t.parse().map_or_else(|_| Dim::sym(t), Dim::known))
            .collect();
        testing::run(
            "Reshape",
            13,
            &[s(x), testing::ints(ValueTensor::vector(to).unwrap())],
            vec![],
        )
    }

    #[test]
    fn a_minus_one_beside_symbolic_dims_must_divide_by_their_product() {
        // 3n elements into [-1, n, 2]: 3n / 2n is 3/2 for every non-empty input. The check's
        // scope makes a condition met only at n = 0 an error (E4).
        let r = reshape_to(&["n", "3"], &["-1", "n", "2"]);
        assert_eq!(conditions(&r), ["n = 0"]);
        // 6bs elements into [-1, s, 4]: needs 6b % 4 = 0, that is b even.
        let r = reshape_to(&["b", "s", "6"], &["-1", "s", "4"]);
        assert_eq!(conditions(&r), ["s = 0 ∨ b%2 = 0"]);
        assert_eq!(plain_conditions(r), ["s = 0 ∨ b % 2 = 0"]);
        // A product that divides the count exactly needs nothing, and a product that does
        // not share a factor with the count cannot be stated: nothing is claimed.
        let r = reshape_to(&["n", "4"], &["-1", "n", "2"]);
        assert!(conditions(&r).is_empty());
        assert_eq!(shape(&r), "[2, n, 2]");
        assert!(conditions(&reshape_to(&["n", "3"], &["-1", "m"])).is_empty());
        // A product with a second symbol the count lacks: not stated either.
        assert!(conditions(&reshape_to(&["n", "3"], &["-1", "n", "m"])).is_empty());
    }

    #[test]
    fn zero_copies_an_existing_dim_unless_allowzero() {
        assert!(unmet(&reshape(13, &["6"], &[2, 0, 3])));
        assert_eq!(shape(&reshape(13, &["2", "3"], &[0, 3])), "[2, 3]");
        let allow = |x: &[&str], to: &[i64]| {
            testing::run(
                "Reshape",
                14,
                &[s(x), target(to)],
                vec![int_attr("allowzero", 1)],
            )
        };
        assert!(unmet(&allow(&["2", "3"], &[0, -1])));
        // With allowzero the 0 is a size: 6 elements cannot become 0.
        assert!(unmet(&allow(&["2", "3"], &[0, 3])));
        assert_eq!(shape(&allow(&["0", "3"], &[0, 3])), "[0, 3]");
    }

    #[test]
    fn flatten_axis_range_depends_on_the_opset() {
        let flatten = |opset, axis| {
            testing::run(
                "Flatten",
                opset,
                &[s(&["2", "3"])],
                vec![int_attr("axis", axis)],
            )
        };
        assert_eq!(shape(&flatten(13, 2)), "[6, 1]");
        assert_eq!(shape(&flatten(13, -2)), "[1, 6]");
        assert!(unmet(&flatten(13, 3)));
        assert!(unmet(&flatten(13, -3)));
        // Flatten-1 and -9 accept [0, r] only.
        assert!(unmet(&flatten(9, -1)));
        assert_eq!(shape(&flatten(9, 0)), "[1, 6]");
    }
}
