"""The verdict on one point between two results files, or between two sides of several runs
each: SAME within the larger of the points' uncertainties (or --threshold), FASTER or SLOWER
when a U test over rounds, the ratio's range or runs wholly apart say so, else AMBIGUOUS;
UNSTABLE for a contended point (or one with a single clean round) that is not SAME and an
unstable one that is AMBIGUOUS (docs/measuring.md, "Comparing two runs"). compare.py prints them."""
from __future__ import annotations

import statistics

from layerbench_report import rank_test, results_file, rounds, uncertainty
from layerbench_report.uncertainty import ratio_range

NOT_TIMED = "NOT TIMED"
VERDICTS = ("FASTER", "SLOWER", "SAME", "AMBIGUOUS", "UNSTABLE", NOT_TIMED)


# The U test's level: a point is FASTER or SLOWER when p is below it (two-sided).
SIGNIFICANCE = 0.05


def verdict(pb: dict, pn: dict, threshold_pct):
    """(verdict: FASTER / SLOWER / SAME / AMBIGUOUS / UNSTABLE / NOT TIMED, remark, NEW/BASE
    time ratio or None, tolerance used or None).

    SAME: the difference is within the tolerance (the larger uncertainty, or --threshold).
    Beyond it, with at least 4 counted rounds on each side (the least that can reach p < 0.05),
    the Mann-Whitney U test over the round medians decides: FASTER or SLOWER when p < 0.05, else
    AMBIGUOUS. With fewer rounds: FASTER or SLOWER when the ratio's range (ratio_range) excludes
    1, else AMBIGUOUS. Not SAME, and a side's rounds disagreed widely or it was contended:
    UNSTABLE, for its time is not one a rerun would give."""
    tb, tn = results_file.median_ms(pb), results_file.median_ms(pn)
    if tb is None or tn is None:
        missing = [f"{which} {p['status']}" for which, p in (("BASE", pb), ("NEW", pn))
                   if results_file.median_ms(p) is None]
        return NOT_TIMED, ", ".join(missing), None, None
    ratio = tn / tb
    u_base, u_new = uncertainty.noise(pb), uncertainty.noise(pn)
    tolerance = threshold_pct / 100 if threshold_pct is not None else max(u_base, u_new)
    rounds_b, rounds_n = rounds.round_medians_ms(pb), rounds.round_medians_ms(pn)
    remarks = []
    if abs(ratio - 1) <= tolerance:
        word = "SAME"
    elif min(len(rounds_b), len(rounds_n)) >= 4:
        p_value = rank_test.two_sided_p(rounds_n, rounds_b)
        remarks.append(f"U test over rounds: p = {p_value:.3f}")
        word = "AMBIGUOUS" if p_value >= SIGNIFICANCE else "FASTER" if ratio < 1 else "SLOWER"
    else:
        low, high = ratio_range(ratio, u_base, u_new)
        word = "FASTER" if high < 1 else "SLOWER" if low > 1 else "AMBIGUOUS"
        if word == "AMBIGUOUS":
            remarks.append(f"NEW/BASE range {low:.3f}-{high:.3f} includes 1")
    word, remark = flagged(word, remarks, [pb], [pn])
    return word, remark, ratio, tolerance


