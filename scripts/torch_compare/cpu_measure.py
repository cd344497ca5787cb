"""`measure-cpu`: the results file's CPU points timed through PyTorch, in both layouts."""
import json
import os
import statistics
import time

from layerbench_report.command_line import write_text
from layerbench_report.op_kinds import GEMM_KINDS

from torch_compare.layer_ops import CPU_KERNELS, is_image, memory_fn, torch_call
from torch_compare.timings import cpu_points, measuring_start


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
    if kind in GEMM_KINDS:
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
