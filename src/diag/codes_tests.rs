//! The files that name codes but cannot be generated when the crate builds, checked against the
//! declaration (`codes.rs`): the JSON schema's code lists and facts-to-code mapping, the Python
//! stub's `Code`, and the README's code and facts tables. Each failure says what to write.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::explain::{self, Explanation};
use super::Code;
use crate::error::LoadError;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `BroadcastClash` -> `broadcast_clash`, as serde's `rename_all = "snake_case"` writes it.
fn snake(variant: &str) -> String {
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The finding codes in the table's order (the README's).
fn listed() -> Vec<&'static Explanation> {
    explain::ALL
        .iter()
        .filter(|e| Code::parse(e.code).is_some())
        .collect()
}

/// The file codes (`load/...`) in the table's order.
fn file_codes() -> Vec<&'static str> {
    explain::ALL
        .iter()
        .filter(|e| Code::parse(e.code).is_none())
        .map(|e| e.code)
        .collect()
}

/// Each facts kind (JSON `kind`) with the codes that carry some of its facts, in table order.
fn kinds() -> BTreeMap<String, Vec<Code>> {
    let mut kinds: BTreeMap<String, Vec<Code>> = BTreeMap::new();
    for e in listed() {
        let code = Code::parse(e.code).unwrap();
        for (variant, _) in code.carried_by() {
            kinds.entry(snake(variant)).or_default().push(code);
        }
    }
    kinds
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        _ => panic!("expected a string or a list of strings: {value}"),
    }
}

