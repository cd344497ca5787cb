"""scripts/torch_layers.py without PyTorch: the table, the argument handling and bad input.

The PyTorch timings written here are TEST DATA invented for the ratio arithmetic, not measurements.
"""
import contextlib
import importlib.util
import json
import sys
import types

import pytest

from conftest import FIXTURES, GPU_A, ROOT, SCRIPTS, import_file, read_fixture, run_script
from torch_compare import gpu_measure, layer_ops, tables

# A real CPU run of ResNet-50 and ViT-B/16 at batch 1 and 8 with the memory-bound layers.
CPU_MEMOPS = FIXTURES / "real/models/layerbench_models_memops_cpu.json"
MEMORY_KINDS = {"batch_norm", "layer_norm", "eltwise", "binary", "pool", "softmax"}


def gpu_ok_points():
    data = read_fixture(GPU_A)
    return [p for p in data["points"] if p["device"].startswith("gpu") and p["status"] == "ok"]


def test_table_without_torch_lists_every_gpu_point():
    r = run_script("torch_layers.py", "table", GPU_A)
    assert r.returncode == 0, r.stderr
    data = read_fixture(GPU_A)
    gpu = [p for p in data["points"] if p["device"].startswith("gpu")]
    lines = r.stdout.splitlines()
    assert lines[0].split()[:2] == ["layer", "pass"]
    assert f"{len(gpu)} GPU points" in r.stdout
    assert "no PyTorch timings given" in r.stdout
    # Every non-ok point shows its status and reason.
    assert any("unsupported" in line for line in lines)


def test_table_ratios_against_torch_timings(tmp_path):
    points = gpu_ok_points()[:3]
    # TEST DATA: PyTorch "took" exactly twice layerbench's time on each point.
    fake = {"torch": "test-data", "points": [
        {"model": p["model"], "op": p["op"], "batch": p["batch"], "precision": p["precision"],
         "pass": p["pass"], "status": "ok", "median_ms": 2 * p["timing"]["median_ms"], "reason": ""}
        for p in points]}
    torch_file = tmp_path / "torch.json"
    torch_file.write_text(json.dumps(fake))
    out = tmp_path / "table.txt"
    r = run_script("torch_layers.py", "table", GPU_A, "--torch", torch_file, "-o", out)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    text = out.read_text()
    rows, summary = text.split("\n\n", 1)
    assert rows.count(" 0.500 ") == 3
    assert "3 compared: geometric-mean ratio 0.500, 3 within 3% of PyTorch or faster" in summary
    groups = {}
    for p in points:
        for group in tables.comparison_groups(p):
            groups[(group, p["precision"])] = groups.get((group, p["precision"]), 0) + 1
    for (group, precision), count in groups.items():
        assert (f"  {group} {precision}: {count} compared, geometric-mean ratio 0.500, "
                "worst 0.500") in summary


def test_groups_and_percent_at_clock():
    assert tables.comparison_groups({"kind": "batch_norm", "pass": "bwd_data"}) == \
        ["memory-bound", "batch norm bwd_data"]
    assert tables.comparison_groups({"kind": "eltwise"}) == ["memory-bound"]
    assert tables.comparison_groups({"kind": "conv"}) == ["convolution"]
    assert tables.comparison_groups({"kind": "gemm"}) == ["matrix product"]
    # TEST DATA: 800 TFLOP/s of a 1000 peak at the 1980 MHz boost, run at 1800 MHz: 88.0%.
    point = {"telemetry": {"sm_clock_median_mhz": 1800}}
    assert tables.percent_at_clock(point, 800, 1000, {"sm_clock_max_mhz": "1980"}) == "88.0"
    assert tables.percent_at_clock(point, 800, 1000, {}) == "-"
    assert tables.percent_at_clock({}, 800, 1000, {"sm_clock_max_mhz": "1980"}) == "-"


