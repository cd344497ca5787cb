#!/usr/bin/env python3
"""Time the layers of a layerbench results file through PyTorch, and print the comparison.

  torch_layers.py measure RESULTS.json -o TORCH.json [--max-time-per-point S] [--warmup N]
  torch_layers.py table RESULTS.json [--torch TORCH.json] [-o TABLE.txt]
  torch_layers.py measure-cpu RESULTS.json -o TORCH.json [--rounds 3] [--threads 1]
  torch_layers.py cpu-table RESULTS.json... [--torch TORCH.json...] [-o TABLE.txt]

measure runs every GPU point that layerbench measured ("ok") with the same shape, pass, precision,
layout and cache mode: torch.backends.cudnn.benchmark on, F.conv2d / aten.convolution_backward in
channels_last for NHWC, torch.mm / torch.bmm / torch._scaled_mm for GEMMs, TF32 allowed only for
tf32, no reduced-precision reductions for fp16/bf16. Each run is timed with CUDA events after
warm-up (the first call is cuDNN's own autotuning); cold points zero an L2-flush buffer (twice the
L2, as layerbench does) before each start event. As in layerbench, the stream is held before each
start event (torch.cuda._sleep, for 4x the host's last enqueue time) so that the events time the
GPU's work and not Python's dispatch latency; a run whose enqueue outlasted its hold is measured
again. The median is reported, and beside it the CUDA kernels one more profiled call ran
(torch_kernels: PyTorch's choice of cuDNN engine or GEMM kernel; on the CPU "not available") and,
for a max pool, the call timed (torch_call: the forward without indices, as layerbench's).

table prints one row per GPU point: layer, pass, batch, precision, layerbench's median, TFLOP/s and
fraction of the device's peak, PyTorch's median, their ratio, and layerbench's validation error.

measure-cpu runs every FP32 and BF16 CPU point layerbench measured ("ok", oneDNN's) warm, in
--threads threads (1 by default): convolutions (F.conv2d, aten.convolution_backward), GEMMs
(torch.mm / torch.bmm) and every memory-bound kind through its functional op forward (F.batch_norm
in eval, F.layer_norm, torch.relu, F.gelu, torch.add, F.max_pool2d, F.avg_pool2d, torch.softmax;
batch norm's fwd_training is F.batch_norm in training, with no running statistics) and, for
bwd_data, the aten backward function torch.autograd calls for it (batch and layer norm's training
backward, threshold_backward, gelu_backward, the pools' and softmax's backward; an add's
backward is the same add). Images (N, C, H, W) are timed in both of PyTorch's layouts, NCHW and
channels_last, and the faster kept. Every point and layout is timed once per round, the rounds
one after another (--rounds, 3 by default), and the best median kept. Both measuring commands set
THP_MEM_ALLOC_ENABLE=1 unless it is set: PyTorch's large CPU tensors then lie on huge pages, as
layerbench's operands do.

cpu-table takes layerbench files from several rounds (run layerbench and measure-cpu in turn, so
that a busy spell falls on both) and prints, per CPU point, the best median of each side, the
layout and implementation oneDNN ran, and the speedup PyTorch time / layerbench time; then the
geometric means per model, batch, precision and pass, over every op and over the memory-bound
ones. PyTorch is needed for measure and measure-cpu only.
Bad input (missing or malformed files, flags, an output that exists: --force replaces a file)
exits with code 2 and one line naming the file or flag; so do measure without PyTorch or a GPU
and measure-cpu without PyTorch.
"""
import json
import math
import os
import statistics
import sys
import time

import project_env

project_env.require()
from layerbench_report import checked_json, results_file
from layerbench_report.command_line import (BadInput, Parser, check_output_file, number,
                                            pass_bytes_through, path_text, write_text)

from layerbench_report.results_file import median_ms

TIMINGS_FILE = "PyTorch timings file"


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
    return [p for p in results.points if str(p.get("device", "")).startswith("gpu")]


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


def measuring_start(args):
    """The results file and PyTorch for a measuring subcommand, after checking its -o."""
    results = results_file.load(args.results)
    check_output_file(args.output, "-o", args.force)
    # PyTorch's CPU tensors of 2 MiB or more on huge pages, as layerbench's operands are
    # (docs/measuring.md, "Pages"); read by its allocator, so set before the import.
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    try:
        import torch
    except ImportError:
        raise BadInput(f"{args.command}: PyTorch is not installed (scripts/setup.sh --torch "
                       "installs it into .venv)") from None
    return results, torch


