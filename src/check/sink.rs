//! Where the checks put their findings: keeps at most the cap's number of them, the first in
//! graph order, and only counts the others per code, so that a file of a million findings
//! costs a million counts and not a million findings (issue 34 item 3).
//!
//! Which findings are kept is what sorting every finding and cutting the list gave: the order
//! is the sort key (graph path, node index, code), then the order the checks offered them in,
//! which stands for the stable sort's input order. A finding whose key and arrival cannot beat
//! the last one kept once the sink is full is counted without being built.
//!
//! Under a gate (a configuration's `ignore`, a baseline), the findings the gate will drop must
//! not take the places of those it keeps, and the gate must see each of them (to count it and to
//! tell a stale entry): every finding is built and shown to the gate's [`Exempt`] test, those it
//! matches are kept beside the cap for the gate to drop, and the others are capped as without a
//! gate. What is held is the cap's findings and the gate's, never the whole list. A finding the
//! gate will drop is held as what its fingerprint reads (code, node, the offending inputs'
//! names, the message of one at no node): its input shapes go, so that the provenance walk
//! skips it (it spent the model's walk budget on findings no one would see) and it holds little.
//! It is still built whole first: which inputs offend, which the fingerprint reads, is decided
//! by the check as it builds the finding, and a second copy of that decision for the gate could
//! drift from the first and break the fingerprint (a stale entry, a finding shown).

use std::cmp::Ordering;
use std::collections::{BTreeSet, BinaryHeap};

use crate::diag::{Code, Finding, Omitted};
use crate::shape::Shape;

/// The sort key of [`Finding::sort_key`], borrowed: what a check knows before it builds a
/// finding.
type KeyRef<'a> = (u8, &'a str, usize, Code);

/// The key of a finding at node `index` of the graph at `graph`, or of one at no node.
fn key_ref(at: Option<(&str, usize)>, code: Code) -> KeyRef<'_> {
    match at {
        Some((graph, index)) => (u8::from(graph != "main"), graph, index, code),
        None => (0, "", 0, code),
    }
}

/// One kept finding, ordered by its key, then by when it arrived.
struct Kept {
    key: (u8, String, usize, Code),
    arrival: usize,
    finding: Finding,
}

impl Kept {
    fn key_ref(&self) -> KeyRef<'_> {
        (self.key.0, self.key.1.as_str(), self.key.2, self.key.3)
    }
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Kept {}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        (&self.key, self.arrival).cmp(&(&other.key, other.arrival))
    }
}

/// Whether a gate will drop a finding (it matches an `ignore` entry or the baseline).
pub(crate) type Exempt<'a> = &'a (dyn Fn(&Finding) -> bool + Sync);

/// Whether a finding of `code` at node `at` (graph path, node index) is wanted at all, asked
/// before it is built: settling's trial runs read only these keys (`tally.rs`).
pub(crate) type Wanted<'a> = &'a mut dyn FnMut(Option<(&str, usize)>, Code) -> bool;

/// The bounded collection of one check stage's findings.
pub(crate) struct Sink<'a> {
    /// How many findings to keep; `None` keeps every one.
    max: Option<usize>,
    /// Codes dropped outright: neither kept nor counted (`--allow`).
    allowed: Option<&'a BTreeSet<Code>>,
    /// The kept findings, the last in graph order on top.
    kept: BinaryHeap<Kept>,
    /// Findings offered so far, which orders those of equal keys.
    arrivals: usize,
    /// What was left out, per code.
    omitted: Omitted,
    /// The gate's test, when a gate will see the findings.
    exempt: Option<Exempt<'a>>,
    /// The findings the gate will drop, kept beside the cap.
    exempted: Vec<Kept>,
    /// Asked of each finding first: one it does not want is neither built, kept nor counted.
    wanted: Option<Wanted<'a>>,
}

