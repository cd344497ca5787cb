"""How alike several runs of one command are: the figures by which docs/measuring.md judges a
machine's repeatability ("The quick suite's targets").

    repeatability.py RUN.json RUN.json [RUN.json ...] [--within PCT]

The files are runs of the same command, in the order they ran. Prints:
- each model sum (images/s) in every run, the runs' median, and the run farthest from it: a sum
  is repeatable when every run is within PCT percent (default 5) of the median;
- for each pair of consecutive runs, |NEW/BASE - 1| over the points timed in both: the median
  and the 90th percentile, over all points and apart for the compute-bound and the memory-bound
  kinds (bench/op_kinds.json), and how many of them compare.py would call FASTER or SLOWER;
- for each run, how many timed points were unstable or contended, the canary's quiet compute
  time (the machine's own speed, which whole runs drift with) and how much of the run the
  canary read slow (context.machine_state.canary).
Exit codes: 0 done, 2 bad input (fewer than two files, a file that is not a results file, a
file given twice or a copy of another, a later file with no points).
"""
from __future__ import annotations

import math
import statistics
import sys

from layerbench_report import results_file, run_context
from layerbench_report.command_line import Parser, number, pass_bytes_through, path_text
from layerbench_report.compare import load_runs
from layerbench_report.markup import text_table
from layerbench_report.op_kinds import MEMORY_KINDS
from layerbench_report.verdicts import verdict

PERCENTAGE = number(float, minimum=0)


def model_key(m: dict) -> tuple:
    return (m["model"], m["device"], m.get("backend") or "", m["precision"], m["pass"],
            m["batch"])


def model_sums(runs) -> list:
    """[(key, [images/s in each run])] for the sums every run has ok, in the first run's order."""
    per_run = [{model_key(m): m["images_per_s"] for m in f.models
                if m["status"] == "ok" and m.get("images_per_s")} for f in runs]
    return [(key, [sums[key] for sums in per_run]) for key in per_run[0]
            if all(key in sums for sums in per_run[1:])]


def farthest_from_median(rates) -> float:
    """The largest |rate / median - 1| over the runs."""
    middle = statistics.median(rates)
    return max(abs(r / middle - 1) for r in rates)


def percentile(values, fraction) -> float:
    """The nearest-rank percentile of values (not empty): the smallest value with at least that
    fraction of them at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def timed_points(f) -> dict:
    return {f.point_id(p): p for p in f.points if results_file.median_ms(p) is not None}


def pair_figures(base, new) -> dict:
    """|NEW/BASE - 1| per group of points timed in both, and the count of compare.py's decided
    verdicts (FASTER or SLOWER) between the two runs."""
    a, b = timed_points(base), timed_points(new)
    changes = {"all": [], "compute-bound": [], "memory-bound": []}
    decided = 0
    for key in a.keys() & b.keys():
        change = abs(results_file.median_ms(b[key]) / results_file.median_ms(a[key]) - 1)
        group = "memory-bound" if a[key]["kind"] in MEMORY_KINDS else "compute-bound"
        changes["all"].append(change)
        changes[group].append(change)
        decided += verdict(a[key], b[key], None)[0] in ("FASTER", "SLOWER")
    return {"changes": changes, "decided": decided, "compared": len(changes["all"])}


def run_figures(f) -> dict:
    points = list(timed_points(f).values())
    canary = run_context.canary(f.context)
    readings = canary.get("readings") or 0
    return {"timed": len(points),
            "unstable": sum(bool(p["timing"].get("unstable")) for p in points),
            "contended": sum(bool(p["timing"].get("contended")) for p in points),
            "compute_ms": canary.get("compute_unit_ms"),
            "compute_slow": (canary.get("slow_readings") or 0) / readings if readings else None,
            "memory_slow": (canary.get("memory_slow_readings") or 0) / readings
            if readings else None}


def share(value) -> str:
    return "-" if value is None else f"{value:.1%}"


def print_model_sums(runs, within) -> None:
    rows = []
    for (model, device, backend, precision, pass_, batch), rates in model_sums(runs):
        worst = farthest_from_median(rates)
        rows.append([model, device + (f" {backend}" if backend else ""),
                     results_file.precision_name(precision), pass_, batch,
                     " ".join(f"{r:.4g}" for r in rates), f"{statistics.median(rates):.4g}",
                     f"{worst:.1%}", "yes" if worst <= within else "no"])
    print("Model sums (images/s), run by run:")
    if not rows:
        print("  no model sum is ok in every run")
        return
    print(text_table(["model", "device", "precision", "pass", "batch", "runs", "median",
                      "farthest", f"within {within:.0%}"], rows,
                     ["batch", "median", "farthest"]))


def print_pairs(runs) -> None:
    rows = []
    for i in range(1, len(runs)):
        figures = pair_figures(runs[i - 1], runs[i])
        cells = [f"{i} -> {i + 1}"]
        for group in ("all", "compute-bound", "memory-bound"):
            changes = figures["changes"][group]
            cells.append(f"{statistics.median(changes):.1%} / {percentile(changes, 0.9):.1%} "
                         f"({len(changes)})" if changes else "-")
        cells.append(f"{figures['decided']} of {figures['compared']}")
        rows.append(cells)
    print("\nConsecutive runs, |NEW/BASE - 1| median / 90th percentile (points):")
    print(text_table(["runs", "all points", "compute-bound", "memory-bound",
                      "FASTER or SLOWER"], rows, []))


def print_runs(runs) -> None:
    rows = []
    for i, f in enumerate(runs, 1):
        figures = run_figures(f)
        rows.append([i, f.path, figures["timed"], figures["unstable"], figures["contended"],
                     "-" if figures["compute_ms"] is None else f"{figures['compute_ms']:.4f}",
                     share(figures["compute_slow"]), share(figures["memory_slow"])])
    print("\nRuns:")
    print(text_table(["run", "file", "timed", "unstable", "contended", "canary compute ms",
                      "canary compute slow", "canary memory slow"], rows,
                     ["run", "timed", "unstable", "contended", "canary compute ms"]))


def main(argv=None) -> int:
    pass_bytes_through()
    ap = Parser(prog="repeatability.py",
                description="How alike several runs of one command are.")
    ap.add_argument("runs", type=path_text, nargs="+", metavar="RUN.json",
                    help="results files of the same command, in the order they ran")
    ap.add_argument("--within", type=PERCENTAGE, default=5.0, metavar="PCT",
                    help="a model sum is repeatable when every run is within PCT percent of "
                         "the runs' median (default 5)")
    args = ap.parse_args(argv)
    if len(args.runs) < 2:
        ap.error("give at least two results files: one run has nothing to repeat")
    try:
        runs = load_runs(args.runs, "RUN.json", [])
    except results_file.BadResultsFile as e:
        print(f"repeatability.py: {e}", file=sys.stderr)
        return 2
    print_model_sums(runs, args.within / 100)
    print_pairs(runs)
    print_runs(runs)
    return 0
