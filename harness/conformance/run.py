"""Run the conformance harness: truth, engine, ONNX baseline, faults, reports, ratchet.

    python -m conformance.run [--update] [--no-faults] [--only SUBSTR] [--engine PATH]

Exits 1 on a ratchet regression, and on any false alarm (an error-severity finding on a
valid model, see expect.py) whatever expectations.json says, with --no-check too.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from .expect import false_alarms, is_error, valid_reason
from .first_loss import add_family, first_losses, section
from .pool import HERE, run_jobs
from .score import accuracy, add_counts, coverage, empty_counts, pct, run_engine, score

REPO = os.path.dirname(HERE)


def find_engine(explicit=None):
    return explicit or os.environ.get("ONNX_BCAST_LINT") or os.path.join(REPO, "target", "release", "onnx-bcast-lint")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def fmt_row(name, ce, co, te=None, to=None):
    return (f"| {name} | {ce['values']} | {ce['dims']} | {coverage(ce)} | {accuracy(ce)} | {ce['wrong']} | "
            f"{ce['unevaluable']} | {pct(ce['rank_correct'], ce['values'])} | {coverage(co)} | {accuracy(co)} | "
            f"{co['wrong']} | {co['unevaluable']} | {pct(co['rank_correct'], co['values'])} |"
            + (f" {te:.2f} | {to:.2f} |" if te is not None else ""))


HEAD = ("| {k} | values | dims | engine known | engine correct | engine wrong | engine unevaluable | engine ranks | "
        "onnx known | onnx correct | onnx wrong | onnx unevaluable | onnx ranks |{t}\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|{t2}")


def table(key, rows, timed=False, alarms=False):
    t, t2 = (" engine s | onnx s |", "---:|---:|") if timed else ("", "")
    if alarms:
        t, t2 = t + " valid | false alarms |", t2 + "---:|---:|"
    h = HEAD.format(k=key, t=t, t2=t2)
    return "\n".join([h] + rows)


def finding_brief(d):
    node = d.get("node") or {}
    return {"code": d.get("code"), "severity": d.get("severity"), "node": node.get("name"), "index": node.get("index"),
            "graph": node.get("graph"), "op_type": node.get("op_type"), "message": d.get("message")}


def alarm_line(mid, f):
    return (f"{mid}: {f['code']} at node {f['node']!r} (#{f['index']}, {f['op_type']}"
            + (f", graph {f['graph']}" if f.get("graph") not in (None, "", "main") else "") + f"): {f['message']}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", default=HERE)
    ap.add_argument("--engine", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default=None, help="only models whose id contains this")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-faults", action="store_true")
    ap.add_argument("--update", action="store_true", help="ratchet expectations.json forward to this run")
    ap.add_argument("--force-update", action="store_true", help="write expectations even over regressions")
    ap.add_argument("--expectations", default=None)
    ap.add_argument("--no-check", action="store_true", help="do not compare with expectations")
    args = ap.parse_args(argv)
    root = args.root
    out = args.out or os.path.join(root, "out")
    os.makedirs(out, exist_ok=True)
    exp_path = args.expectations or os.path.join(root, "expectations.json")
    engine = find_engine(args.engine)
    t_start = time.time()

    manifest = json.load(open(os.path.join(root, "models", "manifest.json")))
    entries = [e for e in manifest["models"] if not args.only or args.only in e["id"]]
    by_id = {e["id"]: e for e in entries}
    log(f"run: {len(entries)} models, engine {engine} ({'present' if os.path.exists(engine) else 'MISSING'})")

    # 1. truth + onnx inference, in crash-proof workers
    t = time.time()
    done = [0]

    def tick(_):
        done[0] += 1
        if done[0] % 250 == 0:
            log(f"run: truth {done[0]}/{len(entries)} ({time.time() - t:.0f}s)")

    res = run_jobs("truth_and_onnx", [{"id": e["id"], "entry": e, "root": root} for e in entries],
                   workers=args.workers, on_result=tick)
    t_truth = time.time() - t
    log(f"run: truth + onnx inference {t_truth:.1f}s")

    # 2. engine, one process per model
    t = time.time()
    with ThreadPoolExecutor(max(1, args.workers)) as ex:
        eng = dict(zip(by_id, ex.map(lambda e: run_engine(engine, os.path.join(root, e["path"])), entries)))
    t_engine = time.time() - t
    log(f"run: engine {t_engine:.1f}s")

    # 3. scoring
    results, fam_e, fam_o, op_e, op_o, wrong_rows, not_run = {}, {}, {}, {}, {}, [], []
    fam_time = {}
    fam_loss, loss_rows = {}, []
    loader_rows = []
    for e in entries:
        mid, fam = e["id"], e["family"]
        r = res.get(mid) or {"crashed": "no result"}
        if "crashed" in r:
            truth = {"id": mid, "status": "failed", "reason": "harness worker: " + r["crashed"], "bindings": [], "notes": []}
            producers, onnx_res = {}, {"status": "failed", "shapes": {}, "mode": None, "error": r["crashed"], "time": None}
            node_inputs = {}
        else:
            truth, producers, onnx_res = r["truth"], {k: tuple(v) for k, v in r["producers"].items()}, r["onnx"]
            node_inputs = dict(enumerate(r.get("node_inputs") or []))
        er = eng[mid]
        losses = first_losses(truth, producers, node_inputs, er["shapes"])
        add_family(fam_loss.setdefault(fam, {}), losses)
        loss_rows += [(mid, idx, opk, n) for idx, opk, n in losses]
        ce, pe, we = score(truth, producers, er["shapes"])
        co, po, wo = score(truth, producers, onnx_res["shapes"])
        for w in we:
            wrong_rows.append(dict(w, model=mid, who="engine"))
        for w in wo:
            wrong_rows.append(dict(w, model=mid, who="onnx"))
        add_counts(fam_e.setdefault(fam, empty_counts()), ce)
        add_counts(fam_o.setdefault(fam, empty_counts()), co)
        ft = fam_time.setdefault(fam, [0.0, 0.0])
        ft[0] += er["time"] or 0.0
        ft[1] += onnx_res.get("time") or 0.0
        for k, v in pe.items():
            add_counts(op_e.setdefault(k, empty_counts()), v)
        for k, v in po.items():
            add_counts(op_o.setdefault(k, empty_counts()), v)
        if truth["status"] != "ok":
            not_run.append((mid, truth["status"], truth.get("reason")))
        errors = [d for d in er["diagnostics"] if is_error(d)]
        results[mid] = {
            "family": fam, "source": e["source"], "loader": e["loader"], "opset": e.get("opset"),
            "valid": valid_reason(fam, truth["status"]),
            "truth": {k: truth.get(k) for k in ("status", "reason", "via", "notes")},
            "bindings": [b["env"] for b in truth.get("bindings", [])],
            "engine": {"status": er["status"], "error": er["error"], "exit": er["exit"], "time": er["time"],
                       "counts": ce, "errors_reported": [(d.get("code"), (d.get("node") or {}).get("name")) for d in errors],
                       "errors": [finding_brief(d) for d in errors],
                       "findings": sorted({(str(d.get("code")), str((d.get("node") or {}).get("name")))
                                           for d in er["diagnostics"] if d.get("severity") in ("error", "warning")})},
            "onnx": {"status": onnx_res["status"], "mode": onnx_res.get("mode"), "error": onnx_res.get("error"),
                     "time": onnx_res.get("time"), "counts": co},
        }
        results[mid]["truth_detail"] = truth
        results[mid]["first_losses"] = [{"node": idx, "op": opk, "unknown_dims": n} for idx, opk, n in losses]
        # The loader must see what onnx.load sees (issue 2): nodes, initializers, value_info.
        stats = er.get("stats") or {}
        if er["status"] == "ok":
            got = {k: stats.get(k) for k in ("nodes", "initializers", "value_info")}
            loader_rows.append((mid, fam, e["loader"], got, got == e["loader"]))

    # 4. faults
    fault_summary = None
    if not args.no_faults:
        from . import faults

        t = time.time()
        fault_summary = faults.run_all(root, out, entries, results, engine, workers=args.workers)
        log(f"run: faults {time.time() - t:.1f}s")

    # 5. reports
    fam_rows = []
    tot_e, tot_o = empty_counts(), empty_counts()
    fams = sorted(fam_e)
    alarms = false_alarms(results)
    alarm_models = {mid for mid, _ in alarms}

    def valid_cols(pred):
        valid = [mid for mid, r in results.items() if pred(r) and r["valid"]]
        return f" {len(valid)} | {sum(1 for mid, _ in alarms if pred(results[mid]))} |"

    for f in fams:
        fam_rows.append(fmt_row(f"{f} ({sum(1 for e in entries if e['family'] == f)})", fam_e[f], fam_o[f],
                                fam_time[f][0], fam_time[f][1]) + valid_cols(lambda r, f=f: r["family"] == f))
        add_counts(tot_e, fam_e[f])
        add_counts(tot_o, fam_o[f])
    fam_rows.append(fmt_row(f"**all** ({len(entries)})", tot_e, tot_o, sum(v[0] for v in fam_time.values()),
                            sum(v[1] for v in fam_time.values())) + valid_cols(lambda r: True))
    eng_status = {}
    for r in results.values():
        key = "ok" if r["engine"]["status"] == "ok" else (r["engine"]["error"] or "failed").split(":")[0]
        eng_status[key] = eng_status.get(key, 0) + 1
    truth_status = {}
    for r in results.values():
        truth_status[r["truth"]["status"]] = truth_status.get(r["truth"]["status"], 0) + 1
    strict_fallback = sum(1 for r in results.values() if r["onnx"]["mode"] == "non-strict")
    first_err = next((r["engine"]["error"] for r in results.values() if r["engine"]["error"]), None)
    summary_lines = [
        "# onnx-bcast-lint conformance: per family",
        "",
        f"engine: `{engine}`; onnx infer_shapes(strict_mode=True, data_prop=True), non-strict fallback on {strict_fallback} models.",
        f"Scored: every node output of the main graph whose real shape onnxruntime (or a node test's expected output) gave; "
        f"'known' = not null, 'correct' = equal to the real dim under every binding (of known, evaluable dims); "
        f"'unevaluable' = known but naming symbols the binding cannot give.",
        f"truth: {json.dumps(truth_status)}; engine files: {json.dumps(eng_status)}"
        + (f"; first engine error: {first_err}" if first_err else ""),
        "",
        table("family (models)", fam_rows, timed=True, alarms=True),
        "",
        f"Valid models (ONNX ships expected outputs, or onnxruntime runs them): "
        f"{sum(1 for r in results.values() if r['valid'])}. False alarms (error-severity findings on valid models; "
        f"the target is 0 and any fails the run): {len(alarms)} on {len(alarm_models)} models"
        + (":" if alarms else "."),
    ]
    summary_lines += [f"- {alarm_line(mid, f)}" for mid, f in alarms[:40]]
    if len(alarms) > 40:
        summary_lines.append(f"- ... {len(alarms) - 40} more in out/false_alarms.md")
    summary_lines += ["", section(fam_e, fam_loss, coverage), "", "Every first-loss node: out/first_loss.md."]
    with open(os.path.join(out, "first_loss.md"), "w") as f:
        f.write("# first losses: nodes with an unknown output dim whose inputs' dims are all known\n\n"
                "| model | node | op | unknown dims at its outputs |\n|---|---:|---|---:|\n"
                + "".join(f"| {mid} | {idx} | {opk} | {n} |\n" for mid, idx, opk, n in loss_rows))
    with open(os.path.join(out, "false_alarms.md"), "w") as f:
        f.write("# false alarms: error-severity findings on valid models\n\n"
                + "".join(f"- {alarm_line(mid, fa)} [{results[mid]['valid']}; truth {results[mid]['truth']['status']}]\n"
                          for mid, fa in alarms))
    loader_bad = [r for r in loader_rows if not r[4]]
    summary_lines += [
        "",
        f"Loader: node, initializer and value_info counts equal to onnx.load on "
        f"{len(loader_rows) - len(loader_bad)} of {len(loader_rows)} models read"
        + ("" if not loader_bad else "; different: " + ", ".join(r[0] for r in loader_bad[:10])),
    ]
    with open(os.path.join(out, "loader_check.md"), "w") as f:
        f.write("# loader counts vs onnx.load (main graph)\n\n| model | family | onnx.load | onnx-bcast-lint | equal |\n|---|---|---|---|---|\n")
        for mid, fam, want, got, ok in loader_rows:
            f.write(f"| {mid} | {fam} | {want} | {got} | {ok} |\n")
    if fault_summary:
        summary_lines += ["", fault_summary["table"]]
    summary = "\n".join(summary_lines) + "\n"
    with open(os.path.join(out, "family_table.md"), "w") as f:
        f.write(summary)
    op_rows = [fmt_row(k, op_e[k], op_o.get(k, empty_counts())) for k in sorted(op_e, key=lambda k: -op_e[k]["dims"])]
    with open(os.path.join(out, "op_table.md"), "w") as f:
        f.write("# per op type (op of the producing node)\n\n" + table("op", op_rows) + "\n")
    with open(os.path.join(out, "models.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "family", "truth", "bindings", "nodes", "initializers", "value_info", "values", "dims",
                    "engine_status", "engine_known", "engine_correct", "engine_wrong", "engine_unevaluable",
                    "engine_rank_correct", "engine_s", "onnx_mode", "onnx_known", "onnx_correct", "onnx_wrong",
                    "onnx_unevaluable", "onnx_rank_correct", "onnx_s"])
        for mid, r in results.items():
            ce, co = r["engine"]["counts"], r["onnx"]["counts"]
            w.writerow([mid, r["family"], r["truth"]["status"], len(r["bindings"]), r["loader"]["nodes"],
                        r["loader"]["initializers"], r["loader"]["value_info"], ce["values"], ce["dims"],
                        r["engine"]["status"], ce["known"], ce["correct"], ce["wrong"], ce["unevaluable"],
                        ce["rank_correct"], r["engine"]["time"], r["onnx"]["mode"], co["known"], co["correct"],
                        co["wrong"], co["unevaluable"], co["rank_correct"], r["onnx"]["time"]])
    with open(os.path.join(out, "wrong_dims.jsonl"), "w") as f:
        for row in wrong_rows:
            f.write(json.dumps(row) + "\n")
    with open(os.path.join(out, "not_run.md"), "w") as f:
        f.write("# models onnxruntime could not run (scored on expected outputs only, or not at all)\n\n")
        for s in manifest.get("skipped", []):
            f.write(f"- {s['id']}: not collected: {s['reason']}\n")
        for mid, st, why in not_run:
            f.write(f"- {mid}: {st}: {why}\n")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"engine": engine, "manifest_torch": manifest.get("torch"), "models": results,
                   "faults": fault_summary and fault_summary["rows"]}, f)
    log(f"run: reports in {out} ({time.time() - t_start:.1f}s total)")

    # 6. expectations ratchet
    from .expect import check_and_update

    rc = 0
    if not args.no_check or args.update:
        rc = check_and_update(exp_path, results, fault_summary, manifest, update=args.update or args.force_update,
                              force=args.force_update, partial=bool(args.only), out=out)
    print(summary)
    if loader_bad:
        print(f"run: {len(loader_bad)} models load with counts different from onnx.load", file=sys.stderr)
        rc = rc or 1
    if alarms:  # not a ratchet: whatever expectations.json records, and with --no-check too
        print(f"run: FAILED: {len(alarms)} false alarms on {len(alarm_models)} valid models "
              f"(out/false_alarms.md)", file=sys.stderr)
        rc = rc or 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
