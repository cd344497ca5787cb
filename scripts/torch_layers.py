#!/usr/bin/env python3
"""Time the GPU layers of a layerbench results file through PyTorch, and print the comparison.

  torch_layers.py measure RESULTS.json -o TORCH.json [--max-time-per-point S] [--warmup N]
  torch_layers.py table RESULTS.json [--torch TORCH.json] [-o TABLE.txt]

measure runs every GPU point that layerbench measured ("ok") with the same shape, pass, precision,
layout and cache mode: torch.backends.cudnn.benchmark on, F.conv2d / aten.convolution_backward in
channels_last for NHWC, torch.mm / torch.bmm / torch._scaled_mm for GEMMs, TF32 allowed only for
tf32, no reduced-precision reductions for fp16/bf16. Each run is timed with CUDA events after
warm-up (the first call is cuDNN's own autotuning); cold points zero an L2-flush buffer (twice the
L2, as layerbench does) before each start event. As in layerbench, the stream is held before each
start event (torch.cuda._sleep, for 4x the host's last enqueue time) so that the events time the
GPU's work and not Python's dispatch latency; a run whose enqueue outlasted its hold is measured
again. The median is reported.

table prints one row per GPU point: layer, pass, batch, precision, layerbench's median, TFLOP/s and
fraction of the device's peak, PyTorch's median, their ratio, and layerbench's validation error.
PyTorch is needed for measure only.
Bad input (missing or malformed files, flags, an output that exists: --force replaces a file)
exits with code 2 and one line naming the file or flag; so does measure without PyTorch or a GPU.
"""
import json
import math
import statistics
import sys
import time

from layerbench_report import checked_json, results_file
from layerbench_report.command_line import (BadInput, Parser, check_output_file, number,
                                            pass_bytes_through, write_text)

TIMINGS_FILE = "PyTorch timings file"


def load_results(path) -> dict:
    """A layerbench results file, read and checked by the report's reader."""
    return results_file.load(path).data


def load_timings(path) -> dict:
    """A timings file `measure` wrote: {"points": [{model, op, batch, precision, pass, status,
    median_ms, reason}]}, checked as strictly as the results files."""
    doc = checked_json.read_document(path, TIMINGS_FILE)
    if not isinstance(doc, dict):
        raise checked_json.BadResultsFile(path, f"not a {TIMINGS_FILE}: the top level is "
                                                f"{checked_json.json_words(doc)}")
    top = checked_json.Fields(path, doc, "")
    for p in top.objects("points"):
        p.text("model")
        p.text("op")
        p.count("batch")
        p.text("precision", results_file.PRECISIONS)
        p.text("pass", results_file.POINT_PASSES)
        ok = p.text("status", ("ok", "failed")) == "ok"
        p.number("median_ms", positive=True, optional=not ok, nullable=not ok)
        p.text("reason", optional=True)
    return doc


def point_key(p):
    return (p.get("model"), p.get("op"), p.get("batch"), p.get("precision"), p.get("pass"))


def gpu_points(results):
    return [p for p in results["points"] if str(p.get("device", "")).startswith("gpu")]


# ---------------------------------------------------------------------------------------- measure

def set_precision(torch, precision):
    """TF32 only for tf32; FP32 accumulation for 16-bit types (no reduced-precision reduction)."""
    tf32 = precision == "tf32"
    matmul = torch.backends.cuda.matmul
    try:  # PyTorch 2.9+; mixing this API with allow_tf32 is an error there
        matmul.fp32_precision = "tf32" if tf32 else "ieee"
        torch.backends.cudnn.conv.fp32_precision = "tf32" if tf32 else "ieee"
    except AttributeError:
        matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
    for flag in ("allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction"):
        if hasattr(matmul, flag):
            setattr(matmul, flag, False)


