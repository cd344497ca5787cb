"""The report's "Memory-bound layers against the memory bandwidth" section, on real files
(fixtures/real/models/README.md gives the commands that wrote them)."""
import json
import re

from conftest import FIXTURES

from layerbench_report import results_file
from layerbench_report import cli
from layerbench_report.data import Data
from layerbench_report.markup import noise_text
from layerbench_report.sections import bandwidth

REAL = FIXTURES / "real" / "models"
WITH_BANDWIDTH = REAL / "layerbench_models_bandwidth_cpu.json"  # triad measured, memory-bound ops
NO_BANDWIDTH = REAL / "layerbench_models_memops_cpu.json"  # memory-bound ops, older: no triad
COMPUTE_ONLY = REAL / "layerbench_models_cpu.json"  # convolutions and GEMMs only


def section_of(tmp_path, results):
    """The section's HTML of every model in the report, joined."""
    assert cli.main([str(results), "-o", str(tmp_path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    heading = "Memory-bound layers against the memory bandwidth</h3>"
    starts = [m.start() for m in re.finditer(re.escape(heading), html)]
    assert starts
    return "".join(html[s:html.index("<h3>", s + len(heading))] for s in starts)


def test_each_memory_bound_point_against_the_measured_bandwidth(tmp_path):
    raw = json.loads(WITH_BANDWIDTH.read_text(encoding="utf-8"))
    triad = raw["context"]["devices"][0]["memory_bandwidth_gbps"]["value"]
    expected = [p for p in raw["points"] if p["model"] == "resnet50" and p["status"] == "ok"
                and p["kind"] not in ("conv", "linear", "bmm")]
    assert expected  # batch norms, ReLUs, adds and pools
    data = Data([results_file.load(WITH_BANDWIDTH)])
    (device, points), = bandwidth.memory_bound_points(data, "resnet50").items()
    assert [p["op"] for p in points] == [p["op"] for p in expected]
    section = section_of(tmp_path, WITH_BANDWIDTH)
    cells = re.findall(r"<tr><td>([^<]+)</td>(.*?)</tr>", section)
    # Columns after the op: kind, pass, precision, batch, MB moved, median ms, GB/s, fraction.
    fraction = {}
    for op, rest in cells:
        columns = re.findall(r"<td>([^<]*)</td>", rest)
        fraction[op, columns[3]] = columns[-1]
    for p in expected:
        assert fraction[p["op"], str(p["batch"])] == f"{p['gbps'] / triad:.0%}", p["op"]
    assert "STREAM triad" in section  # the bandwidth's source is named on the chart


def test_without_a_measured_bandwidth_it_says_so(tmp_path):
    assert "memory bandwidth unknown" in section_of(tmp_path, NO_BANDWIDTH)


def test_a_file_of_convolutions_and_gemms_only_has_nothing_to_show(tmp_path):
    assert "No memory-bound points" in section_of(tmp_path, COMPUTE_ONLY)


def test_each_point_shows_its_noise_and_the_spread_between_its_rounds(tmp_path):
    # The fixture predates rounds: its points show their in-run noise alone and still render.
    section = section_of(tmp_path / "old", WITH_BANDWIDTH)
    raw = json.loads(WITH_BANDWIDTH.read_text(encoding="utf-8"))
    old = next(p for p in raw["points"] if p["model"] == "resnet50" and p["status"] == "ok"
               and p["kind"] not in ("conv", "linear", "bmm"))
    assert "rounds" not in old["timing"]
    assert f"<td>±{old['timing']['noise']:.1%}</td>" in section
    assert ", rounds " not in section
    # The same point measured in two rounds, the second 3.5% slower, and contended.
    old["timing"].update(rounds=2, round_medians_ms=[old["timing"]["median_ms"],
                                                     old["timing"]["median_ms"] * 1.035],
                         round_contended=[True, True], best_round=1, round_spread=0.035,
                         contended=True)
    rounds_file = tmp_path / "rounds.json"
    rounds_file.write_text(json.dumps(raw), encoding="utf-8")
    section = section_of(tmp_path / "new", rounds_file)
    assert f"<td>±{old['timing']['noise']:.1%}, rounds 3.5%, contended</td>" in section


def test_the_noise_text_of_a_point():
    timing = {"median_ms": 1.0, "noise": 0.0123}
    assert noise_text({"timing": timing}) == "±1.2%"
    timing.update(rounds=1, round_spread=0.0)
    assert noise_text({"timing": timing}) == "±1.2%"
    timing.update(rounds=3, round_spread=0.0456, contended=True)
    assert noise_text({"timing": timing}) == "±1.2%, rounds 4.6%, contended"
    assert noise_text({"status": "oom", "timing": None}) == "–"


def test_the_precision_panel_leaves_zero_flop_layers_to_this_section(monkeypatch):
    from layerbench_report.charts import Charts
    from layerbench_report.sections import precision
    charted = []

    def layer_rows(ax, ops, series, value, log=True):
        charted.extend(op for op, _ in ops)
        return []

    monkeypatch.setattr(precision, "layer_rows", layer_rows)
    data = Data([results_file.load(WITH_BANDWIDTH)])
    precision.render(data, "resnet50", Charts())
    (_, memory_bound), = bandwidth.memory_bound_points(data, "resnet50").items()
    assert charted and memory_bound
    # No memory-bound layer (no FLOP: it would draw at 0 TFLOP/s) is charted by TFLOP/s.
    assert not {p["op"] for p in memory_bound} & set(charted)
