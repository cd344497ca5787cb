"""`measure`: the results file's GPU points timed through PyTorch with CUDA events."""
import json
import statistics
import time

from layerbench_report.command_line import BadInput, write_text
from layerbench_report.op_kinds import GEMM_KINDS

from torch_compare.layer_ops import is_image, memory_fn, torch_call
from torch_compare.timings import gpu_points, measuring_start


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
            elif p.get("kind") in GEMM_KINDS:
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
