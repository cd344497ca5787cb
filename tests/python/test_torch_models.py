"""scripts/torch_models.py (PyTorch end to end), its file reader and the report's "Where the time
goes" and "Explained share" sections.

The real pair under fixtures/real/models/ (torch_models_cpu.json and layerbench_models_cpu.json)
was measured on this project's CPU machine (fixtures/real/models/README.md gives the commands).
The files made in the bad-input tests are edits of it, not measurements. The PyTorch plumbing
test needs the real package (scripts/setup.sh --torch) and skips with the reason without it.
"""
import importlib.util
import json
import re
import sys
import types

import pytest

from conftest import FIXTURES, ROOT, SCRIPTS, import_file, run_script, write_json

from layerbench_report import framework_file
from layerbench_report import results_file
from layerbench_report import cli
from layerbench_report.framework import attribution, in_record, remainder_causes

torch_models = import_file(SCRIPTS / "torch_models.py")

REAL = FIXTURES / "real" / "models"  # beside make_real.sh's files, which it rewrites
TORCH_FILE = REAL / "torch_models_cpu.json"
LAYERBENCH_FILE = REAL / "layerbench_models_cpu.json"  # convolutions and GEMMs only
MEMOPS_FILE = REAL / "layerbench_models_memops_cpu.json"  # the memory-bound layers too
REFERENCE = ROOT / "reports" / "reference"
HAVE_TORCH = importlib.util.find_spec("torch") is not None and \
    importlib.util.find_spec("torchvision") is not None


class Rule:
    warmup_runs, warmup_min_time, min_time, max_time = 2, 0.0, 0.5, 2.0
    min_runs, max_runs, noise_target = 5, 100, 0.01


# ------------------------------------------------------------------------ timing and arguments

def test_noise_is_the_scaled_mad_over_the_median():
    assert torch_models.relative_noise([1.0, 1.0, 1.0]) == 0
    # median 2, deviations 1, 0, 1 -> MAD 1 -> 1.4826 / 2
    assert torch_models.relative_noise([1.0, 2.0, 3.0]) == pytest.approx(1.4826 / 2)


def test_the_stopping_rule_is_layerbenchs():
    steady = [0.01] * 5
    assert torch_models.should_stop(steady[:4], 1.0, Rule) is None          # fewer than min_runs
    assert torch_models.should_stop(steady, 0.1, Rule) is None              # before min_time
    assert torch_models.should_stop(steady, 0.6, Rule) == "noise"
    noisy = [0.01, 0.02, 0.03, 0.04, 0.05]
    assert torch_models.should_stop(noisy, 1.0, Rule) is None
    assert torch_models.should_stop(noisy, 2.0, Rule) == "time_cap"
    assert torch_models.should_stop([0.01, 0.05] * 50, 0.0, Rule) == "max_samples"


def test_sample_warms_up_outside_the_timed_runs():
    clock = iter(range(10_000)).__next__  # a tenth of a "second" per reading
    calls = []

    def run_once():
        calls.append(1)
        return 0.25 if len(calls) > Rule.warmup_runs else 9.0  # warm-ups are slow
    t = torch_models.sample(run_once, Rule, clock=lambda: clock() / 10)
    assert t["warmup_runs"] == Rule.warmup_runs
    assert t["median_ms"] == t["min_ms"] == t["max_ms"] == 250  # no warm-up time in them
    assert t["runs"] == len(calls) - Rule.warmup_runs >= Rule.min_runs
    assert t["stopped_by"] == "noise"