def measure(args):
    results, torch = measuring_start(args)
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
                  "pass": pass_, "status": "ok", "median_ms": None, "samples": 0, "reason": "",
                  "torch_call": torch_call(p)}
        try:
            set_precision(torch, precision)
            layout = p.get("notes", {}).get("layout", "nhwc")
            if p.get("kind") == "conv":
                if precision == "fp8":
                    raise RuntimeError("PyTorch has no FP8 convolution")
                fn = conv_fn(torch, shape, pass_, dtypes[precision], layout == "nhwc")
            elif p.get("kind") in ("linear", "bmm"):
                fn = gemm_fn(torch, shape, dtypes[precision], precision)
            else:  # the memory-bound layers as the CPU measure builds them, on the GPU
                with torch.device("cuda"):
                    fn = memory_fn(torch, p, dtypes[precision], is_image(p) and layout == "nhwc")
            cold = p.get("timing", {}).get("cache", "cold") == "cold"
            record["median_ms"], record["samples"], hold, cycles_per_ns = time_fn(
                torch, fn, cold, args.warmup, args.max_time_per_point)
            record["torch_kernels"] = kernels_ran(torch, fn)
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


# What each pass of a max pool times in PyTorch, written beside its time. layerbench's forward
# (oneDNN forward_inference, cudnnPoolingForward) writes no argmax. PyTorch 2.15's CPU profile
# shows aten::max_pool2d_with_indices under F.max_pool2d even in inference mode, so say so.
MAX_POOL_CALLS = {
    "fwd": "F.max_pool2d under torch.inference_mode, no indices asked for; PyTorch may still "
           "write int64 indices (on the CPU it ran aten::max_pool2d_with_indices)",
    "bwd_data": "aten.max_pool2d_with_indices_backward, reading int64 indices from a forward "
                "outside the timed region (layerbench's backward takes none)"}
CPU_KERNELS = "not available on the CPU: the profiler names no kernels there"


def torch_call(p):
    """The PyTorch call timed for a point where it is not the op's plain functional one."""
    return MAX_POOL_CALLS.get(p["pass"]) if p["shape"].get("op") == "max_pool" else None


def cuda_kernel_names(events, cuda):
    """The distinct device kernels of a profiled call, in the order they first ran: which
    cuDNN engine or cuBLAS kernel PyTorch chose (cuda: torch.autograd.DeviceType.CUDA)."""
    return list(dict.fromkeys(e.name for e in events if e.device_type == cuda))


def kernels_ran(torch, fn):
    """fn's CUDA kernels, from one more call under torch.profiler after its timing."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return cuda_kernel_names(prof.events(), torch.autograd.DeviceType.CUDA)


# ------------------------------------------------------------------------------------ CPU measure

# The memory-bound kinds of the model files (bench/models/SCHEMA.md).
MEMORY_KINDS = ("batch_norm", "layer_norm", "eltwise", "binary", "pool", "softmax")
BATCH_NORM_EPS, LAYER_NORM_EPS = 1e-5, 1e-6  # nn.BatchNorm2d's, and ViT's LayerNorm(eps=1e-6)


def cpu_points(results):
    """The ok CPU points of the device's primary backend (oneDNN), in the file's order."""
    return [p for p in results.points if p.get("status") == "ok" and results.is_primary(p)
            and str(p.get("device", "")).startswith("cpu")]


def is_image(p):
    """Whether the point's data is an image (N, C, H, W) that PyTorch can hold channels_last:
    convolutions and the memory-bound layers between them, not attention's softmax."""
    if p.get("kind") == "conv":
        return True
    dims = (p.get("shape") or {}).get("dims") or []
    return len(dims) == 4 and p.get("kind") in ("batch_norm", "eltwise", "binary", "pool")


