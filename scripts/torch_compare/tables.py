"""`table` and `cpu-table`: layerbench beside PyTorch, one row per point."""
import math
import sys

from layerbench_report import results_file
from layerbench_report.command_line import check_output_file, write_text
from layerbench_report.markup import text_table
from layerbench_report.op_kinds import MEMORY_KINDS
from layerbench_report.results_file import median_ms

from torch_compare.timings import cpu_points, gpu_points, load_timings, point_key


# A layer counts as at PyTorch's speed within 3% of its time, or faster (a choice).
TARGET_RATIO = 1.03


def fmt_ms(v):
    return "-" if v is None else f"{v:.4f}"


def comparison_groups(p):
    """The groups a GPU point's ratio is summarised in: the memory-bound layers, batch norm per
    pass besides (its own library path), convolutions, matrix products."""
    kind = p.get("kind")
    if kind in MEMORY_KINDS:
        return ["memory-bound"] + ([f"batch norm {p.get('pass')}"] if kind == "batch_norm" else [])
    return ["convolution"] if kind == "conv" else ["matrix product"]


def percent_at_clock(p, tflops, peak, facts):
    """TFLOP/s over the datasheet peak scaled to the SM clock the point ran at (the peak is at
    the boost clock, `sm_clock_max_mhz`): how much of what the clock allowed it reached."""
    clock = (p.get("telemetry") or {}).get("sm_clock_median_mhz")
    try:
        boost = float(facts.get("sm_clock_max_mhz"))
    except (TypeError, ValueError):
        return "-"
    if not (tflops and peak and clock and boost > 0):
        return "-"
    return f"{100 * tflops / (peak * clock / boost):.1f}"


def group_lines(compared):
    """Per group and precision: how many were compared, the geometric-mean ratio and the worst."""
    groups = {}
    for p, ratio in compared:
        for group in comparison_groups(p):
            groups.setdefault((group, p.get("precision", "")), []).append((ratio, p))
    lines = []
    for (group, precision), items in sorted(groups.items()):
        worst, p = max(items, key=lambda item: item[0])
        lines.append(f"  {group} {precision}: {len(items)} compared, geometric-mean ratio "
                     f"{geomean([r for r, _ in items]):.3f}, worst {worst:.3f} "
                     f"({p.get('model')}/{p.get('op')})")
    return lines


def load_watts(p):
    """The board's power the point's energy is from (energy / window), and beside it the power
    readings' figure of the load window (its notes), "-" where absent."""
    t = p.get("telemetry") or {}
    watts = t["energy_j"] / t["window_s"] if t.get("energy_j") and t.get("window_s") else None
    readings = (p.get("notes") or {}).get("load_power_readings_w")
    return ("-" if watts is None else f"{watts:.0f}"), readings or "-"


def throttled_text(p):
    t = p.get("telemetry") or {}
    kept = int(t.get("throttled_samples") or 0) - int(t.get("retaken_samples") or 0)
    return f"{kept} of {t.get('samples')}" if kept > 0 else ("no" if t else "-")


def table_text(results, torch_results=None):
    torch_by_key = {}
    if torch_results:
        torch_by_key = {point_key(t): t for t in torch_results["points"]}
    header = ("layer", "pass", "batch", "precision", "status", "layerbench ms", "TFLOP/s", "% peak",
              "% at clock", "W", "W readings", "throttled", "PyTorch ms", "ratio", "rel_l2")
    devices = results.context.get("devices", [])
    peaks = {d.get("id"): d.get("peaks") or {} for d in devices}
    facts = {d.get("id"): d.get("facts") or {} for d in devices}
    rows, ratios, compared = [], [], []
    for p in gpu_points(results):
        lb_ms = (p.get("timing") or {}).get("median_ms")
        t = torch_by_key.get(point_key(p))
        pt_ms = t.get("median_ms") if t else None
        ratio = lb_ms / pt_ms if lb_ms and pt_ms else None
        if ratio:
            ratios.append(ratio)
            compared.append((p, ratio))
        rel = (p.get("validation") or {}).get("rel_l2")
        tflops = p.get("tflops")
        peak = (peaks.get(p.get("device")) or {}).get(p.get("precision"), {}).get("tflops")
        percent = f"{100 * tflops / peak:.1f}" if tflops and peak else "-"
        status = p.get("status", "?")
        if status != "ok" and p.get("reason"):
            status += ": " + p["reason"][:60]
        elif t and t.get("status") != "ok":
            status += " (PyTorch: " + t.get("reason", "")[:50] + ")"
        rows.append((f"{p.get('model')}/{p.get('op')}", p.get("pass", ""), str(p.get("batch", "")),
                     p.get("precision", ""), status, fmt_ms(lb_ms),
                     "-" if tflops is None else f"{tflops:.1f}", percent,
                     percent_at_clock(p, tflops, peak, facts.get(p.get("device")) or {}),
                     *load_watts(p), throttled_text(p), fmt_ms(pt_ms),
                     "-" if ratio is None else f"{ratio:.3f}",
                     "-" if rel is None else f"{rel:.2e}"))
    lines = text_table(header, rows).split("\n")
    lines.append("")
    lines.append(f"{len(rows)} GPU points; ratio = layerbench time / PyTorch time "
                 "(below 1: layerbench faster); "
                 "% peak = TFLOP/s over the device's peak in the results file (datasheet, dense); "
                 "% at clock = over that peak scaled to the median SM clock the point ran at; "
                 "W = the board power its energy is from, W readings = NVML's power readings "
                 "over the same load window; throttled = kept samples a power or thermal cap "
                 "throttled")
    if ratios:
        within = sum(1 for r in ratios if r <= TARGET_RATIO)
        lines.append(f"{len(ratios)} compared: geometric-mean ratio {geomean(ratios):.3f}, "
                     f"{within} within {TARGET_RATIO - 1:.0%} of PyTorch or faster, "
                     f"worst {max(ratios):.3f}")
        lines += group_lines(compared)
    elif torch_results is None:
        lines.append("no PyTorch timings given (--torch)")
    return "\n".join(lines) + "\n"


