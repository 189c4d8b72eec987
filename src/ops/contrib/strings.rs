//! Text-processing contrib ops (com.microsoft, CPU kernels): `Tokenizer` splits each string of a
//! `[C]` or `[N, C]` input into tokens along a new last axis whose length is the largest token
//! count found, a data-dependent size (plus the two marks with `mark`; onnxruntime's inference
//! leaves it unknown too), and `MurmurHash3` hashes element-wise (X's shape, uint32 with
//! `positive`, the default, else int32).

use crate::model::dtype::elem;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `Tokenizer(X)`: `[C]` gives `[C, D]` and `[N, C]` gives `[N, C, D]`, `D` data-dependent; an
/// empty input gives `[0]` or `[N, 0]` (the doc). Other ranks fail onnxruntime's inference
/// ("Input dimensions are either [C] or [N][C] allowed").
pub(crate) fn tokenizer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let shape = match x.shape.dims() {
        Some(d) if d.is_empty() || d.len() > 2 => {
            let requires = "Tokenizer's input must be [C] or [N, C]";
            return Err(
                Constraint::new(requires, format!("its rank is {}", d.len()), &[0]).unmet(),
            );
        }
        // An input known to be empty keeps its shape, without the token axis.
        Some(d) if d.iter().any(|d| d.as_known() == Some(0)) => match d {
            [n, _] => Shape::Ranked(vec![n.clone(), Dim::known(0)]),
            _ => Shape::Ranked(vec![Dim::known(0)]),
        },
        // A symbolic dim is taken as non-empty, as onnxruntime's inference takes it (it
        // multiplies the known dims only): at 0 the kernel drops the token axis instead.
        Some(d) => {
            let tokens = ctx.fresh_dim("Tokenizer", Vec::new());
            Shape::Ranked(d.iter().cloned().chain([tokens]).collect())
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(
        Output::shape(shape).elem(Some(elem::STRING)),
    ))
}

/// `MurmurHash3(X)`: X's shape.
pub(crate) fn murmur_hash3(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let out = if ctx.int("positive", 1)? == 1 {
        elem::UINT32
    } else {
        elem::INT32
    };
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(Some(out)),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft};

    #[test]
    fn tokenizer_adds_a_token_axis() {
        let r = run_microsoft(
            "Tokenizer",
            &[dims(&["2", "3"])],
            vec![int_attr("mark", 0)],
            1,
        );
        assert!(shape(&r).starts_with("[2, 3, `Tokenizer#"), "{}", shape(&r));
        assert_eq!(
            shape(&run_microsoft("Tokenizer", &[dims(&["2", "0"])], vec![], 1)),
            "[2, 0]"
        );
        let sym = run_microsoft("Tokenizer", &[dims(&["n"])], vec![], 1);
        assert!(
            shape(&sym).starts_with("[n, `Tokenizer#"),
            "{}",
            shape(&sym)
        );
        assert!(unmet(&run_microsoft(
            "Tokenizer",
            &[dims(&["1", "2", "3"])],
            vec![],
            1
        )));
    }

    #[test]
    fn murmur_hash_is_element_wise() {
        let r = run_microsoft(
            "MurmurHash3",
            &[dims(&["b", "3"])],
            vec![int_attr("positive", 0)],
            1,
        )
        .unwrap();
        assert_eq!(r.outputs[0].shape.to_string(), "[b, 3]");
        assert_eq!(r.outputs[0].elem, Some(crate::model::dtype::elem::INT32));
    }
}
