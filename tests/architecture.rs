//! The architecture test: the crate's layer order written once ([`LAYERS`]), every path the
//! sources name through `crate::`, `super::`, `self::` or a declared child module read from
//! `src/`, and a failure on an import that points up a layer or closes a circle between files
//! (STYLE.md, "Layout"; issue 33, item 7).
//!
//! What the reader handles: comments, strings (raw too) and char literals are blanked first, so
//! doc text naming `crate::...` is not an import; `use` trees with groups, `self`, globs and
//! aliases; inline paths in code (`crate::shape::Dim::Known`); `super::` chains and `self::`
//! resolved against the file's module and any inline `mod x { ... }` it is in; a path whose first
//! segment is a child module the file declares. A path is followed through `pub use` re-exports
//! to the file that defines the name, so `crate::Options` counts as an import of `lint.rs`, not
//! of `lib.rs`. Test code is exempt: any item under `#[cfg(test)]` (the `mod tests { ... }`
//! blocks, a `#[cfg(test)] mod x;` file and everything below it). Macro-generated paths are not
//! seen (the crate's macros name none).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The layer order, lowest first: a module may import from its own layer and the ones before it.
/// A module path is placed by its longest entry (`report::width` before `report`).
const LAYERS: &[(&str, &[&str])] = &[
    // Every limit on the linter's work, one table, and the record of a cap that fired: read by
    // every layer, importing none.
    ("limits", &["limits"]),
    // The generated protobuf bindings (STYLE.md: nothing above `model` reads prost types; this
    // table does not check that yet).
    ("proto", &["proto"]),
    // Dims, shapes, conditions and broadcasting: nothing else from the crate.
    ("shape", &["shape"]),
    // The error types every stage returns, and the path helpers they print.
    ("error", &["error", "unknown_dim", "paths"]),
    // File -> Model.
    ("model", &["model"]),
    // The operator rules: import `model` and `shape`.
    ("ops", &["ops"]),
    // Walks the order, runs the rules, stores facts; binding sizes to names.
    ("infer", &["infer", "bind"]),
    // Finding, Code, Facts, render, the explain texts and the provenance types: data types stand
    // below the code that computes them.
    ("diag", &["diag"]),
    // The backward walk that fills a finding's provenance.
    ("provenance", &["provenance"]),
    // Reads infer's facts, writes Findings.
    ("check", &["check"]),
    // Settling: re-infers with an `If`'s branch forced where the other certainly fails, deciding
    // by what the checks find; the orchestrator runs it between inference and the checks.
    ("settle", &["settle"]),
    // The library's run, `load -> bind -> infer -> settle -> check`, and its result, `LintReport`, which the
    // formats below print: `lint.rs` imports no format.
    ("lint", &["lint"]),
    // The formats (human, json, sarif, ...) and the helpers they share; a finding's fingerprint.
    ("report", &["report", "fingerprint"]),
    // The command (`--write-shapes` is a command flag) and the crate root that declares it all.
    ("command", &["cli", "config", "gate", "annotate", ""]),
];

/// Imports that point up a layer and are kept, each as (importing file, imported file, why and
/// the issue that removes it), paths under `src/`. None today: the four circles and the upward
/// imports of issue 33 were fixed by moving the shared items down. An entry no import needs any
/// more fails the test, so the list cannot go stale.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

#[test]
fn imports_point_down_and_close_no_circle() {
    let crate_src = Crate::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").as_path());
    let edges = crate_src.edges();
    // A reader that found nothing would pass everything.
    assert!(
        edges
            .iter()
            .any(|e| e.from_file == "ops/nn/conv.rs" && e.to_file == "shape/mod.rs"),
        "the reader missed conv.rs's `use crate::shape::{{Dim, Shape}}`"
    );
    let mut failures = String::new();
    upward(&edges, &mut failures);
    circles(&edges, &mut failures);
    assert!(
        failures.is_empty(),
        "architecture (tests/architecture.rs):\n{failures}"
    );
}

