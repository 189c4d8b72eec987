//! Likely fixes of a broadcast clash, named only when the shapes make one evident: sizes that
//! look transposed, a lower-rank input that lines up with other axes (an Unsqueeze, or the
//! legacy `axis` attribute), or the stretching input of a unidirectional broadcast.

use crate::shape::Shape;

/// The fix of a unidirectional clash: the stretching input is the one to change (the target is
/// the node's other operands' result), to a shape that broadcasts to the target.
pub(super) fn stretch_fix(name: &str, target: &Shape) -> Option<String> {
    let dims = target.dims()?;
    let last = dims.last()?;
    let whole = target.to_string();
    let tail = format!("[{last}]");
    Some(if dims.len() > 1 {
        format!("reshape `{name}` to one that broadcasts to {whole}, such as {tail} or {whole}")
    } else {
        format!("reshape `{name}` to {whole} or [1]")
    })
}

/// A likely fix for two clashing shapes: sizes that look transposed, or a lower-rank input that
/// lines up with other axes of the higher-rank one (it needs an Unsqueeze or Reshape).
pub(super) fn suggest_fix(names: &[String], shapes: &[&Shape], legacy: bool) -> Option<String> {
    let ([a_name, b_name], [a, b]) = (names, shapes) else {
        return None;
    };
    let (a_dims, b_dims) = (a.as_known()?, b.as_known()?);
    if a_dims.len() == b_dims.len() && a_dims != b_dims {
        let mut x = a_dims.clone();
        let mut y = b_dims.clone();
        x.sort_unstable();
        y.sort_unstable();
        if x == y {
            return Some(format!(
                "`{a_name}` {a} and `{b_name}` {b} have the same sizes in another order: one of them probably needs a Transpose"
            ));
        }
    }
    let (small_name, small, large) = if a_dims.len() < b_dims.len() {
        (a_name, &a_dims, &b_dims)
    } else {
        (b_name, &b_dims, &a_dims)
    };
    let (r, big) = (small.len(), large.len());
    if r == 0 || r == big {
        return None;
    }
    (0..big - r).find_map(|offset| {
        let window = large.get(offset..offset + r)?;
        let fits = window
            .iter()
            .zip(small.iter())
            .all(|(l, s)| l == s || *s == 1);
        if !fits {
            return None;
        }
        if legacy {
            return Some(format!(
                "`{small_name}` lines up with axes {offset}..{} of the other input: set axis={offset}",
                offset + r
            ));
        }
        let trailing = big - r - offset;
        let axes: Vec<String> = (r..r + trailing).map(|a| a.to_string()).collect();
        let mut target: Vec<String> = small.iter().map(ToString::to_string).collect();
        target.extend(std::iter::repeat_n("1".to_owned(), trailing));
        Some(format!(
            "`{small_name}` lines up with axes {offset}..{} of the other input: Unsqueeze it at axes [{}] (to [{}])",
            offset + r,
            axes.join(", "),
            target.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    #[test]
    fn lower_rank_input_that_lines_up_elsewhere_gets_an_unsqueeze() {
        let a = Shape::from_known(&[3, 4]);
        let b = Shape::from_known(&[3]);
        let fix = suggest_fix(&names(), &[&a, &b], false).unwrap();
        assert!(
            fix.contains("Unsqueeze it at axes [1] (to [3, 1])"),
            "{fix}"
        );
    }

    #[test]
    fn legacy_misplaced_run_gets_the_right_axis() {
        let a = Shape::from_known(&[2, 3, 4, 5]);
        let b = Shape::from_known(&[3, 4]);
        let fix = suggest_fix(&names(), &[&a, &b], true).unwrap();
        assert!(fix.ends_with("set axis=1"), "{fix}");
    }

    #[test]
    fn permuted_sizes_look_transposed() {
        let a = Shape::from_known(&[3, 4]);
        let b = Shape::from_known(&[4, 3]);
        let fix = suggest_fix(&names(), &[&a, &b], false).unwrap();
        assert!(fix.contains("Transpose"), "{fix}");
    }

    #[test]
    fn unrelated_sizes_get_no_guess() {
        let a = Shape::from_known(&[2, 3]);
        let b = Shape::from_known(&[4]);
        assert_eq!(suggest_fix(&names(), &[&a, &b], false), None);
    }
}
