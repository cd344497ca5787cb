"""The GPU clocks, power and work-per-joule section on the fixture files (TEST DATA: their
telemetry is invented by tests/python/fixtures/make_fixtures.py, not read from a GPU)."""
import re

import pytest

from conftest import CPU_ONLY, GPU_A, GPU_B, read_fixture, write_json

from layerbench_report import cli, results_file
from layerbench_report.checked_json import BadResultsFile
from layerbench_report.data import Data
from layerbench_report.sections import energy

HEADING = "GPU clocks, power and work per joule</h3>"


def section_of(tmp_path, *files):
    assert cli.main([*map(str, files), "-o", str(tmp_path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    start = html.index(HEADING)
    return html[start:html.index("<h3>", start + len(HEADING))]


def rows(section):
    return [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", section)]


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


def test_kept_throttled_is_marked():
    assert energy.throttle_text({"throttled": True, "throttled_samples": 9, "samples": 9,
                                 "clock_event_reasons": ["hw_thermal_slowdown"]}) == \
        "kept throttled (hw_thermal_slowdown)"
    assert energy.throttle_text({"throttled_samples": 0, "clock_event_reasons": []}) == "no"


def test_files_without_telemetry_say_so(tmp_path):
    section = section_of(tmp_path, CPU_ONLY)
    assert "No GPU point with NVML telemetry" in section


def test_a_bad_telemetry_figure_names_the_field(tmp_path):
    doc = read_fixture(GPU_A)
    point = next(p for p in doc["points"] if p.get("telemetry"))
    point["telemetry"]["power_median_w"] = -5
    with pytest.raises(BadResultsFile, match=r"telemetry\.power_median_w"):
        results_file.load(write_json(tmp_path / "bad.json", doc))
