"""report.py on the hand-made fixture files (TEST DATA, not measurements)."""
import base64
import csv
import json
import re

from conftest import CPU_ONLY, GPU_A, GPU_B, read_fixture, run_script, write_json

from layerbench_report import results_file
from layerbench_report.data import Data, Device
from layerbench_report.style import CPU_COLOURS, GPU_COLOURS, PRECISION_COLOURS
from layerbench_report.markup import fmt_rate, fmt_ratio
from layerbench_report.sections.roofline import roof


def images(page):
    return re.findall(r'<img[^>]*src="([^"]*)"', page)


def fwd_records(doc, device):
    return {(r["precision"], r["batch"]): r for r in doc["models"]
            if r["device"] == device and r["pass"] == "fwd" and r["status"] == "ok"}


def test_charts_are_embedded_pngs_and_nothing_is_fetched(fixture_report):
    page = (fixture_report / "index.html").read_text()
    srcs = images(page)
    assert len(srcs) >= 8
    for src in srcs:
        assert src.startswith("data:image/png;base64,")
        png = base64.b64decode(src.split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    assert "http://" not in page and "https://" not in page
    assert "<link" not in page  # no external style sheet


def sum_factor(doc, record, device):
    """1 + a model sum's uncertainty: its fwd points' noise weighted by count x median."""
    points = [p for p in doc["points"] if p["device"] == device and p["pass"] == "fwd" and
              p["precision"] == record["precision"] and p["batch"] == record["batch"] and
              p.get("timing")]
    weights = [p.get("count", 1) * p["timing"]["median_ms"] for p in points]
    noise = [max(p["timing"].get("noise") or 0, p["timing"].get("round_spread") or 0)
             for p in points]
    return 1 + sum(w * n for w, n in zip(weights, noise)) / sum(weights)


def test_headline_is_computed_from_the_model_records(fixture_report):
    doc = read_fixture(GPU_A)
    recs = fwd_records(doc, "gpu:0")
    # The headline batch: the largest where FP32 and another precision both ran ok.
    batch = max(b for (p, b) in recs if p == "fp32" and
                any(q != "fp32" and bb == b for (q, bb) in recs))
    lead = max((r for (p, b), r in recs.items() if p != "fp32" and b == batch),
               key=lambda r: r["images_per_s"])
    ratio = lead["images_per_s"] / recs[("fp32", batch)]["images_per_s"]
    cpu = fwd_records(doc, "cpu")
    cpu_ref = max((r for (p, _), r in cpu.items() if p == "fp32"), key=lambda r: r["images_per_s"])
    page = (fixture_report / "index.html").read_text()
    # Its range: each sum known within (1 + u), u its fwd points' noise weighted by their time.
    factor = sum_factor(doc, lead, "gpu:0") * sum_factor(doc, recs[("fp32", batch)], "gpu:0")
    expected = (f"TestNet (fixture) forward, batch {batch}, on Test GPU A (fixture): GPU "
                f"{lead['precision'].upper()} is {fmt_ratio(ratio)} "
                f"({fmt_ratio(ratio / factor).rstrip('×')}–{fmt_ratio(ratio * factor)}) "
                "faster than GPU FP32")
    assert expected in page
    cpu_ratio = fmt_ratio(lead["images_per_s"] / cpu_ref["images_per_s"])
    assert f"{cpu_ratio} (" in page and "the throughput of CPU FP32 on Test CPU (fixture)" in page
    # The same sentence goes into the Markdown summary.
    assert expected in (fixture_report / "summary.md").read_text()


def test_every_device_file_and_status_is_shown(fixture_report):
    page = (fixture_report / "index.html").read_text()
    for name in ("Test CPU (fixture)", "Test GPU A (fixture)", "Test GPU B (fixture)",
                 "Test CPU C (fixture)", "fixture_gpu_a.json", "fixture_gpu_b.json",
                 "fixture_cpu_only.json"):
        assert name in page
    # Points that were not measured are listed with their reason, not dropped.
    assert "no FP8 convolution engine (TEST DATA)" in page
    assert "out of device memory allocating the inputs (TEST DATA)" in page
    assert "validation: rel_l2 above the tolerance (TEST DATA)" in page
    for status in ("st-unsupported", "st-oom", "st-failed"):
        assert status in page
    # fixture_gpu_b.json was interrupted.
    assert re.search(r'class="banner">fixture_gpu_b\.json is INTERRUPTED', page)
    assert "fixture_gpu_a.json is" not in page  # a complete file has no banner


def gpu_fp32_batch64_rates():
    """Images/s of Test GPU A and Test GPU B, FP32 forward at batch 64 (both files have it)."""
    return tuple(fwd_records(read_fixture(path), "gpu:0")[("fp32", 64)]["images_per_s"]
                 for path in (GPU_A, GPU_B))


def test_gpu_vs_gpu_normalised_to_the_first_file_by_default(fixture_report):
    page = (fixture_report / "index.html").read_text()
    assert "GPU vs GPU: reference Test GPU A (fixture)" in page
    a, b = gpu_fp32_batch64_rates()
    assert f"{fmt_rate(b)} ({fmt_ratio(b / a)})" in page


def test_baseline_option_picks_the_reference(tmp_path):
    proc = run_script("report.py", GPU_A, GPU_B, "-o", tmp_path, "--baseline", GPU_B)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "index.html").read_text()
    assert "GPU vs GPU: reference Test GPU B (fixture)" in page
    a, b = gpu_fp32_batch64_rates()
    assert f"{fmt_rate(a)} ({fmt_ratio(a / b)})" in page


