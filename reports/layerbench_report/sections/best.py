"""Section: best throughput per device and precision."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.headline import availability, best
from layerbench_report.markup import P, fmt_rate, note, table
from layerbench_report.uncertainty import record_uncertainty, UNSTABLE_SUM_UNCERTAINTY


def best_table(data, model):
    """Rows of device x pass, a column per precision: the best images/s and its batch, marked
    "contended" when summed over contended points (contended_points, absent in older files),
    then its uncertainty (record_uncertainty), "unstable" from UNSTABLE_SUM_UNCERTAINTY."""
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
                row.append(f"{fmt_rate(r['images_per_s'])} (batch {r['batch']}"
                           f"{marks(record_uncertainty(data, model, d, r), r)})" if r
                           else missing[prec].split(" (")[0])
            rows.append(row)
    return ["device", "pass"] + [f"{P(p)} images/s" for p in results_file.PRECISIONS], rows


def marks(uncertainty: float, record: dict) -> str:
    """A best sum's marks after its batch: contended, its uncertainty, unstable."""
    text = ", contended" if record.get("contended_points") else ""
    text += f", ±{uncertainty * 100:.1f}%" if uncertainty else ""
    return text + (", unstable" if uncertainty >= UNSTABLE_SUM_UNCERTAINTY else "")


def render(data, model, charts) -> str:
    headers, rows = best_table(data, model)
    return table(headers, rows) if rows else note(
        "No model-level records in these files: the sections below use the points.")
