#!/usr/bin/env python3
"""Time whole models end to end in PyTorch, to check layerbench's model estimate against them.

  torch_models.py -o TORCH.json [--model resnet50,vit_b_16] [--batch 1,8] [--precision fp32]
                  [--pass fwd,train] [--device cpu|gpu|all] [--threads N] [--min-time S]
                  [--max-time S] [--noise-target X] [--no-profile]

torchvision's resnet50, vit_b_16 and vit_l_16 with random weights (nothing is downloaded).
- fwd: eval mode under torch.inference_mode, as a framework serves the model.
- train: one training step without the optimizer: train mode, forward, the loss (the sum of the
  outputs, in FP32) and backward. That is layerbench's "train" (forward + backward-data +
  backward-weights of every layer, no data gradient for the input layer, no optimizer); the
  gradients are set to None before each step, outside the timed region, as
  optimizer.zero_grad() does.
Precisions: fp32 (no TF32 anywhere), tf32 (GPU only: TF32 allowed for matmuls and cuDNN),
fp16 and bf16 (torch.autocast, FP32 weights, as mixed-precision training and inference run).
Timing as layerbench's: warm-up runs outside the timed region (at least --warmup-runs and
--warmup-min-time), then timed runs until the relative noise (1.4826 x MAD / median) is at most
--noise-target after --min-time and 5 runs, or --max-time has passed. Each run is timed with
time.perf_counter on the CPU, and between CUDA events on a GPU (after a synchronize, so runs do
not overlap). The median, min, max and noise are written. Then one more run under
torch.profiler gives the time per operator group (the attribution in the report); the time
outside the operators is the unprofiled median less their sum, the profiled run's own wall time
written beside it; --no-profile skips it. ResNet-50 runs channels_last and the ViTs contiguous,
as layerbench lays their layers out (--memory-format overrides).
The file's schema is in reports/results-schema.md ("Framework timing files"). Bad flags and an
-o that exists (--force replaces a regular file) exit 2 with one line naming the flag; without
PyTorch the script exits 2 and says how to install it (scripts/setup.sh --torch).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import platform
import re
import socket
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import project_env

project_env.require()
from layerbench_report import framework_file
from layerbench_report.command_line import (BadInput, Parser, check_output_file, number,
                                            pass_bytes_through, path_text, write_text)

MODELS = ("resnet50", "vit_b_16", "vit_l_16")
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
PASSES = ("fwd", "train")
IMAGE = (3, 224, 224)  # what the three models read


# ----------------------------------------------------------------------------------- statistics

def relative_noise(times):
    """1.4826 x the median absolute deviation over the median (layerbench's noise)."""
    med = statistics.median(times)
    return 1.4826 * statistics.median(abs(t - med) for t in times) / med if med > 0 else 0.0


def summarize(times_s, stopped_by):
    return {"median_ms": statistics.median(times_s) * 1e3, "min_ms": min(times_s) * 1e3,
            "max_ms": max(times_s) * 1e3, "noise": relative_noise(times_s),
            "runs": len(times_s), "stopped_by": stopped_by}


def should_stop(times, elapsed_s, rule):
    """layerbench's stopping rule (harness/measure/stopping_rule.cpp): None to go on, else why."""
    if len(times) >= rule.max_runs:
        return "max_samples"
    if len(times) >= rule.min_runs and elapsed_s >= rule.min_time and \
            relative_noise(times) <= rule.noise_target:
        return "noise"
    if elapsed_s >= rule.max_time:
        return "time_cap"
    return None


def sample(run_once, rule, clock=time.perf_counter):
    """Warm-up, then timed runs until the rule stops them. run_once() returns its seconds.
    Every one of the --warmup-runs runs, however long: the first ones hold cuDNN's algorithm
    search (cudnn.benchmark) and the allocator's growth, which must not fall in the timed runs."""
    warm_start = clock()
    warmups = 0
    while warmups < rule.warmup_runs or clock() - warm_start < rule.warmup_min_time:
        run_once()
        warmups += 1
    times, start = [], clock()
    while True:
        times.append(run_once())
        why = should_stop(times, clock() - start, rule)
        if why:
            return dict(summarize(times, why), warmup_runs=warmups)


# ------------------------------------------------------------------------------------ arguments

def csv_of(choices, what):
    def parse(text):
        items = [x.strip() for x in text.split(",") if x.strip()]
        bad = [x for x in items if x not in choices]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"{what} {','.join(bad) or repr(text)}: expected a comma list of "
                f"{', '.join(choices)}")
        return list(dict.fromkeys(items))
    return parse


