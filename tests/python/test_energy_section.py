"""The clocks, power and work-per-joule section on the fixture files (TEST DATA: their GPU and
RAPL telemetry is invented by tests/python/fixtures/make_fixtures.py, not read from a GPU or a
CPU's counters)."""
import re

import pytest

from conftest import CPU_ONLY, GPU_A, GPU_B, read_fixture, write_json

from layerbench_report import cli, results_file
from layerbench_report.checked_json import BadResultsFile
from layerbench_report.data import Data
from layerbench_report.markup import fmt_rate
from layerbench_report.sections import energy

HEADING = "Clocks, power and work per joule</h3>"


def section_of(tmp_path, *files):
    assert cli.main([*map(str, files), "-o", str(tmp_path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    start = html.index(HEADING)
    return html[start:html.index("<h3>", start + len(HEADING))]


def rows(section):
    """The cells of each body row (a header row has none)."""
    cells = [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", section)]
    return [c for c in cells if c]


def test_clock_power_and_per_joule_beside_each_gpu_point(tmp_path):
    section = section_of(tmp_path, GPU_A, GPU_B)
    doc = read_fixture(GPU_B)
    ok = [p for p in doc["points"] if p["status"] == "ok"]
    table_rows = [r for r in rows(section) if len(r) == 12]
    # Columns: op, pass, precision, batch, median ms, TFLOP/s, SM MHz, memory MHz, board W,
    # GFLOP/J, energy from, throttled.
    for p in ok:
        t = p["telemetry"]
        match = [r for r in table_rows if r[0] == p["op"] and r[3] == str(p["batch"])
                 and r[2] == results_file.precision_name(p["precision"])
                 and r[1] == results_file.pass_name(p["pass"]) and r[9] ==
                 f"{t['gflop_per_joule']:.3g}"]
        assert match, p["op"]
        assert match[0][8] == f"{t['power_median_w']:.0f}"
    throttled = [r for r in table_rows if r[-1].startswith("throttled")]
    expected = [p for p in ok if p["telemetry"]["throttled_samples"]]
    assert expected and len(throttled) == len(expected)
    assert throttled[0][-1] == "throttled 20 of 50 (sw_power_cap)"
    assert "(min 1411)" in throttled[0][6]  # the throttled clock's least reading
    assert "power × time" in section  # batch 1 has no energy counter in the fixture
    assert "GPU vs GPU work per joule" in section  # the chart's alt text


def test_layer_sum_per_joule_is_work_over_energy():
    data = Data([results_file.load(GPU_B)])
    (device, points), = energy.telemetry_points(data, "testnet").items()
    mine = [p for p in points if p["precision"] == "fp16" and p["batch"] == 8
            and p["pass"] == "fwd"]
    work = sum(p["count"] * p["gflop"] for p in mine)
    joules = sum(p["count"] * p["telemetry"]["joules_per_run"] for p in mine)
    assert energy.layer_sum_per_joule(points, "fp16", 8) == pytest.approx(work / joules)
    mine[0]["telemetry"]["joules_per_run"] = None
    assert energy.layer_sum_per_joule(points, "fp16", 8) is None


def test_kept_throttled_samples_are_counted_and_retaken_ones_are_not():
    assert energy.throttle_text({"throttled": True, "throttled_samples": 9, "samples": 9,
                                 "clock_event_reasons": ["hw_thermal_slowdown"]}) == \
        "throttled 9 of 9 (hw_thermal_slowdown)"
    # A file from before the rule: samples throttled but the point not flagged.
    assert energy.throttle_text({"throttled": False, "throttled_samples": 5, "samples": 5}) == \
        "throttled 5 of 5"
    assert energy.throttle_text({"throttled_samples": 3, "retaken_samples": 3, "samples": 20,
                                 "clock_event_reasons": ["sw_power_cap"]}) == \
        "no (3 throttled re-taken) (sw_power_cap)"
    assert energy.throttle_text({"throttled_samples": 0, "clock_event_reasons": []}) == "no"


def test_a_cpu_without_rapl_has_no_per_joule_column_and_says_why(tmp_path):
    section = section_of(tmp_path, CPU_ONLY)
    assert "No point with energy figures" in section
    why = read_fixture(CPU_ONLY)["context"]["devices"][0]["energy"]["absent"]
    assert f"Test CPU C (fixture): no CPU energy, so no per-joule figures: {why}." in section
    assert "GFLOP/J" not in section and "images/J" not in section


def test_cpu_points_with_rapl_energy_have_a_per_joule_column(tmp_path):
    section = section_of(tmp_path, GPU_A, CPU_ONLY)
    cpu = section[section.index("<h4>Test CPU (fixture)</h4>"):]
    cpu = cpu[:cpu.index("</table>")]
    assert re.findall(r"<th>([^<]*)</th>", cpu) == [
        "op", "pass", "precision", "batch", "median ms", "TFLOP/s", "GFLOP/J", "energy from"]
    doc = read_fixture(GPU_A)
    ok = [p for p in doc["points"] if p["device"] == "cpu" and p["status"] == "ok"]
    cells = rows(cpu)
    assert ok and len(cells) == len(ok)
    for p, r in zip(ok, cells):
        assert r[6] == f"{p['telemetry']['gflop_per_joule']:.3g}"
        assert r[7] == "RAPL packages"
    # The CPU without RAPL in the other file: named, with why, and no rows.
    assert "Test CPU C (fixture): no CPU energy, so no per-joule figures" in section


def test_model_sums_per_joule_are_batch_over_their_energy(tmp_path):
    section = section_of(tmp_path, GPU_A)
    sums = section[section.index("<h4>Model sums per joule</h4>"):]
    sums = sums[:sums.index("</table>")]
    assert re.findall(r"<th>([^<]*)</th>", sums)[4:7] == ["images/s", "images/J", "J per batch"]
    doc = read_fixture(GPU_A)
    with_energy = [r for r in doc["models"] if r.get("images_per_joule") is not None]
    assert {r["device"] for r in with_energy} == {"cpu", "gpu:0"}  # RAPL and NVML alike
    assert len(rows(sums)) == len(with_energy)
    for r in with_energy:
        mine = [p for p in doc["points"] if p["device"] == r["device"] and p["batch"] == r["batch"]
                and p["precision"] == r["precision"] and
                p["pass"] in (("fwd",) if r["pass"] == "fwd" else ("fwd", "bwd_data",
                                                                   "bwd_weights"))]
        joules = sum(p["count"] * p["telemetry"]["joules_per_run"] for p in mine)
        assert r["images_per_joule"] == pytest.approx(r["batch"] / joules)
        assert [c for c in rows(sums) if c[2:4] == [results_file.precision_name(r["precision"]),
                                                    str(r["batch"])] and
                c[1] == results_file.pass_name(r["pass"]) and
                c[5] == f"{r['images_per_joule']:.3g}"]
    # A record over a point without energy has none (the failed and oom sums have no figures).
    assert all(r.get("images_per_joule") is None for r in doc["models"] if r["status"] != "ok")


def test_a_bad_images_per_joule_names_the_field(tmp_path):
    doc = read_fixture(GPU_A)
    record = next(r for r in doc["models"] if r.get("images_per_joule") is not None)
    record["images_per_joule"] = -1
    with pytest.raises(BadResultsFile, match=r"images_per_joule"):
        results_file.load(write_json(tmp_path / "bad.json", doc))


def test_a_bad_telemetry_figure_names_the_field(tmp_path):
    doc = read_fixture(GPU_A)
    point = next(p for p in doc["points"] if p.get("telemetry"))
    point["telemetry"]["power_median_w"] = -5
    with pytest.raises(BadResultsFile, match=r"telemetry\.power_median_w"):
        results_file.load(write_json(tmp_path / "bad.json", doc))


def test_burst_and_sustained_sit_beside_the_datasheet_peak(tmp_path):
    section = section_of(tmp_path, GPU_B)
    part = section[section.index("<h4>Burst and sustained</h4>"):]
    part = part[:part.index("</table>")]
    doc = read_fixture(GPU_B)
    point = next(p for p in doc["points"] if "sustained" in p["notes"])
    peak = doc["context"]["devices"][0]["peaks"][point["precision"]]["tflops"]
    (row,) = rows(part)
    assert row[1:4] == [point["op"], results_file.precision_name(point["precision"]),
                        str(point["batch"])]
    notes = point["notes"]
    assert row[4:7] == [fmt_rate(float(notes["burst_tflops"])),
                        fmt_rate(float(notes["sustained_tflops"])), fmt_rate(peak)]
    assert row[-1] == notes["sustained"]


def test_no_sustained_run_no_burst_table(tmp_path):
    assert "Burst and sustained" not in section_of(tmp_path, GPU_A)
