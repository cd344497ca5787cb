"""Section: device vs device."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.charts import plt
from layerbench_report.layer_precisions import substitution_note
from layerbench_report.markup import P, esc, fmt_rate, fmt_ratio, note, status_pill, table


def common_batch(recs_by_device, precision):
    """The largest batch every device measured ok in this precision, or None."""
    sets = [{b for (p, b), r in recs.items() if p == precision and r["status"] == "ok"}
            for recs in recs_by_device.values()]
    shared = set.intersection(*sets) if sets else set()
    return max(shared) if shared else None


def render(data, model, charts) -> str:
    devices = data.devices_for(model)
    parts = []
    kinds = list(dict.fromkeys(["gpu", *(d.kind for d in devices if d.kind != "cpu"), "cpu"]))
    for kind in kinds:
        mine = [d for d in devices if d.kind == kind]
        if len(mine) < 2:
            continue
        base = data.baseline_device(kind, mine)
        passes = data.record_passes(model)
        word = kind.upper()
        parts.append(f"<h4>{word} vs {word}: reference {esc(base.label)} "
                     f"(from {esc(', '.join(f.name for f in base.files))})</h4>")
        if not passes:
            parts.append(note("No model-level records to compare."))
            continue
        pass_ = passes[0]
        recs = {d: data.records_of(model, d, pass_, ok_only=False) for d in mine}
        groups = [(prec, common_batch(recs, prec)) for prec in results_file.PRECISIONS]
        groups = [(prec, b) for prec, b in groups if b is not None]
        if groups:
            fig, ax = plt.subplots(figsize=(11, 4.2))
            width = 0.8 / len(mine)
            for i, d in enumerate(mine):
                xs = [j + (i - (len(mine) - 1) / 2) * width for j in range(len(groups))]
                ys = [recs[d][(prec, b)]["images_per_s"] for prec, b in groups]
                ax.bar(xs, ys, width=width * 0.92, color=d.colour, label=d.label)
                for x, y, (prec, b) in zip(xs, ys, groups):
                    ratio = y / recs[base][(prec, b)]["images_per_s"]
                    ax.text(x, y, fmt_ratio(ratio), ha="center", va="bottom", fontsize=8)
            ax.set_xticks(range(len(groups)))
            ax.set_xticklabels([f"{P(prec)}\nbatch {b}" for prec, b in groups])
            ax.set_ylabel("images/s (model sum)")
            ax.set_title(f"{word} vs {word}, {results_file.pass_name(pass_)}: throughput at the "
                         "largest batch every device ran (labels: × the reference)")
            ax.grid(axis="x", visible=False)
            ax.legend(loc="upper left")
            fig.tight_layout()
            parts.append(charts.embed(fig, f"{model}: {kind} vs {kind} throughput",
                                      f"Each group: one precision at the largest batch all "
                                      f"{word}s measured ok; numbers over the bars are relative "
                                      f"to {base.label}."))
        batches = sorted({b for r in recs.values() for (_, b) in r})
        precisions = sorted({p for r in recs.values() for (p, _) in r},
                            key=results_file.precision_order)
        rows = []
        for prec in precisions:
            for d in mine:
                row = [P(prec), d.label]
                for b in batches:
                    r, ref = recs[d].get((prec, b)), recs[base].get((prec, b))
                    if r is None:
                        row.append("not measured")
                    elif r["status"] != "ok":
                        row.append(status_pill(r["status"], r.get("reason", "")))
                    elif ref is not None and ref["status"] == "ok":
                        row.append(f"{fmt_rate(r['images_per_s'])} "
                                   f"({fmt_ratio(r['images_per_s'] / ref['images_per_s'])})")
                    else:
                        row.append(fmt_rate(r["images_per_s"]))
                rows.append(row)
        parts.append(f"<p>Images/s, {esc(results_file.pass_name(pass_))}, against batch size; in "
                     f"brackets relative to {esc(base.label)} at the same precision and "
                     "batch:</p>" +
                     table(["precision", "device"] + [f"batch {b}" for b in batches], rows))
        substituted = substitution_note(r for rs in recs.values() for r in rs.values()
                                        if r["status"] == "ok")
        if substituted:
            parts.append(note(substituted))
    if not parts:
        return note("Only one device of each kind in these files: nothing to set side by side. "
                    "Pass results files from other machines to compare devices.")
    return "".join(parts)