fn quoted(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn the_json_schema_lists_the_declared_codes() {
    let schema: Value = serde_json::from_str(&read("tests/json-schema-v1.json")).unwrap();
    let defs = &schema["$defs"];
    let codes = strings(&defs["diagnostic"]["properties"]["code"]["enum"]);
    let declared: Vec<String> = Code::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    assert_eq!(
        codes,
        declared,
        "tests/json-schema-v1.json: write $defs.diagnostic.properties.code as \
         {{\"enum\": [{}]}} (Code::ALL's order)",
        quoted(&declared)
    );
    let errors =
        strings(&defs["file"]["properties"]["error"]["oneOf"][1]["properties"]["code"]["enum"]);
    let declared: Vec<String> = file_codes().into_iter().map(str::to_owned).collect();
    assert_eq!(
        errors,
        declared,
        "tests/json-schema-v1.json: write $defs.file.properties.error's code as {{\"enum\": [{}]}}",
        quoted(&declared)
    );
}

#[test]
fn the_json_schema_ties_each_facts_kind_to_its_code() {
    let schema: Value = serde_json::from_str(&read("tests/json-schema-v1.json")).unwrap();
    let defs = &schema["$defs"];
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    for rule in defs["diagnostic"]["allOf"].as_array().unwrap() {
        let kind = &rule["if"]["properties"]["facts"]["properties"]["kind"];
        let kind = if kind["const"].is_null() {
            &kind["enum"]
        } else {
            &kind["const"]
        };
        let code = rule["then"]["properties"]["code"]["const"]
            .as_str()
            .unwrap();
        for kind in strings(kind) {
            assert!(
                found.insert(kind.clone(), code.to_owned()).is_none(),
                "tests/json-schema-v1.json: `{kind}` is in two if/then rules"
            );
        }
    }
    // A kind only some of whose facts carry a code (`forced_value`: W1 or W4) has no rule.
    let expected: BTreeMap<String, String> = kinds()
        .into_iter()
        .filter_map(|(kind, codes)| match codes.as_slice() {
            [code]
                if !code
                    .carried_by()
                    .iter()
                    .any(|(v, some)| *some && snake(v) == kind) =>
            {
                Some((kind, code.as_str().to_owned()))
            }
            _ => None,
        })
        .collect();
    let mut missing = String::new();
    for (kind, code) in &expected {
        if found.get(kind) != Some(code) {
            let _ = write!(missing, "\n  `{kind}` -> {code}");
        }
    }
    for (kind, code) in &found {
        if !expected.contains_key(kind) {
            let _ = write!(missing, "\n  `{kind}` -> {code} is not declared: remove it");
        }
    }
    assert!(
        missing.is_empty(),
        "tests/json-schema-v1.json: $defs.diagnostic.allOf needs an \
         {{\"if\": facts.kind, \"then\": code}} rule per facts kind as declared in \
         src/diag/codes.rs:{missing}"
    );
    let schema_kinds: Vec<String> = defs["facts"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|one| {
            one["properties"]["kind"]["const"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut declared: Vec<String> = kinds().into_keys().collect();
    let mut sorted = schema_kinds.clone();
    sorted.sort();
    declared.sort();
    assert_eq!(
        sorted, declared,
        "tests/json-schema-v1.json: $defs.facts.oneOf has one entry per facts kind a code declares"
    );
}

#[test]
fn the_python_stub_lists_the_declared_codes() {
    let stub = read("python/onnx_bcast_lint/__init__.pyi");
    let line = stub
        .lines()
        .find(|line| line.starts_with("Code = Literal["))
        .expect("python/onnx_bcast_lint/__init__.pyi has a `Code = Literal[...]` line");
    let declared: Vec<String> = listed().iter().map(|e| e.code.to_owned()).collect();
    let expected = format!("Code = Literal[{}]", quoted(&declared));
    assert_eq!(
        line, expected,
        "python/onnx_bcast_lint/__init__.pyi: write `{expected}`"
    );
}

/// The rows of the README table whose header line is `header`, up to the first line that is
/// not a row.
fn readme_table<'r>(readme: &'r str, header: &str) -> Vec<&'r str> {
    let mut lines = readme.lines().skip_while(|line| *line != header);
    assert!(
        lines.next().is_some(),
        "README.md lacks the table `{header}`"
    );
    lines
        .skip(1)
        .take_while(|line| line.starts_with('|'))
        .collect()
}

#[test]
fn the_readme_code_table_is_the_declaration() {
    let readme = read("README.md");
    let rows = readme_table(&readme, "| code | severity | meaning |");
    let expected: Vec<String> = explain::ALL
        .iter()
        .map(|e| format!("| `{}` | {} | {} |", e.code, e.severity, e.meaning))
        .collect();
    assert_eq!(
        rows,
        expected,
        "README.md, \"Diagnostic codes\": the table's rows are, in this order (from \
         src/diag/codes.rs):\n{}\n",
        expected.join("\n")
    );
}

#[test]
fn the_readme_facts_table_names_each_kind_with_its_codes() {
    let readme = read("README.md");
    let rows = readme_table(&readme, "| kind | code | fields |");
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    for row in rows {
        let cells: Vec<&str> = row.split(" | ").collect();
        let (Some(kinds), Some(codes)) = (cells.first(), cells.get(1)) else {
            panic!("README.md facts table: a row without kind and code: {row}");
        };
        for kind in kinds.trim_start_matches("| ").split(", ") {
            found.insert(kind.trim_matches('`').to_owned(), (*codes).to_owned());
        }
    }
    let expected: BTreeMap<String, String> = kinds()
        .into_iter()
        .map(|(kind, codes)| {
            let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
            (kind, codes.join(", "))
        })
        .collect();
    assert_eq!(
        found, expected,
        "README.md, the JSON `facts` table: each kind's code column lists the codes \
         src/diag/codes.rs declares for it"
    );
}

#[test]
fn every_load_error_code_is_declared_and_is_miettes() {
    let path = std::path::PathBuf::from("m.onnx");
    let errors = [
        LoadError::Io {
            path: path.clone(),
            source: std::io::Error::other("x"),
        },
        LoadError::Directory { path: path.clone() },
        LoadError::Empty { path: path.clone() },
        LoadError::LfsPointer {
            path: path.clone(),
            size: None,
        },
        LoadError::Decode {
            path: path.clone(),
            offset: 0,
            context: String::new(),
            problem: String::new(),
        },
        LoadError::Limit {
            path: path.clone(),
            what: "rank",
            limit: 1,
            offset: 0,
        },
        LoadError::InvalidDims {
            path: path.clone(),
            tensor: String::new(),
            dims: Vec::new(),
            problem: "negative dim",
        },
    ];
    let codes: Vec<&str> = errors.iter().map(LoadError::code).collect();
    assert_eq!(
        codes,
        file_codes(),
        "src/diag/codes.rs declares each LoadError code (but `usage/dim`, never printed), in \
         LoadError's order"
    );
    for error in &errors {
        assert_eq!(
            miette::Diagnostic::code(error).map(|c| c.to_string()),
            Some(error.code().to_owned()),
            "src/error.rs: the `#[diagnostic(code(...))]` of {error:?}"
        );
    }
}

/// Fails to build when `LoadError` gains a variant: add it to the list above (and its code to
/// `codes.rs`).
#[allow(dead_code)]
fn every_load_error_is_listed(error: &LoadError) {
    match error {
        LoadError::Io { .. }
        | LoadError::Directory { .. }
        | LoadError::Empty { .. }
        | LoadError::LfsPointer { .. }
        | LoadError::Decode { .. }
        | LoadError::Limit { .. }
        | LoadError::InvalidDims { .. }
        | LoadError::UnknownDims { .. } => {}
    }
}
