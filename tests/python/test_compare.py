"""compare.py verdicts on copies of a fixture file (TEST DATA) with chosen times and noise."""
import pytest

from conftest import GPU_A, read_fixture, run_script, write_json
from layerbench_report import rank_test, rounds

# Points of fixture_gpu_a.json, chosen by (op, batch, precision, pass, device).
SLOWER_50 = ("conv7x7_3to64_s2", 32, "fp16", "fwd", "gpu:0")
FASTER_50 = ("fc_2048to1000", 8, "fp32", "fwd", "gpu:0")
WITHIN_NOISE = ("qk_bmm_196x196x64", 1, "tf32", "fwd", "gpu:0")     # +1.5%, noise 2%
ABOVE_NOISE = ("conv3x3_64to64_56", 64, "bf16", "fwd", "gpu:0")     # +4%, noise 2%
CPU_POINT = ("conv7x7_3to64_s2", 1, "fp32", "fwd", "cpu")


def find(doc, key):
    return next(p for p in doc["points"] if (p["op"], p["batch"], p["precision"], p["pass"],
                                             p["device"]) == key)


def scale(doc, key, factor, noise=None):
    t = find(doc, key)["timing"]
    t["median_ms"] *= factor
    if noise is not None:
        t["noise"] = noise


@pytest.fixture
def pair(tmp_path):
    """BASE and NEW: the same file with a few points made slower or faster."""
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    for doc in (base, new):
        for key in (WITHIN_NOISE, ABOVE_NOISE):
            find(doc, key)["timing"]["noise"] = 0.02
    scale(new, SLOWER_50, 1.5)
    scale(new, FASTER_50, 0.5)
    scale(new, WITHIN_NOISE, 1.015)
    scale(new, ABOVE_NOISE, 1.04)
    return write_json(tmp_path / "base.json", base), write_json(tmp_path / "new.json", new)


def row(output, key):
    """The table row of a point, split into its cells (no cell holds a space but the verdict)."""
    op, batch, precision, pass_, device = key
    for line in output.splitlines():
        cells = line.split()
        if len(cells) > 6 and cells[1] == op and cells[2] == pass_ and \
                cells[3] == precision.upper() and cells[4] == str(batch) and cells[5] == device:
            return cells
    raise AssertionError(f"no row for {key}")


def verdict(output, key):
    return row(output, key)[11]


def test_the_spread_between_rounds_counts_as_noise(tmp_path):
    """+4% with 1% in-round noise but a 5% spread between rounds is SAME; without it, SLOWER."""
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    for doc in (base, new):
        find(doc, ABOVE_NOISE)["timing"]["noise"] = 0.01
    scale(new, ABOVE_NOISE, 1.04)
    files = write_json(tmp_path / "base.json", base), write_json(tmp_path / "new.json", new)
    assert verdict(run_script("compare.py", *files).stdout, ABOVE_NOISE) == "SLOWER"
    find(new, ABOVE_NOISE)["timing"].update(
        {"rounds": 2, "round_medians_ms": [1.0, 1.05], "best_round": 1, "round_spread": 0.05})
    write_json(tmp_path / "new.json", new)
    assert verdict(run_script("compare.py", *files).stdout, ABOVE_NOISE) == "SAME"


def test_verdicts_use_the_recorded_noise(pair):
    proc = run_script("compare.py", *pair)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert verdict(out, SLOWER_50) == "SLOWER"
    assert verdict(out, FASTER_50) == "FASTER"
    assert verdict(out, WITHIN_NOISE) == "SAME"
    # +4% against 2% on each side: NEW/BASE's range, 1.04 / 1.02^2 to 1.04 x 1.02^2, holds 1.
    assert verdict(out, ABOVE_NOISE) == "AMBIGUOUS"
    assert "range 1.000-1.082 includes 1" in " ".join(row(out, ABOVE_NOISE))
    assert verdict(out, CPU_POINT) == "SAME"  # unchanged
    cells = row(out, SLOWER_50)
    assert cells[8] == "1.500" and cells[9] == "+50.0%"
    base_ms = find(read_fixture(GPU_A), SLOWER_50)["timing"]["median_ms"]
    assert float(cells[6]) == pytest.approx(base_ms, rel=1e-3)
    assert float(cells[7]) == pytest.approx(base_ms * 1.5, rel=1e-3)