def test_load_power_and_throttled_columns():
    # TEST DATA: 140 J over a 0.2 s load window is 700 W; the readings said 655.
    point = {"telemetry": {"energy_j": 140, "window_s": 0.2, "samples": 50,
                           "throttled_samples": 7, "retaken_samples": 2},
             "notes": {"load_power_readings_w": "655"}}
    assert tables.load_watts(point) == ("700", "655")
    assert tables.throttled_text(point) == "5 of 50"
    assert tables.load_watts({}) == ("-", "-")
    assert tables.throttled_text({"telemetry": {"samples": 9}}) == "no"
    assert tables.throttled_text({}) == "-"


@pytest.mark.parametrize("args", [
    ["table"],
    ["measure", "x.json"],
    ["measure", "x.json", "-o", "y.json", "--max-time-per-point", "0"],
    ["measure", "x.json", "-o", "y.json", "--warmup", "0"],
    ["compare", "x.json"],
    ["measure-cpu", "x.json", "-o", "y.json", "--rounds", "0"],
    ["measure-cpu", "x.json", "-o", "y.json", "--threads", "0"],
    ["cpu-table"],
])
def test_bad_arguments_exit_2(args):
    r = run_script("torch_layers.py", *args)
    assert r.returncode == 2
    assert r.stderr.startswith("torch_layers.py") and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("flag, value, words", [
    ("--max-time-per-point", "nan", "'nan' is not a finite number"),
    ("--max-time-per-point", "inf", "'inf' is not a finite number"),
    ("--max-time-per-point", "1e400", "'1e400' is not a finite number"),
    ("--max-time-per-point", "0", "'0': must be above 0"),
    ("--warmup", "0", "'0': must be at least 1"),
    ("--warmup", "1e400", "'1e400' is not an integer"),
])
def test_numeric_flags_refuse_nan_and_infinity(tmp_path, flag, value, words):
    """NaN once passed the check `<= 0`: every comparison with NaN is false."""
    r = run_script("torch_layers.py", "measure", GPU_A, "-o", tmp_path / "t.json", flag, value)
    assert r.returncode == 2 and f"argument {flag}: {words}" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


def torch_timings(tmp_path, edit):
    doc = {"torch": "test-data", "points": [
        {"model": p["model"], "op": p["op"], "batch": p["batch"], "precision": p["precision"],
         "pass": p["pass"], "status": "ok", "median_ms": 1.0, "reason": ""}
        for p in gpu_ok_points()[:2]]}
    edit(doc)
    path = tmp_path / "torch.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["points"][0].update(median_ms=float("nan")),
     "points[0].median_ms: expected a finite number"),
    (lambda d: d["points"][1].update(median_ms=-2), "points[1].median_ms: must be positive"),
    (lambda d: d["points"].append(7), "points[2]: expected an object"),
    (lambda d: d["points"][0].update(reason=5), "points[0].reason: expected a string"),
    (lambda d: d.update(points={}), "points: expected an array"),
])
def test_a_bad_timings_file_is_exit_2_naming_the_field(tmp_path, edit, words):
    path = torch_timings(tmp_path, edit)
    r = run_script("torch_layers.py", "table", GPU_A, "--torch", path)
    assert r.returncode == 2 and r.stderr.startswith(f"torch_layers.py: {path}: "), r.stderr
    assert words in r.stderr and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("content, words", [
    (b'{"schema": "layerbench-results/1", "host": "caf\xe9"}', "not UTF-8 text"),
    (b"[" * 100_000, "nested too deeply"),
    (b'{"schema": "layerbench-results/1", "status": "complete", "points": [1]}',
     "context: missing"),
], ids=["not_utf8", "nested_too_deeply", "not_a_results_file"])
@pytest.mark.parametrize("command", ["table", "measure"])
def test_a_results_file_is_read_as_strictly_as_the_report_reads_it(tmp_path, content, words,
                                                                    command):
    path = tmp_path / "results.json"
    path.write_bytes(content)
    out = ["-o", tmp_path / "t.json"] if command == "measure" else []
    r = run_script("torch_layers.py", command, path, *out)
    assert r.returncode == 2 and r.stderr.startswith(f"torch_layers.py: {path}: "), r.stderr
    assert words in r.stderr and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("output, force, words", [
    ("taken.txt", [], "taken.txt: already exists; pass --force"),
    ("/dev/null", ["--force"], "/dev/null: exists and is not a regular file"),
    ("taken.txt/table.txt", ["--force"], "taken.txt is not a folder"),
    ("/proc/nope/table.txt", ["--force"], "/proc/nope cannot be created"),
])
@pytest.mark.parametrize("command", ["table", "measure"])
def test_an_output_it_may_not_write_is_exit_2(tmp_path, output, force, words, command):
    (tmp_path / "taken.txt").write_text("mine")
    output = output if output.startswith("/") else tmp_path / output
    r = run_script("torch_layers.py", command, GPU_A, "-o", output, *force)
    assert r.returncode == 2 and r.stderr.startswith("torch_layers.py: -o: "), r.stderr
    assert words in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert (tmp_path / "taken.txt").read_text() == "mine"


