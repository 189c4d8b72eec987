//! `Attention` (ONNX Attention-23, -24, -25): Q, K, V as 4-D `(batch, heads, seq, head_size)` or
//! 3-D `(batch, seq, heads * head_size)` with `q_num_heads`/`kv_num_heads`; optional past key and
//! value caches. `attn_mask` is broadcast unidirectionally to the scores
//! `(batch, q_heads, q_seq, total_seq)`, recorded as a check. From Attention-24 the mask's last
//! dim may be shorter than `total_seq` (padded with -inf); -25 adds window attributes that do
//! not change shapes.

use crate::ops::constraint::Constraint;
use crate::ops::overflow::sized;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::{self, Rule};
use crate::shape::{Dim, Shape};

/// One of Q, K, V seen as `(batch, heads, seq, head_size)`; `packed` when the input is 3-D.
struct View {
    batch: Dim,
    heads: Dim,
    seq: Dim,
    head_size: Dim,
    packed: bool,
}

/// Views a Q/K/V input; a 3-D input needs its head count from `heads_attr`. An unranked input
/// gives an unknown view.
fn view(
    shape: &Shape,
    heads_attr: Option<i64>,
    name: &str,
    slot: usize,
) -> Result<Option<View>, RuleError> {
    match shape.dims() {
        None => Ok(None),
        Some([b, h, s, d]) => Ok(Some(View {
            batch: b.clone(),
            heads: h.clone(),
            seq: s.clone(),
            head_size: d.clone(),
            packed: false,
        })),
        Some([b, s, hidden]) => {
            let attr = if name == "Q" {
                "q_num_heads"
            } else {
                "kv_num_heads"
            };
            let heads = heads_attr.filter(|&h| h > 0).ok_or_else(|| {
                Constraint::new(
                    format!("a 3-D {name} needs `{attr}` (a positive head count) to be split into heads"),
                    format!("{name} is {shape}, `{attr}` is {}", heads_attr.map_or_else(|| "absent".to_owned(), |h| h.to_string())),
                    &[slot],
                )
                .fix(format!("set `{attr}` on the node, or pass {name} as 4-D (batch, heads, seq, head_size)"))
                .unmet()
            })?;
            // An accepted model has hidden divisible by heads, so the floor division is exact.
            Ok(Some(View {
                batch: b.clone(),
                heads: Dim::known(heads),
                seq: s.clone(),
                head_size: hidden.floor_div(&Dim::known(heads)),
                packed: true,
            }))
        }
        Some(d) => Err(Constraint::new(
            format!("Attention's {name} must be 3-D or 4-D"),
            format!("{name} has rank {}", d.len()),
            &[slot],
        )
        .unmet()),
    }
}

fn field(v: Option<&View>, f: impl Fn(&View) -> Dim) -> Dim {
    v.map_or(Dim::Unknown, f)
}

/// Attention-23: the mask broadcasts unidirectionally to the scores.
pub(crate) fn attention_23(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    infer(ctx, false)
}

/// Attention-24 and -25: the mask's last dim may also be shorter than the total sequence.
pub(crate) fn attention_24(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    infer(ctx, true)
}

/// The mask's target: the scores, except that with `short_mask` (Attention-24 on) a mask whose
/// last dim is not provably longer than `total` is checked against its own last dim there, as it
/// is padded to `total` with -inf. A last dim that may be longer is left to the check.
fn mask_target(scores: &[Dim], mask: &Shape, total: &Dim, short_mask: bool) -> Shape {
    let mut dims = scores.to_vec();
    let last = mask.dims().and_then(<[Dim]>::last);
    if let (true, Some(last), Some(slot)) = (short_mask, last, dims.last_mut()) {
        let longer = matches!((last.as_known(), total.as_known()), (Some(m), Some(t)) if m > t);
        if !longer {
            *slot = last.clone();
        }
    }
    Shape::Ranked(dims)
}

