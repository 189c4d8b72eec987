"""Lint a large set of ONNX models with Dask: a model zoo, a hub's scanner, a converter's
regression suite over thousands of exports (issue 35, item 5).

A ``dask.bag`` over the model paths, ``onnx_bcast_lint.lint`` in each task, and the results
gathered as plain rows (one per finding, one for a clean or unreadable file) into a table. The
rows are JSON-ready dicts, so they travel between processes and machines unchanged: the same
script runs on a laptop's ``LocalCluster`` and, with ``--scheduler tcp://host:8786``, on a
distributed cluster whose workers have ``onnx-bcast-lint`` installed and see the same paths.

    python examples/dask_lint.py models/ --workers 4 --csv findings.csv
    python examples/dask_lint.py /mnt/zoo --scheduler tcp://scheduler:8786

Rows rather than reports go back to the client: a report holds the engine's whole model, and
only JSON-ready data crosses a process boundary unchanged.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

COLUMNS = ["path", "status", "code", "severity", "graph", "node", "op_type", "message", "fingerprint"]


def rows_of_document(document: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The rows of a ``--format json`` document: one per finding, one (``code`` None) for a
    clean file, one (``status`` "error", ``code`` the ``load/...`` code) for an unreadable one."""
    rows = []
    for file in document["files"]:
        if file["status"] == "error":
            rows.append(dict.fromkeys(COLUMNS) | {
                "path": file["path"], "status": "error", "code": file["error"]["code"],
                "severity": "error", "message": file["error"]["message"]})
            continue
        if not file["diagnostics"]:
            rows.append(dict.fromkeys(COLUMNS) | {"path": file["path"], "status": "ok"})
        for d in file["diagnostics"]:
            node = d["node"] or {}
            rows.append({
                "path": file["path"], "status": "ok", "code": d["code"],
                "severity": d["severity"], "graph": node.get("graph"), "node": node.get("name"),
                "op_type": node.get("op_type"), "message": d["message"],
                "fingerprint": d["fingerprint"],
            })
    return rows


def lint_rows(path: str) -> List[Dict[str, Any]]:
    """One task: lint the model at ``path`` and return its rows (a load error is a row)."""
    import onnx_bcast_lint as obl

    try:
        report = obl.lint(path)
    except obl.LoadError as error:
        document = {"files": [{"path": path, "status": "error",
                               "error": {"code": error.code, "message": str(error)}}]}
        return rows_of_document(document)
    return rows_of_document(json.loads(report.to_json()))


def model_paths(inputs: Iterable[str]) -> List[str]:
    """The ``.onnx`` files under each input (a file as given), sorted within a directory."""
    paths: List[str] = []
    for given in inputs:
        p = Path(given)
        if p.is_dir():
            paths.extend(str(f) for f in sorted(p.rglob("*.onnx")))
        else:
            paths.append(given)
    return paths


def lint_bag(paths: List[str], partitions: Optional[int] = None) -> List[Dict[str, Any]]:
    """Every row of every model, in the order of ``paths``, computed on the current Dask
    scheduler (a ``distributed.Client`` once one is made, else Dask's default)."""
    import dask.bag as db

    if not paths:
        return []
    bag = db.from_sequence(paths, npartitions=partitions or min(len(paths), 256))
    return bag.map(lint_rows).flatten().compute()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="model files or directories")
    parser.add_argument("--scheduler", help="a running scheduler's address (default: a LocalCluster)")
    parser.add_argument("--workers", type=int, default=None, help="LocalCluster worker processes")
    parser.add_argument("--csv", help="write the table here")
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    paths = model_paths(args.models)
    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True)
        client = Client(cluster)
    try:
        rows = lint_bag(paths)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    counts = Counter(row["code"] for row in rows if row["code"])
    print(f"{len(paths)} models, {len(rows)} rows")
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{code:>14} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
