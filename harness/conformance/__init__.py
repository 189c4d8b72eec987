"""Conformance harness for onnx-bcast-lint: runtime truth vs inferred shapes."""
