//! The command as a CI gate: configuration files (discovery, precedence under flags, errors at
//! `file:line:col`, notices for excluded models named on the command line), fingerprints and
//! `ignore` (each entry naming its models; stale entries reported only for models linted),
//! denied warnings in the summary, baselines (round trip), and SARIF for code scanning
//! (relative URIs, regions, fingerprints, schema-valid).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{command, stderr, stdout};

/// A throwaway tree of models and configuration files, removed on drop.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str) -> Tree {
        let dir = std::env::temp_dir().join(format!("obl-gate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Tree(dir)
    }

    /// Copies fixture `model` to `relative`.
    fn model(&self, model: &str, relative: &str) {
        let to = self.0.join(relative);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/models")
            .join(model);
        std::fs::copy(from, to).unwrap();
    }

    fn write(&self, relative: &str, text: &str) {
        let to = self.0.join(relative);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    }

    /// Runs the command in the tree's root.
    fn run(&self, args: &[&str]) -> Output {
        command().args(args).current_dir(&self.0).output().unwrap()
    }

    fn json(&self, args: &[&str]) -> (serde_json::Value, i32) {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        let out = self.run(&all);
        (
            serde_json::from_slice(&out.stdout).unwrap(),
            out.status.code().unwrap(),
        )
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `(path, code, fingerprint)` of every diagnostic of a JSON document.
fn findings(document: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut all = Vec::new();
    for file in document["files"].as_array().unwrap() {
        for d in file["diagnostics"].as_array().unwrap() {
            all.push((
                file["path"].as_str().unwrap().to_owned(),
                d["code"].as_str().unwrap().to_owned(),
                d["fingerprint"].as_str().unwrap().to_owned(),
            ));
        }
    }
    all
}

/// A zoo: an E1 model, a W1 model (symbol `seq`, condition `seq ∈ {1, 77}`) in `vision/`.
fn zoo(name: &str) -> Tree {
    let tree = Tree::new(name);
    tree.model("e1_static_mismatch.onnx", "zoo/bad.onnx");
    tree.model("w1_symbolic.onnx", "zoo/vision/w1.onnx");
    tree.model("ok_symbolic_batch.onnx", "zoo/ok.onnx");
    tree
}

#[test]
fn every_finding_has_a_fingerprint_in_every_format() {
    let tree = zoo("formats");
    let (document, code) = tree.json(&["zoo"]);
    assert_eq!(code, 1);
    let found = findings(&document);
    assert_eq!(found.len(), 2);
    for (_, code, fingerprint) in &found {
        assert!(
            fingerprint.starts_with(&format!("{code}:")),
            "{fingerprint}"
        );
        assert_eq!(fingerprint.len(), code.len() + 1 + 16);
    }
    let human = stdout(&tree.run(&["zoo"]));
    for (_, _, fingerprint) in &found {
        assert!(
            human.contains(&format!("fingerprint: {fingerprint}")),
            "{human}"
        );
    }
    let sarif: serde_json::Value =
        serde_json::from_slice(&tree.run(&["--format", "sarif", "zoo"]).stdout).unwrap();
    let partial: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["onnxBcastLint/v1"]
                .as_str()
                .unwrap()
        })
        .collect();
    let expected: Vec<&str> = found.iter().map(|(_, _, f)| f.as_str()).collect();
    assert_eq!(partial, expected);
}

#[test]
fn fingerprints_survive_moving_and_copying_the_model() {
    // The same finding in another file, or the file elsewhere: what it is about is unchanged.
    let tree = zoo("stable");
    tree.model("e1_static_mismatch.onnx", "elsewhere/renamed.onnx");
    let (document, _) = tree.json(&["zoo/bad.onnx", "elsewhere/renamed.onnx"]);
    let found = findings(&document);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].2, found[1].2);
}