def test_force_replaces_a_table(tmp_path):
    (tmp_path / "table.txt").write_text("an older table")
    r = run_script("torch_layers.py", "table", GPU_A, "-o", tmp_path / "table.txt", "--force")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "table.txt").read_text().startswith("layer")


def test_missing_and_malformed_files_are_named(tmp_path):
    r = run_script("torch_layers.py", "table", tmp_path / "absent.json")
    assert r.returncode == 2
    assert "absent.json" in r.stderr and "no such file" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = run_script("torch_layers.py", "table", bad)
    assert r.returncode == 2 and "bad.json: not valid JSON" in r.stderr, r.stderr
    no_points = tmp_path / "empty.json"
    no_points.write_text("{}")
    r = run_script("torch_layers.py", "table", GPU_A, "--torch", no_points)
    assert r.returncode == 2 and "empty.json" in r.stderr


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None,
                    reason="PyTorch is installed here")
def test_measure_without_torch_says_so(tmp_path):
    r = run_script("torch_layers.py", "measure", GPU_A, "-o", tmp_path / "t.json")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "PyTorch is not installed" in r.stderr
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("args, found", [(["--bogus"], "'--bogus'"), (["-o", "t.json"], "'-o'"),
                                         ([], "nothing")])
def test_a_first_argument_that_is_no_command_is_named(args, found):
    # argparse said "the following arguments are required: command" or "invalid choice: 't.json'"
    r = run_script("torch_layers.py", *args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert (f"the first argument is the command, one of measure, table, measure-cpu, cpu-table "
            f"(found {found};") in r.stderr


@pytest.fixture
def fake_torch(monkeypatch):
    """A stand-in for PyTorch (TEST DATA: every timed run "takes" 0.5 ms) that records calls."""
    from unittest import mock
    torch = mock.MagicMock(name="torch")
    torch.__version__ = "0.0-fake"
    torch.version.cuda = "0.0"
    torch.cuda.is_available.return_value = True
    torch.cuda.get_device_name.return_value = "Fake GPU (test data)"
    torch.cuda.get_device_properties.return_value.L2_cache_size = 1024
    torch.cuda.Event.return_value.elapsed_time.return_value = 0.5
    torch.backends.cudnn.version.return_value = 0
    functional = mock.MagicMock(name="torch.nn.functional")
    torch.nn.functional = functional
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.nn", torch.nn)
    monkeypatch.setitem(sys.modules, "torch.nn.functional", functional)
    return torch


def test_measure_drives_every_ok_gpu_point(fake_torch, tmp_path):
    torch_layers = import_file(SCRIPTS / "torch_layers.py")
    out = tmp_path / "torch.json"
    assert torch_layers.main(["measure", str(GPU_A), "-o", str(out),
                              "--max-time-per-point", "0.001"]) == 0
    written = json.loads(out.read_text())
    ok = gpu_ok_points()
    assert len(written["points"]) == len(ok)
    for record, point in zip(written["points"], ok):
        assert record["precision"] == point["precision"]
        if point["kind"] == "conv" and point["precision"] == "fp8":
            assert record["status"] == "failed" and "FP8 convolution" in record["reason"]
        elif point["precision"] == "fp8" and point["shape"]["batch"] != 1:
            assert record["status"] == "failed" and "2-D only" in record["reason"]
        else:
            assert record["status"] == "ok", record
            assert record["median_ms"] == 0.5 and record["samples"] >= 5
    assert fake_torch.backends.cudnn.benchmark is True
    # The GEMMs went through mm/bmm/_scaled_mm, the convolutions through conv2d or the backward op.
    kinds = {p["kind"] for p in ok}
    if "conv" in kinds:
        assert (fake_torch.nn.functional.conv2d.called or
                fake_torch.ops.aten.convolution_backward.called)
    if kinds & {"linear", "bmm"}:
        assert fake_torch.mm.called or fake_torch.bmm.called


# A real H200 run of one of each memory-bound layer, forward and training, FP32 and BF16.
H200_MEMORY = ROOT / "reports/reference/gpu-check-20261204T1702Z-memory.json"


def test_measure_builds_memory_bound_gpu_layers_on_the_gpu(fake_torch, tmp_path):
    """The memory-bound GPU points are built by the CPU measure's layer builder with CUDA as the
    default device, not sent to the GEMM builder (which failed every one on the H200)."""
    torch_layers = import_file(SCRIPTS / "torch_layers.py")
    out = tmp_path / "torch.json"
    assert torch_layers.main(["measure", str(H200_MEMORY), "-o", str(out),
                              "--max-time-per-point", "0.001"]) == 0
    points = [p for p in read_fixture(H200_MEMORY)["points"] if p["status"] == "ok"]
    assert {p["kind"] for p in points} == MEMORY_KINDS
    written = json.loads(out.read_text())["points"]
    assert len(written) == len(points)
    assert [r["status"] for r in written] == ["ok"] * len(points), written
    fake_torch.device.assert_any_call("cuda")
    functional = fake_torch.nn.functional
    assert functional.batch_norm.called and functional.layer_norm.called
    assert functional.max_pool2d.called and functional.avg_pool2d.called


def test_precision_flags(fake_torch):
    gpu_measure.set_precision(fake_torch, "tf32")
    assert fake_torch.backends.cuda.matmul.fp32_precision == "tf32"
    assert fake_torch.backends.cudnn.conv.fp32_precision == "tf32"
    gpu_measure.set_precision(fake_torch, "fp32")
    assert fake_torch.backends.cuda.matmul.fp32_precision == "ieee"
    assert fake_torch.backends.cudnn.conv.fp32_precision == "ieee"
    assert fake_torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction is False
    assert fake_torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction is False


def test_launch_hold_matches_layerbench_rule():
    """PyTorch is timed with the same stream hold as layerbench: same constants, same rule."""
    import re
    from conftest import ROOT
    header = (ROOT / "kernels/cuda/logic/launch_hold.hpp").read_text()
    for name in ("margin", "min_hold_ns", "max_hold_ns", "give_up_after"):
        value = re.search(rf"\b{name} = ([0-9']+);", header).group(1).replace("'", "")
        assert getattr(gpu_measure.LaunchHold, name) == int(value), name
    hold = gpu_measure.LaunchHold()
    assert hold.record(hold.next_hold_ns(), 15_000) and hold.next_hold_ns() == 60_000
    assert not hold.record(hold.next_hold_ns(), 70_000)  # the enqueue outlasted the hold
    assert hold.next_hold_ns() == 280_000
    assert not hold.stopped
    for _ in range(hold.give_up_after - 1):  # launches that wait for the hold to end
        hold.record(hold.next_hold_ns(), hold.next_hold_ns() + 1)
    assert hold.stopped and hold.next_hold_ns() == 0 and hold.unclean == hold.give_up_after


def test_measure_holds_the_stream_before_each_start(fake_torch, tmp_path):
    torch_layers = import_file(SCRIPTS / "torch_layers.py")
    out = tmp_path / "torch.json"
    assert torch_layers.main(["measure", str(GPU_A), "-o", str(out),
                              "--max-time-per-point", "0.001"]) == 0
    record = next(p for p in json.loads(out.read_text())["points"] if p["status"] == "ok")
    assert record["launch_hold"] == "on" and " of " in record["launch_hold_unclean_runs"]
    # TEST DATA: the fake's events say 2,000,000 cycles took 0.5 ms.
    assert record["sleep_cycles_per_ns"] == 4.0
    sleeps = [c.args[0] for c in fake_torch.cuda._sleep.call_args_list]
    assert 2_000_000 in sleeps and any(s < 2_000_000 for s in sleeps)


def test_table_shows_the_fraction_of_the_devices_peak():
    data = read_fixture(GPU_A)
    point = gpu_ok_points()[0]
    device = next(d for d in data["context"]["devices"] if d["id"] == point["device"])
    expected = 100 * point["tflops"] / device["peaks"][point["precision"]]["tflops"]
    r = run_script("torch_layers.py", "table", GPU_A)
    layer = f"{point['model']}/{point['op']}"
    row = next(line for line in r.stdout.splitlines() if line.startswith(layer))
    cells = row.split()
    assert cells[cells.index(f"{point['timing']['median_ms']:.4f}") + 2] == f"{expected:.1f}"


def cpu_rounds(tmp_path, factors):
    """The real CPU file as several rounds' files, round i's medians scaled by factors[i]."""
    paths = []
    for i, factor in enumerate(factors):
        data = read_fixture(CPU_MEMOPS)
        for p in data["points"]:
            if p.get("timing"):
                p["timing"]["median_ms"] *= factor
        paths.append(tmp_path / f"round{i}.json")
        paths[-1].write_text(json.dumps(data))
    return paths


def test_cpu_table_takes_the_best_round_and_states_the_geometric_means(tmp_path):
    points = [p for p in read_fixture(CPU_MEMOPS)["points"] if p["status"] == "ok"]
    slow_op = next(p for p in points if p["kind"] == "batch_norm")
    # TEST DATA: PyTorch "took" twice layerbench's best time, except on one batch norm, where it
    # took half of it.
    fake = {"torch": "test-data", "points": [
        {"model": p["model"], "op": p["op"], "batch": p["batch"], "precision": p["precision"],
         "pass": p["pass"], "status": "ok", "layout": "channels_last",
         "median_ms": p["timing"]["median_ms"] * (0.5 if p is slow_op else 2.0)}
        for p in points]}
    torch_file = tmp_path / "torch.json"
    torch_file.write_text(json.dumps(fake))
    # Round 0 is 1.5 times slower than round 1: the table keeps round 1's (the fixture's) times.
    rounds = cpu_rounds(tmp_path, [1.5, 1.0])
    r = run_script("torch_layers.py", "cpu-table", *rounds, "--torch", torch_file)
    assert r.returncode == 0, r.stderr
    assert f"{len(points)} CPU points" in r.stdout
    row = next(line for line in r.stdout.splitlines()
               if line.startswith(f"{slow_op['model']}/{slow_op['op']} ") and
               f"  {slow_op['batch']}  " in line)
    assert row.split()[-1] == "0.500" and f"{slow_op['timing']['median_ms']:.4f}" in row
    summary = next(line for line in r.stdout.splitlines()
                   if line.startswith(f"{slow_op['model']} b{slow_op['batch']} fp32 fwd:"))
    group = [p for p in points if (p["model"], p["batch"]) == (slow_op["model"], slow_op["batch"])]
    memory = [p for p in group if p["kind"] in MEMORY_KINDS]
    # One op at 0.5, the others at 2: the geometric mean is 2 * 4^(-1/n).
    assert f"{len(group)} ops, geomean {2 * 4 ** (-1 / len(group)):.3f}" in summary
    assert f"slowest {slow_op['op']} 0.500" in summary
    assert (f"memory-bound {len(memory)} ops, geomean {2 * 4 ** (-1 / len(memory)):.3f}, "
            f"below 1.0: {slow_op['op']}") in summary
    other = next(line for line in r.stdout.splitlines() if line.startswith("vit_b_16 b1 fp32"))
    assert "geomean 2.000" in other and "below 1.0: none" in other


def test_cpu_table_without_torch_lists_every_cpu_point(tmp_path):
    r = run_script("torch_layers.py", "cpu-table", CPU_MEMOPS)
    assert r.returncode == 0, r.stderr
    assert "134 CPU points" in r.stdout and "no PyTorch timings given" in r.stdout


def install_fake_torch(monkeypatch, torch):
    """Makes `import torch`, `torch.nn` and `torch.nn.functional` give the fake and its parts."""
    for name in ("torch", "torch.nn", "torch.nn.functional"):
        module = torch
        for attr in name.split(".")[1:]:
            module = getattr(module, attr)
        monkeypatch.setitem(sys.modules, name, module)


class FakeTorch:
    """A stand-in for PyTorch on the CPU (TEST DATA: its ops do nothing): every attribute, call,
    item and sum is again a FakeTorch, and the dotted names called are recorded in a set (a mock
    recording every call of a whole model's points runs out of memory)."""

    def __init__(self, name="torch", called=None):
        self._name, self.called = name, set() if called is None else called

    def __getattr__(self, attr):
        return FakeTorch(f"{self._name}.{attr}", self.called)

    def __call__(self, *args, **kwargs):
        self.called.add(self._name)
        return self

    def __getitem__(self, index):
        return self

    def __add__(self, other):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def fake_cpu_torch(monkeypatch):
    torch = FakeTorch()
    torch.__version__ = "0.0-fake"
    torch.get_num_threads = lambda: 1
    install_fake_torch(monkeypatch, torch)
    return torch


def test_measure_cpu_times_every_point_in_both_layouts_of_images(fake_cpu_torch, tmp_path):
    torch_layers = import_file(SCRIPTS / "torch_layers.py")
    data = read_fixture(CPU_MEMOPS)
    for p in list(data["points"]):  # a backward pass of every kind too
        if p["kind"] in MEMORY_KINDS and p["batch"] == 1:
            data["points"].append(dict(p, **{"pass": "bwd_data"}))
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data))
    out = tmp_path / "torch.json"
    assert torch_layers.main(["measure-cpu", str(results), "-o", str(out), "--rounds", "2",
                              "--max-time-per-point", "0.0001", "--warmup", "1"]) == 0
    written = json.loads(out.read_text())
    ok = [p for p in data["points"] if p["status"] == "ok"]
    assert len(written["points"]) == len(ok) and written["rounds"] == 2
    assert len(written["load_average"]) == 2
    called = fake_cpu_torch.called
    assert "torch.set_num_threads" in called
    for record, point in zip(written["points"], ok):
        assert record["status"] == "ok", record
        dims = point["shape"].get("dims", [])
        image = point["kind"] == "conv" or (len(dims) == 4 and point["kind"] != "softmax")
        expected = {"nchw", "channels_last"} if image else {"contiguous"}
        assert set(record["layouts_ms"]) == expected, point["op"]
        assert record["median_ms"] == min(record["layouts_ms"].values())
        assert record["layout"] in expected
    for forward in ("batch_norm", "layer_norm", "gelu", "max_pool2d", "avg_pool2d", "conv2d"):
        assert f"torch.nn.functional.{forward}" in called, forward
    for op in ("relu", "add", "softmax", "mm", "bmm"):
        assert f"torch.{op}" in called, op
    for backward in ("native_batch_norm_backward", "native_layer_norm_backward",
                     "threshold_backward", "gelu_backward", "max_pool2d_with_indices_backward",
                     "avg_pool2d_backward", "_softmax_backward_data"):
        assert f"torch.ops.aten.{backward}" in called, backward



