"""How well a figure is known, and a ratio of two (docs/measuring.md, "Comparing two runs").

A point's relative uncertainty u is timing.uncertainty (noise below): the figure is known
within a factor (1 + u) either way, and a ratio of two figures within the product of theirs.
"""
from __future__ import annotations

from layerbench_report import results_file, rounds
from layerbench_report.layer_precisions import summed_points
from layerbench_report.markup import fmt_ratio


def ratio_range(ratio: float, u_a: float, u_b: float) -> tuple:
    """(low, high) of a ratio of two figures with relative uncertainties u_a and u_b."""
    factor = (1 + u_a) * (1 + u_b)
    return ratio / factor, ratio * factor


def ranged_text(ratio: float, u_a: float, u_b: float) -> str:
    """"1.75× (1.62–1.89×)": the ratio and its range (ratio_range)."""
    low, high = ratio_range(ratio, u_a, u_b)
    return f"{fmt_ratio(ratio)} ({fmt_ratio(low).rstrip('×')}–{fmt_ratio(high)})"


def record_uncertainty(data, model, device, record) -> float:
    """A model sum's relative uncertainty: its points' uncertainties weighted by their share of
    its time (sum of count x median x u over sum of count x median), as when their errors move
    together, as a busy machine's do. Its points: the model's on that device and batch, each op
    kind's in the precision the record summed it in (a TF32 sum's memory-bound layers in FP32,
    layer_precisions.py); a forward sum's of pass fwd, a training step's of every pass. 0
    without points."""
    points = [p for p in summed_points(data.points_of(model, device, batch=record["batch"]),
                                       record) if results_file.median_ms(p) is not None]
    weights = [(p.get("count") or 1) * results_file.median_ms(p) for p in points]
    total = sum(weights)
    if not total:
        return 0.0
    return sum(w * noise(p) for w, p in zip(weights, points)) / total


# The level from which a model sum is unstable: the run's own for its sums
# (harness/results/aggregate.hpp, unstable_sum_uncertainty).
UNSTABLE_SUM_UNCERTAINTY = 0.10


def unstable_sum(data, model, device, record) -> bool:
    """Whether a model sum's uncertainty (record_uncertainty, its points' with their run's floor)
    is UNSTABLE_SUM_UNCERTAINTY or more."""
    return record_uncertainty(data, model, device, record) >= UNSTABLE_SUM_UNCERTAINTY


def noise(p: dict) -> float:
    """The point's relative uncertainty: timing.uncertainty, else (files from before it) the
    larger of its in-round noise and the spread between its rounds (timing.round_spread; absent
    in files from before interleaved rounds); at least its run's floor, which the reader adds
    (rounds.RUN_FLOOR)."""
    t = p.get("timing")
    if not isinstance(t, dict):
        return 0.0
    own = t.get("uncertainty")
    if own is None:
        own = max(float(t.get("noise") or 0.0), float(t.get("round_spread") or 0.0))
    return max(float(own), float(t.get(rounds.RUN_FLOOR) or 0.0))


def unstable(p: dict) -> bool:
    """Whether the point's rounds still disagreed widely (timing.unstable)."""
    t = p.get("timing")
    return isinstance(t, dict) and t.get("unstable") is True