@pytest.mark.parametrize("flags, message", [
    (["--model", "resnet18"], "model resnet18"),
    (["--batch", "0"], "batch '0'"),
    (["--batch", "x"], "batch 'x'"),
    (["--precision", "fp8"], "precision fp8"),
    (["--pass", "bwd"], "pass bwd"),
    (["--threads", "0"], "--threads: '0': must be at least 1"),
    (["--threads", "2.5"], "--threads: '2.5' is not an integer"),
    (["--min-time", "2", "--max-time", "1"], "--min-time must not exceed --max-time"),
    (["--noise-target", "1.5"], "--noise-target: '1.5': must be below 1"),
    (["--device", "tpu"], "invalid choice"),
    # NaN passes every "not above" check: each numeric flag refuses it and infinity.
    *[([flag, value], f"{flag}: '{value}' is not a finite number")
      for flag in ("--warmup-min-time", "--min-time", "--max-time", "--noise-target")
      for value in ("nan", "inf", "1e400")],
    (["--max-runs", "1e400"], "--max-runs: '1e400' is not an integer"),
])
def test_bad_flags_exit_2_naming_the_flag(tmp_path, flags, message):
    r = run_script("torch_models.py", "-o", tmp_path / "t.json", *flags)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("output, force, words", [
    ("taken.json", [], "taken.json: already exists; pass --force"),
    ("/dev/null", ["--force"], "/dev/null: exists and is not a regular file"),
    ("taken.json/t.json", ["--force"], "taken.json is not a folder"),
    ("/proc/nope/t.json", ["--force"], "/proc/nope/t.json: /proc/nope cannot be created"),
    ("folder", ["--force"], "folder: exists and is a folder"),
])
def test_an_output_it_may_not_write_is_exit_2_before_anything_runs(tmp_path, output, force,
                                                                   words):
    (tmp_path / "taken.json").write_text("my measurements")
    (tmp_path / "folder").mkdir()
    output = output if output.startswith("/") else tmp_path / output
    r = run_script("torch_models.py", "-o", output, *force, "--model", "resnet50")
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("torch_models.py: -o: ") and words in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and r.stdout == "", r.stderr
    assert (tmp_path / "taken.json").read_text() == "my measurements"


def test_without_torch_it_exits_2_and_says_how_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert torch_models.main(["-o", str(tmp_path / "t.json")]) == 2
    assert "scripts/setup.sh --torch" in capsys.readouterr().err


# --------------------------------------------------------------------------- operator groups

@pytest.mark.parametrize("name, group", [
    ("aten::mkldnn_convolution", "convolution"), ("aten::convolution_backward", "convolution"),
    ("aten::addmm", "gemm"), ("aten::mm", "gemm"), ("aten::bmm", "gemm"),
    ("aten::native_batch_norm", "normalisation"), ("aten::native_layer_norm_backward",
                                                   "normalisation"),
    ("aten::relu_", "elementwise"), ("aten::gelu", "elementwise"), ("aten::add_", "elementwise"),
    ("aten::threshold_backward", "elementwise"), ("aten::max_pool2d_with_indices", "pooling"),
    ("aten::mean", "pooling"), ("aten::_softmax", "softmax"),
    ("aten::_scaled_dot_product_flash_attention_for_cpu", "attention"),
    ("aten::_native_multi_head_attention", "attention"),
    ("aten::copy_", "layout"), ("aten::empty", "layout"), ("aten::cat", "layout"),
    ("aten::something_new", "other"),
])
def test_operator_groups(name, group):
    assert framework_file.operator_group(name) == group


def test_point_kinds_map_to_the_same_groups_and_unknown_kinds_keep_their_name():
    kinds = ("conv", "linear", "bmm", "layer_norm", "binary")
    assert [framework_file.kind_group(k) for k in kinds] == \
        ["convolution", "gemm", "gemm", "normalisation", "elementwise"]
    assert framework_file.kind_group("dropout") == "dropout"


# ---------------------------------------------------------------------------- the real files

def test_every_warm_up_run_is_made_however_long_the_first_takes():
    # The first reading starts the warm-up; the first run, cuDNN's search, outlasts --max-time.
    readings = iter([0.0] + [100 * Rule.max_time] * 10_000).__next__
    t = torch_models.sample(lambda: 0.25, Rule, clock=readings)
    assert t["warmup_runs"] == Rule.warmup_runs


@pytest.mark.parametrize("model, choice, used", [
    ("resnet50", "auto", "channels_last"), ("vit_b_16", "auto", "contiguous"),
    ("vit_l_16", "auto", "contiguous"), ("resnet50", "contiguous", "contiguous"),
    ("vit_b_16", "channels_last", "channels_last")])
def test_each_model_runs_in_layerbenchs_layout_unless_told(model, choice, used):
    assert torch_models.memory_format_of(model, choice) == used


def test_resnet50s_layers_are_nhwc_in_layerbench():
    # The first GPU run's results file, where each image layer names its layout.
    results = json.loads((REFERENCE / "gpu-check-20261204T1702Z.json").read_text())
    layouts = {p["notes"]["layout"] for p in results["points"]
               if p["model"] == "resnet50" and "layout" in p.get("notes", {})}
    assert layouts == {"nhwc"}


