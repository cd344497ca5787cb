"""The report's ratios carry the range their figures' uncertainties allow: precision speed-ups,
per-layer speed-ups between devices (library vs library: test_library_section.py; the headline:
test_report.py). On the hand-made fixtures (TEST DATA, not measurements)."""
import math

from conftest import GPU_A, read_fixture
from test_report import fwd_records, sum_factor

from layerbench_report import results_file
from layerbench_report.charts import layer_rows, plt
from layerbench_report.data import Data
from layerbench_report.sections.precision import speedups


def test_each_precision_speed_up_has_the_range_of_both_sums():
    doc = read_fixture(GPU_A)
    data = Data([results_file.load(GPU_A)])
    device = next(d for d in data.devices_for("testnet") if d.kind == "gpu")
    recs = fwd_records(doc, "gpu:0")
    checked = 0
    for prec, rows in speedups(data, "testnet", device, "fwd").items():
        for batch, ratio, (low, high) in rows:
            fast, fp32 = recs[(prec, batch)], recs[("fp32", batch)]
            assert math.isclose(ratio, fast["images_per_s"] / fp32["images_per_s"])
            factor = sum_factor(doc, fast, "gpu:0") * sum_factor(doc, fp32, "gpu:0")
            assert factor > 1
            assert math.isclose(low, ratio / factor) and math.isclose(high, ratio * factor)
            checked += 1
    assert checked > 0


def test_a_dot_plot_draws_each_range_in_its_series_colour():
    ops = [("conv1", 1), ("fc", 1)]
    series = [("GPU", "#123456", {"conv1": {"status": "ok", "ratio": 4.0, "range": (3.0, 5.0)},
                                 "fc": {"status": "ok", "ratio": 2.0}})]
    fig, ax = plt.subplots()
    layer_rows(ax, ops, series, lambda p: p["ratio"], range_of=lambda p: p.get("range"))
    bars = [line for line in ax.lines if line.get_linewidth() == 3]
    plt.close(fig)
    assert len(bars) == 1 and bars[0].get_color() == "#123456"
    xs, ys = list(bars[0].get_xdata()), list(bars[0].get_ydata())
    assert xs[:2] == [3.0, 5.0] and math.isnan(xs[2]) and ys == [0, 0, 0]  # fc has no range