def test_baseline_must_be_one_of_the_files(tmp_path):
    proc = run_script("report.py", GPU_A, "-o", tmp_path, "--baseline", GPU_B)
    assert proc.returncode == 2
    assert "--baseline" in proc.stderr and "not one of the results files" in proc.stderr


def test_cpu_only_says_there_is_no_gpu_and_what_is_missing(tmp_path):
    proc = run_script("report.py", CPU_ONLY, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "index.html").read_text()
    summary = (tmp_path / "summary.md").read_text()
    doc = read_fixture(CPU_ONLY)
    best = max(fwd_records(doc, "cpu").values(), key=lambda r: r["images_per_s"])
    figure = f"{fmt_rate(best['images_per_s'])} images/s in FP32 at batch {best['batch']}"
    for text in (page, summary):
        assert "No GPU results are present in these files" in text
        assert figure in text
        assert "FP16: unsupported (conv7x7_3to64_s2 fwd (stem): oneDNN: fp16 unimplemented on " \
            "this CPU (TEST DATA))" in text
        assert "TF32, FP8: not measured" in text


def test_a_busy_run_is_said_at_the_top(tmp_path):
    doc = read_fixture(CPU_ONLY)  # TEST DATA: a busy start and one contended point made up here
    doc["context"]["machine_state"] = {
        "processors": 2, "threads": 2, "cpu_governor": None,
        "start": {"other_runnable": 1, "load_average_1m": 3.1, "cpu_busy": True},
        "end": {"other_runnable": 0, "load_average_1m": 2.0, "cpu_busy": False}}
    timed = next(p for p in doc["points"] if p.get("timing"))
    timed["timing"].update(contended=True, cpu_share=0.55, preempted_samples=12)
    proc = run_script("report.py", write_json(tmp_path / "busy.json", doc), "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    banner = re.search(r'class="banner">busy\.json was measured on a busy machine: ([^<]*)<', page)
    assert banner, "no busy banner"
    assert "1 other runnable task(s) at the start (2 threads on 2 processors)" in banner[1]
    assert "1 CPU point(s) contended" in banner[1] and timed["op"] in banner[1]
    assert "at the end" not in banner[1]  # the end reading was quiet
    # The unchanged fixture (no machine_state: a file from before) has no such banner.
    assert run_script("report.py", CPU_ONLY, "-o", tmp_path / "quiet").returncode == 0
    assert "busy machine" not in (tmp_path / "quiet" / "index.html").read_text()


def test_a_model_sum_over_contended_points_says_so(tmp_path):
    doc = read_fixture(CPU_ONLY)  # TEST DATA: every ok model sum marked as over contended points
    sums = [r for r in doc["models"] if r["status"] == "ok"]
    for r in sums:
        r["contended_points"] = 2
    proc = run_script("report.py", write_json(tmp_path / "c.json", doc), "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    summary = (tmp_path / "out" / "summary.md").read_text()
    best = max(sums, key=lambda r: r["images_per_s"])
    for text in (page, summary):
        assert f"(batch {best['batch']}, contended, ±" in text
        assert "model sums add up contended points" in text
    # The unchanged fixture (no contended_points: a file from before the check) marks nothing.
    assert run_script("report.py", CPU_ONLY, "-o", tmp_path / "quiet").returncode == 0
    for name in ("index.html", "summary.md"):
        assert "contended" not in (tmp_path / "quiet" / name).read_text()


def test_roofline_says_where_a_ceiling_is_unknown(fixture_report):
    page = (fixture_report / "index.html").read_text()
    # Test GPU A's context has no FP8 peak; the CPUs have no memory bandwidth.
    assert "Test GPU A (fixture): no FP8 peak in the file" in page
    assert "Test CPU (fixture): memory bandwidth unknown" in page
    assert "Test GPU B (fixture): no FP8 peak" not in page


def test_roofline_bound_follows_the_ridge_point():
    device = Device(file=None, id="gpu:0", kind="gpu", name="n", label="n", colour="#000",
                           info={"peaks": {"fp32": {"tflops": 10, "source": "s"}},
                                 "memory_bandwidth_gbps": {"value": 1000, "source": "s"}})
    # Ridge point: 10e12 FLOP/s / 1000e9 B/s = 10 FLOP/byte.
    assert roof(device, "fp32", 5) == (5.0, "memory")
    assert roof(device, "fp32", 20) == (10.0, "compute")
    assert roof(device, "fp16", 20) == (None, "unknown: no FP16 peak")


def test_csv_has_one_row_per_point(fixture_report):
    with open(fixture_report / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    docs = [read_fixture(p) for p in (GPU_A, GPU_B, CPU_ONLY)]
    assert len(rows) == sum(len(d["points"]) for d in docs)
    oom = [r for r in rows if r["status"] == "oom"]
    assert oom and all(r["median_ms"] == "" for r in oom)  # empty, not zero
    assert {r["device_name"] for r in rows} == {"Test CPU (fixture)", "Test GPU A (fixture)",
                                                "Test GPU B (fixture)", "Test CPU C (fixture)"}


def test_colours_are_one_fixed_mapping():
    assert set(PRECISION_COLOURS) == set(results_file.PRECISIONS)
    device_colours = set(CPU_COLOURS) | set(GPU_COLOURS)
    assert not device_colours & set(PRECISION_COLOURS.values())
    data = Data([results_file.load(GPU_A), results_file.load(GPU_B)])
    # The same device keeps its colour whichever chart it is drawn in: one Device object each.
    colours = [d.colour for d in data.devices]
    assert len(set(colours)) == len(colours)


def test_incomplete_file_gets_a_banner_and_its_journal_is_merged(tmp_path):
    doc = read_fixture(CPU_ONLY)
    doc["status"] = "incomplete"
    doc["context"]["end_time"] = None
    kept, later = doc["points"][:10], doc["points"][10:]
    doc["points"], doc["models"], doc["boundaries"] = kept, [], []
    path = write_json(tmp_path / "partial.json", doc)
    lines = [json.dumps({"journal": "layerbench-results/1"})]
    lines += [json.dumps({"point": p}) for p in kept[:2] + later]  # repeats are not counted twice
    lines.append(json.dumps({"point": later[0]})[:40])  # the line a kill cut short
    (tmp_path / "partial.json.journal").write_text("\n".join(lines))
    proc = run_script("report.py", path, "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    assert re.search(rf"partial\.json is INCOMPLETE: .*; {len(later)} points recovered from its "
                     "journal", page)
    assert "no model-level records in these files" in page
    with open(tmp_path / "out" / "results.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == len(kept) + len(later)


def test_a_model_sum_says_its_uncertainty_and_is_unstable_from_ten_percent(tmp_path):
    doc = read_fixture(CPU_ONLY)  # TEST DATA: uncertainties given to the fixture's points
    best = max((r for r in doc["models"] if r["status"] == "ok"), key=lambda r: r["images_per_s"])

    def page_with(uncertainty):
        for p in doc["points"]:
            if p.get("timing"):
                p["timing"]["uncertainty"] = uncertainty
        out = tmp_path / str(uncertainty)
        proc = run_script("report.py", write_json(tmp_path / f"{uncertainty}.json", doc), "-o", out)
        assert proc.returncode == 0, proc.stderr
        return (out / "index.html").read_text()

    steady = page_with(0.034)
    assert f"(batch {best['batch']}, ±3.4%)" in steady
    assert "model sums are unstable" not in steady
    shaky = page_with(0.12)
    assert f"(batch {best['batch']}, ±12.0%, unstable)" in shaky
    assert "model sums are unstable" in shaky


def test_a_run_whose_canary_read_slow_for_a_tenth_of_it_gets_a_banner(tmp_path):
    doc = read_fixture(CPU_ONLY)  # TEST DATA: a canary summary given to the fixture
    canary = {"readings": 1000, "slow_readings": 7, "slowest": 1.85, "slow_share": 0.007,
              "memory_slow_readings": 530, "memory_slowest": 2.26, "slow_above": 1.5,
              "compute_unit_ms": 0.114, "memory_unit_ms": 0.116}
    doc["context"]["machine_state"] = {"processors": 2, "threads": 2, "canary": canary}
    proc = run_script("report.py", write_json(tmp_path / "slow.json", doc), "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    banner = re.search(r"slow\.json: the machine's own speed moved during the run: ([^<]*)<", page)
    assert banner, "no machine-speed banner"
    assert "memory unit read over 1.5x its quiet time in 53.0% of 1000 readings (at worst " \
        "2.26x)" in banner[1]
    assert "compute unit read over 1.5x its quiet time in 0.7% of 1000 readings" in banner[1]
    canary["memory_slow_readings"] = 99  # under a tenth for both units: no banner
    proc = run_script("report.py", write_json(tmp_path / "ok.json", doc), "-o", tmp_path / "ok")
    assert proc.returncode == 0, proc.stderr
    assert "own speed moved" not in (tmp_path / "ok" / "index.html").read_text()
