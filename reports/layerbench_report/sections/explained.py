"""Section: explained share (layerbench's model estimate against a framework's measured
end-to-end time of the same configuration, with the unexplained remainder shown and, where the
framework's profile says, attributed)."""
from __future__ import annotations

from layerbench_report import framework_file
from layerbench_report import results_file
import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from layerbench_report.framework import OUTSIDE, attribution, estimates, groups_in, \
    remainder_causes
from layerbench_report.markup import P, esc, fmt_ms, note, table
from layerbench_report.sections.where_time_goes import colour, config_label
from layerbench_report.style import UNEXPLAINED_COLOUR

NO_FILE = ("No framework timing file given: run scripts/torch_models.py on the same machine and "
           "pass its file to report.py (--framework FILE, or among the results files).")


def threads(e):
    mine = (e.device.info.get("facts") or {}).get("threads")
    return f"{mine or '?'} / {e.framework.context['threads']}" if e.device.kind == "cpu" else "–"


def chart(charts, model, compared):
    """One bar per configuration, the framework's measured time = 1: the estimate stacked by
    kind, then the remainder hatched; an estimate above the measured time passes the line at 1."""
    fig, ax = plt.subplots(figsize=(11, 1.8 + 0.42 * len(compared)))
    present = set()
    for y, e in enumerate(compared):
        left = 0.0
        for g in groups_in(e.split):
            width = e.split[g] / e.measured_ms
            ax.barh(y, width, left=left, color=colour(g), edgecolor="white")
            left += width
            present.add(g)
        if left < 1:
            ax.barh(y, 1 - left, left=left, color="white", edgecolor=UNEXPLAINED_COLOUR,
                    hatch="xx")
        ax.text(max(left, 1) + 0.01, y, f"{e.explained:.2f}", va="center", fontsize=9)
    ax.axvline(1, color="#222", linewidth=1.2)
    ax.set_yticks(range(len(compared)))
    ax.set_yticklabels([config_label(e) for e in compared], fontsize=8)
    ax.set_ylim(len(compared) - 0.5, -0.5)
    ax.set_xlim(0, max(1.15, max(e.explained for e in compared) + 0.12))
    ax.set_xlabel("fraction of the framework's measured time (1 = its median)")
    ax.grid(axis="y", visible=False)
    handles = [Patch(facecolor=colour(g), label=f"layerbench: {framework_file.group_name(g)}")
               for g in sorted(present, key=framework_file.group_order)]
    handles.append(Patch(facecolor="white", edgecolor=UNEXPLAINED_COLOUR, hatch="xx",
                         label="unexplained remainder"))
    fig.tight_layout(rect=(0, 0.9 / fig.get_figheight(), 1, 1))
    fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), frameon=False)
    return charts.embed(fig, f"{model}: explained share",
                        "layerbench's model estimate as a fraction of the framework's measured "
                        "end-to-end median for the same model, pass, precision, batch and device "
                        "(number at the right: the explained share). Hatched: the time the "
                        "estimate does not account for; the table below attributes it.")


def attribution_table(e) -> str:
    rows = [[framework_file.group_name(g) if g != OUTSIDE
             else f"{OUTSIDE} (Python, dispatch, autograd)",
             fmt_ms(mine), fmt_ms(theirs),
             fmt_ms(theirs - (mine or 0)) if theirs is not None else None]
            for g, mine, theirs in attribution(e)]
    p = e.profile
    caption = (f"{config_label(e)}: one profiled run took {p['wall_ms']:.4g} ms against a timed "
               f"median of {e.measured_ms:.4g} ms (the profiler's own cost); operator times are "
               f"{'device' if p.get('time_base') == 'device' else 'CPU'} self times.")
    return (f"<details><summary>{esc(caption)}</summary>" +
            table(["group", "layerbench ms", f"{e.framework.framework} profiled ms",
                   "difference ms"], rows, "small") + "</details>")


SHARE_HEADERS = ["device", "pass", "precision", "batch", "threads (layerbench / framework)",
                 "layerbench estimate ms", "framework median ms (noise, runs)", "explained share",
                 "unexplained ms", "largest causes (framework profile)"]


def share_rows(compared) -> list:
    return [[e.device.label, results_file.pass_name(e.pass_), P(e.precision), e.batch, threads(e),
             fmt_ms(e.total_ms),
             f"{fmt_ms(e.measured_ms)} (±{e.run['timing'].get('noise') or 0:.1%}, "
             f"{e.run['timing']['runs']} runs)", f"{e.explained:.2f}",
             fmt_ms(e.measured_ms - e.total_ms), remainder_causes(e)] for e in compared]


def compared_of(data, model) -> list:
    """The model's estimates that a framework run matches."""
    return [e for e in estimates(data, model) if e.run] if data.frameworks else []


def render(data, model, charts) -> str:
    if not data.frameworks:
        return note(NO_FILE)
    compared = compared_of(data, model)
    if not compared:
        return note(f"The framework timing files have no run matching an estimate of {model} "
                    "measured ok (same model, pass, precision, batch and device name).")
    versions = sorted({f"{f.framework} {f.context['versions'].get('torch', '?')} (oneDNN "
                       f"{f.context['versions'].get('onednn') or '?'})"
                       for f in data.frameworks})
    details = "".join(attribution_table(e) for e in compared if e.profile)
    eager = note("The framework runs eagerly (one kernel per operator, batch normalisation not "
                 "folded), so it is compared with layerbench's eager estimate; where a framework "
                 "fuses operators (e.g. attention as one kernel), its profile shows them as their "
                 "own group.")
    return (chart(charts, model, compared) + table(SHARE_HEADERS, share_rows(compared)) +
            note("Framework: " + "; ".join(versions) + ".") + eager + details)