class ArgumentRecordingTorch(FakeTorch):
    """FakeTorch that also keeps the arguments of each dotted name's last call."""

    def __init__(self, name="torch", called=None, arguments=None):
        super().__init__(name, called)
        self.arguments = {} if arguments is None else arguments

    def __getattr__(self, attr):
        return ArgumentRecordingTorch(f"{self._name}.{attr}", self.called, self.arguments)

    def __call__(self, *args, **kwargs):
        self.arguments[self._name] = args
        return super().__call__(*args, **kwargs)


@pytest.mark.parametrize("pass_, running, training", [("fwd", True, False),
                                                      ("fwd_training", False, True)])
def test_measure_cpu_times_batch_norms_forwards_with_the_statistics_each_uses(
        monkeypatch, pass_, running, training):
    """Inference normalises with running statistics; the training forward with the batch's own,
    so PyTorch gets none to read or update, as layerbench keeps none."""
    torch = ArgumentRecordingTorch()
    install_fake_torch(monkeypatch, torch)
    point = {"kind": "batch_norm", "pass": pass_, "shape": {"op": "batch_norm",
                                                             "dims": [2, 8, 5, 6]}}
    layer_ops.memory_fn(torch, point, torch.float32, False)()
    x, mean, var, weight, bias, is_training, momentum, eps = \
        torch.arguments["torch.nn.functional.batch_norm"]
    assert (mean is not None, var is not None) == (running, running)
    assert is_training is training and eps == layer_ops.BATCH_NORM_EPS


