"""Every field report.py and compare.py read is checked where the file is read: a copy of the
real H200 results file with one field broken is refused by both, exit 2 with one line naming
the file and the field, where it was once accepted silently or ended in a traceback."""
import json

import pytest

from conftest import ROOT, read_fixture

from layerbench_report import cli, compare

GPU_FILE = ROOT / "reports" / "reference" / "gpu-check-20261204T1702Z.json"
NAN, INF = float("nan"), float("inf")
DELETE = object()  # top_field's value that removes the field


def point_field(section, key, value, i=0):
    def mutate(doc):
        target = doc["points"][i] if section is None else doc["points"][i][section]
        target[key] = value
        return f"points[{i}].{section + '.' if section else ''}{key}"
    return mutate


def top_field(path, value):
    def mutate(doc):
        *parents, key = path
        node = doc
        for k in parents:
            node = node[k]
        if value is DELETE:
            del node[key]
        else:
            node[key] = value
        return ".".join(f"[{k}]" if isinstance(k, int) else k for k in path).replace(".[", "[")
    return mutate


def rounds(medians, count=None):
    def mutate(doc):
        timing = doc["points"][0]["timing"]
        timing.update(round_medians_ms=medians, round_contended=[False] * len(medians),
                      rounds=len(medians) if count is None else count)
        return "points[0].timing." + ("rounds" if count is not None else "round_medians_ms")
    return mutate


# (id, mutation returning the field the message names, words the message must hold)
CASES = [
    ("uncertainty-NaN", point_field("timing", "uncertainty", NAN), "found NaN"),
    ("round_spread-Infinity", point_field("timing", "round_spread", INF), "found infinity"),
    ("round-medians-extreme", rounds([1e308, 1e308, 1e-308]), "beyond what the report"),
    ("round-medians-empty", rounds([]), "an empty array"),
    ("rounds-99-beside-1", rounds([2.0], count=99), "99 beside 1 round median"),
    ("contended-yes", point_field("timing", "contended", "yes"), "expected true/false"),
    ("round_contended-no", point_field("timing", "round_contended", "no"), "expected an array"),
    ("samples-NaN", point_field("timing", "samples", NAN), "expected an integer, found NaN"),
    ("settings-null", top_field(("settings",), None), "expected an object, found null"),
    ("settings-deleted", top_field(("settings",), DELETE), "missing"),
    ("settings-rounds-text", top_field(("settings", "rounds"), "3"), "expected an integer"),
    ("libraries-null", top_field(("context", "libraries"), None), "expected an object"),
    ("machine_state-text", top_field(("context", "machine_state"), "busy"),
     "expected an object, found a string"),
    ("machine_state-gpus-text", top_field(("context", "machine_state", "start", "gpus"), "x"),
     "expected an object, found a string"),
    ("canary-array", top_field(("context", "machine_state", "canary"), [1]),
     "expected an object, found an array"),
    ("canary-null", top_field(("context", "machine_state", "canary"), None),
     "expected an object, found null"),
    ("load-average-NaN", top_field(("context", "machine_state", "end", "load_average_1m"), NAN),
     "found NaN"),
    ("device-id-empty", top_field(("context", "devices", 0, "id"), ""), "empty"),
    ("peak-NaN", top_field(("context", "devices", 0, "peaks", "fp32", "tflops"), NAN),
     "found NaN"),
    *[(f"telemetry-{key}-NaN", point_field("telemetry", key, NAN), "NaN")
      for key in ("energy_j", "power_median_w", "sm_clock_median_mhz", "window_s", "samples",
                  "throttled_samples", "retaken_samples")],
    *[(f"telemetry-{key}-text", point_field("telemetry", key, "12"), "found a string")
      for key in ("window_s", "samples", "retaken_samples", "memory_clock_min_mhz")],
    *[(f"telemetry-{key}-negative", point_field("telemetry", key, -3), "-3")
      for key in ("window_s", "samples", "retaken_samples", "memory_clock_min_mhz")],
    ("device_lost-no", point_field("telemetry", "device_lost", "no"), "expected true/false"),
    ("absent-list", point_field("telemetry", "absent", [1]), "expected an object"),
    ("reasons-numbers", point_field("telemetry", "clock_event_reasons", [1]),
     "clock_event_reasons[0]: expected a string, found an integer"),
    ("reasons-text", point_field("telemetry", "clock_event_reasons", "power"),
     "expected an array, found a string"),
    ("rel_l2-NaN", point_field("validation", "rel_l2", NAN), "found NaN"),
    ("gflop-zero", point_field(None, "gflop", 0), "must be positive, is 0"),
    ("layers-text", point_field(None, "layers", "conv"), "expected an array"),
    ("bytes-deleted", lambda doc: doc["points"][0].pop("bytes") and "points[0].bytes",
     "missing"),
    ("count-deleted", lambda doc: doc["points"][0].pop("count") and "points[0].count",
     "missing"),
    ("shape-deleted", lambda doc: doc["points"][0].pop("shape") and "points[0].shape",
     "missing"),
    ("notes-number", lambda doc: doc["points"][0]["notes"].update(timing=1) or
     "points[0].notes.timing", "expected a string"),
]


