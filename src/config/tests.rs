//! Discovery, precedence and error placement of configuration files.

use std::path::{Path, PathBuf};

use super::*;
use crate::diag::Code;

/// A fresh directory tree under the system's temporary directory, removed on drop.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str) -> Tree {
        let dir = std::env::temp_dir().join(format!("obl-config-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Tree(dir)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn discover(tree: &Tree, model: &str) -> Effective {
    ConfigLookup::new(None, false)
        .unwrap()
        .effective(&tree.0.join(model), &Settings::default())
        .unwrap()
}

fn error(tree: &Tree, text: &str) -> String {
    tree.write(FILE_NAME, text);
    ConfigLookup::new(None, false)
        .unwrap()
        .effective(&tree.0.join("m.onnx"), &Settings::default())
        .unwrap_err()
        .to_string()
}

fn bound(effective: &Effective, name: &str) -> Option<i64> {
    effective.options.binding().get(name).copied()
}

#[test]
fn the_nearest_file_wins_and_its_own_file_beats_pyproject() {
    let tree = Tree::new("nearest");
    tree.write(FILE_NAME, "dims = { batch = 1 }\n");
    tree.write(
        "vision/pyproject.toml",
        "[tool.onnx-bcast-lint]\ndims = { batch = 2 }\n",
    );
    tree.write("vision/deep/pyproject.toml", "[project]\nname = \"x\"\n");
    tree.write(
        "nlp/pyproject.toml",
        "[tool.onnx-bcast-lint]\ndims = { batch = 3 }\n",
    );
    tree.write("nlp/onnx-bcast-lint.toml", "dims = { batch = 4 }\n");
    assert_eq!(bound(&discover(&tree, "a.onnx"), "batch"), Some(1));
    assert_eq!(bound(&discover(&tree, "vision/a.onnx"), "batch"), Some(2));
    // A pyproject.toml without the table does not stop the search.
    assert_eq!(
        bound(&discover(&tree, "vision/deep/a.onnx"), "batch"),
        Some(2)
    );
    assert_eq!(bound(&discover(&tree, "nlp/a.onnx"), "batch"), Some(4));
}

#[test]
fn per_file_tables_then_flags_override_the_file() {
    let tree = Tree::new("precedence");
    tree.write(
        FILE_NAME,
        "allow = [\"I1\"]\ndeny-warnings = true\ndims = { batch = 8, seq = 128 }\n\
         [[per-file]]\nglob = \"vision/**\"\ndims = { batch = 1 }\nallow = [\"W1\"]\n\
         [[per-file]]\nglob = \"*_fp16.onnx\"\ndeny-warnings = false\n",
    );
    let plain = discover(&tree, "nlp/bert.onnx");
    assert_eq!(bound(&plain, "batch"), Some(8));
    assert!(plain.deny_warnings);
    let vision = discover(&tree, "vision/resnet_fp16.onnx");
    assert_eq!(bound(&vision, "batch"), Some(1));
    assert_eq!(bound(&vision, "seq"), Some(128));
    assert!(!vision.deny_warnings);
    // Lists add up: the file's I1 and the table's W1.
    let options = format!("{:?}", vision.options);
    assert!(
        options.contains("I1") && options.contains("W1"),
        "{options}"
    );

    let flags = Settings {
        dims: Some([("batch".to_owned(), DimValue(4))].into()),
        deny_warnings: Some(true),
        allow: Some(vec![CodeName(Code::E2)]),
        ..Settings::default()
    };
    let over = ConfigLookup::new(None, false)
        .unwrap()
        .effective(&tree.0.join("vision/resnet_fp16.onnx"), &flags)
        .unwrap();
    assert_eq!(bound(&over, "batch"), Some(4));
    assert_eq!(bound(&over, "seq"), Some(128));
    assert!(over.deny_warnings);
    assert!(format!("{:?}", over.options).contains("E2"));
}

#[test]
fn config_forces_one_file_and_isolated_ignores_all() {
    let tree = Tree::new("forced");
    tree.write(FILE_NAME, "dims = { batch = 1 }\n");
    let other = tree.write("elsewhere/custom.toml", "dims = { batch = 9 }\n");
    let model = tree.0.join("a.onnx");
    let forced = ConfigLookup::new(Some(&other), false)
        .unwrap()
        .effective(&model, &Settings::default())
        .unwrap();
    assert_eq!(bound(&forced, "batch"), Some(9));
    let isolated = ConfigLookup::new(Some(&other), true)
        .unwrap()
        .effective(&model, &Settings::default())
        .unwrap();
    assert_eq!(bound(&isolated, "batch"), None);
    assert!(isolated.config.is_none());
}

#[test]
fn exclude_globs_are_relative_to_the_file() {
    let tree = Tree::new("exclude");
    tree.write(FILE_NAME, "exclude = [\"legacy\", \"zoo/*_old.onnx\"]\n");
    let legacy = discover(&tree, "legacy/a.onnx").excluded.unwrap();
    assert!(
        legacy.ends_with("onnx-bcast-lint.toml:1:12 (`legacy`)"),
        "{legacy}"
    );
    assert!(discover(&tree, "zoo/legacy/a.onnx").excluded.is_some());
    let old = discover(&tree, "zoo/m_old.onnx").excluded.unwrap();
    assert!(old.ends_with(":1:22 (`zoo/*_old.onnx`)"), "{old}");
    assert!(discover(&tree, "zoo/deeper/m_old.onnx").excluded.is_none());
    assert!(discover(&tree, "zoo/m.onnx").excluded.is_none());
}

#[test]
fn initializers_as_constants_is_a_key_per_file_tables_and_flags_replace() {
    let tree = Tree::new("initializers");
    tree.write(
        FILE_NAME,
        "initializers-as-constants = true\n[[per-file]]\nglob = \"legacy/**\"\ninitializers-as-constants = false\n",
    );
    assert!(discover(&tree, "m.onnx")
        .options
        .initializers_as_constants());
    assert!(!discover(&tree, "legacy/m.onnx")
        .options
        .initializers_as_constants());
    let flags = Settings {
        initializers_as_constants: Some(true),
        ..Settings::default()
    };
    let forced = ConfigLookup::new(None, false)
        .unwrap()
        .effective(&tree.0.join("legacy/m.onnx"), &flags)
        .unwrap();
    assert!(forced.options.initializers_as_constants());
    let message = error(&tree, "initializers-as-constants = \"yes\"\n");
    assert!(message.contains(":1:29:"), "{message}");
}

#[test]
fn unknown_keys_are_errors_quoting_file_line_and_column() {
    let tree = Tree::new("unknown");
    let message = error(&tree, "allow = [\"I1\"]\ndeny_warnings = true\n");
    assert!(
        message.contains("onnx-bcast-lint.toml:2:1: unknown field `deny_warnings`"),
        "{message}"
    );
    assert!(message.contains("`deny-warnings`"), "{message}");
    assert!(
        message.contains(" 2 | deny_warnings = true\n   | ^^^^^^^^^^^^^"),
        "{message}"
    );
    let message = error(&tree, "[[per-file]]\nglob = \"a\"\nexclude = [\"b\"]\n");
    assert!(
        message.contains(":3:1: unknown field `exclude`"),
        "{message}"
    );
}

#[test]
fn bad_values_are_errors_at_the_value() {
    let tree = Tree::new("values");
    let cases = [
        ("allow = [\"E1\", \"X9\"]\n", ":1:16: unknown code `X9`"),
        (
            "deny-warnings = \"yes\"\n",
            ":1:17: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "dims = { batch = -1 }\n",
            ":1:18: a dim cannot be negative (-1)",
        ),
        (
            "dims = { batch = 1.5 }\n",
            ":1:18: invalid type: floating point",
        ),
        ("exclude = [\"a/[b\"]\n", ":1:12: bad glob `a/[b`"),
        ("[[per-file]]\nglob = \"{a\"\n", ":2:8: bad glob `{a`"),
        ("[[per-file]]\ndims = { a = 1 }\n", "missing field `glob`"),
        (
            "ignore = { \"a.onnx\" = [\"E1:12\"] }\n",
            ":1:24: `E1:12` is not a fingerprint",
        ),
        (
            "ignore = { \"a/[b\" = [\"E1:0123456789abcdef\"] }\n",
            ":1:12: bad glob `a/[b`",
        ),
        (
            "ignore = { \"a.onnx\" = \"E1:0123456789abcdef\" }\n",
            ":1:23: invalid type: string",
        ),
        (
            "[[per-file]]\nglob = \"a\"\nignore = [\"E1:12\"]\n",
            ":3:11: `E1:12` is not a fingerprint",
        ),
        (
            "allow = \"E1\"\n",
            ":1:9: invalid type: string \"E1\", expected a sequence",
        ),
        ("allow = [\n", "onnx-bcast-lint.toml:"),
    ];
    for (text, expected) in cases {
        let message = error(&tree, text);
        assert!(message.contains(expected), "{text:?}: {message}");
        assert!(message.contains(&tree.0.display().to_string()), "{message}");
    }
}

#[test]
fn a_bad_pyproject_table_is_an_error_too() {
    let tree = Tree::new("pyproject");
    tree.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\n\n[tool.onnx-bcast-lint]\nallw = []\n",
    );
    let message = ConfigLookup::new(None, false)
        .unwrap()
        .effective(&tree.0.join("m.onnx"), &Settings::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("pyproject.toml:5:1: unknown field `allw`"),
        "{message}"
    );
}