def batches(text):
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        values = []
    if not values or any(not 1 <= b <= 4096 for b in values):
        raise argparse.ArgumentTypeError(f"batch {text!r}: expected a comma list of integers "
                                         "from 1 to 4096")
    return list(dict.fromkeys(values))


POSITIVE_INT = number(int, minimum=1)
POSITIVE_SECONDS = number(float, above=0)


def parse_args(argv):
    ap = Parser(prog="torch_models.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True, type=path_text,
                    help="the framework timing file to write")
    ap.add_argument("--force", action="store_true",
                    help="replace the -o file if it exists (a regular file only)")
    ap.add_argument("--model", type=csv_of(MODELS, "model"), default=["resnet50", "vit_b_16"])
    ap.add_argument("--batch", type=batches, default=[1, 8])
    ap.add_argument("--precision", type=csv_of(PRECISIONS, "precision"), default=["fp32"])
    ap.add_argument("--pass", dest="passes", type=csv_of(PASSES, "pass"), default=["fwd"])
    ap.add_argument("--device", choices=("cpu", "gpu", "all"), default="cpu",
                    help="all: the CPU and, when PyTorch sees one, the first GPU")
    ap.add_argument("--threads", type=POSITIVE_INT,
                    help="CPU threads (torch.set_num_threads; default: PyTorch's)")
    ap.add_argument("--memory-format", choices=("auto", "contiguous", "channels_last"),
                    default="auto", help="of the input and weights (default auto: each "
                    "model's layout in layerbench, MODEL_MEMORY_FORMAT)")
    ap.add_argument("--warmup-runs", type=POSITIVE_INT, default=10,
                    help="untimed runs first, all of them whatever they take (default 10)")
    ap.add_argument("--warmup-min-time", type=POSITIVE_SECONDS, default=0.05)
    ap.add_argument("--min-time", type=POSITIVE_SECONDS, default=0.1,
                    help="seconds of timed runs at least (default 0.1)")
    ap.add_argument("--max-time", type=POSITIVE_SECONDS, default=1.0,
                    help="seconds of timed runs at most, then the noise target is given up "
                         "(default 1.0)")
    ap.add_argument("--min-runs", type=POSITIVE_INT, default=5)
    ap.add_argument("--max-runs", type=POSITIVE_INT, default=10000)
    ap.add_argument("--noise-target", type=number(float, above=0, below=1), default=0.01)
    ap.add_argument("--no-profile", dest="profile", action="store_false",
                    help="skip the profiled run that splits the time by operator group")
    args = ap.parse_args(argv)
    if args.min_time > args.max_time:
        ap.error("--min-time must not exceed --max-time")
    return args


# ------------------------------------------------------------------------------------ PyTorch

def versions(torch, torchvision):
    """What was loaded: PyTorch's bundled oneDNN and MKL are read from torch.__config__.show()."""
    config = torch.__config__.show()

    def found(pattern):
        m = re.search(pattern, config)
        return m.group(1).strip() if m else None
    cuda = torch.cuda.is_available()
    return {"torch": torch.__version__, "torchvision": torchvision.__version__,
            "python": platform.python_version(),
            "onednn": found(r"(?:oneDNN|MKL-DNN)\s+(v[\d.]+[^\n]*)"),
            "mkl": found(r"Math Kernel Library Version ([^\n]+)"),
            "mkldnn_enabled": bool(torch.backends.mkldnn.is_available()),
            "cpu_capability": found(r"CPU capability usage: ([^\n]+)"),
            "cuda": torch.version.cuda if cuda else None,
            "cudnn": torch.backends.cudnn.version() if cuda else None,
            "config": config}


