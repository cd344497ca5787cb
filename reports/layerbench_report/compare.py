"""Compares two layerbench results files point by point.

    compare.py BASE.json NEW.json [--more-base FILE ...] [--more-new FILE ...]
               [--threshold PCT] [--fail-above PCT]

Prints what differs in the set-up (devices, library versions) first, then a table of the points
both files measured: both median times, NEW/BASE, and a verdict (verdicts.py; the rule is in
docs/measuring.md, "Comparing two runs"). With further runs of either command (--more-base,
--more-new: each a run in a process of its own), a side's time is the median of its runs. Points
found in only one file are listed. With --fail-above the comparison is a gate that judges every
point BASE timed: such a point slower than PCT in NEW, or with no time in NEW (not measured, or
not reached by an unfinished run), fails it, and so does a pair of files with no point timed in
both. A further run that repeats one already given, or holds no points, is bad input. Exit
codes: 0 done, 1 the gate failed, 2 bad input.

scripts/compare.py is its command line.
"""
from __future__ import annotations

import math
import statistics
import sys

from layerbench_report import results_file, run_context
from layerbench_report.verdicts import VERDICTS, verdict_over_runs
from layerbench_report.command_line import Parser, number, pass_bytes_through, path_text
from layerbench_report.markup import text_table

PERCENTAGE = number(float, minimum=0)


def setup_differences(base: results_file.ResultsFile, new: results_file.ResultsFile,
                      names=("BASE", "NEW")) -> list:
    """What differs between two runs' devices and library versions, each side called by its
    name in names."""
    first, second = names
    lines = []
    for dev_id in sorted(set(base.devices) | set(new.devices)):
        a, b = base.devices.get(dev_id), new.devices.get(dev_id)
        if a is None or b is None:
            which, d = (second, b) if a is None else (first, a)
            lines.append(f"device {dev_id}: only in {which} ({d['name']})")
        elif a["name"] != b["name"]:
            lines.append(f"device {dev_id}: {a['name']} ({first}) vs {b['name']} ({second})")
    libs_a = base.context["libraries"]
    libs_b = new.context["libraries"]
    for lib in sorted(set(libs_a) | set(libs_b)):
        va, vb = libs_a.get(lib), libs_b.get(lib)
        if va != vb:
            lines.append(f"library {lib}: {va or 'absent'} ({first}) vs {vb or 'absent'} "
                         f"({second})")
    return lines


def describe(key) -> str:
    model, op, batch, precision, pass_, device = key
    return (f"{model} {op} batch {batch} {results_file.precision_name(precision)} {pass_} "
            f"on {device}")


def sort_key(key, op_order):
    """Model, device ("cpu" sorts before "gpu:N"), pass, precision, batch, then op in file order."""
    model, op, batch, precision, pass_, device = key
    passes = results_file.POINT_PASSES
    return (model, device, passes.index(pass_) if pass_ in passes else 9,
            results_file.precision_order(precision), batch, op_order.get((model, op), 0))


def print_files(*sides) -> None:
    """Each side's files (name, paths, loaded runs) with their status, what differs between a
    side's runs, then what differs between the sides' first runs."""
    for which, paths, runs in sides:
        for i, (path, f) in enumerate(zip(paths, runs)):
            name = which if i == 0 else f"{which} run {i + 1}"
            print(f"{name + ':':<6} {path} ({f.status})")
            if f.status != "complete":
                print(f"warning: {name} is {f.status}: "
                      + ("points it did not reach are listed as only in the other file"
                         if i == 0 else "the points it did not reach have its other runs"))
            for line in setup_differences(runs[0], f, (which, name)) if i > 0 else []:
                print(f"warning: {name} differs from {which}: {line}")
    differences = setup_differences(sides[0][2][0], sides[1][2][0])
    if differences:
        print("\nSET-UP DIFFERS (times below compare different machines or libraries):")
        for line in differences:
            print("  " + line)
    else:
        print("\nSame devices and library versions.")


