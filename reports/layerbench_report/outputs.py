"""results.csv and summary.md."""
from __future__ import annotations

import csv
import io

from layerbench_report.markup import P, md_table
from layerbench_report.page import NOTHING_MEASURED
from layerbench_report.sections.best import best_table
from layerbench_report.sections.explained import SHARE_HEADERS, compared_of, share_rows
from layerbench_report.sections.validation import validation_rows

CSV_FIELDS = ["file", "model", "op", "kind", "count", "batch", "precision", "pass", "device",
              "device_name", "status", "reason", "median_ms", "noise", "round_spread",
              "samples", "tflops", "gbps",
              "gflop", "bytes", "intensity", "rel_l2", "tolerance", "validation_passed", "backend",
              "implementation", "shape_text"]


def csv_text(data) -> str:
    out = io.StringIO(newline="")
    w = csv.writer(out)
    w.writerow(CSV_FIELDS)
    for f, d, p in data.file_points:
        t = p.get("timing") if isinstance(p.get("timing"), dict) else {}
        v = p.get("validation") if isinstance(p.get("validation"), dict) else {}
        w.writerow([f.name, p["model"], p["op"], p.get("kind"),
                    p.get("count"), p["batch"], p["precision"], p["pass"], p["device"], d.name,
                    p["status"],
                    p.get("reason", ""), t.get("median_ms"), t.get("noise"),
                    t.get("round_spread"), t.get("samples"), p.get("tflops"), p.get("gbps"),
                    p.get("gflop"), p.get("bytes"),
                    p.get("intensity"), v.get("rel_l2"), v.get("tolerance"), v.get("passed"),
                    p.get("backend"), p.get("implementation"), p.get("shape_text")])
    return out.getvalue()


def summary_markdown(data, heads, not_measured=()) -> str:
    out = ["# layerbench report", "", "Files: " + ", ".join(
        f"`{f.name}` ({f.status})" for f in data.files), ""]
    merged = data.merge_sentences()
    if merged:
        out += [" ".join(merged), ""]
    if not_measured:
        out += ["## Not measured", "", md_table(["target", "job", "reason"], [
            [r["target"], r.get("job_id"), r["reason"]] for r in not_measured]), ""]
    for f in data.files:
        if f.status != "complete":
            out += [f"> **{f.name} is {f.status}**: its results are partial.", ""]
        if not f.points:
            out += [f"> **{f.name}** {NOTHING_MEASURED}.", ""]
    for m in data.models:
        out += [f"## {data.title(m)}", ""]
        out += [f"- {s}" for s in heads[m].sentences] + [""]
        headers, rows = best_table(data, m)
        if rows:
            out += [md_table(headers, rows), ""]
        compared = compared_of(data, m)
        if compared:
            out += ["Explained share: layerbench's estimate over the framework's measured time",
                    "", md_table(SHARE_HEADERS, share_rows(compared)), ""]
    out += ["## Validation (worst relative L2 error per device and precision)", ""]
    out += [md_table(["device", "precision", "points", "worst rel. L2", "tolerance",
                      "above tolerance"],
                     [[d.label, P(prec), n, f"{v['rel_l2']:.2e}", f"{v.get('tolerance', 0):.0e}",
                       failed] for d, prec, v, p, n, failed in validation_rows(data)]), ""]
    out.append("Model figures: " + "; ".join(data.model_sum_labels()) + ".")
    return "\n".join(out) + "\n"
