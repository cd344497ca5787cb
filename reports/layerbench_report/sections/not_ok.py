"""Section: points not measured ok."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.markup import P, note, status_pill, table


def render(data, model, charts) -> str:
    groups = {}
    for d, p in data.points:
        if p["model"] == model and p["status"] != "ok":
            key = (d.label, p["precision"], p["pass"], p["status"], p.get("reason", ""))
            g = groups.setdefault(key, (set(), set()))
            g[0].add(p["op"])
            g[1].add(p["batch"])
    if not groups:
        return note("Every point of this model was measured and validated ok.")
    n_ops = len(data.ops(model))
    rows = []
    for (label, prec, pass_, status, reason), (ops, batches) in sorted(
            groups.items(),
            key=lambda kv: (kv[0][0], results_file.precision_order(kv[0][1]), kv[0][2])):
        layers = f"all {n_ops}" if len(ops) == n_ops else ", ".join(sorted(ops))
        rows.append([label, P(prec), results_file.pass_name(pass_), status_pill(status),
                     reason or None,
                     layers, ", ".join(map(str, sorted(batches)))])
    return table(["device", "precision", "pass", "status", "reason", "layers", "batches"], rows)