/// The reader on a sample: grouped, nested, inline, `super::` and child-module paths are seen;
/// text in strings and comments and the items under `#[cfg(test)]` are not.
#[test]
fn the_reader_sees_paths_in_code_only() {
    let sample = r#"
        mod child;
        use crate::{a::B, c::{d, e::F as G}};
        use super::g;
        pub(crate) use child::H;
        fn f() -> u8 { let _ = '{'; crate::h::I::new(); let _s = "crate::x::Y"; 0 } // crate::z
        #[cfg(test)]
        mod tests { use crate::t::U; }
        #[cfg(test)]
        mod laws;
    "#;
    let module = vec!["m".to_owned(), "n".to_owned()];
    let (tokens, test_children) = strip_test_items(&tokens(&blank(sample)));
    let found = scan(&module, &tokens);
    let paths: Vec<String> = found.paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        paths,
        [
            "a::B",
            "c::d",
            "c::e::F",
            "m::g",
            "m::n::child::H",
            "h::I::new"
        ],
        "{paths:?}"
    );
    assert_eq!(test_children, ["laws"]);
    assert_eq!(
        found.reexports.get("m::n#H").map(|p| p.join("::")),
        Some("m::n::child::H".to_owned())
    );
}

/// The layer table itself: every module the crate has is placed, and no module twice.
#[test]
fn every_module_has_a_layer() {
    let crate_src = Crate::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").as_path());
    let mut seen = BTreeSet::new();
    for (_, modules) in LAYERS {
        for m in *modules {
            assert!(seen.insert(*m), "{m} is placed twice in LAYERS");
        }
    }
    for file in crate_src.files.values() {
        let top = file.module.first().map_or("", String::as_str);
        assert!(
            seen.contains(top),
            "src/{} (module {top}) has no layer in LAYERS",
            file.rel
        );
    }
}

fn upward(edges: &[Edge], failures: &mut String) {
    let mut by_pair: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
    for e in edges {
        let (from, to) = (layer_of(&e.from_module), layer_of(&e.to_module));
        if to > from
            && !EXCEPTIONS
                .iter()
                .any(|(a, b, _)| *a == e.from_file && *b == e.to_file)
        {
            by_pair
                .entry((&e.from_file, &e.to_file))
                .or_default()
                .insert(&e.name);
        }
    }
    for ((from, to), names) in by_pair {
        let layer = |file: &str| {
            let e = edges
                .iter()
                .find(|e| e.from_file == file)
                .expect("an importing file");
            LAYERS[layer_of(&e.from_module)].0
        };
        let to_layer = edges
            .iter()
            .find(|e| e.to_file == to)
            .map_or("?", |e| LAYERS[layer_of(&e.to_module)].0);
        let _ = writeln!(
            failures,
            "upward import: src/{from} (layer {}) imports from src/{to} (layer {to_layer}): {}",
            layer(from),
            names.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    for (a, b, _) in EXCEPTIONS {
        if !edges.iter().any(|e| e.from_file == *a && e.to_file == *b) {
            let _ = writeln!(
                failures,
                "stale exception: src/{a} no longer imports src/{b}"
            );
        }
    }
}

/// Strongly connected components of the file graph (Tarjan); each with more than one file is a
/// circle, reported with the names each file takes from the next.
fn circles(edges: &[Edge], failures: &mut String) {
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let edges: Vec<&Edge> = edges
        .iter()
        .filter(|e| !contains(&e.from_module, &e.to_module))
        .collect();
    for e in &edges {
        graph.entry(&e.from_file).or_default().insert(&e.to_file);
        graph.entry(&e.to_file).or_default();
    }
    for component in tarjan(&graph) {
        if component.len() < 2 {
            continue;
        }
        let mut sorted: Vec<&str> = component.clone();
        sorted.sort_unstable();
        // One shortest circle through the component's first file, hop by hop with the names
        // each file takes from the next; a large component lists its files too.
        let inside: BTreeSet<&str> = component.iter().copied().collect();
        let ring = shortest_circle(&graph, &inside, sorted[0]);
        let _ = writeln!(
            failures,
            "circle between files: {}",
            ring.iter()
                .chain(ring.first())
                .map(|f| format!("src/{f}"))
                .collect::<Vec<_>>()
                .join(" -> ")
        );
        for (from, to) in ring.iter().zip(ring.iter().skip(1).chain(ring.first())) {
            let names: BTreeSet<&str> = edges
                .iter()
                .filter(|e| e.from_file == *from && e.to_file == *to)
                .map(|e| e.name.as_str())
                .collect();
            let names: Vec<&str> = names.into_iter().collect();
            let _ = writeln!(failures, "    src/{from} uses {}", names.join(", "));
        }
        if component.len() > ring.len() {
            let _ = writeln!(
                failures,
                "    (one of the circles among {} files: {})",
                component.len(),
                sorted.join(", ")
            );
        }
    }
}

/// The shortest circle from `start` back to it inside one strongly connected component
/// (breadth-first), as its files in order.
fn shortest_circle<'a>(
    graph: &BTreeMap<&'a str, BTreeSet<&'a str>>,
    inside: &BTreeSet<&'a str>,
    start: &'a str,
) -> Vec<&'a str> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(file) = queue.pop_front() {
        for &next in &graph[file] {
            if !inside.contains(next) || came_from.contains_key(next) {
                continue;
            }
            came_from.insert(next, file);
            if next == start {
                let mut ring = vec![file];
                let mut at = file;
                while at != start {
                    at = came_from[at];
                    ring.push(at);
                }
                ring.reverse();
                return ring;
            }
            queue.push_back(next);
        }
    }
    vec![start]
}