def best_of(points):
    """key -> the point with the least median_ms, over points from several rounds' files."""
    best = {}
    for p in points:
        ms = p.get("median_ms")
        key = (p["model"], p["op"], p["batch"], p["precision"], p["pass"])
        if ms is not None and (key not in best or ms < best[key]["median_ms"]):
            best[key] = p
    return best


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def cpu_table_text(results_files, torch_files):
    """One row per CPU point: layerbench's best median over the files (rounds), the layout and
    implementation it ran, PyTorch's best and its faster layout, and the speedup PyTorch time /
    layerbench time; then per model, batch, precision and pass the geometric means, over every
    op and over the memory-bound ones, and the slowest."""
    lb_points = []
    for results in results_files:
        for p in cpu_points(results):
            lb_points.append(dict(p, median_ms=median_ms(p)))
    lb_best = best_of(lb_points)
    torch_best = best_of(t for f in torch_files for t in f["points"] if t.get("status") == "ok")
    header = ("layer", "kind", "pass", "batch", "precision", "layerbench ms", "layout",
              "implementation", "PyTorch ms", "PyTorch layout", "speedup")
    rows, groups = [], {}
    for key, p in sorted(lb_best.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][3],
                                                          kv[0][4])):
        t = torch_best.get(key)
        speedup = t["median_ms"] / p["median_ms"] if t else None
        if speedup:
            group = groups.setdefault((key[0], key[2], key[3], key[4]), [])
            group.append((p["op"], p["kind"], speedup))
        rows.append((f"{p['model']}/{p['op']}", p["kind"], p["pass"], str(p["batch"]),
                     p["precision"], fmt_ms(p["median_ms"]),
                     (p.get("notes") or {}).get("layout", "-"), p.get("implementation") or "-",
                     fmt_ms(t["median_ms"]) if t else "-", t.get("layout") or "-" if t else "-",
                     "-" if speedup is None else f"{speedup:.3f}"))
    lines = text_table(header, rows).split("\n")
    lines += ["", f"{len(rows)} CPU points; speedup = PyTorch time / layerbench time (above 1: "
              "layerbench faster), each the best median over the rounds, PyTorch at its faster "
              "layout"]
    for (model, batch, precision, pass_), ops in groups.items():
        memory = [o for o in ops if o[1] in MEMORY_KINDS]
        slowest = min(ops, key=lambda o: o[2])
        text = (f"{model} b{batch} {precision} {pass_}: {len(ops)} ops, geomean "
                f"{geomean([o[2] for o in ops]):.3f}, slowest {slowest[0]} {slowest[2]:.3f}")
        if memory:
            below = [o[0] for o in memory if o[2] < 1.0]
            text += (f"; memory-bound {len(memory)} ops, geomean "
                     f"{geomean([o[2] for o in memory]):.3f}, below 1.0: "
                     f"{', '.join(below) if below else 'none'}")
        lines.append(text)
    kinds = {}
    for ops in groups.values():
        for _, kind, speedup in ops:
            kinds.setdefault(kind, []).append(speedup)
    if kinds:
        lines.append("per kind, every model and batch: " + ", ".join(
            f"{kind} {geomean(v):.3f} ({len(v)})" for kind, v in sorted(kinds.items())))
    elif not torch_files:
        lines.append("no PyTorch timings given (--torch)")
    return "\n".join(lines) + "\n"


def emit(args, text):
    """The table to -o (checked first; --force replaces a file) or to standard output."""
    if args.output:
        check_output_file(args.output, "-o", args.force)
        write_text(args.output, text, "-o")
    else:
        sys.stdout.write(text)
    return 0


def cpu_table(args):
    results_files = [results_file.load(path) for path in args.results]
    torch_files = [load_timings(path) for path in args.torch or []]
    return emit(args, cpu_table_text(results_files, torch_files))


def table(args):
    results = results_file.load(args.results)
    torch_results = load_timings(args.torch) if args.torch else None
    return emit(args, table_text(results, torch_results))