def cpu_name():
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "CPU"
    m = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else platform.processor() or "CPU"


def devices_of(torch, which):
    out = []
    if which in ("cpu", "all"):
        out.append({"id": "cpu", "kind": "cpu", "name": cpu_name()})
    if which in ("gpu", "all") and torch.cuda.is_available():
        out.append({"id": "gpu:0", "kind": "gpu", "name": torch.cuda.get_device_name(0)})
    return out


def set_math(torch, precision, on_gpu):
    """TF32 only for tf32 (matmuls and cuDNN), cuDNN's autotuner on, as a tuned deployment."""
    if on_gpu:
        from torch_compare.gpu_measure import set_precision
        set_precision(torch, precision)
        torch.backends.cudnn.benchmark = True


# layerbench runs ResNet-50's convolutions, pools and batch norms NHWC (bench/models/resnet50.json,
# "layout" in its results files), so PyTorch runs it channels_last; ViT's layers are GEMMs on
# tokens, where the memory format only touches the patch embedding.
MODEL_MEMORY_FORMAT = {"resnet50": "channels_last", "vit_b_16": "contiguous",
                       "vit_l_16": "contiguous"}


def memory_format_of(model_name, choice):
    """The memory format a model runs in: --memory-format, or with auto layerbench's layout."""
    return MODEL_MEMORY_FORMAT[model_name] if choice == "auto" else choice


def build_model(torchvision, name, device, memory_format):
    return getattr(torchvision.models, name)(weights=None).to(device, memory_format=memory_format)


def step_fn(torch, model, x, pass_, precision, device_type):
    """One forward (fwd) or training step (train) as a function of no arguments."""
    autocast = torch.autocast(device_type, dtype={"fp16": torch.float16,
                                                  "bf16": torch.bfloat16}[precision]) \
        if precision in ("fp16", "bf16") else None

    def maybe_autocast():
        return autocast if autocast is not None else contextlib.nullcontext()

    if pass_ == "fwd":
        model.eval()

        def forward():
            with torch.inference_mode(), maybe_autocast():
                model(x)
        return forward, None
    model.train()

    def train_step():
        with maybe_autocast():
            loss = model(x).float().sum()
        loss.backward()

    def clear_grads():
        model.zero_grad(set_to_none=True)
    return train_step, clear_grads


def timer(torch, fn, before, on_gpu):
    """run_once() for sample(): its seconds, from CUDA events on a GPU."""
    if on_gpu:
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def run_once():
            if before:
                before()
            torch.cuda.synchronize()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            return start.elapsed_time(stop) / 1e3
        return run_once

    def run_once():
        if before:
            before()
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    return run_once


def outside_operators_ms(median_ms, group_ms):
    """The unprofiled median less the operators' times of the profiled run, at least 0: the
    profiler's own cost falls in its run's wall time, not in the time outside the operators."""
    return max(median_ms - sum(group_ms.values()), 0.0)


def profile_groups(torch, fn, before, on_gpu, median_ms):
    """One run under torch.profiler: {wall_ms, group_ms, outside_ms, time_base}: each operator's
    self time (its kernels' device time on a GPU) added to its group
    (framework_file.operator_group); outside_ms is the time outside them all
    (outside_operators_ms: on the CPU Python, module calls and the autograd engine; on a GPU
    also the device's idle gaps), and wall_ms the profiled run's own time, profiler included."""
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if on_gpu else [])
    if before:
        before()
    with profile(activities=activities) as prof:
        t0 = time.perf_counter()
        fn()
        if on_gpu:
            torch.cuda.synchronize()
        wall_ms = (time.perf_counter() - t0) * 1e3
    groups = {}
    for e in prof.key_averages():
        if not e.key.startswith("aten::"):
            continue
        own = getattr(e, "self_device_time_total", 0) if on_gpu else e.self_cpu_time_total
        group = framework_file.operator_group(e.key)
        groups[group] = groups.get(group, 0.0) + own / 1e3
    return {"wall_ms": wall_ms, "group_ms": groups, "time_base": "device" if on_gpu else "cpu",
            "outside_ms": outside_operators_ms(median_ms, groups)}


