"""A point's rounds as the results file records them, and what the rounds of a whole run say
about each of its points (docs/measuring.md, "Comparing two runs")."""
from __future__ import annotations

# What the reader adds to each timed point's timing (never in a file): its run's floor on every
# point's uncertainty, the RUN_FLOOR_QUANTILE of the spreads between the rounds of the run's
# points (round_spread_floor; docs/measuring.md, "Comparing two runs").
RUN_FLOOR = "run_uncertainty_floor"
RUN_FLOOR_QUANTILE = 0.75


def round_spread_floor(points) -> float:
    """The RUN_FLOOR_QUANTILE of (slowest / fastest counted round - 1) over the points with 2 or
    more counted rounds (the nearest rank below), contended ones left out; 0 when none is left. A
    point's own two rounds are a sample of two and often agree by chance; the run's other points
    say how far two rounds of this run typically differ. A contended point's rounds say how busy
    the machine was: such a point is UNSTABLE beyond its own uncertainty, and a floor from a busy
    run's points would call it SAME."""
    quiet = [p for p in points if not (p.get("timing") or {}).get("contended")]
    spreads = sorted(max(m) / min(m) - 1 for m in map(round_medians_ms, quiet) if len(m) >= 2)
    return spreads[int(RUN_FLOOR_QUANTILE * (len(spreads) - 1))] if spreads else 0.0


def one_clean_round(p: dict) -> bool:
    """Whether of a point's 2 or more rounds exactly one was measured clean: the machine was busy
    around it, and its figure, that one round's, has no other clean round to be checked against
    (the run's extra rounds did not get it a second)."""
    t = p.get("timing")
    contended = t.get("round_contended") if isinstance(t, dict) else None
    return isinstance(contended, list) and len(contended) >= 2 and contended.count(False) == 1


def round_medians_ms(p: dict) -> list:
    """The medians of the rounds that counted (timing.round_medians_ms, those measured clean,
    or all when none was), else the point's one median; [] when untimed."""
    t = p.get("timing")
    if not isinstance(t, dict):
        return []
    medians = t.get("round_medians_ms") or [t["median_ms"]]
    contended = t.get("round_contended")
    if isinstance(contended, list) and len(contended) == len(medians) and not all(contended):
        medians = [m for m, c in zip(medians, contended) if c is not True]
    return list(medians)