@pytest.mark.parametrize("kind, op, in_place_call, out_of_place_call", [
    ("eltwise", "relu", "torch.relu_", "torch.relu"),
    ("binary", "add", ".add_", "torch.add")])
def test_measure_cpu_runs_an_in_place_point_in_place(monkeypatch, kind, op, in_place_call,
                                                     out_of_place_call):
    """A point layerbench ran in place (torchvision's `out += identity`, ReLU(inplace=True)) is
    timed in place in PyTorch too; without the flag, out of place."""
    for in_place in (True, False):
        torch = FakeTorch()
        install_fake_torch(monkeypatch, torch)
        shape = {"op": op, "dims": [2, 8, 5, 6]}
        if in_place:
            shape["in_place"] = True
        point = {"kind": kind, "pass": "fwd", "shape": shape}
        layer_ops.memory_fn(torch, point, torch.float32, False)()
        calls = {name for name in torch.called if name.endswith(in_place_call)}
        assert bool(calls) is in_place, torch.called
        assert (out_of_place_call in torch.called) is not in_place, torch.called


def test_max_pool_forward_asks_for_no_indices_in_inference_mode(fake_cpu_torch, monkeypatch):
    point = next(p for p in read_fixture(CPU_MEMOPS)["points"]
                 if p["shape"].get("op") == "max_pool")
    entered = []
    fake_cpu_torch.inference_mode = lambda: entered.append(1) or contextlib.nullcontext()
    calls = []
    functional = types.SimpleNamespace(max_pool2d=lambda *a, **kw: calls.append(kw))
    monkeypatch.setattr(fake_cpu_torch, "nn", types.SimpleNamespace(functional=functional),
                        raising=False)
    fn = layer_ops.memory_fn(fake_cpu_torch, dict(point, **{"pass": "fwd"}), None, False)
    fn()
    assert calls == [{}] and entered == [1]  # no return_indices, under inference mode
    assert "no indices" in layer_ops.torch_call(dict(point, **{"pass": "fwd"}))
    assert "int64 indices" in layer_ops.torch_call(dict(point, **{"pass": "bwd_data"}))
    assert layer_ops.torch_call(dict(point, shape=dict(point["shape"], op="avg_pool"))) is None