def conv_fn(torch, shape, pass_, dtype, channels_last):
    import torch.nn.functional as F
    n, c, h, w, k = (shape[x] for x in ("n", "c", "h", "w", "k"))
    groups = shape.get("groups", 1)
    stride = (shape["stride_h"], shape["stride_w"])
    padding = (shape["pad_h"], shape["pad_w"])
    dilation = (shape.get("dil_h", 1), shape.get("dil_w", 1))
    fmt = torch.channels_last if channels_last else torch.contiguous_format

    def make(*dims):
        return torch.randn(*dims, device="cuda").to(dtype).contiguous(memory_format=fmt)

    x = make(n, c, h, w)
    weight = make(k, c // groups, shape["r"], shape["s"])
    if pass_ == "fwd":
        return lambda: F.conv2d(x, weight, None, stride, padding, dilation, groups)
    dy = make(n, k, shape["p"], shape["q"])
    mask = [True, False, False] if pass_ == "bwd_data" else [False, True, False]
    return lambda: torch.ops.aten.convolution_backward(
        dy, x, weight, None, stride, padding, dilation, False, [0, 0], groups, mask)


def gemm_fn(torch, shape, dtype, precision):
    batch, m, n, k = (shape[x] for x in ("batch", "m", "n", "k"))
    ta, tb = bool(shape.get("trans_a")), bool(shape.get("trans_b"))
    if precision == "fp8":
        if batch != 1:
            raise RuntimeError("torch._scaled_mm is 2-D only: no batched FP8 product")
        # _scaled_mm wants A row-major and B column-major: cuBLASLt's TN form, as layerbench runs
        # it.
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device="cuda")
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    a = torch.randn(batch, *((k, m) if ta else (m, k)), device="cuda").to(dtype)
    b = torch.randn(batch, *((n, k) if tb else (k, n)), device="cuda").to(dtype)
    op_a = a.transpose(-1, -2) if ta else a
    op_b = b.transpose(-1, -2) if tb else b
    if batch == 1:
        out = torch.empty(m, n, device="cuda", dtype=dtype)
        return lambda: torch.mm(op_a[0], op_b[0], out=out)
    out = torch.empty(batch, m, n, device="cuda", dtype=dtype)
    return lambda: torch.bmm(op_a, op_b, out=out)


class LaunchHold:
    """The stream hold of kernels/cuda/logic/launch_hold.hpp, with the same constants and rule."""
    margin, min_hold_ns, max_hold_ns, give_up_after = 4, 20_000, 10_000_000, 3

    def __init__(self):
        self.hold_ns, self.runs, self.unclean, self.in_a_row, self.stopped = \
            self.min_hold_ns, 0, 0, 0, False

    def next_hold_ns(self):
        return 0 if self.stopped else self.hold_ns

    def record(self, hold_ns, enqueue_ns):
        """True when the run is clean: the hold outlasted the host's enqueue."""
        self.runs += 1
        clean = hold_ns > enqueue_ns
        if clean:
            self.in_a_row = 0
        else:
            self.unclean += 1
            self.in_a_row += 1
            self.stopped = self.stopped or self.in_a_row >= self.give_up_after
        self.hold_ns = min(max(self.margin * enqueue_ns, self.min_hold_ns), self.max_hold_ns)
        return clean


def sleep_cycles_per_ns(torch):
    """torch.cuda._sleep counts GPU clock cycles: measure how many pass per nanosecond. Measured
    right after a point's warm-up, at the clock its timed runs will see; the fastest rate of three
    is kept, since a hold computed from too high a rate only lasts longer than asked."""
    cycles = 2_000_000
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rates = []
    for _ in range(3):  # the first also loads the kernel
        start.record()
        torch.cuda._sleep(cycles)
        stop.record()
        stop.synchronize()
        rates.append(cycles / (start.elapsed_time(stop) * 1e6))
    return max(rates)


def time_fn(torch, fn, cold, warmup, max_time, min_runs=5, max_runs=1000):
    flush = None
    if cold:
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    cycles_per_ns = sleep_cycles_per_ns(torch)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    hold = LaunchHold()
    times = []
    began = time.perf_counter()
    while len(times) < min_runs or (time.perf_counter() - began < max_time and
                                    len(times) < max_runs):
        if flush is not None:
            flush.zero_()
        hold_ns = hold.next_hold_ns()
        enqueue_start = time.perf_counter_ns()
        if hold_ns:
            torch.cuda._sleep(int(hold_ns * cycles_per_ns))
        start.record()
        fn()
        stop.record()
        enqueue_ns = time.perf_counter_ns() - enqueue_start
        stop.synchronize()
        if hold.record(hold_ns, enqueue_ns) or hold.stopped:
            times.append(start.elapsed_time(stop))
    return statistics.median(times), len(times), hold, cycles_per_ns


