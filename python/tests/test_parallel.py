"""lint_many keeps order; several Python threads may lint at once; a panic is an exception."""

import threading

import pytest

import onnx_bcast_lint as obl
from onnx_bcast_lint import _native
from conftest import MODELS, models

LINTABLE = [p for p in models() if not p.name.startswith("load_")]


def summary(report):
    return (report.path, [(f.code, f.message) for f in report.findings])


@pytest.mark.parametrize("jobs", [None, 1, 2, 8])
def test_lint_many_keeps_order(jobs):
    batch = LINTABLE * 3
    expected = [summary(obl.lint(p)) for p in batch]
    assert [summary(r) for r in obl.lint_many(batch, jobs=jobs)] == expected


def test_lint_many_mixed_forms_and_options():
    e1 = MODELS / "e1_static_mismatch.onnx"
    w1 = MODELS / "w1_symbolic.onnx"
    reports = obl.lint_many([e1, w1.read_bytes(), str(e1)], dims={"seq": 5}, allow=["I1"])
    assert [r.path for r in reports] == [str(e1), "<bytes>", str(e1)]
    assert [[f.code for f in r.findings] for r in reports] == [["E1"], ["E1"], ["E1"]]
    assert obl.lint_many(iter([])) == []
    assert len(obl.lint_many(p for p in [e1, w1])) == 2


def test_lint_many_load_errors():
    batch = [MODELS / "e1_static_mismatch.onnx", MODELS / "load_truncated.onnx",
             MODELS / "load_empty.onnx"]
    with pytest.raises(obl.LoadError) as info:
        obl.lint_many(batch)
    assert info.value.path == str(batch[1])
    reports = obl.lint_many(batch, return_exceptions=True)
    assert isinstance(reports[0], obl.Report)
    assert [r.code for r in reports[1:]] == ["load/decode", "load/empty"]


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_lint_many_bad_jobs(jobs):
    with pytest.raises(ValueError):
        obl.lint_many([MODELS / "e1_static_mismatch.onnx"], jobs=jobs)


def test_threads_lint_concurrently():
    expected = {p: summary(obl.lint(p)) for p in LINTABLE}
    failures = []

    def work(offset):
        try:
            for i in range(len(LINTABLE) * 2):
                path = LINTABLE[(i + offset) % len(LINTABLE)]
                report = obl.lint(path.read_bytes() if i % 2 else path)
                got = summary(report)
                if got[1] != expected[path][1]:
                    failures.append((path, got))
                report.shapes, report.to_json(), str(report)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_gil_is_released_while_linting():
    # Another Python thread makes progress while lint_many runs in Rust.
    batch = LINTABLE * 20
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        before = len(ticks)
        obl.lint_many(batch, jobs=1)
        during = len(ticks) - before
    finally:
        stop.set()
        t.join()
    assert during > 0


def test_engine_panic_becomes_an_exception():
    with pytest.raises(RuntimeError, match="internal error.*boom"):
        _native._panic_for_tests("boom")
    # the interpreter and the engine go on
    assert obl.lint(MODELS / "e1_static_mismatch.onnx").errors