def memory_fn(torch, p, dtype, channels_last):
    """The point's memory-bound layer through PyTorch's functional op (forward), or the aten
    backward function torch.autograd calls for that op (bwd_data), on warm tensors."""
    import torch.nn.functional as F
    shape, kind, pass_ = p["shape"], p["kind"], p["pass"]
    dims = list(shape["dims"])
    fmt = torch.channels_last if channels_last else torch.contiguous_format

    def data(*size):
        return torch.randn(*size).to(dtype).contiguous(memory_format=fmt) if len(size) == 4 \
            else torch.randn(*size).to(dtype)

    def vector(n, low=0.0):  # statistics and scale/shift stay FP32, as in oneDNN
        return torch.rand(n) + low

    x = data(*dims)
    op = shape.get("op")
    if kind == "batch_norm":
        c = dims[1]
        mean, var, weight, bias = vector(c), vector(c, 0.5), vector(c, 0.5), vector(c)
        if pass_ == "fwd":
            return lambda: F.batch_norm(x, mean, var, weight, bias, False, 0.0, BATCH_NORM_EPS)
        if pass_ == "fwd_training":  # the batch's statistics; no running ones, as layerbench
            return lambda: F.batch_norm(x, None, None, weight, bias, True, 0.0, BATCH_NORM_EPS)
        stats = torch.ops.aten.native_batch_norm(x, weight, bias, None, None, True, 0.0,
                                                 BATCH_NORM_EPS)  # y, mean, 1 / std
        save_mean, save_invstd = stats[1], stats[2]
        dy = data(*dims)
        return lambda: torch.ops.aten.native_batch_norm_backward(
            dy, x, weight, None, None, save_mean, save_invstd, True, BATCH_NORM_EPS,
            [True, True, True])
    if kind == "layer_norm":
        d = dims[-1]
        weight, bias = vector(d, 0.5).to(dtype), vector(d).to(dtype)
        if pass_ == "fwd":
            return lambda: F.layer_norm(x, (d,), weight, bias, LAYER_NORM_EPS)
        stats = torch.ops.aten.native_layer_norm(x, (d,), weight, bias, LAYER_NORM_EPS)
        mean, rstd = stats[1], stats[2]
        dy = data(*dims)
        return lambda: torch.ops.aten.native_layer_norm_backward(
            dy, x, (d,), mean, rstd, weight, bias, [True, True, True])
    in_place = bool(shape.get("in_place"))  # as torchvision runs it: relu_, add_
    if kind == "eltwise":
        if pass_ == "fwd":
            if op == "relu":
                return (lambda: torch.relu_(x)) if in_place else (lambda: torch.relu(x))
            return lambda: F.gelu(x)
        dy = data(*dims)
        if op == "relu":
            return lambda: torch.ops.aten.threshold_backward(dy, x, 0)
        return lambda: torch.ops.aten.gelu_backward(dy, x)
    if kind == "binary":  # forward and backward are the same add, as in layerbench
        y = data(*([1] + dims[1:] if shape.get("broadcast") else dims))
        if in_place:
            return lambda: x.add_(y)
        out = torch.empty_like(x)
        return lambda: torch.add(x, y, out=out)
    if kind == "pool":
        window, stride, pad = shape["window"], shape["stride"], shape["pad"]
        if op == "max_pool":
            if pass_ == "fwd":
                def max_pool():  # layerbench's forward writes no indices: ask for none
                    with torch.inference_mode():
                        return F.max_pool2d(x, window, stride, pad)
                return max_pool
            pooled = F.max_pool2d(x, window, stride, pad, return_indices=True)  # y, argmax
            indices = pooled[1]
            dy = torch.randn(pooled[0].shape).to(dtype).contiguous(memory_format=fmt)
            return lambda: torch.ops.aten.max_pool2d_with_indices_backward(
                dy, x, [window] * 2, [stride] * 2, [pad] * 2, [1, 1], False, indices)
        if pass_ == "fwd":
            return lambda: F.avg_pool2d(x, window, stride, pad, count_include_pad=False)
        y = F.avg_pool2d(x, window, stride, pad, count_include_pad=False)
        dy = torch.randn(y.shape).to(dtype).contiguous(memory_format=fmt)
        return lambda: torch.ops.aten.avg_pool2d_backward(
            dy, x, [window] * 2, [stride] * 2, [pad] * 2, False, False, None)
    if kind == "softmax":
        if pass_ == "fwd":
            return lambda: torch.softmax(x, -1)
        y, dy = torch.softmax(x, -1), data(*dims)
        return lambda: torch.ops.aten._softmax_backward_data(dy, y, -1, dtype)
    raise RuntimeError(f"no PyTorch op for kind {kind!r}")


def cpu_conv_fn(torch, shape, pass_, dtype, channels_last):
    import torch.nn.functional as F
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    n, c, h, w, k = (shape[x] for x in ("n", "c", "h", "w", "k"))
    groups = shape.get("groups", 1)
    stride, padding = (shape["stride_h"], shape["stride_w"]), (shape["pad_h"], shape["pad_w"])
    dilation = (shape.get("dil_h", 1), shape.get("dil_w", 1))
    x = torch.randn(n, c, h, w).to(dtype).contiguous(memory_format=fmt)
    weight = torch.randn(k, c // groups, shape["r"], shape["s"]).to(dtype).contiguous(
        memory_format=fmt)
    if pass_ == "fwd":
        return lambda: F.conv2d(x, weight, None, stride, padding, dilation, groups)
    dy = torch.randn(n, k, shape["p"], shape["q"]).to(dtype).contiguous(memory_format=fmt)
    mask = [True, False, False] if pass_ == "bwd_data" else [False, True, False]
    return lambda: torch.ops.aten.convolution_backward(
        dy, x, weight, None, stride, padding, dilation, False, [0, 0], groups, mask)