def main(argv=None) -> int:
    pass_bytes_through()
    ap = Parser(prog="compare.py",
                description="Compare two layerbench results files point by point.")
    ap.add_argument("base", type=path_text, help="the reference results file")
    ap.add_argument("new", type=path_text, help="the results file to judge against it")
    ap.add_argument("--more-base", type=path_text, nargs="+", default=[], metavar="FILE",
                    help="further runs of BASE's command, each in a process of its own: the "
                         "verdicts then cover the spread between processes")
    ap.add_argument("--more-new", type=path_text, nargs="+", default=[], metavar="FILE",
                    help="further runs of NEW's command, each in a process of its own")
    ap.add_argument("--threshold", type=PERCENTAGE, metavar="PCT",
                    help="SAME when the times differ by at most PCT percent (default: the larger "
                         "recorded noise of the two points)")
    ap.add_argument("--fail-above", type=PERCENTAGE, metavar="PCT",
                    help="exit 1 when any point BASE timed is slower by more than PCT percent "
                         "in NEW or has no time in NEW")
    args = ap.parse_args(argv)
    base_paths, new_paths = [args.base, *args.more_base], [args.new, *args.more_new]
    try:
        base_runs = load_runs(base_paths, "--more-base", [])
        new_runs = load_runs(new_paths, "--more-new", base_runs)
    except results_file.BadResultsFile as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    base, new = base_runs[0], new_runs[0]
    print_files(("BASE", base_paths, base_runs), ("NEW", new_paths, new_runs))

    # Points match on their identity: model, op, batch, precision, pass and device id.
    a_runs = [{f.point_id(p): p for p in f.points} for f in base_runs]
    b_runs = [{f.point_id(p): p for p in f.points} for f in new_runs]
    a, b = a_runs[0], b_runs[0]
    op_order = {}
    for p in base.points + new.points:
        op_order.setdefault((p["model"], p["op"]), len(op_order))
    both = sorted(set(a) & set(b), key=lambda k: sort_key(k, op_order))
    rows, counts, regressions, ratios = [], {}, [], []
    for key in both:
        word, remark, ratio, tolerance = verdict_over_runs(
            [run[key] for run in a_runs if key in run], [run[key] for run in b_runs if key in run],
            args.threshold)
        counts[word] = counts.get(word, 0) + 1
        if ratio is not None:
            ratios.append(ratio)
        model, op, batch, precision, pass_, device = key
        change = None if ratio is None else (ratio - 1) * 100
        rows.append([model, op, pass_, results_file.precision_name(precision), batch, device,
                     _ms(a_runs, key), _ms(b_runs, key), "-" if ratio is None else f"{ratio:.3f}",
                     "-" if change is None else f"{change:+.1f}%",
                     "-" if tolerance is None else f"{tolerance * 100:.1f}%",
                     f"{word} ({remark})" if remark else word])
        if args.fail_above is not None and change is not None and change > args.fail_above:
            regressions.append((key, change))
    print()
    if rows:
        numbers = ["batch", "BASE ms", "NEW ms", "NEW/BASE", "change", "within"]
        print(text_table(["model", "op", "pass", "precision", "batch", "device", "BASE ms",
                            "NEW ms", "NEW/BASE", "change", "within", "verdict"], rows, numbers))
    else:
        print("No point was measured in both files.")
    for which, mine, other in (("BASE", a, b), ("NEW", b, a)):
        only = sorted(set(mine) - set(other), key=lambda k: sort_key(k, op_order))
        if only:
            print(f"\nOnly in {which} ({len(only)}):")
            for key in only:
                p = mine[key]
                print(f"  {describe(key)}: {p['status']}" +
                      (f", {results_file.median_ms(p):.4g} ms" if results_file.median_ms(p)
                       else ""))
    for line in whole_run_shift(ratios, counts) + machine_speed(base_runs, new_runs):
        print("\n" + line)
    summary = ", ".join(f"{counts[w]} {w}" for w in VERDICTS if w in counts)
    print(f"\n{len(both)} points in both files: {summary or 'none'}; "
          f"{len(set(a) - set(b))} only in BASE, {len(set(b) - set(a))} only in NEW.")
    if args.fail_above is None:
        return 0
    return gate(a, b, new, regressions, args.fail_above, op_order)


def load_runs(paths, flag, other_side) -> list:
    """One side's runs, loaded. Raises BadResultsFile for a further run (flag: --more-base or
    --more-new) that measured nothing or repeats a run already given: counted twice, one run
    would narrow the spread between runs that the verdicts allow for."""
    runs = [results_file.load(paths[0])]  # BASE or NEW: the same file on both sides is fine
    for path in paths[1:]:
        run = results_file.load(path)
        if not run.points:
            raise results_file.BadResultsFile(path, f"{flag}: holds no points, not a run of "
                                                    "the command")
        repeated = results_file.repeated_run(run, other_side + runs)
        if repeated:
            raise results_file.BadResultsFile(path, f"{flag}: {repeated}: each run must be "
                                                    "counted once")
        runs.append(run)
    return runs