class PlayedBackProfile:
    """torch.profiler's profile() replaying recorded operator self times (TEST DATA)."""
    class Event:
        def __init__(self, key, self_us):
            self.key, self.self_cpu_time_total = key, self_us

    events = [Event("aten::convolution", 4000.0), Event("aten::addmm", 1000.0),
              Event("aten::relu_", 500.0), Event("ProfilerStep#1", 99000.0)]

    def __init__(self, activities):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def key_averages(self):
        return self.events


def test_outside_operators_is_the_unprofiled_median_less_the_profiled_operators(monkeypatch):
    profiler = types.SimpleNamespace(profile=PlayedBackProfile,
                                     ProfilerActivity=types.SimpleNamespace(CPU="cpu"))
    monkeypatch.setitem(sys.modules, "torch.profiler", profiler)
    monkeypatch.setattr(torch_models.time, "perf_counter", iter([10.0, 10.0125]).__next__)
    profile = torch_models.profile_groups(None, lambda: None, None, False, median_ms=7.3)
    assert sum(profile["group_ms"].values()) == pytest.approx(5.5)  # aten:: operators only
    assert profile["outside_ms"] == pytest.approx(7.3 - 5.5)
    assert profile["wall_ms"] == pytest.approx(12.5)  # the profiled run's own total, beside it


def test_outside_operators_is_never_negative():
    assert torch_models.outside_operators_ms(5.0, {"gemm": 6.0}) == 0.0
    assert torch_models.outside_operators_ms(5.0, {"gemm": 1.0, "convolution": 1.5}) == 2.5


def test_the_real_file_reads_and_says_what_ran():
    f = framework_file.load(TORCH_FILE)
    versions = f.context["versions"]
    assert f.framework == "pytorch" and f.data["status"] == "complete"
    assert versions["torch"] and versions["onednn"] and f.context["threads"] == 1
    assert {(r["model"], r["batch"]) for r in f.runs} >= {("resnet50", 1), ("vit_b_16", 8)}
    for r in f.runs:
        t = r["timing"]
        assert t["min_ms"] <= t["median_ms"] <= t["max_ms"]
        assert r["images_per_s"] == pytest.approx(r["batch"] / t["median_ms"] * 1e3)
    assert framework_file.looks_like_framework_file(TORCH_FILE)
    assert not framework_file.looks_like_framework_file(LAYERBENCH_FILE)


def explained_rows(index_html):
    """{(model, batch): explained share} from the explained-share tables of a report."""
    out = {}
    for model, section in re.findall(r'<section class="model" id="m-([^"]+)">(.*?)</section>',
                                     index_html, re.S):
        for batch, share in re.findall(r"<td>(\d+)</td><td>[^<]*</td><td>[^<]*</td><td>[^<]*</td>"
                                       r"<td>([\d.]+)</td>", section):
            out[(model.replace("-", "_"), int(batch))] = float(share)
    return out


def expected_share(model, batch, layerbench_file=LAYERBENCH_FILE):
    results = results_file.load(layerbench_file)
    estimate = sum(p["count"] * p["timing"]["median_ms"] for p in results.points
                   if p["model"] == model and p["batch"] == batch and p["pass"] == "fwd")
    run = next(r for r in framework_file.load(TORCH_FILE).runs if r["model"] == model and
               r["batch"] == batch and r["pass"] == "fwd")
    return estimate / run["timing"]["median_ms"]


