"""Writing committed models: harness/committed/<family>/<name>.onnx, listed in committed/index.json.

Each generator owns its families: it replaces their entries in index.json and leaves the others.
collect.py adds every listed model to the harness with its source and hints.
"""
from __future__ import annotations

import json
import os

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMITTED = os.path.join(HARNESS, "committed")
INDEX = os.path.join(COMMITTED, "index.json")


class Writer:
    """Collects one generator's models and rewrites its families in index.json."""

    def __init__(self, families):
        self.families = set(families)
        self.entries = []
        self.skipped = []

    def add(self, family, name, model, source, hints=None):
        import onnx

        assert family in self.families, family
        rel = f"{family}/{name}.onnx"
        path = os.path.join(COMMITTED, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        onnx.save(model, path)
        self.entries.append({"family": family, "name": name, "path": rel, "source": source, "hints": hints or {}})

    def skip(self, family, name, reason):
        self.skipped.append({"family": family, "name": name, "reason": reason})
        print(f"generate: skipped {family}/{name}: {reason}")

    def save(self):
        doc = {"models": [], "skipped": []}
        if os.path.exists(INDEX):
            with open(INDEX) as f:
                doc = json.load(f)
        for key in ("models", "skipped"):
            doc[key] = [e for e in doc.get(key, []) if e["family"] not in self.families]
        doc["models"] += self.entries
        doc["skipped"] += self.skipped
        for key in ("models", "skipped"):
            doc[key].sort(key=lambda e: (e["family"], e["name"]))
        os.makedirs(COMMITTED, exist_ok=True)
        with open(INDEX, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        for fam in sorted(self.families):
            n = sum(1 for e in self.entries if e["family"] == fam)
            print(f"generate: {fam}: {n} models")