def test_a_contended_point_is_never_slower(tmp_path):
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    scale(new, CPU_POINT, 1.5)
    find(new, CPU_POINT)["timing"].update(contended=True, cpu_share=0.6, preempted_samples=9)
    proc = run_script("compare.py", write_json(tmp_path / "base.json", base),
                      write_json(tmp_path / "new.json", new))
    assert proc.returncode == 0, proc.stderr
    line = " ".join(row(proc.stdout, CPU_POINT))
    assert "UNSTABLE (contended in NEW: CPU lost to other processes)" in line, line
    # An old file (no pre-emption fields) and a clean point: the bare verdict.
    assert verdict(proc.stdout, SLOWER_50) == "SAME"


def test_a_point_with_one_clean_round_is_never_slower(tmp_path):
    """+30% in the one clean round of three, the others contended: UNSTABLE, not SLOWER; with a
    second clean round the same figure is SLOWER."""
    outs = []
    for contended in ([True, False, True], [False, False, True]):
        base, new = read_fixture(GPU_A), read_fixture(GPU_A)
        base_ms = find(base, CPU_POINT)["timing"]["median_ms"]
        rounds_of(base, CPU_POINT, [base_ms] * 3, noise=0.01)
        rounds_of(new, CPU_POINT, [base_ms * 1.3, base_ms * 1.3, base_ms * 4], noise=0.01)
        find(new, CPU_POINT)["timing"].update(round_contended=contended, round_spread=0.0,
                                              uncertainty=0.01, median_ms=base_ms * 1.3)
        proc = run_script("compare.py", write_json(tmp_path / "base.json", base),
                          write_json(tmp_path / "new.json", new))
        assert proc.returncode == 0, proc.stderr
        outs.append(" ".join(row(proc.stdout, CPU_POINT)))
    assert "UNSTABLE (one clean round in NEW: its other rounds contended)" in outs[0], outs[0]
    assert outs[1].endswith("SLOWER"), outs[1]


def test_threshold_replaces_the_noise(pair):
    out = run_script("compare.py", *pair, "--threshold", "5").stdout
    assert verdict(out, ABOVE_NOISE) == "SAME"
    assert verdict(out, WITHIN_NOISE) == "SAME"
    assert verdict(out, SLOWER_50) == "SLOWER"
    assert row(out, ABOVE_NOISE)[10] == "5.0%"


def test_fail_above_is_a_regression_gate(pair):
    gate = run_script("compare.py", *pair, "--fail-above", "40")
    assert gate.returncode == 1
    assert "REGRESSION: 1 point(s) slower by more than 40%" in gate.stdout
    assert "testnet conv7x7_3to64_s2 batch 32 FP16 fwd on gpu:0: +50.0%" in gate.stdout
    assert run_script("compare.py", *pair, "--fail-above", "60").returncode == 0
    # 3% catches the +4% point too, though a point slower by 1.5% does not count.
    low = run_script("compare.py", *pair, "--fail-above", "3")
    assert low.returncode == 1 and "REGRESSION: 2 point(s)" in low.stdout


def test_not_timed_points_are_shown_not_compared(pair):
    out = run_script("compare.py", *pair).stdout
    cells = row(out, ("conv7x7_3to64_s2", 128, "fp32", "fwd", "gpu:0"))
    assert cells[6] == "oom" and cells[7] == "oom"
    assert " ".join(cells[11:]) == "NOT TIMED (BASE oom, NEW oom)"