#[test]
fn nearest_configuration_applies_and_flags_override_it() {
    let tree = zoo("precedence");
    // Root: warnings fail. vision/: seq bound to 77, which satisfies the W1 condition.
    tree.write(
        "onnx-bcast-lint.toml",
        "deny-warnings = true\nallow = [\"E1\"]\n",
    );
    tree.write(
        "zoo/vision/pyproject.toml",
        "[project]\nname = \"v\"\n[tool.onnx-bcast-lint]\ndims = { seq = 77 }\n",
    );
    let (document, code) = tree.json(&["zoo"]);
    assert!(findings(&document).is_empty(), "{document}");
    assert_eq!(code, 0);
    // The flag's binding wins over the file's: seq=5 breaks the condition, an error.
    let (document, code) = tree.json(&["--dim", "seq=5", "zoo/vision"]);
    assert_eq!(findings(&document)[0].1, "E1");
    assert_eq!(code, 1);
    // The nearest file is the whole configuration: the root's deny-warnings does not reach
    // vision/ (it has its own), so its W1 alone passes when seq is free again.
    tree.write(
        "zoo/vision/pyproject.toml",
        "[tool.onnx-bcast-lint]\nallow = [\"I1\"]\n",
    );
    let (document, code) = tree.json(&["zoo/vision"]);
    assert_eq!(findings(&document)[0].1, "W1");
    assert_eq!(code, 0);
    // ...and the root's applies to the models below it: the E1 is allowed, nothing else fails.
    let (_, code) = tree.json(&["zoo/bad.onnx"]);
    assert_eq!(code, 0);
    // --isolated ignores every file; --config forces one.
    let (_, code) = tree.json(&["--isolated", "zoo/bad.onnx"]);
    assert_eq!(code, 1);
    tree.write("strict.toml", "deny-warnings = true\n");
    let (_, code) = tree.json(&["--config", "strict.toml", "zoo/vision"]);
    assert_eq!(code, 1);
}