def whole_run_shift(ratios, counts) -> list:
    """How NEW moved as a whole: the geometric mean of NEW/BASE over the points timed in both,
    and a warning when every FASTER or SLOWER verdict goes that way, as when the machine itself
    changed between two runs of the same code (docs/measuring.md, "Comparing two runs")."""
    if len(ratios) < 2:
        return []
    logs = [math.log(r) for r in ratios]
    mean = math.exp(statistics.fmean(logs))
    half = math.exp(sorted(abs(x) for x in logs)[len(logs) // 2]) - 1
    lines = [f"Over the {len(ratios)} points timed in both, NEW/BASE has a geometric mean of "
             f"{mean:.3f}; half the points moved by {half:.1%} or less."]
    way = "FASTER" if mean < 1 else "SLOWER"
    decided = counts.get("FASTER", 0) + counts.get("SLOWER", 0)
    if decided >= 3 and counts.get(way, 0) == decided:
        lines.append(f"Every FASTER or SLOWER verdict ({decided}) is {way}, the way the whole run "
                     "moved: the machine itself may have changed between the runs (other "
                     "programs or virtual machines on the host, its clocks). Run both again, "
                     "interleaved, to tell that from a change in what was measured.")
    return lines


def machine_speed(base_runs, new_runs) -> list:
    """How the machine's own speed moved between the sides: each side's median quiet time of the
    canary's compute unit, when every run of both sides read it. A whole run drifts with it on a
    shared host (docs/measuring.md, "The same targets on an AMD EPYC Zen 5 VM"), and no point's
    uncertainty covers such a drift."""
    sides = [[run_context.canary(f.context).get("compute_unit_ms") for f in runs]
             for runs in (base_runs, new_runs)]
    if any(None in times for times in sides):
        return []
    base_ms, new_ms = (statistics.median(times) for times in sides)
    return [f"The machine's canary (its compute unit's quiet time) read {base_ms:.4f} ms in BASE "
            f"and {new_ms:.4f} ms in NEW: NEW/BASE {new_ms / base_ms:.3f} for the machine's own "
            "speed (above 1: a slower machine), which whole runs drift with."]


def gate(a, b, new, regressions, fail_above, op_order) -> int:
    """--fail-above: 1 when a point is slower than the bound in NEW, or BASE timed it and NEW has
    no time for it, or no point was timed in both (a gate never passes on a point it could not
    compare), else 0."""
    untimed = [key for key in sorted(a, key=lambda k: sort_key(k, op_order))
               if results_file.median_ms(a[key]) is not None
               and results_file.median_ms(b.get(key, {})) is None]
    if regressions:
        print(f"\nREGRESSION: {len(regressions)} point(s) slower by more than "
              f"{fail_above:g}%:")
        for key, change in regressions:
            print(f"  {describe(key)}: {change:+.1f}%")
    if untimed:
        print(f"\nNOT COMPARED: {len(untimed)} point(s) timed in BASE have no time in NEW, so "
              "the gate cannot pass them:")
        for key in untimed:
            print(f"  {describe(key)}: " + (f"NEW {b[key]['status']}" if key in b else
                                            f"not in NEW ({new.status})"))
    compared = sum(results_file.median_ms(p) is not None for p in a.values()) - len(untimed)
    if not compared:
        print("\nGATE FAILED: no point was timed in both files, so the gate has nothing to "
              "compare and cannot pass.")
        return 1
    if regressions or untimed:
        return 1
    print(f"\nGATE PASSED: the {compared} point(s) timed in both are within {fail_above:g}% "
          "of BASE.")
    return 0


def _ms(runs, key) -> str:
    """A side's time for the point: the median over its runs that timed it, else the status of
    its first run that has the point."""
    points = [run[key] for run in runs if key in run]
    times = [results_file.median_ms(p) for p in points if results_file.median_ms(p) is not None]
    return f"{statistics.median(times):.4g}" if times else points[0]["status"]