def test_points_in_one_file_only_are_listed(tmp_path):
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    gone = find(new, FASTER_50)
    new["points"].remove(gone)
    extra = dict(find(new, SLOWER_50), batch=512)
    new["points"].append(extra)
    proc = run_script("compare.py", write_json(tmp_path / "b.json", base),
                      write_json(tmp_path / "n.json", new))
    assert proc.returncode == 0
    out = proc.stdout
    assert "Only in BASE (1):\n  testnet fc_2048to1000 batch 8 FP32 fwd on gpu:0: ok" in out
    assert "Only in NEW (1):\n  testnet conv7x7_3to64_s2 batch 512 FP16 fwd on gpu:0: ok" in out
    assert "1 only in BASE, 1 only in NEW." in out


def test_device_and_library_differences_come_first(tmp_path):
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    new["context"]["devices"][1]["name"] = "Test GPU Z (fixture)"
    new["context"]["libraries"]["cudnn"] = "9.0.0 (fixture)"
    del new["context"]["libraries"]["cublas"]
    out = run_script("compare.py", write_json(tmp_path / "b.json", base),
                     write_json(tmp_path / "n.json", new)).stdout
    header = out.index("model  ")
    differs = out.index("SET-UP DIFFERS")
    assert differs < header
    block = out[differs:header]
    assert "device gpu:0: Test GPU A (fixture) (BASE) vs Test GPU Z (fixture) (NEW)" in block
    assert "library cudnn: 9.19.0 (fixture) (BASE) vs 9.0.0 (fixture) (NEW)" in block
    assert "library cublas: 13.1 (fixture) (BASE) vs absent (NEW)" in block
    assert "library onednn" not in block


def test_same_setup_is_said_plainly(pair):
    out = run_script("compare.py", *pair).stdout
    assert "Same devices and library versions." in out
    assert "SET-UP DIFFERS" not in out


def test_points_match_on_the_device(tmp_path):
    """A CPU point never matches a GPU point, even with the same model, op, batch and precision."""
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    base["points"] = [p for p in base["points"] if p["device"] == "cpu"]
    new["points"] = [dict(p, device="gpu:0") for p in base["points"]]
    out = run_script("compare.py", write_json(tmp_path / "b.json", base),
                     write_json(tmp_path / "n.json", new)).stdout
    n = len(base["points"])
    assert f"0 points in both files: none; {n} only in BASE, {n} only in NEW." in out


@pytest.mark.parametrize("flag", ["--threshold", "--fail-above"])
@pytest.mark.parametrize("value, problem", [
    ("-5", "'-5': must be at least 0"),
    ("nan", "'nan' is not a finite number"),
    ("inf", "'inf' is not a finite number"),
    ("1e400", "'1e400' is not a finite number"),  # reads as infinity
])
def test_a_bad_percentage_is_bad_input(flag, value, problem):
    proc = run_script("compare.py", GPU_A, GPU_A, flag, value)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"compare.py: argument {flag}: {problem}")
    assert proc.stderr.count("\n") == 1, proc.stderr


def test_a_nan_gate_cannot_pass_a_point_ten_times_slower(tmp_path):
    """A comparison with NaN is false: --fail-above nan once judged no point slower."""
    base = read_fixture(GPU_A)
    new = read_fixture(GPU_A)
    new["points"][0]["timing"]["median_ms"] *= 10
    paths = write_json(tmp_path / "b.json", base), write_json(tmp_path / "n.json", new)
    assert run_script("compare.py", *paths, "--fail-above", "50").returncode == 1
    for flag in ("--fail-above", "--threshold"):
        proc = run_script("compare.py", *paths, flag, "nan", "--fail-above", "50")
        assert proc.returncode == 2 and "'nan' is not a finite number" in proc.stderr


# Exact Mann-Whitney U, checked against published tables: the probabilities P(U <= u) of Mann
# and Whitney (1947), "On a test of whether one of two random variables is stochastically larger
# than the other", Ann. Math. Statist. 18(1), Table I (n = m = 4 and 5), and the two-sided 5%
# critical values of the usual table of U (e.g. Siegel and Castellan, "Nonparametric Statistics
# for the Behavioral Sciences", 1988, Table J): the largest U significant at p <= 0.05.
@pytest.mark.parametrize("n, table", [(4, [0.014, 0.029, 0.057, 0.100, 0.171]),
                                      (5, [0.004, 0.008, 0.016, 0.028, 0.048, 0.075])])