/// The Attention rule; `short_mask` from Attention-24 on.
fn infer(ctx: &Ctx<'_>, short_mask: bool) -> Result<Inferred, RuleError> {
    let q_in = ctx.required(0)?;
    let q_heads = ctx.attrs().int("q_num_heads")?;
    let kv_heads = ctx.attrs().int("kv_num_heads")?;
    let q = view(q_in.shape, q_heads, "Q", 0)?;
    let k = view(ctx.shape(1)?, kv_heads, "K", 1)?;
    let v = view(ctx.shape(2)?, kv_heads, "V", 2)?;
    let past_seq = match ctx.input(4) {
        None => Dim::known(0),
        Some(past) => past
            .shape
            .dims()
            .and_then(|d| d.get(2))
            .cloned()
            .unwrap_or(Dim::Unknown),
    };
    let kv_seq = field(k.as_ref(), |k| k.seq.clone());
    let total =
        sized("the present key/value length (past + new)", &[1, 4]).add(&past_seq, &kv_seq)?;
    let batch = field(q.as_ref(), |q| q.batch.clone());
    let heads = field(q.as_ref(), |q| q.heads.clone());
    let q_seq = field(q.as_ref(), |q| q.seq.clone());
    let v_head = field(v.as_ref(), |v| v.head_size.clone());
    let y = match &q {
        None => Shape::Unranked,
        Some(q) if q.packed => {
            let width = sized(
                "the output's hidden size (heads times V's head size)",
                &[0, 2],
            )
            .mul(&heads, &v_head)?;
            Shape::Ranked(vec![batch.clone(), q_seq.clone(), width])
        }
        Some(_) => Shape::Ranked(vec![
            batch.clone(),
            heads.clone(),
            q_seq.clone(),
            v_head.clone(),
        ]),
    };
    let score_dims = vec![batch.clone(), heads, q_seq, total.clone()];
    let scores = Shape::Ranked(score_dims.clone());
    let kv_heads_dim = field(k.as_ref(), |k| k.heads.clone());
    let k_head = field(k.as_ref(), |k| k.head_size.clone());
    let elem = q_in.elem;
    let mut inferred = Inferred::many(vec![
        Output::shape(y).elem(elem),
        Output::shape(Shape::Ranked(vec![
            batch.clone(),
            kv_heads_dim.clone(),
            total.clone(),
            k_head,
        ]))
        .elem(elem),
        Output::shape(Shape::Ranked(vec![
            batch,
            kv_heads_dim,
            total.clone(),
            v_head,
        ]))
        .elem(elem),
        Output::shape(scores.clone()).elem(elem),
    ]);
    if let Some(mask) = ctx.input(3) {
        let target = mask_target(&score_dims, mask.shape, &total, short_mask);
        let outcome = broadcast::unidirectional(&target, mask.shape);
        // The scores have no input of their own; Q, which gives their leading dims, stands for
        // them.
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 3], outcome);
    }
    Ok(inferred)
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, output_shapes as shapes};
    use crate::ops::testing::{int_attr, run_in};

    fn masked(opset: i64, mask: &[&str]) -> crate::ops::Inferred {
        let inputs = [
            s(&["2", "3", "4", "8"]),
            s(&["2", "3", "6", "8"]),
            s(&["2", "3", "6", "8"]),
            s(mask),
        ];
        run_in("", "Attention", opset, &inputs, vec![], 1).unwrap()
    }

    #[test]
    fn a_shorter_mask_is_padded_from_attention_24() {
        // total_sequence_length is 6; a mask of 4 keys is padded with -inf from opset 24 on.
        assert!(masked(23, &["4", "4"]).checks[0].outcome.is_invalid());
        assert!(masked(24, &["4", "4"]).checks[0].outcome.is_valid());
        assert!(masked(24, &["4", "6"]).checks[0].outcome.is_valid());
        // Longer than the keys is still wrong, and so are the other axes.
        assert!(masked(24, &["4", "7"]).checks[0].outcome.is_invalid());
        assert!(masked(24, &["5", "4"]).checks[0].outcome.is_invalid());
    }

    #[test]
    fn three_d_without_head_count_is_unmet() {
        let inputs = [
            s(&["2", "4", "16"]),
            s(&["2", "6", "16"]),
            s(&["2", "6", "16"]),
        ];
        let err = run_in("", "Attention", 23, &inputs, vec![], 1).unwrap_err();
        assert!(matches!(err, crate::ops::RuleError::Unmet(_)), "{err}");
        let heads = vec![int_attr("q_num_heads", 2), int_attr("kv_num_heads", 2)];
        assert!(run_in("", "Attention", 23, &inputs, heads, 1).is_ok());
    }

    #[test]
    fn four_d_with_past_cache_and_mask() {
        let r = run_in(
            "",
            "Attention",
            23,
            &[
                s(&["b", "8", "q", "64"]),
                s(&["b", "2", "k", "64"]),
                s(&["b", "2", "k", "32"]),
                s(&["q", "1"]),
                s(&["b", "2", "p", "64"]),
                s(&["b", "2", "p", "32"]),
            ],
            vec![],
            4,
        )
        .unwrap();
        assert_eq!(
            shapes(&r),
            [
                "[b, 8, q, 32]",
                "[b, 2, k+p, 64]",
                "[b, 2, k+p, 32]",
                "[b, 8, q, k+p]"
            ]
        );
        assert_eq!(r.checks[0].slots, vec![0, 3]);
    }

    #[test]
    fn mask_of_wrong_length_is_invalid() {
        let r = run_in(
            "",
            "Attention",
            23,
            &[
                s(&["2", "4", "10", "16"]),
                s(&["2", "4", "12", "16"]),
                s(&["2", "4", "12", "16"]),
                s(&["10", "10"]),
            ],
            vec![],
            1,
        )
        .unwrap();
        assert!(r.checks[0].outcome.is_invalid());
        let ok = run_in(
            "",
            "Attention",
            23,
            &[
                s(&["2", "4", "10", "16"]),
                s(&["2", "4", "12", "16"]),
                s(&["2", "4", "12", "16"]),
                s(&["1", "12"]),
            ],
            vec![],
            1,
        )
        .unwrap();
        assert!(ok.checks[0].outcome.is_valid());
    }

    #[test]
    fn three_d_needs_head_counts() {
        let inputs = [
            s(&["b", "s", "512"]),
            s(&["b", "t", "128"]),
            s(&["b", "t", "128"]),
        ];
        let r = run_in(
            "",
            "Attention",
            23,
            &inputs,
            vec![int_attr("q_num_heads", 8), int_attr("kv_num_heads", 2)],
            4,
        )
        .unwrap();
        assert_eq!(
            shapes(&r),
            [
                "[b, s, 512]",
                "[b, 2, t, 64]",
                "[b, 2, t, 64]",
                "[b, 8, s, t]"
            ]
        );
        assert!(run_in("", "Attention", 23, &inputs, vec![], 1).is_err());
    }
}