def flagged(word: str, remarks: list, pbs: list, pns: list):
    """The verdict and its remark once the sides' flags are known (pbs, pns: the point in each
    run of a side). A contended point lost CPU to other processes: its time is not one a rerun
    would give, so a verdict but SAME becomes UNSTABLE; so does one whose figure is its only clean
    round, the others contended: the machine was busy around that round too, and no other clean
    round checks it. An unstable one's rounds disagreed widely: AMBIGUOUS becomes UNSTABLE, but a
    difference beyond even the whole spread of its rounds (its uncertainty) stays FASTER or
    SLOWER, remarked, as pyperf reports a significant difference and warns that a benchmark may
    be unstable. The spread between runs covers one run's disagreeing rounds, so a side is
    unstable when most of its runs are; a run that lost CPU says the machine was busy while its
    side ran, and the side's other runs may have lost CPU unseen, so one contended run (or one
    with a single clean round) makes it so."""
    sides = (("BASE", pbs), ("NEW", pns))
    failed = [w for w, ps in sides if any(p["status"] == "failed" for p in ps)]
    contended = [w for w, ps in sides
                 if any((p.get("timing") or {}).get("contended") for p in ps)]
    alone = [w for w, ps in sides
             if w not in contended and any(rounds.one_clean_round(p) for p in ps)]
    unstable = [w for w, ps in sides
                if sum(1 for p in ps if uncertainty.unstable(p)) * 2 > len(ps)]
    if failed:
        remarks.insert(0, f"validation failed in {' and '.join(failed)}")
    if contended:
        remarks.append(f"contended in {' and '.join(contended)}: CPU lost to other processes")
    if alone:
        remarks.append(f"one clean round in {' and '.join(alone)}: its other rounds contended")
    if unstable:
        remarks.append(f"unstable in {' and '.join(unstable)}: its rounds disagree")
    if ((contended or alone) and word != "SAME") or (unstable and word == "AMBIGUOUS"):
        word = "UNSTABLE"
    return word, "; ".join(remarks)


def process_spread(medians) -> float:
    """How far a side's runs (one median each) spread: max / min - 1; 0 for one run."""
    return max(medians) / min(medians) - 1 if len(medians) > 1 else 0.0


def verdict_over_runs(pbs: list, pns: list, threshold_pct):
    """verdict() for sides of several runs each, every run a process of its own (pbs, pns: the
    point's record in each run of BASE and of NEW). With one run each it is verdict(). Otherwise
    the ratio is that of the sides' medians over their runs, and the tolerance is the larger of
    each side's median uncertainty and the spread between each side's runs (process_spread), which
    one process cannot see. SAME within it; beyond it FASTER or SLOWER only when every run of one
    side is faster than every run of the other and each side had at least 2 runs, else
    AMBIGUOUS; UNSTABLE as in verdict(), when most runs of a side are unstable or one of them is
    contended."""
    if len(pbs) == 1 and len(pns) == 1:
        return verdict(pbs[0], pns[0], threshold_pct)
    timed_b = [results_file.median_ms(p) for p in pbs if results_file.median_ms(p) is not None]
    timed_n = [results_file.median_ms(p) for p in pns if results_file.median_ms(p) is not None]
    if not timed_b or not timed_n:
        word, remark, _, _ = verdict(pbs[0], pns[0], threshold_pct)
        return (NOT_TIMED, remark or "no run timed it on one side", None, None)
    ratio = statistics.median(timed_n) / statistics.median(timed_b)
    spread = max(process_spread(timed_b), process_spread(timed_n))
    # A side's own uncertainty is its runs' median one: one wild run widens the spread between
    # runs, and should not widen the tolerance twice.
    in_run = max(statistics.median(uncertainty.noise(p) for p in ps) for ps in (pbs, pns))
    tolerance = threshold_pct / 100 if threshold_pct is not None else max(in_run, spread)
    remarks = [f"runs {len(timed_b)} and {len(timed_n)}, spread between runs {spread:.1%}"]
    apart = max(timed_n) < min(timed_b) or min(timed_n) > max(timed_b)
    if abs(ratio - 1) <= tolerance:
        word = "SAME"
    elif min(len(timed_b), len(timed_n)) >= 2 and apart:
        word = "FASTER" if ratio < 1 else "SLOWER"
    else:
        word = "AMBIGUOUS"
        remarks.append("the runs of the two sides overlap" if not apart else
                       "one run on a side shows no spread between runs")
    word, remark = flagged(word, remarks, pbs, pns)
    return word, remark, ratio, tolerance