def test_u_distribution_matches_mann_and_whitney_table_one(n, table):
    counts = rank_test.u_counts(n, n)
    total = sum(counts)
    assert [round(sum(counts[:u + 1]) / total, 3) for u in range(len(table))] == table


@pytest.mark.parametrize("n, m, critical", [(4, 4, 0), (5, 5, 2), (6, 6, 5), (7, 7, 8),
                                            (8, 8, 13), (10, 10, 23), (5, 10, 8),
                                            (20, 20, 127)])
def test_u_critical_values_match_the_table(n, m, critical):
    def p_at(u):  # two-sided p of U = u with n values below ... u pairs the other way round
        xs = list(range(m))
        # n values placed so that exactly u of the n x m pairs have x > y.
        ys = []
        left = u
        for _ in range(n):
            above = min(left, m)
            ys.append(above - 0.5)
            left -= above
        return rank_test.two_sided_p(ys, xs)
    assert p_at(critical) <= 0.05 < p_at(critical + 1)


def test_too_few_rounds_can_never_be_significant():
    assert rank_test.least_p(3, 3) == pytest.approx(0.1)
    assert rank_test.least_p(4, 4) == pytest.approx(2 / 70)
    assert rank_test.two_sided_p([1.0, 2.0], [3.0, 4.0]) == pytest.approx(1 / 3)