def measure(args):
    results = load_results(args.results)
    check_output_file(args.output, "-o", args.force)
    try:
        import torch
    except ImportError:
        raise BadInput("measure: PyTorch is not installed (scripts/setup.sh --torch installs it "
                       "into .venv)") from None
    if not torch.cuda.is_available():
        raise BadInput("measure: PyTorch sees no CUDA device; measure times GPU points only")
    torch.backends.cudnn.benchmark = True
    dtypes = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
              "bf16": torch.bfloat16, "fp8": torch.float8_e4m3fn}
    todo = [p for p in gpu_points(results) if p.get("status") == "ok"]
    out = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
           "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(0), "points": []}
    for i, p in enumerate(todo, 1):
        precision, pass_, shape = p["precision"], p["pass"], p["shape"]
        record = {"model": p["model"], "op": p["op"], "batch": p["batch"], "precision": precision,
                  "pass": pass_, "status": "ok", "median_ms": None, "samples": 0, "reason": ""}
        try:
            set_precision(torch, precision)
            if p.get("kind") == "conv":
                if precision == "fp8":
                    raise RuntimeError("PyTorch has no FP8 convolution")
                layout = p.get("notes", {}).get("layout", "nhwc")
                fn = conv_fn(torch, shape, pass_, dtypes[precision], layout == "nhwc")
            else:
                fn = gemm_fn(torch, shape, dtypes[precision], precision)
            cold = p.get("timing", {}).get("cache", "cold") == "cold"
            record["median_ms"], record["samples"], hold, cycles_per_ns = time_fn(
                torch, fn, cold, args.warmup, args.max_time_per_point)
            record["sleep_cycles_per_ns"] = round(cycles_per_ns, 4)
            record["launch_hold"] = "off" if hold.stopped else "on"
            record["launch_hold_unclean_runs"] = f"{hold.unclean} of {hold.runs}"
        except Exception as e:  # one layer PyTorch cannot run must not stop the others
            reason = (str(e).splitlines() or [type(e).__name__])[0][:200]
            record["status"], record["reason"] = "failed", reason
        out["points"].append(record)
        shown = f"{record['median_ms']:.4f} ms" if record["median_ms"] is not None \
            else record["reason"]
        print(f"[{i}/{len(todo)}] {p['model']}/{p['op']} {pass_} b{p['batch']} {precision}: "
              f"{shown}", flush=True)
        torch.cuda.empty_cache()
    write_text(args.output, json.dumps(out, indent=1) + "\n", "-o")
    return 0


# ------------------------------------------------------------------------------------------ table

# The GPU issue's target: each layer within 3% of PyTorch's time, or faster.
TARGET_RATIO = 1.03


def fmt_ms(v):
    return "-" if v is None else f"{v:.4f}"


def table_text(results, torch_results=None):
    torch_by_key = {}
    if torch_results:
        torch_by_key = {point_key(t): t for t in torch_results["points"]}
    header = ("layer", "pass", "batch", "precision", "status", "layerbench ms", "TFLOP/s", "% peak",
              "PyTorch ms", "ratio", "rel_l2")
    devices = (results.get("context") or {}).get("devices", [])
    peaks = {d.get("id"): d.get("peaks") or {} for d in devices}
    rows, ratios = [], []
    for p in gpu_points(results):
        lb_ms = (p.get("timing") or {}).get("median_ms")
        t = torch_by_key.get(point_key(p))
        pt_ms = t.get("median_ms") if t else None
        ratio = lb_ms / pt_ms if lb_ms and pt_ms else None
        if ratio:
            ratios.append(ratio)
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
                     "-" if tflops is None else f"{tflops:.1f}", percent, fmt_ms(pt_ms),
                     "-" if ratio is None else f"{ratio:.3f}",
                     "-" if rel is None else f"{rel:.2e}"))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    lines = [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]
    lines.append("")
    lines.append(f"{len(rows)} GPU points; ratio = layerbench time / PyTorch time "
                 "(below 1: layerbench faster); "
                 "% peak = TFLOP/s over the device's peak in the results file (datasheet, dense)")
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        within = sum(1 for r in ratios if r <= TARGET_RATIO)
        lines.append(f"{len(ratios)} compared: geometric-mean ratio {geomean:.3f}, "
                     f"{within} within {TARGET_RATIO - 1:.0%} of PyTorch or faster, "
                     f"worst {max(ratios):.3f}")
    elif torch_results is None:
        lines.append("no PyTorch timings given (--torch)")
    return "\n".join(lines) + "\n"


def table(args):
    results = load_results(args.results)
    torch_results = load_timings(args.torch) if args.torch else None
    text = table_text(results, torch_results)
    if args.output:
        check_output_file(args.output, "-o", args.force)
        write_text(args.output, text, "-o")
    else:
        sys.stdout.write(text)
    return 0


def main(argv=None):
    pass_bytes_through()
    parser = Parser(prog="torch_layers.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="time the results file's GPU points through PyTorch")
    m.add_argument("results", help="layerbench results file (JSON)")
    m.add_argument("-o", "--output", required=True,
                   help="where to write the PyTorch timings (JSON)")
    m.add_argument("--max-time-per-point", type=number(float, above=0), default=0.25,
                   help="seconds of timed runs per point after the first 5 (default 0.25)")
    m.add_argument("--warmup", type=number(int, minimum=1), default=3,
                   help="untimed runs first, at least 1: the first call is cuDNN's autotuning "
                        "(default 3)")
    t = sub.add_parser("table", help="print layerbench against PyTorch, one row per GPU point")
    t.add_argument("results", help="layerbench results file (JSON)")
    t.add_argument("--torch", help="PyTorch timings written by `measure`")
    t.add_argument("-o", "--output", help="write the table here instead of standard output")
    for sub_parser in (m, t):
        sub_parser.add_argument("--force", action="store_true",
                                help="replace the -o file if it exists (a regular file only)")
    args = parser.parse_args(argv)
    try:
        return measure(args) if args.command == "measure" else table(args)
    except (BadInput, checked_json.BadResultsFile) as e:
        print(f"torch_layers.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