#[test]
fn ignore_entries_name_their_models_and_keep_where_they_are_written() {
    let tree = Tree::new("ignore");
    tree.write(
        FILE_NAME,
        "[[per-file]]\nglob = \"a.onnx\"\nignore = [\"W1:0123456789ABCDEF\"]\n\n\
         [ignore]\n\"a.onnx\" = [\"E1:0123456789abcdef\"]\n\"vision/*.onnx\" = [\"E4:0123456789abcdef\"]\n\
         \"**\" = [\"I1:0123456789abcdef\"]\n",
    );
    let listed = |model: &str| -> Vec<(String, String)> {
        discover(&tree, model)
            .ignore
            .iter()
            .map(|s| (s.models.clone(), s.fingerprint.to_string()))
            .collect()
    };
    let pair = |models: &str, fingerprint: &str| (models.to_owned(), fingerprint.to_owned());
    // The table's entries first, then the `[[per-file]]` tables'.
    assert_eq!(
        listed("a.onnx"),
        [
            pair("**", "I1:0123456789abcdef"),
            pair("a.onnx", "E1:0123456789abcdef"),
            pair("a.onnx", "W1:0123456789abcdef"),
        ]
    );
    assert_eq!(
        listed("vision/r.onnx"),
        [
            pair("**", "I1:0123456789abcdef"),
            pair("vision/*.onnx", "E4:0123456789abcdef"),
        ]
    );
    assert_eq!(listed("b.onnx"), [pair("**", "I1:0123456789abcdef")]);
    let effective = discover(&tree, "a.onnx");
    let config = effective.config.as_ref().unwrap();
    let [_, table, per_file] = effective.ignore.as_slice() else {
        panic!("{:?}", effective.ignore)
    };
    assert!(config
        .locate(table.span.start)
        .ends_with("onnx-bcast-lint.toml:6:13"));
    assert!(config
        .locate(per_file.span.start)
        .ends_with("onnx-bcast-lint.toml:3:11"));
}

