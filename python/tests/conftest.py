"""Shared fixtures: the repository's committed models and the installed command."""

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "tests" / "models"


def models(prefix: str = "") -> list:
    """Committed fixtures whose names start with ``prefix``, sorted."""
    return sorted(p for p in MODELS.glob(f"{prefix}*.onnx"))


@pytest.fixture(scope="session")
def command() -> str:
    """The ``onnx-bcast-lint`` script the wheel installed beside this interpreter."""
    beside = Path(sys.executable).parent / "onnx-bcast-lint"
    found = str(beside) if beside.exists() else shutil.which("onnx-bcast-lint")
    assert found, "the wheel did not install the onnx-bcast-lint command"
    return found
