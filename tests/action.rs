//! The metadata files that CI systems read: `action.yml` (a composite GitHub Action) has the
//! keys GitHub's action metadata syntax requires, declares every input it uses, and runs scripts
//! that exist and are executable, building the command only when none was downloaded;
//! `.pre-commit-hooks.yaml` declares the hooks the README names, the python one pinning the wheel
//! of this version. (`tests/action/run.sh` runs the action's shell steps;
//! `tests/precommit/run.sh` the hooks.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use serde_yaml_ng::Value;

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn text(value: &Value, key: &str) -> String {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("`{key}` missing or not a string in {value:?}"))
        .to_owned()
}

#[test]
fn action_metadata_has_the_required_keys() {
    let action = load("action.yml");
    // Required by the metadata syntax: name, description, runs (with using).
    assert!(!text(&action, "name").is_empty());
    assert!(!text(&action, "description").is_empty());
    assert_eq!(text(&action["runs"], "using"), "composite");
    let inputs = action["inputs"].as_mapping().unwrap();
    for input in ["paths", "args", "sarif", "upload-sarif", "annotations"] {
        let declared = &inputs[input];
        assert!(!text(declared, "description").is_empty(), "{input}");
        assert!(declared["default"].is_string(), "{input} has a default");
    }
    let steps = action["runs"]["steps"].as_sequence().unwrap();
    assert!(!steps.is_empty());
    let mut uses = Vec::new();
    for step in steps {
        // A composite step runs a command (with its shell, which composite actions require)
        // or uses an action.
        match (step.get("run"), step.get("uses")) {
            (Some(run), None) => {
                assert!(step["shell"].is_string(), "{step:?} has no shell");
                let run = run.as_str().unwrap();
                let script = run
                    .split('"')
                    .find(|s| s.starts_with("$GITHUB_ACTION_PATH/"))
                    .unwrap_or_else(|| panic!("{run} runs no script of the action"));
                let script = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join(script.trim_start_matches("$GITHUB_ACTION_PATH/"));
                let mode = std::os::unix::fs::PermissionsExt::mode(
                    &std::fs::metadata(&script).unwrap().permissions(),
                );
                assert!(mode & 0o111 != 0, "{} is not executable", script.display());
            }
            (None, Some(action)) => uses.push(action.as_str().unwrap().to_owned()),
            _ => panic!("a step must have exactly one of run and uses: {step:?}"),
        }
    }
    assert!(uses.iter().any(|u| u.starts_with("actions/cache@")));
    assert!(uses
        .iter()
        .any(|u| u.starts_with("github/codeql-action/upload-sarif@")));
    // The gate decides the job (issue 32, item 9): the upload can be turned off, its failure
    // does not fail the job, and the gate step runs after it whatever its outcome.
    assert_eq!(text(&inputs["upload-sarif"], "default"), "true");
    assert_eq!(text(&inputs["annotations"], "default"), "false");
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .unwrap();
    assert_eq!(upload["continue-on-error"], Value::Bool(true), "{upload:?}");
    assert!(
        text(upload, "if").contains("inputs.upload-sarif == 'true'"),
        "{upload:?}"
    );
    let gate = steps.last().unwrap();
    assert!(text(gate, "run").contains(".ci/action/gate.sh"), "{gate:?}");
    let condition = text(gate, "if");
    assert!(condition.contains("!cancelled()"), "{condition}");
    assert!(
        !condition.contains("upload"),
        "the gate must not depend on the upload: {condition}"
    );
    // Every `inputs.X` the file mentions is declared.
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    for used in source.split("inputs.").skip(1) {
        let name: String = used
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        assert!(
            inputs.contains_key(name.as_str()),
            "inputs.{name} is not declared"
        );
    }
}

#[test]
fn pre_commit_hook_is_declared() {
    let hooks = load(".pre-commit-hooks.yaml");
    let hooks = hooks.as_sequence().unwrap();
    let hook = hooks
        .iter()
        .find(|h| h["id"].as_str() == Some("onnx-bcast-lint"))
        .unwrap();
    assert_eq!(text(hook, "entry"), "onnx-bcast-lint");
    assert_eq!(text(hook, "language"), "rust");
    assert_eq!(text(hook, "files"), r"\.onnx$");
    assert!(!text(hook, "name").is_empty());
}

/// The action downloads the release's command before it restores or builds one, and skips both
/// when the download installed it (issue 36, item 3; `tests/action/run.sh` runs the script).
#[test]
fn action_builds_only_when_no_prebuilt_command_was_installed() {
    let action = load("action.yml");
    let steps = action["runs"]["steps"].as_sequence().unwrap();
    let position = |id: &str| {
        steps
            .iter()
            .position(|s| s["id"].as_str() == Some(id))
            .unwrap_or_else(|| panic!("no step `{id}`"))
    };
    let download = position("download");
    assert!(text(&steps[download], "run").contains(".ci/action/download.sh"));
    let env = &steps[download]["env"];
    assert_eq!(text(env, "ACTION_REF"), "${{ github.action_ref }}");
    assert_eq!(
        text(env, "ACTION_REPOSITORY"),
        "${{ github.action_repository }}"
    );
    let cache = position("cache");
    assert!(download < cache);
    let skipped = "steps.download.outputs.installed != 'true'";
    assert!(text(&steps[cache], "if").contains(skipped));
    let install = steps
        .iter()
        .position(|s| s["run"].as_str().is_some_and(|r| r.contains("install.sh")))
        .unwrap();
    assert!(cache < install);
    assert!(text(&steps[install], "if").contains(skipped));
}

/// The second hook installs the wheel (`language: python`): pre-commit pip-installs the
/// top-level pyproject.toml, which must pin the wheel of the workspace's version.
#[test]
fn python_hook_pins_the_wheel_of_this_version() {
    let hooks = load(".pre-commit-hooks.yaml");
    let hook = hooks
        .as_sequence()
        .unwrap()
        .iter()
        .find(|h| h["id"].as_str() == Some("onnx-bcast-lint-python"))
        .unwrap();
    assert_eq!(text(hook, "entry"), "onnx-bcast-lint");
    assert_eq!(text(hook, "language"), "python");
    assert_eq!(text(hook, "files"), r"\.onnx$");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pyproject = std::fs::read_to_string(root.join("pyproject.toml")).unwrap();
    let pin = format!(
        "dependencies = [\"onnx-bcast-lint=={}\"]",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        pyproject.lines().any(|line| line == pin),
        "pyproject.toml lacks {pin}"
    );
    assert!(
        !pyproject
            .lines()
            .any(|line| line.starts_with("[tool.onnx-bcast-lint")),
        "the pinning project must not configure the command"
    );
}
