"""Issue 35, item 2: the HTML report in notebooks (``_repr_html_`` through IPython's display
machinery, as Jupyter calls it), ``Report.to_html``, and ``Finding.provenance`` as data."""

import html
import json
import pickle

import onnx_bcast_lint as obl
from conftest import MODELS

W1 = MODELS / "w1_conv_frames.onnx"


def test_a_report_displays_as_html_in_ipython():
    from IPython.core.formatters import DisplayFormatter

    report = obl.lint(W1)
    data, _ = DisplayFormatter().format(report)
    shown = data["text/html"]
    assert shown == report._repr_html_()
    assert shown.startswith('<div class="obl">')
    assert "<html" not in shown
    # One drawing per finding, each naming its node.
    assert shown.count('<svg ') == len(report.findings)
    for finding in report.findings:
        assert f'data-name="{html.escape(finding.node.name)}"' in shown
    # The text view is still the human report.
    assert data["text/plain"] == repr(report)


def test_a_finding_displays_its_own_drawing():
    from IPython.core.formatters import DisplayFormatter

    finding = obl.lint(W1).findings[-1]
    data, _ = DisplayFormatter().format(finding)
    shown = data["text/html"]
    assert shown.count("<svg ") == 1
    assert html.escape(finding.message, quote=False) in shown
    assert '<g class="box finding" data-name="/encoder/Add">' in shown
    # A copy (pickled, without the engine's report) still shows its message.
    copy = pickle.loads(pickle.dumps(finding))
    assert copy == finding
    assert "<svg" not in copy._repr_html_()
    assert html.escape(finding.message) in copy._repr_html_()


def test_to_html_writes_the_commands_page(tmp_path, command):
    import subprocess

    page = obl.lint(W1).to_html(tmp_path / "report.html")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == page
    out = subprocess.run([command, "--format", "html", str(W1)], capture_output=True).stdout
    # The command names the file by the path it was given; the rest is the same page.
    assert page.replace(str(W1), "PATH") == out.decode().replace(str(W1), "PATH")


def test_finding_provenance_is_the_json_provenance_keyed_by_input():
    report = obl.lint(W1)
    document = json.loads(report.to_json())
    for finding, raw in zip(report.findings, document["files"][0]["diagnostics"]):
        expected = {i["name"]: i["provenance"] for i in raw["inputs"] if i["provenance"]}
        got = finding.provenance
        assert set(got) == set(expected)
        for name, chains in got.items():
            assert [c.axis for c in chains] == [c["axis"] for c in expected[name]]
            assert [c.source.name for c in chains] == [c["source"]["name"] for c in expected[name]]
            assert [[s.name for s in c.steps] for c in chains] == [
                [s["name"] for s in c["steps"]] for c in expected[name]]
    assert any(f.provenance for f in report.findings)
