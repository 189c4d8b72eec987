//! `Attention` (ONNX Attention-23, -24, -25): Q, K, V as 4-D `(batch, heads, seq, head_size)` or
//! 3-D `(batch, seq, heads * head_size)` with `q_num_heads`/`kv_num_heads`; optional past key and
//! value caches. `attn_mask` is broadcast unidirectionally to the scores
//! `(batch, q_heads, q_seq, total_seq)`, recorded as a check. From Attention-24 the mask's last
//! dim may be shorter than `total_seq` (padded with -inf); -25 adds window attributes that do
//! not change shapes. The requirements between the inputs are `attention_requires.rs`'s.

use super::attention_requires::{self as requires, Side};
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::overflow::sized;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
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

impl View {
    fn side(&self) -> Side<'_> {
        Side {
            batch: &self.batch,
            heads: &self.heads,
            seq: &self.seq,
            head_size: &self.head_size,
        }
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
    requires::same_rank(ctx)?;
    let mut pending = Pending::default();
    for (slot, heads) in [(0, q_heads), (1, kv_heads), (2, kv_heads)] {
        requires::packed_divides(&mut pending, ctx.shape(slot)?, heads, slot)?;
    }
    if let (Some(q), Some(k), Some(v)) = (&q, &k, &v) {
        let [q, k, v] = [q, k, v].map(View::side);
        requires::agree(&mut pending, &q, &k, &v)?;
        requires::past(ctx, &mut pending, &k, &v)?;
    }
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
    if short_mask {
        // Attention-24's input 6; Attention-23 has no such input.
        requires::nonpad(ctx, &mut pending, &batch)?;
    }
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
        let outcome = ctx.broadcasts().unidirectional(&target, mask.shape);
        // The scores have no input of their own; Q, which gives their leading dims, stands for
        // them.
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 3], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::conditions;
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

    /// Attention-24's `nonpad_kv_seqlen`: onnxruntime 1.31 runs `[b]` and rejects `[1]` or `[3]`
    /// at b = 2, and any `nonpad_kv_seqlen` beside a past cache.
    #[test]
    fn nonpad_kv_seqlen_has_one_length_per_batch_and_no_past() {
        let run = |batch: &str, lengths: &[&str], past: bool| {
            let past = past.then(|| s(&[batch, "2", "p", "8"])).flatten();
            let inputs = [
                s(&[batch, "2", "3", "8"]),
                s(&[batch, "2", "5", "8"]),
                s(&[batch, "2", "5", "8"]),
                None,
                past.clone(),
                past,
                s(lengths),
            ];
            run_in("", "Attention", 24, &inputs, vec![], 1)
        };
        assert!(conditions(&run("2", &["2"], false)).is_empty());
        assert!(unmet(&run("2", &["3"], false)));
        assert!(unmet(&run("2", &["2", "1"], false)));
        assert!(unmet(&run("2", &["2"], true)));
        assert!(conditions(&run("b", &["b"], false)).is_empty());
        assert_eq!(conditions(&run("b", &["n"], false)), ["n = b"]);
        // Attention-23 has no input 6 to check.
        let inputs = [
            s(&["2", "2", "3", "8"]),
            s(&["2", "2", "5", "8"]),
            s(&["2", "2", "5", "8"]),
        ];
        assert!(run_in("", "Attention", 23, &inputs, vec![], 1).is_ok());
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

    // Each failing case below is one onnxruntime 1.31 rejects at run time with the message
    // quoted, and `onnx.shape_inference` (1.23, strict) accepts; each passing twin runs there.
    fn attn(
        inputs: &[Option<crate::ops::testing::Fact>],
        heads: Option<(i64, i64)>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let attrs = heads.map_or_else(Vec::new, |(q, kv)| {
            vec![int_attr("q_num_heads", q), int_attr("kv_num_heads", kv)]
        });
        run_in("", "Attention", 23, inputs, attrs, 3)
    }

    fn unmet(r: &Result<crate::ops::Inferred, crate::ops::RuleError>) -> bool {
        matches!(r, Err(crate::ops::RuleError::Unmet(_)))
    }

    #[test]
    fn q_heads_must_be_a_multiple_of_kv_heads() {
        // "q_num_heads must be a multiple of kv_num_heads"
        let four = |q: &str| {
            attn(
                &[
                    s(&["2", q, "3", "8"]),
                    s(&["2", "2", "5", "8"]),
                    s(&["2", "2", "5", "8"]),
                ],
                None,
            )
        };
        assert!(unmet(&four("3")));
        assert!(four("4").is_ok());
        assert!(unmet(&attn(
            &[
                s(&["2", "3", "32"]),
                s(&["2", "5", "24"]),
                s(&["2", "5", "24"])
            ],
            Some((4, 3))
        )));
        // A symbolic head count is a condition (W4).
        let r = four("h").unwrap();
        assert_eq!(r.constraints.len(), 1, "{:?}", r.constraints);
    }

    #[test]
    fn packed_hidden_sizes_must_divide_by_their_head_counts() {
        // "inconsistent q_hidden_size, it should be a multiple of q_num_heads"
        let packed = |q: &str, k: &str| {
            attn(
                &[s(&["2", "3", q]), s(&["2", "5", k]), s(&["2", "5", "16"])],
                Some((4, 2)),
            )
        };
        assert!(unmet(&packed("30", "16")));
        assert!(unmet(&packed("32", "15")));
        assert!(packed("32", "16").is_ok());
        assert!(!packed("e", "16").unwrap().constraints.is_empty());
    }

    #[test]
    fn q_and_k_head_sizes_batches_and_kv_lengths_agree() {
        let qkv = |q: &[&str], k: &[&str], v: &[&str]| attn(&[s(q), s(k), s(v)], None);
        let q = ["2", "4", "3", "8"];
        let kv = ["2", "2", "5", "8"];
        assert!(qkv(&q, &kv, &kv).is_ok());
        // "inconsistent head_size"
        assert!(unmet(&qkv(&q, &["2", "2", "5", "6"], &kv)));
        // "inconsistent kv_sequence_length"
        assert!(unmet(&qkv(&q, &kv, &["2", "2", "6", "8"])));
        // "kv_num_heads different from V.shape[1]"
        assert!(unmet(&qkv(&q, &kv, &["2", "4", "5", "8"])));
        // "inconsistent batch_size (between Q and K)"
        assert!(unmet(&qkv(
            &q,
            &["3", "2", "5", "8"],
            &["3", "2", "5", "8"]
        )));
        // 3-D: "inconsistent head_size (between Q and K): K.shape[2]=32 expected 2 * 8"
        let r = attn(
            &[
                s(&["2", "3", "32"]),
                s(&["2", "5", "32"]),
                s(&["2", "5", "32"]),
            ],
            Some((4, 2)),
        );
        assert!(unmet(&r));
        // V's head size may differ from Q's.
        assert!(qkv(&q, &kv, &["2", "2", "5", "4"]).is_ok());
        // "Q and K must have the same rank"
        let r = attn(
            &[
                s(&["2", "4", "3", "8"]),
                s(&["2", "5", "16"]),
                s(&["2", "5", "16"]),
            ],
            Some((4, 2)),
        );
        assert!(unmet(&r));
        // Symbolic batches that may differ are a condition.
        let r = qkv(
            &["b", "4", "3", "8"],
            &["c", "2", "5", "8"],
            &["c", "2", "5", "8"],
        )
        .unwrap();
        assert_eq!(r.constraints.len(), 2, "{:?}", r.constraints);
    }

    #[test]
    fn past_key_and_value_are_k_and_v_shaped() {
        let with_past = |pk: &[&str], pv: &[&str]| {
            let kv = s(&["2", "2", "5", "8"]);
            attn(
                &[s(&["2", "4", "3", "8"]), kv.clone(), kv, None, s(pk), s(pv)],
                None,
            )
        };
        let past = ["2", "2", "7", "8"];
        let r = with_past(&past, &past).unwrap();
        assert_eq!(shapes(&r)[1], "[2, 2, 12, 8]");
        // "Output shapes for Attention could not be computed" (heads, head size, rank) and
        // "inconsistent batch_size (between Q and past_key)",
        // "inconsistent past_sequence_length (between past_key and past_value)".
        assert!(unmet(&with_past(
            &["2", "3", "7", "8"],
            &["2", "3", "7", "8"]
        )));
        assert!(unmet(&with_past(&["2", "2", "7", "6"], &past)));
        assert!(unmet(&with_past(
            &["3", "2", "7", "8"],
            &["3", "2", "7", "8"]
        )));
        assert!(unmet(&with_past(&past, &["2", "2", "6", "8"])));
        assert!(unmet(&with_past(&["2", "7", "16"], &["2", "7", "16"])));
        let r = with_past(&["2", "2", "p", "8"], &["2", "2", "r", "8"]).unwrap();
        assert_eq!(r.constraints.len(), 1, "{:?}", r.constraints);
    }
}
