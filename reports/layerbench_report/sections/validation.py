"""Validation against the double-precision reference (environment section and summary)."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.markup import P, note, status_pill, table


def validation_rows(data):
    """Per device and precision: the worst relative L2 error against its tolerance."""
    groups = {}
    for d, p in data.points:
        v = p.get("validation")
        if isinstance(v, dict) and v.get("rel_l2") is not None:
            groups.setdefault((d, p["precision"]), []).append((v, p))
    rows = []
    for (d, prec), items in sorted(groups.items(), key=lambda kv: (
            data.devices.index(kv[0][0]), results_file.precision_order(kv[0][1]))):
        v, p = max(items, key=lambda vp: vp[0]["rel_l2"] / (vp[0].get("tolerance") or 1))
        failed = sum(1 for vv, _ in items if not vv.get("passed"))
        rows.append((d, prec, v, p, len(items), failed))
    return rows


def section_validation(data) -> str:
    rows = []
    for d, prec, v, p, n, failed in validation_rows(data):
        verdict = status_pill("ok") if failed == 0 else status_pill("failed")
        rows.append([d.label, P(prec), n, f"{v['rel_l2']:.2e}", f"{v.get('tolerance', 0):.0e}",
                     f"{p['model']} / {p['op']} / batch {p['batch']} / "
                     f"{results_file.pass_name(p['pass'])}",
                     f"{failed} of {n}" if failed else "none", verdict])
    if not rows:
        return note("No validated points in these files.")
    return table(["device", "precision", "points validated", "worst rel. L2 error", "tolerance",
                  "worst point", "above tolerance", "verdict"], rows)
