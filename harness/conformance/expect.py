"""The expectations ratchet (harness/expectations.json).

Per model: the engine's known dims and whether all of them were correct (only
meaningful once it knows any). A run fails when
  * a model recorded all-correct now has a wrong dim,
  * a model knows fewer dims than recorded,
  * a recorded model is missing (except optional families when torch is off),
  * a fault recorded as detected is no longer detected at the right node,
  * the engine reports an error on a model recorded clean (onnxruntime runs it).
`--update` writes the current run (refused over regressions unless forced).
"""
from __future__ import annotations

import json
import os
import sys

OPTIONAL_FAMILIES = {"torch", "transformers"}


def current(results, fault_summary):
    models = {}
    for mid, r in sorted(results.items()):
        c = r["engine"]["counts"]
        models[mid] = {
            "known": c["known"],
            "all_correct": bool(c["known"] > 0 and c["wrong"] == 0),
            "clean": r["truth"]["status"] == "ok" and not r["engine"]["errors_reported"],
        }
    faults = {}
    for row in (fault_summary or {}).get("rows", []):
        faults[row["id"]] = {"detected": bool(row["detected"])}
    return {"models": models, "faults": faults}


def dump(doc):
    """One entry per line: small, stable diffs when the ratchet moves."""
    parts = ["{", f'"about": {json.dumps(doc["about"])},']
    for sect in ("models", "faults"):
        items = sorted(doc.get(sect, {}).items())
        parts.append(f'"{sect}": {{')
        parts += [f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" + ("," if i < len(items) - 1 else "")
                  for i, (k, v) in enumerate(items)]
        parts.append("}," if sect == "models" else "}")
    parts.append("}")
    return "\n".join(parts) + "\n"


def check(old, new, manifest, partial):
    problems = []
    torch_on = manifest.get("torch", False)
    for mid, o in old.get("models", {}).items():
        n = new["models"].get(mid)
        if n is None:
            fam = mid.split("/")[0]
            if partial or (fam in OPTIONAL_FAMILIES and not torch_on):
                continue
            problems.append(f"{mid}: recorded model missing from this run")
            continue
        if o.get("all_correct") and n["known"] > 0 and not n["all_correct"]:
            problems.append(f"{mid}: was fully correct ({o['known']} dims), now has wrong dims")
        if n["known"] < o.get("known", 0):
            problems.append(f"{mid}: knows {n['known']} dims, {o['known']} recorded")
        if o.get("clean") and not n["clean"]:
            problems.append(f"{mid}: engine now reports an error on a model onnxruntime runs (or truth failed)")
    for fid, o in old.get("faults", {}).items():
        n = new["faults"].get(fid)
        if n is None:
            if o.get("detected") and not partial and not (fid.split("/")[0] in OPTIONAL_FAMILIES and not torch_on):
                problems.append(f"fault {fid}: missing from this run")
            continue
        if o.get("detected") and not n["detected"]:
            problems.append(f"fault {fid}: no longer reported at the right node")
    return problems


def check_and_update(path, results, fault_summary, manifest, update=False, force=False, partial=False, out=None):
    new = current(results, fault_summary)
    old = {"models": {}, "faults": {}}
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
    problems = check(old, new, manifest, partial)
    gained = sum(1 for mid, n in new["models"].items()
                 if n["known"] > old.get("models", {}).get(mid, {}).get("known", 0))
    msg = [f"expectations: {len(problems)} regressions, {gained} models with new coverage"]
    msg += [f"  REGRESSION {p}" for p in problems[:200]]
    if len(problems) > 200:
        msg.append(f"  ... {len(problems) - 200} more (see out/regressions.txt)")
    if out:
        with open(os.path.join(out, "regressions.txt"), "w") as f:
            f.write("\n".join(problems) + "\n")
    if update:
        if problems and not force:
            msg.append("expectations: NOT updated (regressions; use --force-update to accept them)")
        else:
            if partial:  # keep what this run did not cover
                merged = {"models": dict(old.get("models", {})), "faults": dict(old.get("faults", {}))}
                merged["models"].update(new["models"])
                merged["faults"].update(new["faults"])
                new = merged
            doc = {"about": "ratchet for harness/ci.sh; update with harness/run.sh --update", **new}
            with open(path, "w") as f:
                f.write(dump(doc))
            msg.append(f"expectations: written to {path}")
            print("\n".join(msg), file=sys.stderr)
            return 0
    print("\n".join(msg), file=sys.stderr)
    return 1 if problems else 0
