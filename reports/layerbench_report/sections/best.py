"""Section: best throughput per device and precision."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.headline import availability, best, unstable_sum
from layerbench_report.markup import P, fmt_rate, note, table


def best_table(data, model):
    """Rows of device x pass, a column per precision: the best images/s and its batch, marked
    "contended" when summed over contended points (contended_points, absent in older files) and
    "unstable" when the sum is (unstable_sum), then the sum's uncertainty where the file has it."""
    rows = []
    for d in data.devices_for(model):
        for pass_ in data.record_passes(model):
            if not data.records_of(model, d, pass_, ok_only=False):
                continue  # this device did not run this pass at all
            recs = data.records_of(model, d, pass_)
            missing = availability(data, model, d, pass_)
            row = [d.label, results_file.pass_name(pass_)]
            for prec in results_file.PRECISIONS:
                r = best(recs, prec)
                row.append(f"{fmt_rate(r['images_per_s'])} (batch {r['batch']}{marks(r)})" if r
                           else missing[prec].split(" (")[0])
            rows.append(row)
    return ["device", "pass"] + [f"{P(p)} images/s" for p in results_file.PRECISIONS], rows


def marks(record: dict) -> str:
    """A best sum's marks after its batch: contended, unstable, and its uncertainty."""
    text = ", contended" if record.get("contended_points") else ""
    text += ", unstable" if unstable_sum(record) else ""
    if isinstance(record.get("uncertainty"), (int, float)):
        text += f", ±{record['uncertainty'] * 100:.1f}%"
    return text


def render(data, model, charts) -> str:
    headers, rows = best_table(data, model)
    return table(headers, rows) if rows else note(
        "No model-level records in these files: the sections below use the points.")