#[test]
fn a_bare_top_level_ignore_list_is_refused_saying_how_to_name_the_model() {
    let tree = Tree::new("bare-ignore");
    let message = error(
        &tree,
        "allow = [\"I1\"]\nignore = [\"E1:258ACC58C22B43FB\"]\n",
    );
    assert!(
        message.contains(
            "onnx-bcast-lint.toml:2:10: a top-level `ignore` list would apply to every model"
        ),
        "{message}"
    );
    assert!(
        message.contains("`ignore = { \"path/to/model.onnx\" = [\"E1:258acc58c22b43fb\"] }`"),
        "{message}"
    );
    assert!(message.contains("`[[per-file]]`"), "{message}");
    assert!(
        message.contains(" 2 | ignore = [\"E1:258ACC58C22B43FB\"]\n   |          ^"),
        "{message}"
    );
    // In pyproject.toml too; an empty list suppresses nothing and stays accepted.
    tree.write(
        "pyproject.toml",
        "[tool.onnx-bcast-lint]\nignore = [\"E1:258acc58c22b43fb\"]\n",
    );
    let message = ConfigLookup::new(Some(&tree.0.join("pyproject.toml")), false)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("pyproject.toml:2:10: a top-level `ignore` list"),
        "{message}"
    );
    tree.write(FILE_NAME, "ignore = []\n");
    assert!(discover(&tree, "m.onnx").ignore.is_empty());
}

#[test]
fn config_naming_a_pyproject_without_the_table_is_an_error() {
    let tree = Tree::new("pyproject-forced");
    let plain = tree.write("pyproject.toml", "[project]\nname = \"x\"\n");
    let message = ConfigLookup::new(Some(&plain), false)
        .unwrap_err()
        .to_string();
    assert!(
        message.ends_with(
            "pyproject.toml: no [tool.onnx-bcast-lint] table, so this file configures nothing \
             (--isolated lints without a configuration)"
        ),
        "{message}"
    );
    let misspelt = tree.write(
        "misspelt/pyproject.toml",
        "[tool.ruff]\nline-length = 100\n[tool.onnx_bcast_lint]\ndeny-warnings = true\n",
    );
    let message = ConfigLookup::new(Some(&misspelt), false)
        .unwrap_err()
        .to_string();
    assert!(
        message
            .ends_with("; found [tool.onnx_bcast_lint]: the table is spelt [tool.onnx-bcast-lint]"),
        "{message}"
    );
    // Found by discovery instead, such a file is skipped as before (it may configure other
    // tools only).
    assert!(discover(&tree, "m.onnx").config.is_none());
}

#[test]
fn paths_are_normalised_lexically() {
    assert_eq!(
        absolute(Path::new("/a/b/../c/./d.onnx")),
        PathBuf::from("/a/c/d.onnx")
    );
}