impl<'a> Sink<'a> {
    /// A sink keeping the first `max` findings (`None`: all) of codes not in `allowed`.
    pub(crate) fn new(max: Option<usize>, allowed: Option<&'a BTreeSet<Code>>) -> Self {
        Sink {
            max,
            allowed,
            kept: BinaryHeap::new(),
            arrivals: 0,
            omitted: Omitted::default(),
            exempt: None,
            exempted: Vec::new(),
            wanted: None,
        }
    }

    /// The same sink, building only the findings `wanted` wants (asked of every one).
    pub(crate) fn with_wanted(mut self, wanted: Wanted<'a>) -> Self {
        self.wanted = Some(wanted);
        self
    }

    fn wants(&mut self, at: Option<(&str, usize)>, code: Code) -> bool {
        self.wanted.as_mut().is_none_or(|wanted| wanted(at, code))
    }

    /// The same sink, keeping the findings `exempt` matches beside the cap (for a gate that
    /// drops them) and building every finding to ask it.
    pub(crate) fn with_exempt(mut self, exempt: Option<Exempt<'a>>) -> Self {
        self.exempt = exempt;
        self
    }

    /// Offers the finding `build` makes, which is of `code` and at node `at` (graph path, node
    /// index; `None` for a finding at no node): built only when it would be kept.
    pub(crate) fn offer(
        &mut self,
        at: Option<(&str, usize)>,
        code: Code,
        build: impl FnOnce() -> Finding,
    ) {
        if self.allowed.is_some_and(|allowed| allowed.contains(&code)) || !self.wants(at, code) {
            return;
        }
        if self.exempt.is_none() && !self.would_keep(key_ref(at, code)) {
            self.arrivals += 1;
            self.omitted.add(code);
            return;
        }
        let finding = build();
        debug_assert_eq!(
            finding.sort_key(),
            {
                let (a, b, c, d) = key_ref(at, code);
                (a, b.to_owned(), c, d)
            },
            "a check offered a finding under another key than its own"
        );
        self.keep(finding);
    }

    /// Adds a finding already built.
    pub(crate) fn push(&mut self, finding: Finding) {
        let at = finding.node.as_ref().map(|n| (n.graph.as_str(), n.index));
        if self
            .allowed
            .is_some_and(|allowed| allowed.contains(&finding.code))
            || !self.wants(at, finding.code)
        {
            return;
        }
        self.keep(finding);
    }

    fn keep(&mut self, finding: Finding) {
        let kept = Kept {
            key: finding.sort_key(),
            arrival: self.arrivals,
            finding,
        };
        self.arrivals += 1;
        if self.exempt.is_some_and(|exempt| exempt(&kept.finding)) {
            let mut kept = kept;
            for_the_gate(&mut kept.finding);
            self.exempted.push(kept);
            return;
        }
        if !self.would_keep(kept.key_ref()) {
            self.omitted.add(kept.finding.code);
            return;
        }
        self.kept.push(kept);
        if self.max.is_some_and(|max| self.kept.len() > max) {
            if let Some(evicted) = self.kept.pop() {
                self.omitted.add(evicted.finding.code);
            }
        }
    }

    /// Adds findings already built, in order.
    pub(crate) fn extend(&mut self, findings: impl IntoIterator<Item = Finding>) {
        for finding in findings {
            self.push(finding);
        }
    }

    /// Whether a finding of `key` arriving now is among the first `max`: the sink has room,
    /// or its key is below the last kept one's (an equal key arrived later, so comes after).
    fn would_keep(&self, key: KeyRef<'_>) -> bool {
        match self.max {
            None => true,
            Some(max) if self.kept.len() < max => true,
            Some(_) => self.kept.peek().is_some_and(|last| key < last.key_ref()),
        }
    }

    /// The kept findings (with those exempted) in graph order, and the counts of the others.
    pub(crate) fn finish(self) -> (Vec<Finding>, Omitted) {
        let mut kept = self.kept.into_vec();
        kept.extend(self.exempted);
        kept.sort_unstable();
        let findings = kept.into_iter().map(|kept| kept.finding).collect();
        (findings, self.omitted)
    }
}

