"""Where the engine first loses runtime dims: per family, the ops whose node has an output dim
the engine leaves unknown while it knows every dim of every input of that node.

Everything downstream of such a node usually goes dark with it, so these nodes (not the
unknown dims below them) are what a rule or a value-propagation gap costs. Only node outputs
that are scored (a runtime shape exists) count; a node input the engine gives no shape for,
or a shape with an unknown dim, is not known, so the node is not a first loss.
"""
from __future__ import annotations


def _all_known(dims):
    return isinstance(dims, list) and all(d is not None for d in dims)


def first_losses(truth, producers, node_inputs, shapes):
    """[(node index, op key, unknown dims at its outputs)] for one model.

    `producers`: value -> (node index, op_type, domain) of the main graph; `node_inputs`: node
    index -> its input names; `shapes`: the engine's value -> dims (None = unknown)."""
    binds = truth.get("bindings") or []
    if not binds:
        return []
    lost = {}
    for name, (idx, op, dom) in producers.items():
        real = next((b["shapes"][name] for b in binds if name in b["shapes"]), None)
        if real is None:
            continue
        inferred = shapes.get(name)
        if isinstance(inferred, list) and len(inferred) == len(real):
            unknown = sum(1 for d in inferred if d is None)
        elif isinstance(inferred, list):
            unknown = 0  # a wrong rank is wrong, not unknown (score.py counts it)
        else:
            unknown = len(real)
        if unknown == 0:
            continue
        ins = [i for i in node_inputs.get(idx, []) if i]
        if not all(_all_known(shapes.get(i)) for i in ins):
            continue
        opk = op if dom in ("", "ai.onnx") else f"{dom}:{op}"
        key = (idx, opk)
        lost[key] = lost.get(key, 0) + unknown
    return [(idx, opk, n) for (idx, opk), n in sorted(lost.items())]


def add_family(acc, losses):
    """Accumulate one model's first losses into `acc` (op key -> [nodes, unknown dims])."""
    for _, opk, n in losses:
        row = acc.setdefault(opk, [0, 0])
        row[0] += 1
        row[1] += n
    return acc


def brief(acc, limit=8):
    """`Op ×nodes (dims)` by dims lost, most first; `-` when nothing is first lost."""
    items = sorted(acc.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    parts = [f"{op} ×{n} ({d})" for op, (n, d) in items[:limit]]
    if len(items) > limit:
        parts.append(f"+{len(items) - limit} ops")
    return ", ".join(parts) or "-"


def section(fam_counts, fam_acc, coverage):
    """The report's markdown: per family, % of runtime dims known and the first-loss ops."""
    lines = ["## Where runtime dims are first lost (per family)", "",
             "A first loss is a node with an output dim the engine leaves unknown while it knows every dim "
             "of the node's inputs; each op is listed as `op ×nodes (unknown dims at those nodes)`.", "",
             "| family | dims | engine known | unknown | first-loss nodes | first-loss ops |",
             "|---|---:|---:|---:|---:|---|"]
    for fam in sorted(fam_counts):
        c = fam_counts[fam]
        acc = fam_acc.get(fam, {})
        lines.append(f"| {fam} | {c['dims']} | {coverage(c)} | {c['dims'] - c['known']} | "
                     f"{sum(n for n, _ in acc.values())} | {brief(acc)} |")
    return "\n".join(lines)