def measure_one(torch, torchvision, args, device, model_name, pass_, precision, batch):
    on_gpu = device["kind"] == "gpu"
    run = {"model": model_name, "pass": pass_, "precision": precision, "batch": batch,
           "device": device["id"],
           "memory_format": memory_format_of(model_name, args.memory_format)}
    if precision == "tf32" and not on_gpu:
        return dict(run, status="unsupported", reason="TF32 is a GPU precision (Tensor Cores)")
    dev = "cuda" if on_gpu else "cpu"
    fmt = {"contiguous": torch.contiguous_format,
           "channels_last": torch.channels_last}[run["memory_format"]]
    try:
        set_math(torch, precision, on_gpu)
        torch.manual_seed(0)
        model = build_model(torchvision, model_name, dev, fmt)
        x = torch.randn(batch, *IMAGE, device=dev).contiguous(memory_format=fmt)
        fn, before = step_fn(torch, model, x, pass_, precision, dev)
        timing = sample(timer(torch, fn, before, on_gpu), args)
        run.update(status="ok", timing=timing,
                   images_per_s=batch / (timing["median_ms"] / 1e3))
        if args.profile:
            run["profile"] = profile_groups(torch, fn, before, on_gpu, timing["median_ms"])
    except Exception as e:  # one configuration PyTorch cannot run must not stop the others
        oom = "out of memory" in str(e).lower()
        reason = (str(e).splitlines() or [type(e).__name__])[0][:300]
        run.update(status="oom" if oom else "failed", reason=reason)
    finally:
        if on_gpu:
            torch.cuda.empty_cache()
    return run


def write(path, doc):
    """Atomically, so that a killed run leaves the previous complete state."""
    write_text(path, json.dumps(doc, indent=1) + "\n", "-o")


def main(argv=None):
    pass_bytes_through()
    args = parse_args(argv)
    try:
        check_output_file(args.output, "-o", args.force)
        return measure_all(args)
    except BadInput as e:
        print(f"torch_models.py: {e}", file=sys.stderr)
        return 2


def measure_all(args):
    try:
        import torch
        import torchvision
    except ImportError as e:
        print(f"torch_models.py: PyTorch is not installed ({e}); scripts/setup.sh --torch "
              "installs torch and torchvision into .venv", file=sys.stderr)
        return 2
    if args.threads:
        torch.set_num_threads(args.threads)
    devices = devices_of(torch, args.device)
    if args.device == "gpu" and not devices:
        print("torch_models.py: --device gpu: PyTorch sees no CUDA device", file=sys.stderr)
        return 2
    doc = {"schema": framework_file.SCHEMA, "framework": "pytorch", "status": "incomplete",
           "context": {"command_line": " ".join(sys.argv), "host": socket.gethostname(),
                       "os": f"{platform.system()} {platform.release()}",
                       "start_time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       "end_time": None, "threads": torch.get_num_threads(),
                       "interop_threads": torch.get_num_interop_threads(),
                       "versions": versions(torch, torchvision), "devices": devices,
                       "timing": {k: getattr(args, k) for k in (
                           "warmup_runs", "warmup_min_time", "min_time", "max_time",
                           "min_runs", "max_runs", "noise_target")}},
           "runs": []}
    for device in devices:
        for model_name in args.model:
            for pass_ in args.passes:
                for precision in args.precision:
                    for batch in args.batch:
                        run = measure_one(torch, torchvision, args, device, model_name, pass_,
                                          precision, batch)
                        doc["runs"].append(run)
                        write(args.output, doc)
                        shown = f"{run['timing']['median_ms']:.2f} ms" \
                            if run["status"] == "ok" else f"{run['status']}: {run['reason']}"
                        print(f"{device['id']} {model_name} {pass_} {precision} b{batch}: "
                              f"{shown}", flush=True)
    doc["status"] = "complete"
    doc["context"]["end_time"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    write(args.output, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