#[test]
fn per_file_tables_and_exclude_follow_their_globs() {
    let tree = zoo("per-file");
    tree.write(
        "onnx-bcast-lint.toml",
        "exclude = [\"bad.onnx\"]\n[[per-file]]\nglob = \"zoo/vision/*.onnx\"\ndeny-warnings = true\n",
    );
    let (document, code) = tree.json(&["zoo"]);
    let paths: Vec<&str> = document["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["zoo/ok.onnx", "zoo/vision/w1.onnx"]);
    assert_eq!(code, 1, "the per-file table denies the W1");
    // Quiet output still shows the warning that failed the run.
    let quiet = stdout(&tree.run(&["-q", "zoo"]));
    assert!(quiet.contains("W1"), "{quiet}");
}

#[test]
fn a_bad_configuration_is_exit_2_quoting_file_line_and_column() {
    let tree = zoo("bad-config");
    tree.write(
        "zoo/onnx-bcast-lint.toml",
        "allow = [\"E1\"]\n\n[[per-file]]\nglob = \"a/[\"\n",
    );
    let out = tree.run(&["zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains("onnx-bcast-lint.toml:4:8: bad glob `a/[`"),
        "{message}"
    );
    assert!(message.contains(" 4 | glob = \"a/[\""), "{message}");
    assert!(stdout(&out).is_empty());
    tree.write("zoo/onnx-bcast-lint.toml", "[tool]\nx = 1\n");
    let out = tree.run(&["zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(":1:2: unknown field `tool`"),
        "{}",
        stderr(&out)
    );
    let out = tree.run(&["--config", "missing.toml", "zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read the configuration"));
}

#[test]
fn ignore_suppresses_a_finding_and_a_stale_entry_is_a_warning() {
    let tree = zoo("ignore");
    let (document, _) = tree.json(&["zoo/bad.onnx"]);
    let fingerprint = findings(&document)[0].2.clone();
    tree.write(
        "onnx-bcast-lint.toml",
        &format!(
            "[ignore]\n\"zoo/bad.onnx\" = [\n  \"{fingerprint}\",\n  \"E4:0123456789abcdef\",\n]\n"
        ),
    );
    let out = tree.run(&["zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).ends_with("in 1 file; 1 ignored\n"),
        "{}",
        stdout(&out)
    );
    let warning = stderr(&out);
    assert!(
        warning.contains(
            "onnx-bcast-lint.toml:4:3: ignore entry `E4:0123456789abcdef` for `zoo/bad.onnx` \
             matches no finding (stale: remove it)"
        ),
        "{warning}"
    );
    assert!(!warning.contains(&fingerprint), "{warning}");
    // A per-file entry whose glob matched no linted model is not in scope: no warning.
    tree.write(
        "onnx-bcast-lint.toml",
        &format!("ignore = {{ \"bad.onnx\" = [\"{fingerprint}\"] }}\n[[per-file]]\nglob = \"other/**\"\nignore = [\"E4:0123456789abcdef\"]\n"),
    );
    let out = tree.run(&["zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn an_ignore_entry_does_not_reach_another_model_with_the_same_fingerprint() {
    // Two fixtures whose E1s share a fingerprint (a fingerprint does not hash the model).
    let tree = Tree::new("ignore-scope");
    tree.model("e1_expand.onnx", "legacy/old.onnx");
    tree.model("e1_expand_computed.onnx", "new/model.onnx");
    let (document, _) = tree.json(&["legacy", "new"]);
    let found = findings(&document);
    assert_eq!(found.len(), 2, "{document}");
    assert_eq!(found[0].2, found[1].2, "the fixtures share a fingerprint");
    let fingerprint = &found[0].2;
    tree.write(
        "onnx-bcast-lint.toml",
        &format!("[ignore]\n\"legacy/old.onnx\" = [\"{fingerprint}\"]\n"),
    );
    let (document, code) = tree.json(&["legacy", "new"]);
    let found = findings(&document);
    assert_eq!(code, 1, "the new model's E1 fails the run");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "new/model.onnx");
    let out = tree.run(&["legacy", "new"]);
    assert!(
        stdout(&out).ends_with("1 error, 0 warnings, 0 infos in 2 files; 1 ignored\n"),
        "{}",
        stdout(&out)
    );
    // A glob names several models, and "**" every model, explicitly.
    tree.write(
        "onnx-bcast-lint.toml",
        &format!("ignore = {{ \"**\" = [\"{fingerprint}\"] }}\n"),
    );
    let (document, code) = tree.json(&["legacy", "new"]);
    assert!(findings(&document).is_empty(), "{document}");
    assert_eq!(code, 0);
}

#[test]
fn a_bare_ignore_list_is_refused_with_the_way_to_write_it() {
    let tree = zoo("ignore-bare");
    tree.write(
        "onnx-bcast-lint.toml",
        "deny-warnings = true\nignore = [\"E1:258acc58c22b43fb\"]\n",
    );
    let out = tree.run(&["zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    let message = stderr(&out);
    assert!(
        message.contains(
            "onnx-bcast-lint.toml:2:10: a top-level `ignore` list would apply to every model \
             below this file, but a fingerprint does not name its model"
        ),
        "{message}"
    );
    assert!(
        message.contains("`ignore = { \"path/to/model.onnx\" = [\"E1:258acc58c22b43fb\"] }`"),
        "{message}"
    );
    // Written as it says, with the model's path, the configuration loads and applies.
    let (document, _) = tree.json(&["--isolated", "zoo/bad.onnx"]);
    let fingerprint = &findings(&document)[0].2;
    tree.write(
        "onnx-bcast-lint.toml",
        &format!("deny-warnings = true\nignore = {{ \"zoo/bad.onnx\" = [\"{fingerprint}\"] }}\n"),
    );
    let out = tree.run(&["zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("; 1 ignored\n"), "{}", stdout(&out));
}

#[test]
fn stale_entries_are_only_those_of_models_linted_in_this_run() {
    let tree = zoo("stale-scope");
    let (document, _) = tree.json(&["zoo"]);
    let found = findings(&document);
    let e1 = &found.iter().find(|f| f.1 == "E1").unwrap().2;
    let w1 = &found.iter().find(|f| f.1 == "W1").unwrap().2;
    tree.write(
        "onnx-bcast-lint.toml",
        &format!("[ignore]\n\"zoo/bad.onnx\" = [\"{e1}\"]\n\"zoo/vision/w1.onnx\" = [\"{w1}\"]\n"),
    );
    // The hook's view: only one model staged. The other model's entry is not stale.
    let out = tree.run(&["zoo/vision/w1.onnx"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("; 1 ignored\n"), "{}", stdout(&out));
    // A model that could not be read was not linted either.
    tree.write("zoo/bad.onnx", "not a model");
    let out = tree.run(&["zoo/bad.onnx", "zoo/vision/w1.onnx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("stale"), "{}", stderr(&out));
    // The named model linted, its finding gone (fixed): the entry is stale.
    tree.model("ok_symbolic_batch.onnx", "zoo/bad.onnx");
    let out = tree.run(&["zoo/bad.onnx", "zoo/vision/w1.onnx"]);
    assert_eq!(out.status.code(), Some(0));
    let warnings = stderr(&out);
    assert_eq!(
        warnings.lines().count(),
        1,
        "only the fixed model's entry: {warnings}"
    );
    assert!(
        warnings.contains(&format!(
            "onnx-bcast-lint.toml:2:19: ignore entry `{e1}` for `zoo/bad.onnx` matches no finding \
             (stale: remove it)"
        )),
        "{warnings}"
    );
    // A code the run does not report cannot match: the entry is not stale, only unused now.
    let out = tree.run(&["--allow", "W1", "zoo/vision/w1.onnx"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn an_excluded_model_named_on_the_command_line_gets_a_notice() {
    let tree = zoo("excluded-named");
    tree.model("e1_static_mismatch.onnx", "zoo/legacy/old.onnx");
    tree.write(
        "onnx-bcast-lint.toml",
        "allow = [\"I1\"]\nexclude = [\"legacy\", \"zoo/bad.onnx\"]\n",
    );
    // Still not linted (the pre-commit hook names every staged model), but said so.
    let out = tree.run(&["zoo/bad.onnx"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).ends_with("0 errors, 0 warnings, 0 infos in 0 files\n"),
        "{}",
        stdout(&out)
    );
    let notice = stderr(&out);
    assert!(
        notice.starts_with(
            "warning: `zoo/bad.onnx` is not linted: the configuration excludes it, at "
        ),
        "{notice}"
    );
    assert!(
        notice
            .trim_end()
            .ends_with("onnx-bcast-lint.toml:2:22 (`zoo/bad.onnx`)"),
        "{notice}"
    );
    // A named directory whose every model is excluded: one notice for it.
    let out = tree.run(&["zoo/legacy"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stderr(&out),
        "warning: no model under `zoo/legacy` is linted: the configuration excludes all 1 of them\n"
    );
    // Excluded models found in a directory with others: left out silently, as intended.
    let out = tree.run(&["zoo"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(stdout(&out).contains("in 2 files"), "{}", stdout(&out));
}

#[test]
fn the_summary_says_when_warnings_are_denied() {
    let tree = zoo("denied");
    tree.model("w1_two_symbols.onnx", "zoo/other/w1.onnx");
    let summary = |args: &[&str]| -> (String, i32) {
        let out = tree.run(args);
        let text = stdout(&out);
        (
            text.lines().last().unwrap_or_default().to_owned(),
            out.status.code().unwrap(),
        )
    };
    assert_eq!(
        summary(&["--deny", "warnings", "zoo/vision"]),
        (
            "0 errors, 1 warning (denied), 0 infos in 1 file".to_owned(),
            1
        )
    );
    assert_eq!(
        summary(&["zoo/vision"]),
        ("0 errors, 1 warning, 0 infos in 1 file".to_owned(), 0)
    );
    // Denied, and none to deny: the summary still says the gate denies them.
    assert_eq!(
        summary(&["--deny", "warnings", "zoo/ok.onnx"]),
        (
            "0 errors, 0 warnings (denied), 0 infos in 1 file".to_owned(),
            0
        )
    );
    // Denied for some models only: how many of the warnings fail the run.
    tree.write(
        "onnx-bcast-lint.toml",
        "[[per-file]]\nglob = \"zoo/vision/**\"\ndeny-warnings = true\n",
    );
    let (line, code) = summary(&["zoo/vision", "zoo/other", "zoo/ok.onnx"]);
    assert_eq!(code, 1);
    assert!(
        line.starts_with("0 errors, ") && line.contains(" warnings (1 denied), "),
        "{line}"
    );
    assert_eq!(
        summary(&["zoo/other", "zoo/ok.onnx"]).1,
        0,
        "no warning of a denying model"
    );
    assert!(!summary(&["zoo/other", "zoo/ok.onnx"]).0.contains("denied"));
}

#[test]
fn config_naming_a_pyproject_without_the_table_is_exit_2() {
    let tree = zoo("pyproject-forced");
    tree.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\n[tool.onnx_bcast_lint]\ndeny-warnings = true\n",
    );
    let out = tree.run(&["--config", "pyproject.toml", "zoo/vision"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    let message = stderr(&out);
    assert!(
        message.contains(
            "pyproject.toml: no [tool.onnx-bcast-lint] table, so this file configures nothing"
        ),
        "{message}"
    );
    assert!(
        message.contains("found [tool.onnx_bcast_lint]"),
        "{message}"
    );
    // With the table spelt right, it applies.
    tree.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\n[tool.onnx-bcast-lint]\ndeny-warnings = true\n",
    );
    let out = tree.run(&["--config", "pyproject.toml", "zoo/vision"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn baseline_round_trip_fails_only_on_new_findings() {
    let tree = zoo("baseline");
    let out = tree.run(&["--write-baseline", "base/accepted.txt", "zoo"]);
    assert!(
        out.status.code() == Some(2),
        "the directory does not exist yet"
    );
    std::fs::create_dir_all(tree.0.join("base")).unwrap();
    let out = tree.run(&["--write-baseline", "base/accepted.txt", "zoo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).ends_with("0 errors, 0 warnings, 0 infos in 3 files; 2 baselined\n"));
    let text = std::fs::read_to_string(tree.0.join("base/accepted.txt")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let (document, _) = tree.json(&["--isolated", "zoo"]);
    let mut expected: Vec<String> = findings(&document)
        .iter()
        .map(|(path, _, fp)| format!("../{path} {fp}"))
        .collect();
    expected.sort();
    assert_eq!(lines, expected);

    // Same findings: everything baselined, exit 0. From another directory too (paths are
    // relative to the baseline file).
    let out = tree.run(&["--baseline", "base/accepted.txt", "zoo"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).ends_with("; 2 baselined\n"),
        "{}",
        stdout(&out)
    );
    let out = command()
        .args(["--baseline", "../base/accepted.txt", "bad.onnx"])
        .current_dir(tree.0.join("zoo"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    // A new model with an error fails; the baselined ones stay quiet.
    tree.model("e4_matmul_k.onnx", "zoo/new.onnx");
    let (document, code) = tree.json(&["--baseline", "base/accepted.txt", "zoo"]);
    assert_eq!(code, 1);
    let found = findings(&document);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "zoo/new.onnx");

    // A malformed baseline is exit 2 naming the line.
    tree.write("base/broken.txt", "# comment\nzoo/bad.onnx E1:xyz\n");
    let out = tree.run(&["--baseline", "base/broken.txt", "zoo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("broken.txt:2: expected `model-path fingerprint`"));
}

#[test]
fn sarif_uris_are_relative_to_the_root_and_every_result_is_located() {
    let tree = zoo("sarif");
    tree.model("e3_undefined_input.onnx", "zoo/e3.onnx");
    tree.model("i1_custom_op.onnx", "zoo/sub dir/i1.onnx");
    let out = tree.run(&["--format", "sarif", "--sarif-root", "zoo", "zoo"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");

    let run = &log["runs"][0];
    let root = run["originalUriBaseIds"]["SRCROOT"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        root.starts_with("file:///") && root.ends_with("/zoo/"),
        "{root}"
    );
    let uris: Vec<&str> = run["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["location"]["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "bad.onnx",
            "e3.onnx",
            "ok.onnx",
            "sub%20dir/i1.onnx",
            "vision/w1.onnx"
        ]
    );
    let results = run["results"].as_array().unwrap();
    assert!(results.len() >= 4, "{results:#?}");
    for result in results {
        let location = &result["locations"][0];
        let physical = &location["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "SRCROOT");
        assert!(!physical["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .starts_with('/'));
        assert!(physical["region"]["startLine"].as_u64().unwrap() >= 2);
        assert!(physical["region"]["byteLength"].as_u64().unwrap() > 0);
        assert!(location["logicalLocations"][0]["fullyQualifiedName"].is_string());
        assert!(result["partialFingerprints"]["onnxBcastLint/v1"].is_string());
    }
    // The E1 node is the graph's first: line 2 of `main { ... }`.
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    let again = tree.run(&["--format", "sarif", "--sarif-root", "zoo", "zoo"]);
    assert_eq!(out.stdout, again.stdout, "deterministic");
    // Outside the root: an absolute file URI, no base.
    let out = tree.run(&[
        "--format",
        "sarif",
        "--sarif-root",
        "zoo/vision",
        "zoo/bad.onnx",
    ]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let artifact =
        &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert!(artifact["uri"].as_str().unwrap().starts_with("file:///"));
    assert!(artifact.get("uriBaseId").is_none());
}
