"""A results file's point measures, checked as results_file.check reads them
(reports/results-schema.md, "timing" and "telemetry"): every number finite and in range, every
count an integer, every flag true/false, and the rounds agreeing with their medians.
"""
from __future__ import annotations

from layerbench_report.checked_json import Fields

# The numbers of a point's "telemetry" the report reads (reports/results-schema.md).
TELEMETRY_NUMBERS = ("sm_clock_min_mhz", "sm_clock_median_mhz", "memory_clock_min_mhz",
                     "memory_clock_median_mhz", "power_median_w", "energy_j", "window_s",
                     "joules_per_run", "gflop_per_joule", "gb_per_joule")
TELEMETRY_TALLIES = ("samples", "throttled_samples", "retaken_samples")


def check_timing(timing: Fields):
    """A timed point's timing: a usable median, whatever its status, and its rounds agreeing."""
    timing.number("median_ms", positive=True)
    for key in ("min_ms", "max_ms", "mean_ms", "stddev_ms", "noise", "round_spread",
                "uncertainty", "cpu_share"):
        timing.number(key, optional=True, nullable=True)
    timing.tally("samples")
    timing.tally("preempted_samples")
    timing.text("cache", optional=True)
    timing.text("stopped_by", optional=True)
    for key in ("unstable", "contended"):
        timing.flag(key, nullable=True)
    medians = timing.numbers("round_medians_ms", positive=True)
    contended = timing.array_of("round_contended", bool)
    rounds = timing.count("rounds", optional=True)
    if rounds is not None or medians is not None:
        counted = len(medians or [])
        if rounds != counted:
            timing.fail("rounds", f"{rounds} beside {counted} round median(s) in "
                                  f"round_medians_ms: the two must agree")
        if contended is not None and len(contended) != counted:
            timing.fail("round_contended", f"{len(contended)} flag(s) beside {counted} round "
                                           "median(s): one for each round")
    best = timing.count("best_round", optional=True)
    if best is not None and best > len(medians or []):
        timing.fail("best_round", f"round {best} of {len(medians or [])}")


def check_telemetry(telemetry: Fields):
    """A point's telemetry (NVML on a GPU, RAPL on a CPU): the report draws and sums its numbers
    and prints its throttle reasons."""
    for key in TELEMETRY_NUMBERS:
        telemetry.number(key, optional=True, nullable=True)
    for key in TELEMETRY_TALLIES:
        telemetry.tally(key)
    for key in ("throttled", "device_lost"):
        telemetry.flag(key)
    telemetry.text("source", optional=True)
    telemetry.text("energy_method", optional=True)
    telemetry.array_of("clock_event_reasons", str)
    telemetry.texts("absent")