def test_measure_cpu_says_which_max_pool_call_it_timed_and_no_kernels(fake_cpu_torch, tmp_path):
    torch_layers = import_file(SCRIPTS / "torch_layers.py")
    out = tmp_path / "torch.json"
    assert torch_layers.main(["measure-cpu", str(CPU_MEMOPS), "-o", str(out), "--rounds", "1",
                              "--max-time-per-point", "0.0001", "--warmup", "1"]) == 0
    records = json.loads(out.read_text())["points"]
    pools = [r for r in records if r["op"].startswith("maxpool")]
    assert pools and all(r["torch_call"] == layer_ops.MAX_POOL_CALLS[r["pass"]] for r in pools)
    assert all(r["torch_kernels"].startswith("not available") for r in records)


def test_the_kernels_named_are_the_devices_own_once_each_in_order():
    cpu, cuda = "CPU", "CUDA"
    played_back = [types.SimpleNamespace(name=n, device_type=d) for n, d in [
        ("aten::max_pool2d", cpu), ("max_pool_forward_nhwc", cuda),
        ("cudnn::engine_v8_xmma_fprop", cuda), ("max_pool_forward_nhwc", cuda)]]
    assert gpu_measure.cuda_kernel_names(played_back, cuda) == [
        "max_pool_forward_nhwc", "cudnn::engine_v8_xmma_fprop"]
