"""Report: shapes, text renderings, and JSON/SARIF/human output identical to the command's."""

import json
import os
import subprocess
import sys

import pytest

import onnx_bcast_lint as obl
from conftest import MODELS, models

E1 = MODELS / "e1_static_mismatch.onnx"
LINTABLE = [p for p in models() if not p.name.startswith("load_")]


def run(command, *args):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    return subprocess.run([command, *map(str, args)], capture_output=True, env=env)


@pytest.mark.parametrize("path", LINTABLE, ids=lambda p: p.name)
def test_json_is_byte_identical_to_the_command(command, path):
    out = run(command, "--format", "json", path).stdout
    assert obl.lint(path).to_json().encode() == out
    out = run(command, "--format", "json", "--shapes", path).stdout
    assert obl.lint(path).to_json(shapes=True).encode() == out


def test_json_with_options_matches_the_command(command):
    path = MODELS / "w1_symbolic.onnx"
    out = run(command, "--format", "json", "--dim", "seq=5", path).stdout
    assert obl.lint(path, dims={"seq": 5}).to_json().encode() == out
    path = MODELS / "i1_custom_op.onnx"
    out = run(command, "--format", "json", "--allow", "I1", path).stdout
    assert obl.lint(path, allow=["I1"]).to_json().encode() == out


def test_json_document():
    document = json.loads(obl.lint(E1).to_json(shapes=True))
    assert document["version"] == 1
    assert document["tool"] == {"name": "onnx-bcast-lint", "version": obl.__version__}
    (file,) = document["files"]
    assert file["path"] == str(E1) and file["status"] == "ok"
    assert file["diagnostics"][0]["code"] == "E1"
    assert file["shapes"]["x"] == [2, 3]


@pytest.mark.parametrize("name", ["e1_static_mismatch.onnx", "w1_symbolic.onnx",
                                  "ok_subgraphs.onnx", "i1_custom_op.onnx"])
def test_sarif_and_human_match_the_command(command, name):
    path = MODELS / name
    report = obl.lint(path)
    assert report.to_sarif().encode() == run(command, "--format", "sarif", path).stdout
    human = run(command, path).stdout.decode()
    assert str(report) + "\n" == human
    assert "\x1b[" not in str(report)
    shapes = run(command, "--shapes", path).stdout.decode()
    assert report.render(shapes=True) + "\n" == shapes
    quiet = run(command, "-q", path).stdout.decode()
    assert report.render(quiet=True) + "\n" == quiet


def test_sarif_document():
    sarif = json.loads(obl.lint(E1).to_sarif())
    assert sarif["version"] == "2.1.0"
    assert sarif["runs"][0]["results"][0]["ruleId"] == "E1"


def test_colour_only_when_asked():
    assert "\x1b[" in obl.lint(E1).render(color=True)


def test_shapes_and_shape():
    report = obl.lint(MODELS / "ok_symbolic_batch.onnx")
    shapes = report.shapes
    assert shapes["ids"] == ["batch", "seq"]
    assert all(s is None or isinstance(s, list) for s in shapes.values())
    for name, shape in shapes.items():
        assert report.shape(name) == shape
        for dim in shape or []:
            assert dim is None or isinstance(dim, (int, str))
    shapes["ids"].append(1)  # a copy: the report does not change
    assert report.shape("ids") == ["batch", "seq"]
    with pytest.raises(KeyError):
        report.shape("no such value")
    with pytest.raises(TypeError):
        report.shape(3)


def test_unknown_rank_is_none_and_unknown_dim_is_none():
    report = obl.lint(MODELS / "i1_custom_op.onnx")
    unknown = [name for name, shape in report.shapes.items() if shape is None]
    assert unknown, report.shapes
    assert report.shape(unknown[0]) is None


def test_e1_output_shape():
    report = obl.lint(E1)
    assert report.shape("x") == [2, 3] and report.shape("y") == [4]
    assert report.shape("z") == [2, None]


def test_stats_and_repr():
    report = obl.lint(E1)
    assert report.stats["nodes"] == 1 and report.stats["graphs"] == 1
    assert repr(report) == f"<Report {str(E1)!r}: 1 error, 0 warnings>"


def test_command_exit_codes(command):
    assert run(command, E1).returncode == 1
    assert run(command, MODELS / "ok_symbolic_batch.onnx").returncode == 0
    assert run(command, MODELS / "w1_symbolic.onnx").returncode == 0
    assert run(command, "--deny", "warnings", MODELS / "w1_symbolic.onnx").returncode == 1
    assert run(command, MODELS / "load_truncated.onnx").returncode == 2
    bad = run(command, "--no-such-flag", E1)
    assert bad.returncode == 2 and b"--no-such-flag" in bad.stderr
    version = run(command, "--version")
    assert version.returncode == 0 and version.stdout == f"onnx-bcast-lint {obl.__version__}\n".encode()
    assert run(command, "--help").returncode == 0


def test_command_reads_stdin(command):
    done = subprocess.run([command, "--format", "json", "-"], input=E1.read_bytes(),
                          capture_output=True)
    assert done.returncode == 1 and json.loads(done.stdout)["files"][0]["diagnostics"]


def test_python_dash_m():
    done = subprocess.run([sys.executable, "-m", "onnx_bcast_lint", str(E1)], capture_output=True,
                          env=dict(os.environ, NO_COLOR="1"))
    assert done.returncode == 1 and b"E1" in done.stdout


def test_main_in_process(capfd):
    assert obl.main([E1]) == 1
    assert obl.main(["-j", "1", MODELS / "ok_symbolic_batch.onnx"]) == 0
    assert obl.main(["-j", "2", MODELS / "ok_symbolic_batch.onnx"]) == 0
    assert obl.main(["--format", "json", MODELS / "load_garbage.onnx"]) == 2
    out = capfd.readouterr().out
    assert "E1" in out and '"load/decode"' in out