def rounds_of(doc, key, medians_ms, noise=0.01):
    """Gives a point of a copy of the fixture (TEST DATA) these round medians."""
    t = find(doc, key)["timing"]
    spread = (max(medians_ms) - min(medians_ms)) / min(medians_ms)
    t.update({"noise": noise, "median_ms": sorted(medians_ms)[len(medians_ms) // 2],
              "rounds": len(medians_ms), "round_medians_ms": medians_ms,
              "round_contended": [False] * len(medians_ms), "best_round": 1,
              "round_spread": spread, "uncertainty": max(noise, spread), "unstable": False})


def test_a_point_whose_rounds_agree_by_chance_gets_its_runs_floor(tmp_path):
    """+6% with rounds 0.1% apart and 1% in-round noise: SLOWER while the run's other points'
    rounds agree too; SAME once most of them are 8% apart, in both runs."""
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    rounds_of(base, ABOVE_NOISE, [1.000, 1.001])
    rounds_of(new, ABOVE_NOISE, [1.060, 1.061])
    others = [p for p in base["points"] if p.get("timing") and
              (p["op"], p["batch"], p["precision"], p["pass"], p["device"]) != ABOVE_NOISE][:6]
    keys = [(p["op"], p["batch"], p["precision"], p["pass"], p["device"]) for p in others]
    files = tmp_path / "base.json", tmp_path / "new.json"

    def others_apart(spread):
        for doc in (base, new):
            for key in keys:
                rounds_of(doc, key, [2.0, 2.0 * (1 + spread)])
        write_json(files[0], base), write_json(files[1], new)
        return verdict(run_script("compare.py", *files).stdout, ABOVE_NOISE)

    assert others_apart(0.0) == "SLOWER"
    assert others_apart(0.08) == "SAME"


def test_the_runs_floor_is_the_upper_quartile_of_its_points_round_spreads():
    def point(*medians, contended=None):
        return {"timing": {"median_ms": medians[0], "round_medians_ms": list(medians),
                           "round_contended": contended or [False] * len(medians)}}

    spreads = [point(1.0, 1.0 + s) for s in (0.0, 0.01, 0.02, 0.03, 0.04)]
    assert rounds.round_spread_floor(spreads) == pytest.approx(0.03)
    # One round, or one clean round beside a contended one, says nothing of a spread.
    assert rounds.round_spread_floor([point(1.0), point(1.0, 5.0, contended=[False, True]),
                                      {"status": "failed"}]) == 0.0
    assert rounds.round_spread_floor([point(1.0, 1.2, 1.1)]) == pytest.approx(0.2)
    # A contended point's rounds measure the machine's load, not the run's noise.
    busy = point(1.0, 3.0, contended=[True, True])
    busy["timing"]["contended"] = True
    assert rounds.round_spread_floor([busy, point(1.0, 1.01)]) == pytest.approx(0.01)


def test_with_four_rounds_a_side_the_u_test_over_rounds_decides(tmp_path):
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    # Every NEW round slower than every BASE round: p = 2/70, SLOWER, although the ratio's
    # range from the uncertainties (the 4% spread) would hold 1.
    rounds_of(base, ABOVE_NOISE, [1.00, 1.02, 1.01, 1.04])
    rounds_of(new, ABOVE_NOISE, [1.06, 1.08, 1.07, 1.10])
    # Rounds that overlap: 1.19 / 1.12 = +6%, within their 12-18% spreads (SAME), and beyond a
    # --threshold of 5% yet not significant (U = 12 of 16, p = 2 x 12/70 = 0.343): AMBIGUOUS.
    rounds_of(base, WITHIN_NOISE, [1.00, 1.12, 1.01, 1.13])
    rounds_of(new, WITHIN_NOISE, [1.02, 1.20, 1.19, 1.03])
    files = write_json(tmp_path / "base.json", base), write_json(tmp_path / "new.json", new)
    out = run_script("compare.py", *files).stdout
    assert verdict(out, ABOVE_NOISE) == "SLOWER"
    assert "p = 0.029" in " ".join(row(out, ABOVE_NOISE))
    assert verdict(out, WITHIN_NOISE) == "SAME"
    out = run_script("compare.py", *files, "--threshold", "5").stdout
    assert verdict(out, WITHIN_NOISE) == "AMBIGUOUS"
    assert "p = 0.343" in " ".join(row(out, WITHIN_NOISE))
    assert "1 AMBIGUOUS" in out.splitlines()[-1]


def test_an_unstable_point_is_slower_only_beyond_the_whole_spread_of_its_rounds(tmp_path):
    """BASE's rounds 1.0 and 1.1 (figure 1.1, uncertainty 10%). NEW's 1.6 and 2.0, unstable
    (figure 2.0, 25%): the ratio 1.82's range, from 1.82 / (1.1 x 1.25) = 1.32, excludes 1:
    SLOWER, remarked. NEW's 1.15 and 1.61 (ratio 1.46, beyond its 40%; from 1.46 / (1.1 x 1.4)
    = 0.95): AMBIGUOUS, for an unstable point UNSTABLE."""
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    rounds_of(base, ABOVE_NOISE, [1.0, 1.1])
    files = tmp_path / "base.json", tmp_path / "new.json"
    write_json(files[0], base)

    def unstable_new(medians_ms):
        rounds_of(new, ABOVE_NOISE, medians_ms)
        find(new, ABOVE_NOISE)["timing"]["unstable"] = True
        write_json(files[1], new)
        return row(run_script("compare.py", *files).stdout, ABOVE_NOISE)

    beyond = unstable_new([1.6, 2.0])
    assert beyond[11] == "SLOWER"
    assert "unstable in NEW: its rounds disagree" in " ".join(beyond)
    within = unstable_new([1.15, 1.61])
    assert within[11] == "UNSTABLE"
    assert "unstable in NEW: its rounds disagree" in " ".join(within)


def test_a_round_median_that_is_not_a_number_is_bad_input(tmp_path):
    new = read_fixture(GPU_A)
    rounds_of(new, SLOWER_50, [2.0, 3.0])
    find(new, SLOWER_50)["timing"]["round_medians_ms"] = [2.0, "fast"]
    proc = run_script("compare.py", write_json(tmp_path / "base.json", read_fixture(GPU_A)),
                      write_json(tmp_path / "new.json", new))
    assert proc.returncode == 2
    assert "round_medians_ms[1]: expected a number, found a string" in proc.stderr


def test_a_whole_run_that_moved_one_way_is_said_so(tmp_path, pair):
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    for doc in (base, new):
        for p in doc["points"]:
            if p.get("timing"):
                p["timing"].update({"noise": 0.01, "uncertainty": 0.01})
    for p in new["points"]:
        if p.get("timing"):
            p["timing"]["median_ms"] *= 0.9
    out = run_script("compare.py", write_json(tmp_path / "b.json", base),
                     write_json(tmp_path / "n.json", new)).stdout
    timed = sum(1 for p in base["points"] if p.get("timing"))
    assert f"Over the {timed} points timed in both, NEW/BASE has a geometric mean of 0.900" in out
    assert f"Every FASTER or SLOWER verdict ({timed}) is FASTER, the way the whole run moved" in out
    # One point slower and one faster: the mean is given, with no warning.
    out = run_script("compare.py", *pair).stdout
    assert "NEW/BASE has a geometric mean of" in out
    assert "the way the whole run moved" not in out


def runs_of(tmp_path, name, factors, key, unstable=(), contended=()):
    """Runs of one command, each a copy of the fixture with `key` scaled by its factor (and
    marked unstable or contended in the runs those list), written as name1.json, name2.json...
    with that -o in its command line, as real runs differ."""
    paths = []
    for i, factor in enumerate(factors):
        doc = read_fixture(GPU_A)
        doc["context"]["command_line"] += f" -o {name}{i + 1}.json"
        find(doc, key)["timing"].update({"noise": 0.01, "uncertainty": 0.01})
        scale(doc, key, factor)
        find(doc, key)["timing"]["unstable"] = i in unstable
        find(doc, key)["timing"]["contended"] = i in contended
        paths.append(write_json(tmp_path / f"{name}{i + 1}.json", doc))
    return paths


def compare_runs(base_runs, new_runs, *flags):
    return run_script("compare.py", base_runs[0], new_runs[0], "--more-base", *base_runs[1:],
                      "--more-new", *new_runs[1:], *flags).stdout


def test_the_spread_between_runs_joins_the_tolerance(tmp_path):
    """Runs 10% apart on each side: +4% is SAME, though each run's own noise is 1%; +50% with
    every NEW run slower than every BASE run is SLOWER."""
    base = runs_of(tmp_path, "base", [1.0, 1.1], ABOVE_NOISE)
    new = runs_of(tmp_path, "new", [1.05, 1.13], ABOVE_NOISE)
    out = compare_runs(base, new)
    assert verdict(out, ABOVE_NOISE) == "SAME"
    assert "spread between runs 10.0%" in " ".join(row(out, ABOVE_NOISE))
    assert out.splitlines()[1].startswith("BASE run 2:")
    new = runs_of(tmp_path, "slow", [1.5, 1.6], ABOVE_NOISE)
    assert verdict(compare_runs(base, new), ABOVE_NOISE) == "SLOWER"


def test_runs_that_overlap_are_ambiguous(tmp_path):
    """Beyond a 5% threshold (+12%), but a NEW run is faster than a BASE run: AMBIGUOUS, as is a
    side of one run, which shows no spread between runs."""
    base = runs_of(tmp_path, "base", [1.0, 1.1], ABOVE_NOISE)
    new = runs_of(tmp_path, "new", [1.05, 1.3], ABOVE_NOISE)
    out = compare_runs(base, new, "--threshold", "5")
    assert verdict(out, ABOVE_NOISE) == "AMBIGUOUS"
    assert "the runs of the two sides overlap" in " ".join(row(out, ABOVE_NOISE))
    one = runs_of(tmp_path, "one", [1.5], ABOVE_NOISE)
    out = run_script("compare.py", base[0], one[0], "--more-base", base[1]).stdout
    assert verdict(out, ABOVE_NOISE) == "AMBIGUOUS"


def test_a_side_is_unstable_when_most_of_its_runs_are(tmp_path):
    """Runs that overlap (+12% beyond a 5% threshold): AMBIGUOUS, and UNSTABLE once most runs
    of a side are unstable; runs wholly apart stay SLOWER, remarked."""
    base = runs_of(tmp_path, "base", [1.0, 1.1], ABOVE_NOISE)
    one_unstable = runs_of(tmp_path, "new", [1.05, 1.3], ABOVE_NOISE, unstable=[0])
    assert verdict(compare_runs(base, one_unstable, "--threshold", "5"), ABOVE_NOISE) == \
        "AMBIGUOUS"
    most_unstable = runs_of(tmp_path, "new", [1.05, 1.3], ABOVE_NOISE, unstable=[0, 1])
    out = compare_runs(base, most_unstable, "--threshold", "5")
    assert verdict(out, ABOVE_NOISE) == "UNSTABLE"
    base = runs_of(tmp_path, "base", [1.0, 1.02, 1.01], ABOVE_NOISE)
    apart = runs_of(tmp_path, "new", [1.5, 1.52, 1.51], ABOVE_NOISE, unstable=[0, 2])
    out = compare_runs(base, apart)
    assert verdict(out, ABOVE_NOISE) == "SLOWER"
    assert "unstable in NEW" in " ".join(row(out, ABOVE_NOISE))


def test_a_side_is_contended_when_one_of_its_runs_is(tmp_path):
    """A run that lost CPU says the machine was busy while its side ran: no plain verdict."""
    base = runs_of(tmp_path, "base", [1.0, 1.02, 1.01], ABOVE_NOISE)
    clean = runs_of(tmp_path, "new", [1.5, 1.52, 1.51], ABOVE_NOISE)
    assert verdict(compare_runs(base, clean), ABOVE_NOISE) == "SLOWER"
    one_contended = runs_of(tmp_path, "busy", [1.5, 1.52, 1.51], ABOVE_NOISE, contended=[1])
    out = compare_runs(base, one_contended)
    assert verdict(out, ABOVE_NOISE) == "UNSTABLE"
    assert "contended in NEW" in " ".join(row(out, ABOVE_NOISE))


def test_a_run_of_another_set_up_is_warned_of(tmp_path):
    base = runs_of(tmp_path, "base", [1.0, 1.0], ABOVE_NOISE)
    other = read_fixture(GPU_A)
    other["context"]["libraries"]["cudnn"] = "0.0.0 (test data)"
    base.append(write_json(tmp_path / "other.json", other))
    out = compare_runs(base, runs_of(tmp_path, "new", [1.0, 1.0], ABOVE_NOISE))
    assert "warning: BASE run 3 differs from BASE: library cudnn" in out


def test_a_bad_further_run_is_exit_2_naming_it(tmp_path):
    """A run given with --more-new that is not a results file stops the comparison, naming it."""
    base = runs_of(tmp_path, "base", [1.0, 1.0], ABOVE_NOISE)
    new = runs_of(tmp_path, "new", [1.0], ABOVE_NOISE)
    bad = tmp_path / "cut_short.json"
    bad.write_text(GPU_A.read_text(encoding="utf-8")[:500], encoding="utf-8")
    proc = run_script("compare.py", base[0], new[0], "--more-base", base[1], "--more-new", bad)
    assert proc.returncode == 2, proc.stdout
    assert "cut_short.json" in proc.stderr and "Traceback" not in proc.stderr


def test_the_machines_canary_is_compared_when_both_runs_read_it(tmp_path):
    """TEST DATA canary times 0.1 and 0.11 ms: NEW/BASE 1.100 for the machine; no line when a
    run has no canary."""
    base, new = read_fixture(GPU_A), read_fixture(GPU_A)
    for doc, ms in ((base, 0.1), (new, 0.11)):
        doc["context"].setdefault("machine_state", {})["canary"] = {"compute_unit_ms": ms}
    out = run_script("compare.py", write_json(tmp_path / "base.json", base),
                     write_json(tmp_path / "new.json", new)).stdout
    assert "read 0.1000 ms in BASE and 0.1100 ms in NEW: NEW/BASE 1.100" in out, out
    del new["context"]["machine_state"]["canary"]
    out = run_script("compare.py", write_json(tmp_path / "base.json", base),
                     write_json(tmp_path / "new2.json", new)).stdout
    assert "canary (its compute unit" not in out