/// Whether `outer` is an ancestor of `inner` in the module tree: a parent's file uses what the
/// children it declares define (a facade calling or re-exporting them); only a child's use of its
/// parent, or of any file that is not its descendant, can close a circle.
fn contains(outer: &[String], inner: &[String]) -> bool {
    inner.len() > outer.len() && inner.starts_with(outer)
}

fn tarjan<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(node: &'a str, graph: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let order = s.index.len();
        s.index.insert(node, order);
        s.low.insert(node, order);
        s.stack.push(node);
        s.on_stack.insert(node);
        for &next in &graph[node] {
            if !s.index.contains_key(next) {
                visit(next, graph, s);
                let low_next = s.low[next];
                let low = s.low.get_mut(node).unwrap();
                *low = (*low).min(low_next);
            } else if s.on_stack.contains(next) {
                let index_next = s.index[next];
                let low = s.low.get_mut(node).unwrap();
                *low = (*low).min(index_next);
            }
        }
        if s.low[node] == s.index[node] {
            let mut component = Vec::new();
            loop {
                let next = s.stack.pop().unwrap();
                s.on_stack.remove(next);
                component.push(next);
                if next == node {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(v, graph, &mut s);
        }
    }
    s.out
}

/// The layer of a module path: the longest table entry that is a prefix of it.
fn layer_of(module: &[String]) -> usize {
    let path = module.join("::");
    let mut best: Option<(usize, usize)> = None;
    for (i, (_, modules)) in LAYERS.iter().enumerate() {
        for m in *modules {
            let fits = m.is_empty() || path == *m || path.starts_with(&format!("{m}::"));
            if fits && best.is_none_or(|(len, _)| m.len() > len) {
                best = Some((m.len(), i));
            }
        }
    }
    best.map(|(_, i)| i).expect("every module has a layer")
}

/// One name a file takes from another file.
#[derive(Debug)]
struct Edge {
    from_file: String,
    from_module: Vec<String>,
    to_file: String,
    to_module: Vec<String>,
    /// The path as written, resolved to `crate::...`.
    name: String,
}

/// A source file: its module path and the paths its production code names.
struct File {
    rel: String,
    module: Vec<String>,
    /// Resolved absolute paths (without the leading `crate`), each with the module it was
    /// written in.
    paths: Vec<Vec<String>>,
    /// Names this module re-exports (`pub use` / `pub(crate) use`), to the absolute path.
    reexports: BTreeMap<String, Vec<String>>,
}

struct Crate {
    /// Module path (joined by `::`, "" for the root) -> file.
    files: BTreeMap<String, File>,
    /// Inline modules (joined path) -> the file module holding them.
    inline: BTreeMap<String, String>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let mut rs = Vec::new();
        collect(src, &mut rs);
        // Pass 1: module paths, declared children and test-only children.
        let mut parsed = Vec::new();
        let mut test_only: BTreeSet<String> = BTreeSet::new();
        for path in &rs {
            let rel = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == "main.rs" {
                // The binary is its own crate: it names the library as `onnx_bcast_lint::`.
                continue;
            }
            let module = module_of(&rel);
            let text = std::fs::read_to_string(path).unwrap();
            let tokens = tokens(&blank(&text));
            let (tokens, test_children) = strip_test_items(&tokens);
            for child in test_children {
                let mut m = module.clone();
                m.push(child);
                test_only.insert(m.join("::"));
            }
            parsed.push((rel, module, tokens));
        }
        let is_test = |m: &[String]| (1..=m.len()).any(|n| test_only.contains(&m[..n].join("::")));
        let mut files = BTreeMap::new();
        let mut inline = BTreeMap::new();
        for (rel, module, tokens) in parsed {
            if is_test(&module) {
                continue;
            }
            let scan = scan(&module, &tokens);
            for m in scan.inline {
                inline.insert(m, module.join("::"));
            }
            files.insert(
                module.join("::"),
                File {
                    rel,
                    module,
                    paths: scan.paths,
                    reexports: scan.reexports,
                },
            );
        }
        Crate { files, inline }
    }

    /// The file module holding a module path: (file module, remaining segments).
    fn locate<'p>(&self, path: &'p [String]) -> (String, &'p [String]) {
        for n in (0..=path.len()).rev() {
            let m = path[..n].join("::");
            if self.files.contains_key(&m) {
                return (m, &path[n..]);
            }
            if let Some(f) = self.inline.get(&m) {
                return (f.clone(), &path[n..]);
            }
        }
        (String::new(), path)
    }

    /// Follows `pub use` re-exports to the module that defines the first remaining name.
    fn resolve(&self, path: &[String]) -> String {
        let mut path = path.to_vec();
        for _ in 0..16 {
            let (module, rest) = self.locate(&path);
            let Some(first) = rest.first() else {
                return module;
            };
            let inline_prefix = path.len() - rest.len();
            let holder = path[..inline_prefix].join("::");
            let file = &self.files[&module];
            // Re-exports are recorded per (possibly inline) module as written.
            let key = format!("{holder}#{first}");
            match file.reexports.get(&key) {
                Some(target) if *target != path[..=inline_prefix] => {
                    let mut next = target.clone();
                    next.extend_from_slice(&rest[1..]);
                    path = next;
                }
                _ => return module,
            }
        }
        self.locate(&path).0
    }

    fn edges(&self) -> Vec<Edge> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        for (key, file) in &self.files {
            for path in &file.paths {
                let target = self.resolve(path);
                if target == *key {
                    continue;
                }
                let name = format!("crate::{}", path.join("::"));
                if !seen.insert((file.rel.clone(), target.clone(), name.clone())) {
                    continue;
                }
                let to = &self.files[&target];
                out.push(Edge {
                    from_file: file.rel.clone(),
                    from_module: file.module.clone(),
                    to_file: to.rel.clone(),
                    to_module: to.module.clone(),
                    name,
                });
            }
        }
        out
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap();
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text with comments, strings and char literals replaced by spaces (newlines kept).
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    while i < c.len() {
        if c[i] == '/' && at(&c, i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && at(&c, i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '/' && at(&c, i + 1) == '*' {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && at(&c, i + 1) == '/' {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(keep(c[i]));
                    i += 1;
                }
            }
        } else if (c[i] == 'r' || (c[i] == 'b' && at(&c, i + 1) == 'r'))
            && !prev_is_ident(&c, i)
            && {
                let s = if c[i] == 'b' { 2 } else { 1 };
                let mut k = s;
                while at(&c, i + k) == '#' {
                    k += 1;
                }
                at(&c, i + k) == '"'
            }
        {
            let s = if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while at(&c, i + s + hashes) == '#' {
                hashes += 1;
            }
            let start = i + s + hashes + 1;
            for _ in i..start {
                out.push(' ');
            }
            i = start;
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|h| at(&c, i + h) == '#') {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                out.push(keep(c[i]));
                i += 1;
            }
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(keep(c[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\''
            && (at(&c, i + 1) == '\\' || (at(&c, i + 2) == '\'' && at(&c, i + 1) != '\''))
        {
            // A char literal ('x', '\n', '\u{..}'); a lifetime ('a) has no closing quote.
            out.push(' ');
            i += 1;
            if c[i] == '\\' {
                out.push(' ');
                i += 1;
            }
            while i < c.len() && c[i] != '\'' {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn at(c: &[char], i: usize) -> char {
    c.get(i).copied().unwrap_or('\0')
}

fn prev_is_ident(c: &[char], i: usize) -> bool {
    i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_')
}

/// Identifiers, `::`, and single punctuation characters.
fn tokens(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_whitespace() {
            i += 1;
        } else if c[i].is_alphanumeric() || c[i] == '_' {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(c[s..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".to_owned());
            i += 2;
        } else {
            out.push(c[i].to_string());
            i += 1;
        }
    }
    out
}

/// Drops every item under `#[cfg(test)]`; returns the rest and the names of `#[cfg(test)] mod x;`
/// children (whole test-only files).
fn strip_test_items(t: &[String]) -> (Vec<String>, Vec<String>) {
    let is = |i: usize, s: &[&str]| {
        s.iter()
            .enumerate()
            .all(|(k, w)| t.get(i + k).map(String::as_str) == Some(*w))
    };
    let mut out = Vec::new();
    let mut children = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if !is(i, &["#", "[", "cfg", "(", "test", ")", "]"]) {
            out.push(t[i].clone());
            i += 1;
            continue;
        }
        i += 7;
        // Further attributes on the same item.
        while is(i, &["#", "["]) {
            i = close(t, i + 1, "[", "]");
        }
        let item = i;
        // `mod x;` declares a test-only file.
        let mut k = item;
        if t.get(k).map(String::as_str) == Some("pub") {
            k += 1;
            if is(k, &["("]) {
                k = close(t, k, "(", ")");
            }
        }
        if is(k, &["mod"]) && is(k + 2, &[";"]) {
            children.push(t[k + 1].clone());
        }
        let use_item = is(k, &["use"]);
        while i < t.len() && t[i] != ";" && (use_item || t[i] != "{") {
            i += 1;
        }
        if t.get(i).map(String::as_str) == Some("{") {
            i = close(t, i, "{", "}");
        } else {
            i += 1;
        }
    }
    (out, children)
}

/// The index after the bracket matching the opening one at `i`.
fn close(t: &[String], i: usize, open: &str, shut: &str) -> usize {
    let mut depth = 0;
    let mut k = i;
    while k < t.len() {
        if t[k] == open {
            depth += 1;
        } else if t[k] == shut {
            depth -= 1;
            if depth == 0 {
                return k + 1;
            }
        }
        k += 1;
    }
    k
}

struct Scan {
    paths: Vec<Vec<String>>,
    reexports: BTreeMap<String, Vec<String>>,
    inline: Vec<String>,
}

/// Reads every path in a file's tokens, resolved to absolute module paths (without `crate`).
fn scan(file_module: &[String], t: &[String]) -> Scan {
    let mut scan = Scan {
        paths: Vec::new(),
        reexports: BTreeMap::new(),
        inline: Vec::new(),
    };
    // Inline modules open at a brace depth; the current module is the file's plus those.
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut children: BTreeSet<String> = BTreeSet::new();
    for w in t.windows(3) {
        if w[0] == "mod" && w[2] == ";" {
            children.insert(w[1].clone());
        }
    }
    let mut i = 0;
    while i < t.len() {
        let here: Vec<String> = file_module
            .iter()
            .cloned()
            .chain(stack.iter().map(|(m, _)| m.clone()))
            .collect();
        let tok = t[i].as_str();
        if tok == "{" {
            depth += 1;
        } else if tok == "}" {
            depth -= 1;
            if stack.last().is_some_and(|(_, d)| *d == depth) {
                stack.pop();
            }
        }
        if tok == "mod" && t.get(i + 2).map(String::as_str) == Some("{") {
            let name = t[i + 1].clone();
            let mut m = here.clone();
            m.push(name.clone());
            scan.inline.push(m.join("::"));
            stack.push((name, depth));
            depth += 1;
            i += 3;
            continue;
        }
        let after_sep = i > 0 && (t[i - 1] == "::" || t[i - 1] == "$");
        let starts = matches!(tok, "crate" | "super" | "self")
            || (stack.is_empty() && children.contains(tok));
        if starts && !after_sep && t.get(i + 1).map(String::as_str) == Some("::") {
            let is_use = i > 0 && t[i - 1] == "use";
            let public_use = is_use && is_pub(t, i - 1);
            let mut trees = Vec::new();
            let end = use_tree(t, i, Vec::new(), &mut trees);
            for (written, alias) in trees {
                let Some(abs) = absolute(&here, &written, &children, stack.is_empty()) else {
                    continue;
                };
                if public_use {
                    if let Some(name) = alias.or_else(|| abs.last().cloned()) {
                        if name != "*" {
                            scan.reexports
                                .insert(format!("{}#{name}", here.join("::")), abs.clone());
                        }
                    }
                }
                scan.paths.push(abs);
            }
            i = end.max(i + 1);
            continue;
        }
        i += 1;
    }
    scan
}

fn is_pub(t: &[String], use_at: usize) -> bool {
    // `pub use`, `pub(crate) use`, `pub(super) use`.
    if use_at >= 1 && t[use_at - 1] == "pub" {
        return true;
    }
    use_at >= 4 && t[use_at - 1] == ")" && t[use_at - 3] == "(" && t[use_at - 4] == "pub"
}

/// Parses a use tree (or an inline path) from `i`; pushes every leaf path with its alias.
fn use_tree(
    t: &[String],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut path = prefix;
    loop {
        let Some(tok) = t.get(i) else {
            out.push((path, None));
            return i;
        };
        if tok == "{" {
            i += 1;
            loop {
                match t.get(i).map(String::as_str) {
                    None => return i,
                    Some("}") => return i + 1,
                    Some(",") => i += 1,
                    _ => i = use_tree(t, i, path.clone(), out),
                }
            }
        }
        if tok == "*" {
            path.push("*".to_owned());
            out.push((path, None));
            return i + 1;
        }
        if !(tok
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_'))
        {
            out.push((path, None));
            return i;
        }
        if tok == "self" && !path.is_empty() {
            // `a::{self, b}` names `a` itself.
        } else {
            path.push(tok.clone());
        }
        i += 1;
        if t.get(i).map(String::as_str) == Some("::") && t.get(i + 1).is_some_and(|n| n != "<") {
            i += 1;
            continue;
        }
        let alias = if t.get(i).map(String::as_str) == Some("as") {
            i += 2;
            t.get(i - 1).cloned()
        } else {
            None
        };
        out.push((path, alias));
        return i;
    }
}

/// The path written in module `here`, made absolute (without `crate`); `None` if not ours.
fn absolute(
    here: &[String],
    written: &[String],
    children: &BTreeSet<String>,
    at_file_level: bool,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = here.to_vec();
    let mut rest = written;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) if at_file_level && children.contains(first) => {}
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}