@pytest.mark.parametrize("how", ["flag", "detected"])
def test_report_shows_the_explained_share_of_each_configuration(tmp_path, how):
    args = [LAYERBENCH_FILE, "--framework", TORCH_FILE] if how == "flag" else \
        [TORCH_FILE, LAYERBENCH_FILE]
    assert cli.main([*map(str, args), "-o", str(tmp_path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    shares = explained_rows(html)
    assert set(shares) == {("resnet50", 1), ("resnet50", 8), ("vit_b_16", 1), ("vit_b_16", 8)}
    for (model, batch), share in shares.items():
        assert share == pytest.approx(expected_share(model, batch), abs=0.005)
    assert html.count('alt="resnet50: explained share"') == 1
    assert html.count('alt="vit_b_16: where the time goes"') == 1
    assert "outside operators (Python, dispatch, autograd)" in html  # the attribution tables


def test_the_remainder_is_attributed_from_the_profile(tmp_path):
    from layerbench_report.data import Data
    from layerbench_report.framework import estimates
    data = Data([results_file.load(LAYERBENCH_FILE)], 0, [framework_file.load(TORCH_FILE)])
    e = next(e for e in estimates(data, "resnet50") if e.batch == 1)
    rows = {g: (mine, theirs) for g, mine, theirs in attribution(e)}
    # layerbench's points are convolutions and GEMMs only; PyTorch also ran batch norm, ReLU,
    # the adds and the pools: those groups have no layerbench time and are named as causes.
    assert rows["convolution"][0] > 0 and rows["normalisation"][0] is None
    assert rows["normalisation"][1] > 0 and rows["elementwise"][1] > 0
    assert "normalisation not in the estimate" in remainder_causes(e, top=9)


def test_the_memory_bound_kinds_join_the_estimate_and_its_split(tmp_path):
    assert cli.main([str(MEMOPS_FILE), "--framework", str(TORCH_FILE), "-o", str(tmp_path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    for (model, batch), share in explained_rows(html).items():
        assert share == pytest.approx(expected_share(model, batch, MEMOPS_FILE), abs=0.005)
    for group in ("normalisation", "elementwise", "pooling", "softmax"):
        assert f"<th>{group} share</th>" in html
    assert "are not in this estimate" not in html  # the conv/GEMM-only caveat
    from layerbench_report.data import Data
    from layerbench_report.framework import estimates
    data = Data([results_file.load(MEMOPS_FILE)], 0, [framework_file.load(TORCH_FILE)])
    e = next(e for e in estimates(data, "resnet50") if e.batch == 8)
    rows = {g: (mine, theirs) for g, mine, theirs in attribution(e)}
    assert rows["normalisation"][0] > 0 and rows["pooling"][0] > 0
    assert e.total_ms == pytest.approx(sum(rows[g][0] or 0 for g in rows))
    # An estimate above the framework's time names where layerbench's points took longer.
    over = next(e for e in estimates(data, "vit_b_16") if e.explained > 1)
    assert remainder_causes(over).startswith("the estimate exceeds the measured time: GEMM "
                                             "slower in layerbench")


@pytest.mark.parametrize("results, says", [
    (LAYERBENCH_FILE, "convolutions and GEMMs only"),
    (MEMOPS_FILE, "every operation of the model file"),
])
def test_the_report_says_what_the_model_figures_sum(tmp_path, results, says):
    # Taken from the file's model records, so an older file is never described as complete.
    assert cli.main([str(results), "-o", str(tmp_path)]) == 0
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert says in summary.splitlines()[-1] and says in html


def test_without_a_framework_file_the_section_says_how_to_get_one(tmp_path):
    assert cli.main([str(LAYERBENCH_FILE), "-o", str(tmp_path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "No framework timing file given" in html
    assert 'alt="resnet50: where the time goes"' in html  # the estimate's split needs none


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(schema="layerbench-framework/9"), "schema"),
    (lambda d: d["runs"][0]["timing"].update(median_ms=-1), "runs[0].timing.median_ms"),
    (lambda d: d["runs"][1].update(device="gpu:3"), "runs[1].device"),
    (lambda d: d["runs"].append(dict(d["runs"][0])), "runs[4]: a second record"),
    (lambda d: d["context"].pop("threads"), "context.threads"),
    (lambda d: d["runs"][0]["profile"].update(outside_ms="x"), "runs[0].profile.outside_ms"),
    (lambda d: d["runs"][0]["profile"].update(time_base="gpu"), "runs[0].profile.time_base"),
    # NaN and infinity (Python's json writes them as NaN and Infinity) once passed, leaving
    # holes in the charts.
    (lambda d: d["runs"][0]["timing"].update(median_ms=float("nan")),
     "runs[0].timing.median_ms: expected a finite number"),
    (lambda d: d["runs"][1]["timing"].update(median_ms=float("inf")),
     "runs[1].timing.median_ms: expected a finite number"),
    (lambda d: d["runs"][0]["profile"].update(wall_ms=float("nan")),
     "runs[0].profile.wall_ms: expected a finite number"),
    (lambda d: d["runs"][0]["profile"]["group_ms"].update(gemm=float("-inf")),
     "runs[0].profile.group_ms.gemm: expected a finite number"),
    (lambda d: d["runs"][0].update(images_per_s=float("nan")),
     "runs[0].images_per_s: expected a finite number"),
])
def test_a_bad_framework_file_is_exit_2_naming_the_field(tmp_path, edit, field):
    doc = json.loads(TORCH_FILE.read_text())
    edit(doc)
    bad = write_json(tmp_path / "bad.json", doc)
    r = run_script("report.py", LAYERBENCH_FILE, "--framework", bad, "-o", tmp_path / "out")
    assert r.returncode == 2 and "bad.json" in r.stderr and field in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("median_ms", [5e-324, 1e-300, 1e300])
def test_a_time_whose_ratios_would_be_infinite_is_exit_2_naming_the_field(tmp_path, median_ms):
    # Finite and positive, yet the explained share (estimate / 5e-324 ms) was infinite and
    # matplotlib refused the axis: exit 1 with a traceback.
    doc = json.loads(TORCH_FILE.read_text())
    doc["runs"][0]["timing"]["median_ms"] = median_ms
    bad = write_json(tmp_path / "torch.json", doc)
    r = run_script("report.py", LAYERBENCH_FILE, bad, "-o", tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert r.stderr == (f"report.py: {bad}: runs[0].timing.median_ms: {median_ms!r} is beyond "
                        "what the report computes with (its ratios and rates would be infinite "
                        "or 0): expected 1e-100 to 1e+100\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content, problem", [
    (b'{"schema": "layerbench-framework/1", "framework": "caf\xe9"}',
     "not UTF-8 text (byte 0xe9 at offset 54)"),
    (b'{"schema": "layerbench-framework/1", "runs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
     "nested too deeply"),
    (b'{"schema": "layerbench-framework/1", "runs": [', "truncated"),
], ids=["not_utf8", "nested_too_deeply", "truncated"])
def test_a_framework_file_that_is_not_json_is_exit_2_naming_it(tmp_path, content, problem):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    r = run_script("report.py", LAYERBENCH_FILE, "--framework", bad, "-o", tmp_path / "out")
    assert r.returncode == 2 and r.stderr.startswith(f"report.py: {bad}: "), r.stderr
    assert problem in r.stderr and r.stderr.count("\n") == 1, r.stderr


# ------------------------------------------------------------------ with the real PyTorch

@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed (scripts/setup.sh --torch)")
def test_torch_models_writes_a_file_the_report_reads(tmp_path):
    out = tmp_path / "torch.json"
    r = run_script("torch_models.py", "-o", out, "--model", "resnet50", "--batch", "1",
                   "--pass", "fwd,train", "--precision", "fp32,tf32", "--threads", "1",
                   "--warmup-runs", "1", "--warmup-min-time", "0.001", "--min-time", "0.001",
                   "--max-time", "0.001", "--min-runs", "1", timeout=600)
    assert r.returncode == 0, r.stderr
    f = framework_file.load(out)
    assert f.data["status"] == "complete" and f.context["threads"] == 1
    by = {(r["pass"], r["precision"]): r for r in f.runs}
    assert by[("fwd", "tf32")]["status"] == "unsupported"  # a GPU precision, on the CPU
    for pass_ in ("fwd", "train"):
        run = by[(pass_, "fp32")]
        assert run["status"] == "ok" and run["timing"]["runs"] >= 1
        assert run["profile"]["group_ms"]["convolution"] > 0
    assert cli.main([str(LAYERBENCH_FILE), "--framework", str(out), "-o",
                     str(tmp_path / "report")]) == 0


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed (scripts/setup.sh --torch)")
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_training_step_computes_every_gradient_and_a_forward_none(precision):
    import torch
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                                torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.LazyLinear(2))
    x = torch.randn(2, 3, 8, 8)
    model(x)  # materialises the lazy layer
    forward, before = torch_models.step_fn(torch, model, x, "fwd", precision, "cpu")
    forward()
    assert before is None and not model.training
    assert all(p.grad is None for p in model.parameters())
    step, clear = torch_models.step_fn(torch, model, x, "train", precision, "cpu")
    step()
    assert model.training and all(p.grad is not None for p in model.parameters())
    clear()
    assert all(p.grad is None for p in model.parameters())


def test_a_training_record_sums_batch_norms_training_forward_not_its_inference_one():
    points = [{"kind": kind, "pass": pass_} for kind, pass_ in (
        ("conv", "fwd"), ("conv", "bwd_data"), ("batch_norm", "fwd"),
        ("batch_norm", "fwd_training"), ("batch_norm", "bwd_data"))]
    summed = {pass_: [(p["kind"], p["pass"]) for p in points if in_record(p, pass_)]
              for pass_ in ("fwd", "train")}
    assert summed == {"fwd": [("conv", "fwd"), ("batch_norm", "fwd")],
                      "train": [("conv", "fwd"), ("conv", "bwd_data"),
                                ("batch_norm", "fwd_training"), ("batch_norm", "bwd_data")]}
