"""Issue 35, item 5: the Dask recipe (examples/dask_lint.py) on a local cluster of worker
processes (distributed's LocalCluster) gives, over the fixtures, the rows ``lint_many`` gives."""

import importlib.util
import json

import onnx_bcast_lint as obl
from conftest import REPO, models


def _dask_example():
    spec = importlib.util.spec_from_file_location("dask_lint", REPO / "examples" / "dask_lint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_dask_recipe_gives_lint_manys_rows_on_a_local_cluster():
    import distributed  # python/requirements-test.txt: dask[bag] and distributed
    example = _dask_example()
    paths = [str(p) for p in models()]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        rows = example.lint_bag(paths)
    expected = []
    for path, report in zip(paths, obl.lint_many(paths, return_exceptions=True)):
        if isinstance(report, obl.LoadError):
            document = {"files": [{"path": path, "status": "error",
                                   "error": {"code": report.code, "message": str(report)}}]}
        else:
            document = json.loads(report.to_json())
        expected.extend(example.rows_of_document(document))
    assert rows == expected
    assert {r["code"] for r in rows} >= {"E1", "W1", "E4", "load/decode"}
