//! The `onnx-bcast-lint` command.
fn main() {}