def cpu_gemm_fn(torch, shape, dtype):
    batch, m, n, k = (shape[x] for x in ("batch", "m", "n", "k"))
    ta, tb = bool(shape.get("trans_a")), bool(shape.get("trans_b"))
    a = torch.randn(batch, *((k, m) if ta else (m, k))).to(dtype)
    b = torch.randn(batch, *((n, k) if tb else (k, n))).to(dtype)
    op_a = a.transpose(-1, -2) if ta else a
    op_b = b.transpose(-1, -2) if tb else b
    if batch == 1:
        out = torch.empty(m, n, dtype=dtype)
        return lambda: torch.mm(op_a[0], op_b[0], out=out)
    out = torch.empty(batch, m, n, dtype=dtype)
    return lambda: torch.bmm(op_a, op_b, out=out)


def cpu_fn(torch, p, dtype, channels_last):
    kind = p.get("kind")
    if kind == "conv":
        return cpu_conv_fn(torch, p["shape"], p["pass"], dtype, channels_last)
    if kind in ("linear", "bmm"):
        return cpu_gemm_fn(torch, p["shape"], dtype)
    return memory_fn(torch, p, dtype, channels_last)


def cpu_time_ms(fn, warmup, max_time, min_runs=5, max_runs=1000):
    """The median of timed runs after warm-up, by time.perf_counter (PyTorch's CPU ops return
    when done)."""
    for _ in range(warmup):
        fn()
    times = []
    began = time.perf_counter()
    while len(times) < min_runs or (time.perf_counter() - began < max_time and
                                    len(times) < max_runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def measure_cpu(args):
    results, torch = measuring_start(args)
    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()
    dtypes = {"fp32": torch.float32, "bf16": torch.bfloat16}
    todo = [p for p in cpu_points(results) if p.get("precision") in dtypes]
    layouts = {id(p): ("nchw", "channels_last") if is_image(p) else ("contiguous",)
               for p in todo}
    best = {(id(p), layout): None for p in todo for layout in layouts[id(p)]}
    reasons = {}
    # Every point and layout once per round, the rounds one after another, so that a slow spell
    # of a busy machine falls on one round of each and the best of the rounds is kept.
    for round_ in range(args.rounds):
        for i, p in enumerate(todo, 1):
            for layout in layouts[id(p)]:
                if (id(p), layout) in reasons:
                    continue
                try:
                    fn = cpu_fn(torch, p, dtypes[p["precision"]], layout == "channels_last")
                    with torch.inference_mode():
                        ms = cpu_time_ms(fn, args.warmup, args.max_time_per_point)
                except Exception as e:  # one layer PyTorch cannot run must not stop the others
                    reasons[(id(p), layout)] = (str(e).splitlines() or [type(e).__name__])[0][:200]
                    continue
                key = (id(p), layout)
                best[key] = ms if best[key] is None else min(best[key], ms)
        print(f"round {round_ + 1} of {args.rounds}: {len(todo)} CPU points", flush=True)
    out = {"torch": torch.__version__, "device": "cpu", "threads": torch.get_num_threads(),
           "rounds": args.rounds, "load_average": [list(load_before), list(os.getloadavg())],
           "points": []}
    for p in todo:
        timed = {layout: best[(id(p), layout)] for layout in layouts[id(p)]
                 if best[(id(p), layout)] is not None}
        record = {"model": p["model"], "op": p["op"], "batch": p["batch"],
                  "precision": p["precision"], "pass": p["pass"], "status": "ok",
                  "median_ms": None, "layout": None, "layouts_ms": timed, "reason": "",
                  "torch_call": torch_call(p), "torch_kernels": CPU_KERNELS}
        if timed:
            record["layout"] = min(timed, key=timed.get)
            record["median_ms"] = timed[record["layout"]]
        else:
            record["status"] = "failed"
            record["reason"] = "; ".join(reasons.get((id(p), layout), "")
                                         for layout in layouts[id(p)])
        out["points"].append(record)
    write_text(args.output, json.dumps(out, indent=1) + "\n", "-o")
    return 0


# ------------------------------------------------------------------------------------------ table

# A layer counts as at PyTorch's speed within 3% of its time, or faster (a choice).
TARGET_RATIO = 1.03


def fmt_ms(v):
    return "-" if v is None else f"{v:.4f}"


def table_text(results, torch_results=None):
    torch_by_key = {}
    if torch_results:
        torch_by_key = {point_key(t): t for t in torch_results["points"]}
    header = ("layer", "pass", "batch", "precision", "status", "layerbench ms", "TFLOP/s", "% peak",
              "PyTorch ms", "ratio", "rel_l2")
    devices = results.context.get("devices", [])
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
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    lines = [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]
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


def cpu_table(args):
    results_files = [results_file.load(path) for path in args.results]
    torch_files = [load_timings(path) for path in args.torch or []]
    text = cpu_table_text(results_files, torch_files)
    if args.output:
        check_output_file(args.output, "-o", args.force)
        write_text(args.output, text, "-o")
    else:
        sys.stdout.write(text)
    return 0


def table(args):
    results = results_file.load(args.results)
    torch_results = load_timings(args.torch) if args.torch else None
    text = table_text(results, torch_results)
    if args.output:
        check_output_file(args.output, "-o", args.force)
        write_text(args.output, text, "-o")
    else:
        sys.stdout.write(text)
    return 0


def measure_parser(sub, name, help, max_time_s, first_call):
    """A measuring subcommand: a results file in, PyTorch's timings out."""
    p = sub.add_parser(name, help=help)
    p.add_argument("results", type=path_text, help="layerbench results file (JSON)")
    p.add_argument("-o", "--output", required=True, type=path_text,
                   help="where to write the PyTorch timings (JSON)")
    p.add_argument("--max-time-per-point", type=number(float, above=0), default=max_time_s,
                   help=f"seconds of timed runs per point after the first 5 (default {max_time_s})")
    p.add_argument("--warmup", type=number(int, minimum=1), default=3,
                   help=f"untimed runs first, at least 1: the first call is {first_call} "
                        "(default 3)")
    return p


def main(argv=None):
    pass_bytes_through()
    parser = Parser(prog="torch_layers.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = measure_parser(sub, "measure", "time the results file's GPU points through PyTorch",
                       0.25, "cuDNN's autotuning")
    t = sub.add_parser("table", help="print layerbench against PyTorch, one row per GPU point")
    t.add_argument("results", type=path_text, help="layerbench results file (JSON)")
    t.add_argument("--torch", type=path_text, help="PyTorch timings written by `measure`")
    t.add_argument("-o", "--output", type=path_text,
                   help="write the table here instead of standard output")
    mc = measure_parser(sub, "measure-cpu", "time the results file's CPU points through PyTorch",
                        0.1, "oneDNN's own set-up")
    mc.add_argument("--rounds", type=number(int, minimum=1), default=3,
                    help="rounds over every point and layout, the best kept (default 3)")
    mc.add_argument("--threads", type=number(int, minimum=1), default=1,
                    help="PyTorch's threads (default 1)")
    ct = sub.add_parser("cpu-table", help="print layerbench against PyTorch, one row per CPU "
                        "point, the best of several rounds' files")
    ct.add_argument("results", nargs="+", type=path_text,
                    help="layerbench results files (JSON), one per round")
    ct.add_argument("--torch", nargs="+", type=path_text,
                    help="PyTorch timings written by `measure-cpu`")
    ct.add_argument("-o", "--output", type=path_text,
                    help="write the table here instead of standard output")
    for sub_parser in (m, t, mc, ct):
        sub_parser.add_argument("--force", action="store_true",
                                help="replace the -o file if it exists (a regular file only)")
    commands = {"measure": measure, "table": table, "measure-cpu": measure_cpu,
                "cpu-table": cpu_table}
    words = sys.argv[1:] if argv is None else list(argv)
    first = words[0] if words else None
    if first not in (*commands, "-h", "--help"):
        # argparse would say "the following arguments are required: command" for a flag, or take
        # the flag's value for the command ("invalid choice: 't.json'").
        found = "nothing" if first is None else repr(first)
        print(f"torch_layers.py: the first argument is the command, one of "
              f"{', '.join(commands)} (found {found}; --help says what each does)",
              file=sys.stderr)
        return 2
    args = parser.parse_args(words)
    try:
        return commands[args.command](args)
    except (BadInput, checked_json.BadResultsFile) as e:
        print(f"torch_layers.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