def broken(tmp_path, mutate):
    doc = json.loads(GPU_FILE.read_text(encoding="utf-8"))
    field = mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    return path, field


def assert_refused(err, script, path, field, words):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{script}: {path}: {field}"), lines[0]
    assert words in lines[0], lines[0]


@pytest.mark.parametrize("mutate, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_report_and_compare_refuse_the_field(tmp_path, capsys, mutate, words):
    path, field = broken(tmp_path, mutate)
    assert cli.main([str(path), "-o", str(tmp_path / "out")]) == 2
    assert_refused(capsys.readouterr().err, "report.py", path, field, words)
    assert compare.main([str(GPU_FILE), str(path)]) == 2
    assert_refused(capsys.readouterr().err, "compare.py", path, field, words)


def test_a_key_given_twice_is_refused(tmp_path, capsys):
    text = GPU_FILE.read_text(encoding="utf-8")
    path = tmp_path / "twice.json"
    path.write_text(text.replace('"median_ms": ', '"median_ms": 1e-3, "median_ms": ', 1))
    assert compare.main([str(GPU_FILE), str(path)]) == 2
    err = capsys.readouterr().err
    assert "the key 'median_ms' is given twice in one object" in err and err.count("\n") == 1


def test_a_file_whose_every_point_failed_is_reported_as_nothing_measured(tmp_path, capsys):
    """Every point failed (the file still names its model records ok): the charts that have
    nothing to draw say so, where one once ended in a ValueError of matplotlib."""
    doc = json.loads(GPU_FILE.read_text(encoding="utf-8"))
    for p in doc["points"]:
        p["status"] = "failed"
    path = tmp_path / "all-failed.json"
    path.write_text(json.dumps(doc))
    assert cli.main([str(path), "-o", str(tmp_path / "out")]) == 0
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "nothing measured to split" in html


def test_the_gate_with_nothing_timed_in_both_fails_and_says_so(tmp_path, capsys):
    doc = read_fixture(GPU_FILE)
    for p in doc["points"]:
        p.update(status="failed", timing=None, validation=None)
        p.pop("telemetry", None)
    path = tmp_path / "none-timed.json"
    path.write_text(json.dumps(doc))
    assert compare.main([str(path), str(path), "--fail-above", "5"]) == 1
    assert "GATE FAILED: no point was timed in both files" in capsys.readouterr().out


def test_a_run_given_twice_among_more_runs_is_refused(tmp_path, capsys):
    copy = tmp_path / "copy.json"
    copy.write_bytes(GPU_FILE.read_bytes())
    link = tmp_path / "link.json"
    link.symlink_to(GPU_FILE)
    for more in (["--more-new", str(GPU_FILE)], ["--more-new", str(copy)],
                 ["--more-base", str(link)], ["--more-new", str(copy), str(copy)]):
        assert compare.main([str(GPU_FILE), str(GPU_FILE), *more]) == 2, more
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "each run must be counted once" in err, err


def test_a_further_run_with_no_points_is_refused(tmp_path, capsys):
    doc = read_fixture(GPU_FILE)
    doc["points"], doc["models"] = [], []
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps(doc))
    assert compare.main([str(GPU_FILE), str(GPU_FILE), "--more-base", str(empty)]) == 2
    assert "--more-base: holds no points" in capsys.readouterr().err


def test_a_further_run_s_set_up_warning_names_that_run(capsys):
    cpu = ROOT / "reports" / "reference" / "cpu-xeon-amx-20261204T1714Z.json"
    assert compare.main([str(cpu), str(cpu), "--more-base", str(GPU_FILE)]) == 0
    out = capsys.readouterr().out
    assert "device gpu:0: only in BASE run 2 (NVIDIA H200)" in out
    assert "only in NEW" not in out.split("NEW:")[0]
