"""The expectations ratchet (harness/expectations.json), and the valid models.

A model is *valid* when ONNX ships expected outputs for it (the node tests and the
onnx data tests: `EXPECTED_OUTPUT_FAMILIES`), runnable in onnxruntime or not, or when
onnxruntime runs it. Any error-severity finding on a valid model is a *false alarm*;
the target is none, so a false alarm fails the run whatever expectations.json says
(it is not a ratchet). Valid models are recorded `clean`.

Per model: the engine's known dims and whether all of them were correct (only
meaningful once it knows any). A run fails when
  * the engine reports an error on any valid model (a false alarm),
  * a model recorded all-correct now has a wrong dim,
  * a model knows fewer dims than recorded,
  * a recorded model is missing (except optional families when torch is off),
  * a fault recorded as detected is no longer detected at the right node,
  * a model recorded clean is no longer valid (onnxruntime stopped running it).
Faults the engine has never detected are reported, not failed on.
`--update` writes the current run (refused over regressions unless forced; false alarms do not
hold it back, they fail the run either way, and valid models are always written `clean`).
"""
from __future__ import annotations

import json
import os
import sys

OPTIONAL_FAMILIES = {"torch", "transformers", "ort-optimized-torch"}
# ONNX ships expected outputs for every model of these families: they are valid models.
EXPECTED_OUTPUT_FAMILIES = {"onnx-node", "onnx-node-expanded", "onnx-light", "onnx-simple",
                            "onnx-pytorch-converted", "onnx-pytorch-operator"}


def valid_reason(family, truth_status):
    """Why a model is valid (a finding of error severity on it is a false alarm), or None."""
    if family in EXPECTED_OUTPUT_FAMILIES:
        return "ONNX ships expected outputs"
    if truth_status == "ok":
        return "onnxruntime runs it"
    return None


def is_error(d):
    """An error-severity finding (E1, E2, E3, E4, or any code the engine gives severity error)."""
    sev = d.get("severity")
    return sev == "error" or (sev is None and str(d.get("code", "")).startswith("E"))


def false_alarms(results):
    """[(model, finding)] for every error-severity finding on a valid model."""
    out = []
    for mid, r in sorted(results.items()):
        if r.get("valid"):
            out += [(mid, f) for f in r["engine"].get("errors", [])]
    return out


def current(results, fault_summary):
    models = {}
    for mid, r in sorted(results.items()):
        c = r["engine"]["counts"]
        models[mid] = {"known": c["known"], "all_correct": bool(c["known"] > 0 and c["wrong"] == 0)}
        if r.get("valid"):
            models[mid]["clean"] = not r["engine"]["errors_reported"]
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


FALSE_ALARM = "false alarm: the engine reports an error on a valid model"


# Families a collection step of its own produces: a manifest written before the step existed
# (models collected by an older setup.sh) does not have them, which is not a regression.
STEP_OF_FAMILY = {"ort-optimized": "ort-optimized", "ort-optimized-torch": "ort-optimized",
                  "ort-offline": "ort-offline", "patterns": "committed", "torch-cnn": "committed",
                  "genai-builder": "committed", "tf2onnx": "committed", "keras3": "committed"}


def collected(family, manifest):
    """Whether the collection behind `manifest` ran the step that produces `family`."""
    step = STEP_OF_FAMILY.get(family)
    return step is None or step in manifest.get("steps", ())


def check(old, new, manifest, partial):
    problems = []
    torch_on = manifest.get("torch", False)
    for mid, n in sorted(new["models"].items()):  # whatever was recorded: the target is no false alarm
        if n.get("clean") is False:
            problems.append(f"{mid}: {FALSE_ALARM}")
    for mid, o in old.get("models", {}).items():
        n = new["models"].get(mid)
        if n is None:
            fam = mid.split("/")[0]
            if partial or (fam in OPTIONAL_FAMILIES and not torch_on) or not collected(fam, manifest):
                continue
            problems.append(f"{mid}: recorded model missing from this run")
            continue
        if o.get("all_correct") and n["known"] > 0 and not n["all_correct"]:
            problems.append(f"{mid}: was fully correct ({o['known']} dims), now has wrong dims")
        if n["known"] < o.get("known", 0):
            problems.append(f"{mid}: knows {n['known']} dims, {o['known']} recorded")
        if o.get("clean") and "clean" not in n:
            problems.append(f"{mid}: recorded clean (a valid model) but no longer valid: onnxruntime stopped running it")
    for fid, o in old.get("faults", {}).items():
        n = new["faults"].get(fid)
        if n is None:
            fam = fid.split("/")[0]
            absent = (fam in OPTIONAL_FAMILIES and not torch_on) or not collected(fam, manifest)
            if o.get("detected") and not partial and not absent:
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
    alarms = [p for p in problems if p.endswith(FALSE_ALARM)]
    regressions = [p for p in problems if p not in alarms]
    gained = sum(1 for mid, n in new["models"].items()
                 if n["known"] > old.get("models", {}).get(mid, {}).get("known", 0))
    msg = [f"expectations: {len(regressions)} regressions, {len(alarms)} false alarms, "
           f"{gained} models with new coverage"]
    msg += [f"  {'FALSE ALARM' if p in alarms else 'REGRESSION'} {p}" for p in problems[:200]]
    if len(problems) > 200:
        msg.append(f"  ... {len(problems) - 200} more (see out/regressions.txt)")
    if out:
        with open(os.path.join(out, "regressions.txt"), "w") as f:
            f.write("\n".join(problems) + "\n")
    if update:
        # False alarms do not hold the ratchet back (they fail the run anyway, and are no ratchet):
        # every valid model is written `clean`, the target.
        if regressions and not force:
            msg.append("expectations: NOT updated (regressions; use --force-update to accept them)")
        else:
            for n in new["models"].values():
                if "clean" in n:
                    n["clean"] = True
            if partial:  # keep what this run did not cover
                merged = {"models": dict(old.get("models", {})), "faults": dict(old.get("faults", {}))}
                merged["models"].update(new["models"])
                merged["faults"].update(new["faults"])
                new = merged
            elif not manifest.get("torch", False):  # keep the optional families a run without torch skips
                for sect in ("models", "faults"):
                    for k, v in old.get(sect, {}).items():
                        if k.split("/")[0] in OPTIONAL_FAMILIES and k not in new[sect]:
                            new[sect][k] = v
            doc = {"about": "ratchet for harness/ci.sh; update with harness/run.sh --update", **new}
            with open(path, "w") as f:
                f.write(dump(doc))
            msg.append(f"expectations: written to {path}"
                       + (f"; the run still fails on {len(alarms)} false alarms" if alarms else ""))
            print("\n".join(msg), file=sys.stderr)
            return 1 if alarms else 0
    print("\n".join(msg), file=sys.stderr)
    return 1 if problems else 0