/// Keeps of a finding the gate drops what its fingerprint reads (`crate::fingerprint`): the
/// inputs' shapes, elements and the other inputs go, and with them the provenance walk.
fn for_the_gate(finding: &mut Finding) {
    finding.inputs.retain(|input| input.offending);
    for input in &mut finding.inputs {
        input.shape = Shape::Unranked.into();
        input.value = None;
    }
    finding.help = None;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Facts, InputSite, NodeSite, Structure};

    /// A finding of `code` (E3 or I1) at node `index` of `graph` (`None`: at no node), named
    /// `tag` so that findings of equal keys can be told apart.
    fn finding(at: Option<(&str, usize)>, code: Code, tag: usize) -> Finding {
        let facts = if code == Code::E3 {
            Facts::Structure {
                problem: Structure::MissingOpType,
            }
        } else {
            Facts::Unsupported {
                op_type: format!("Op{tag}"),
                domain: String::new(),
                version: None,
                reason: None,
                nodes: Vec::new(),
                count: 1,
            }
        };
        let site = at.map(|(graph, index)| NodeSite {
            graph: graph.to_owned(),
            index,
            name: format!("n{tag}"),
            anchor: format!("n{tag}"),
            op_type: String::new(),
            domain: String::new(),
            span: 0..0,
        });
        // An offending input with a shape and another one: what a gated finding lets go.
        let inputs = ["x", "y"]
            .into_iter()
            .enumerate()
            .map(|(slot, input)| InputSite {
                name: format!("{input}{tag}"),
                shape: Shape::from_known(&[2, 3]).into(),
                value: None,
                slot,
                offending: slot == 0,
                provenance: Vec::new(),
                declared: Vec::new(),
            })
            .collect();
        Finding::new(facts, site, inputs)
    }

    /// The node's name (`-` at no node) and the message, which tell findings apart.
    fn name(f: &Finding) -> String {
        let node = f.node.as_ref().map_or("-", |n| n.name.as_str());
        format!("{node} {}", f.message)
    }

    /// What sorting every finding (stably) and cutting the list gives: the sink's reference.
    fn sorted_and_cut(all: &[Finding], max: Option<usize>) -> (Vec<String>, Omitted) {
        let mut sorted = all.to_vec();
        sorted.sort_by_cached_key(Finding::sort_key);
        let mut omitted = Omitted::default();
        crate::diag::omitted::cap(&mut sorted, max, &mut omitted);
        (sorted.iter().map(name).collect(), omitted)
    }

    /// A scramble of findings over two graphs, no node, two codes and repeated keys.
    fn scramble() -> Vec<Finding> {
        let graphs = ["main", "main/If_0/then", "main", "a/sub"];
        (0..120)
            .map(|i| {
                let at = (i % 11 != 0).then(|| (graphs[i % 4], (i * 37) % 13));
                let code = if i % 3 == 0 { Code::I1 } else { Code::E3 };
                finding(at, code, i)
            })
            .collect()
    }

    #[test]
    fn keeps_what_sorting_and_cutting_keeps_for_every_cap() {
        let all = scramble();
        for max in [
            None,
            Some(1),
            Some(2),
            Some(7),
            Some(40),
            Some(119),
            Some(120),
            Some(500),
        ] {
            for by_offer in [false, true] {
                let mut sink = Sink::new(max, None);
                for f in &all {
                    if by_offer {
                        let at = f.node.as_ref().map(|n| (n.graph.as_str(), n.index));
                        sink.offer(at, f.code, || f.clone());
                    } else {
                        sink.push(f.clone());
                    }
                }
                let (kept, omitted) = sink.finish();
                let names: Vec<String> = kept.iter().map(name).collect();
                assert_eq!((names, omitted), sorted_and_cut(&all, max), "{max:?}");
            }
        }
    }

    #[test]
    fn a_finding_past_the_full_sink_is_counted_without_being_built() {
        let mut sink = Sink::new(Some(2), None);
        let mut built = 0;
        for index in 0..5 {
            sink.offer(Some(("main", index)), Code::E3, || {
                built += 1;
                finding(Some(("main", index)), Code::E3, index)
            });
        }
        // An earlier node still displaces the last kept one.
        sink.offer(Some(("main", 0)), Code::I1, || {
            built += 1;
            finding(Some(("main", 0)), Code::I1, 9)
        });
        assert_eq!(built, 3);
        let (kept, omitted) = sink.finish();
        let nodes: Vec<_> = kept
            .iter()
            .map(|f| (f.node.as_ref().map(|n| n.name.clone()), f.code))
            .collect();
        assert_eq!(
            nodes,
            [(Some("n0".into()), Code::E3), (Some("n9".into()), Code::I1)]
        );
        assert_eq!((omitted.of(Code::E3), omitted.of(Code::I1)), (4, 0));
    }

    /// Under a gate, the sink holds the cap's findings and the gate's, and what the gate then
    /// leaves is what capping the whole list after the gate gave, with the same counts.
    #[test]
    fn under_a_gate_the_sink_holds_the_cap_and_the_gate_findings_only() {
        let all = scramble();
        let dropped = |f: &Finding| f.node.as_ref().is_some_and(|n| n.name.ends_with('7'));
        let gated = all.iter().filter(|f| dropped(f)).count();
        assert!(gated > 5);
        let survivors: Vec<Finding> = all.iter().filter(|f| !dropped(f)).cloned().collect();
        for max in [Some(1), Some(7), Some(40), None] {
            let mut sink = Sink::new(max, None).with_exempt(Some(&dropped));
            let mut built = 0;
            for f in &all {
                let at = f.node.as_ref().map(|n| (n.graph.as_str(), n.index));
                sink.offer(at, f.code, || {
                    built += 1;
                    f.clone()
                });
            }
            // The gate sees every finding.
            assert_eq!(built, all.len());
            // What it drops holds no shapes, so no provenance is walked for it, and keeps its
            // fingerprint.
            for kept in &sink.exempted {
                assert!(kept.finding.help.is_none());
                let inputs = &kept.finding.inputs;
                assert_eq!(inputs.len(), 1);
                assert!(inputs
                    .iter()
                    .all(|i| i.offending && i.shape.rank().is_none()));
                let whole = all.iter().find(|f| name(f) == name(&kept.finding)).unwrap();
                assert_eq!(kept.finding.fingerprint(), whole.fingerprint());
            }
            let held = sink.kept.len() + sink.exempted.len();
            assert!(max.is_none_or(|max| held <= max + gated), "{max:?}: {held}");
            let (kept, omitted) = sink.finish();
            assert_eq!(kept.iter().filter(|f| dropped(f)).count(), gated);
            let shown: Vec<String> = kept.iter().filter(|f| !dropped(f)).map(name).collect();
            assert_eq!((shown, omitted), sorted_and_cut(&survivors, max), "{max:?}");
        }
    }

    #[test]
    fn allowed_codes_are_neither_kept_nor_counted() {
        let allowed = BTreeSet::from([Code::I1]);
        let mut sink = Sink::new(Some(1), Some(&allowed));
        sink.push(finding(Some(("main", 0)), Code::I1, 0));
        sink.offer(Some(("main", 1)), Code::I1, || unreachable!());
        sink.push(finding(Some(("main", 2)), Code::E3, 2));
        sink.push(finding(Some(("main", 3)), Code::E3, 3));
        let (kept, omitted) = sink.finish();
        assert_eq!(kept.len(), 1);
        assert_eq!((omitted.of(Code::I1), omitted.of(Code::E3)), (0, 1));
    }
}
