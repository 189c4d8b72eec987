//! What every test that runs the command shares (issue 31): the built command with an
//! environment that fixes everything its human output depends on besides the model (the width it
//! wraps at, colour), so that no assertion depends on where the checkout sits, the terminal the
//! tests run in or what the CI's environment sets.

// Each test crate compiles this module and uses only part of it.
#![allow(dead_code, clippy::expect_used)]

use std::process::{Command, Output};

/// The width the human report is drawn at in tests: wider than any line a fixture's report holds
/// (a 150-character checkout path included), so no message is wrapped and an assertion can look
/// for any phrase on one line. Tests of wrapping itself set `COLUMNS` again after this.
pub(crate) const WIDTH: usize = 1000;

/// The command, with `COLUMNS` fixed at [`WIDTH`] and colour off however the environment asks
/// for it (`FORCE_COLOR` and `CLICOLOR_FORCE` win over `NO_COLOR` in the colour detection).
pub(crate) fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_onnx-bcast-lint"));
    command
        .env("COLUMNS", WIDTH.to_string())
        .env("NO_COLOR", "1")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    command
}

/// Runs the command with `args` (see [`command`]).
pub(crate) fn run(args: &[&str]) -> Output {
    command().args(args).output().expect("the test binary runs")
}

/// The command's standard output, as text.
pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The command's standard error, as text.
pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
