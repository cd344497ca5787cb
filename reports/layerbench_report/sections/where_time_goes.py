"""Section: where the time goes (the model estimate split by kind group, beside the framework's
own profile where a framework timing file has one)."""
from __future__ import annotations

from layerbench_report import framework_file
from layerbench_report import results_file
import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from layerbench_report.framework import OUTSIDE, estimates, groups_in
from layerbench_report.markup import P, fmt_ms, note, table
from layerbench_report.style import GROUP_COLOURS, OUTSIDE_COLOUR


def config_label(e) -> str:
    return (f"{e.device.label} · {results_file.pass_name(e.pass_)} · {P(e.precision)} · "
            f"batch {e.batch}")


def colour(group):
    return OUTSIDE_COLOUR if group == OUTSIDE else GROUP_COLOURS.get(group, "#999999")


def bars(ests):
    """[(label, {group: ms})]: each estimate, then the framework's profile of it when present."""
    out = []
    for e in ests:
        out.append((f"layerbench: {config_label(e)}", e.split))
        if e.profile:
            shares = dict(e.profile["group_ms"])
            shares[OUTSIDE] = e.profile.get("outside_ms") or 0.0
            out.append((f"{e.framework.framework} profile: {config_label(e)}", shares))
    return out


def stacked_chart(charts, model, rows):
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.42 * len(rows)))
    present = set()
    for y, (_, split) in enumerate(rows):
        total = sum(split.values()) or 1.0
        left = 0.0
        for g in groups_in(set(split) - {OUTSIDE}) + ([OUTSIDE] if OUTSIDE in split else []):
            width = split[g] / total
            ax.barh(y, width, left=left, color=colour(g), edgecolor="white",
                    hatch="//" if g == OUTSIDE else None)
            if width >= 0.06:
                ax.text(left + width / 2, y, f"{width:.0%}", ha="center", va="center",
                        fontsize=8, color="white")
            left += width
            present.add(g)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([label for label, _ in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the time")
    ax.grid(axis="y", visible=False)
    order = sorted(present - {OUTSIDE}, key=framework_file.group_order) + \
        ([OUTSIDE] if OUTSIDE in present else [])
    handles = [Patch(facecolor=colour(g), hatch="//" if g == OUTSIDE else None,
                     label=framework_file.group_name(g) if g != OUTSIDE else OUTSIDE)
               for g in order]
    fig.tight_layout(rect=(0, 0.9 / fig.get_figheight(), 1, 1))
    fig.legend(handles=handles, loc="lower center", ncol=min(5, len(handles)), frameon=False)
    return charts.embed(fig, f"{model}: where the time goes",
                        "Each bar is one configuration's time split by kind of operation. "
                        "layerbench: the model estimate (count x median of each point, summed per "
                        "kind). Framework profile: one run under the framework's profiler, each "
                        "operator's own time by the same groups, and the run's time outside any "
                        "operator (hatched).")


def render(data, model, charts) -> str:
    ests = estimates(data, model)
    if not ests:
        return note("No model-level record with points measured ok: nothing measured to split.")
    groups = groups_in({g for e in ests for g in e.split})
    rows = [[e.device.label, results_file.pass_name(e.pass_), P(e.precision), e.batch,
             fmt_ms(e.total_ms)] + [f"{e.split[g] / e.total_ms:.1%}" if g in e.split else None
                                    for g in groups] for e in ests]
    kinds = sorted({framework_file.group_name(g) for g in groups})
    missing = note("These files have points of " + ", ".join(kinds) + " only: operations of "
                   "other kinds (normalisation, activations, pooling, softmax) are not in this "
                   "estimate.") if not set(groups) - {"convolution", "gemm"} else ""
    return (stacked_chart(charts, model, bars(ests)) +
            table(["device", "pass", "precision", "batch", "estimate ms"] +
                  [f"{framework_file.group_name(g)} share" for g in groups], rows) + missing)
