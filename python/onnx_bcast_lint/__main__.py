"""``python -m onnx_bcast_lint``: the ``onnx-bcast-lint`` command."""

from ._cli import console

console()
