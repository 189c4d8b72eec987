//! Graph inputs' declared shapes as inference starts from them: anonymous axes named.

use crate::shape::{Dim, Shape};

/// A main-graph input's shape with each anonymous axis (no `dim_value`, and no `dim_param` that
/// names a symbol: `?`, `-1`, `unk__3`, nothing) given its own symbol `input:axis`.
///
/// The IR makes such a dim unknown and unrelated to every other dim, but it is still one size
/// per run: naming it keeps it unrelated to the other axes while every value derived from it
/// compares equal to it. The name holds a `:`, so no identifier-like `dim_param` can be it.
///
/// Used for main-graph inputs only (a body's inputs may change between iterations).
pub(crate) fn name_anonymous(input: &str, shape: Shape) -> Shape {
    match shape {
        Shape::Ranked(dims) => Shape::Ranked(
            dims.into_iter()
                .enumerate()
                .map(|(axis, d)| match d {
                    Dim::Unknown => Dim::sym(&format!("{input}:{axis}")),
                    d => d,
                })
                .collect(),
        ),
        Shape::Unranked => Shape::Unranked,
    }
}

#[cfg(test)]
mod tests {
    use crate::shape::Dim;

    #[test]
    fn anonymous_input_axes_get_their_own_symbols() {
        use super::name_anonymous;
        use crate::shape::Shape;
        let declared = Shape::Ranked(vec![
            Dim::Unknown,
            Dim::known(3),
            Dim::Unknown,
            Dim::sym("w"),
        ]);
        let named = name_anonymous("x", declared);
        assert_eq!(named.to_string(), "[`x:0`, 3, `x:2`, w]");
        let dims = named.dims().unwrap();
        // Two anonymous axes stay unrelated: neither equal nor provably different.
        assert_eq!(dims[0].eq_dim(&dims[2]), crate::shape::Tri::Unknown);
        assert_eq!(name_anonymous("x", Shape::Unranked), Shape::Unranked);
    }
}
