"""The ``onnx-bcast-lint`` command installed by the wheel: the Rust command's own code (flags,
output, exit codes 0/1/2), run in this process."""

import sys

from . import _native


def console() -> None:
    """Entry point of the ``onnx-bcast-lint`` script."""
    # The process ends right after: the reports are not freed one by one (as the binary does).
    sys.exit(_native.main(["onnx-bcast-lint", *sys.argv[1:]], leak=True))
