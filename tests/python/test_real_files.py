"""report.py and compare.py on results files the real binary wrote, complete and stopped by
SIGINT, SIGTERM and SIGKILL (fixtures/real/: CPU measurements, see its README.md), and the
hand-made fixtures held to the structure of those real files."""
import csv
import json
import re

import pytest

from conftest import (CPU_ONLY, FIXTURES, GPU_A, GPU_B, import_file, read_fixture, run_script,
                      write_json)

from layerbench_report import compare
from layerbench_report import results_file
from layerbench_report import cli
from layerbench_report.page import NOTHING_MEASURED

make_fixtures = import_file(FIXTURES / "make_fixtures.py")

REAL = FIXTURES / "real"
REAL_FILES = sorted(REAL.glob("*.json"))
COMPLETE, COMPLETE_AGAIN = REAL / "complete.json", REAL / "complete_again.json"
SIGINT_5 = REAL / "sigint_5.json"


def test_there_are_real_files_of_every_kind_of_stop():
    statuses = {path.name: read_fixture(path)["status"] for path in REAL_FILES}
    assert statuses["complete.json"] == "complete"
    assert statuses["sigint_1.json"] == statuses["sigterm_2.json"] == "interrupted"
    assert statuses["sigkill_train_4.json"] == "incomplete"
    assert (REAL / "sigkill_train_4.json.journal").is_file()
    # The interrupted runs' model records are "incomplete", which report.py once failed on.
    assert any(r["status"] == "incomplete" for path in REAL_FILES
               for r in read_fixture(path)["models"])
    readme = (REAL / "README.md").read_text()
    for path in REAL_FILES:
        assert f"`{path.name}`" in readme


def render(paths, out, capsys):
    """The report's main in this process; returns (exit code, stderr, page, summary, csv rows)."""
    code = cli.main([*map(str, paths), "-o", str(out)])
    err = capsys.readouterr().err
    if code != 0:
        return code, err, None, None, None
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return code, err, (out / "index.html").read_text(), (out / "summary.md").read_text(), rows


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.stem)
def test_report_renders_every_real_file(path, tmp_path, capsys):
    code, err, page, summary, rows = render([path], tmp_path, capsys)
    assert code == 0, err
    results = results_file.load(path)
    assert len(rows) == len(results.points)
    if results.status != "complete":
        assert f"{path.name} is {results.status.upper()}" in page
        assert f"**{path.name} is {results.status}**" in summary
    if results.recovered_from_journal:
        n = results.recovered_from_journal
        assert f"{n} point{'' if n == 1 else 's'} recovered from its journal" in page
    if not results.points:
        assert f"{path.name} {NOTHING_MEASURED}." in page
        assert NOTHING_MEASURED in summary


def test_an_incomplete_model_record_is_shown_as_incomplete(tmp_path, capsys):
    """sigint_1.json: the run stopped after 2 of the 4 FP32 points of batch 1."""
    code, err, page, _, _ = render([REAL / "sigint_1.json"], tmp_path, capsys)
    assert code == 0, err
    doc = read_fixture(REAL / "sigint_1.json")
    assert doc["models"][0]["status"] == "incomplete"
    best = page.split("Best throughput per device and precision", 1)[1].split("</table>", 1)[0]
    cpu = doc["context"]["devices"][0]["name"]
    assert f"<td>{cpu}</td><td>forward</td><td>incomplete</td>" in best
    assert "no model-level record was measured ok on any device" in page


def test_an_interrupted_file_with_no_points_renders(tmp_path, capsys):
    """The binary may write an interrupted file before its first point ends (0 points)."""
    doc = read_fixture(REAL / "sigint_0.json")
    doc["points"], doc["models"] = [], []
    path = write_json(tmp_path / "stopped_early.json", doc)
    code, err, page, _, rows = render([path], tmp_path / "out", capsys)
    assert code == 0, err
    assert rows == []
    assert "stopped_early.json is INTERRUPTED" in page
    assert f"stopped_early.json {NOTHING_MEASURED}." in page


def test_report_of_every_real_file_at_once(tmp_path):
    proc = run_script("report.py", *REAL_FILES, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "index.html").read_text()
    for path in REAL_FILES:
        assert path.name in page


def compare_main(capsys, *args):
    code = compare.main([*map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def timed(path):
    return {results_file.point_id(p): results_file.median_ms(p)
            for p in results_file.load(path).points
            if results_file.median_ms(p) is not None}


def test_compare_two_real_runs(capsys):
    code, out, err = compare_main(capsys, COMPLETE, COMPLETE_AGAIN)
    assert code == 0, err
    n = len(read_fixture(COMPLETE)["points"])
    assert f"{n} points in both files: " in out
    assert "Same devices and library versions." in out


def test_files_with_and_without_model_file_hashes_read_alike(tmp_path, capsys):
    """settings.model_files (each model file's SHA-256, which --resume checks) is new: the report
    and compare read files with it as the real files without it."""
    data = read_fixture(COMPLETE_AGAIN)
    assert "model_files" not in data["settings"]
    data["settings"]["model_files"] = {"tiny": {"file": "/data/tiny.json", "sha256": "0" * 64}}
    hashed = write_json(tmp_path / "hashed.json", data)
    assert results_file.load(hashed).points == results_file.load(COMPLETE_AGAIN).points
    code, err, page, _, rows = render([COMPLETE, hashed], tmp_path / "report", capsys)
    assert code == 0, err
    assert len(rows) == 2 * len(data["points"])
    code, out, err = compare_main(capsys, COMPLETE, hashed)
    assert code == 0, err
    assert f"{len(data['points'])} points in both files: " in out


def test_the_gate_on_two_real_runs_follows_the_largest_slow_down(capsys):
    base, new = timed(COMPLETE), timed(COMPLETE_AGAIN)
    assert base.keys() == new.keys()
    worst = max((new[k] / base[k] - 1) * 100 for k in base)
    assert compare_main(capsys, COMPLETE, COMPLETE_AGAIN, "--fail-above",
                        max(worst, 0) + 1)[0] == 0
    if worst > 0:
        code, out, _ = compare_main(capsys, COMPLETE, COMPLETE_AGAIN, "--fail-above", worst / 2)
        assert code == 1 and "REGRESSION: " in out


def test_the_gate_fails_on_an_interrupted_new_run(capsys):
    """Points the interrupted NEW run never reached cannot pass the gate, however large PCT."""
    base, new = timed(COMPLETE), timed(SIGINT_5)
    unreached = [k for k in base if k not in new]
    assert unreached
    code, out, _ = compare_main(capsys, COMPLETE, SIGINT_5, "--fail-above", 1e12)
    assert code == 1
    assert f"NOT COMPARED: {len(unreached)} point(s) timed in BASE have no time in NEW" in out
    assert out.count("not in NEW (interrupted)") == len(unreached)
    assert "warning: NEW is interrupted" in out


def test_an_interrupted_base_run_does_not_fail_the_gate(capsys):
    """Points only NEW timed are listed, not judged: the gate judges what BASE timed."""
    base, new = timed(SIGINT_5), timed(COMPLETE)
    limit = max((new[k] / base[k] - 1) * 100 for k in base) + 1
    code, out, err = compare_main(capsys, SIGINT_5, COMPLETE, "--fail-above", max(limit, 0))
    assert code == 0, out + err
    assert "NOT COMPARED" not in out


# ------------------------------------------------------------------------------------------------
# The hand-made fixtures have the structure of what the binary writes

# Energy fields the real files, CPU runs on a machine without RAPL made before them, lack: a
# point's telemetry (NVML, or RAPL where readable), a CPU's energy record and the model sums'.
NEWER_THAN_REAL = {"telemetry", "energy", "energy_j", "images_per_joule", "throttled_points"}


def structure(doc):
    """{place: its keys} for every object of a results file that report.py and compare.py read,
    with the points and model records grouped by status and kind."""
    out = {"top": set(doc) - {"_comment"}, "context": set(doc["context"]),
           "settings": set(doc["settings"]), "doctor": set(doc["context"]["doctor"])}
    for d in doc["context"]["devices"]:
        out[f"device {d['kind']}"] = set(d) - NEWER_THAN_REAL
        for peak in d["peaks"].values():
            out["peak"] = set(peak)
    for p in doc["points"]:
        out[f"point {p['status']}"] = set(p) - NEWER_THAN_REAL
        out[f"shape {p['kind']}"] = set(p["shape"])
        for key in ("timing", "validation"):
            if p[key] is not None:
                out[key] = set(p[key])
    for r in doc["models"]:
        out[f"model {r['status']}"] = set(r) - NEWER_THAN_REAL
        if r["time_share"] is not None:
            out["time_share"] = set(r["time_share"])
    return out


def test_hand_made_fixtures_have_the_structure_of_real_files():
    # two_backends.json comes from a later layerbench (settings.backends, a device's
    # other_backends, per-backend model records, context.scheduler): the hand-made fixtures
    # follow the files of one backend per device (test_library_section.py reads it).
    real = {}
    for path in (p for p in REAL_FILES if p.name != "two_backends.json"):
        real.update(structure(read_fixture(path)))
    fixtures = {}
    for path in (GPU_A, GPU_B, CPU_ONLY):
        fixtures.update(structure(read_fixture(path)))
    # The real files are CPU runs: they have no GPU device, no oom or failed point.
    shared = real.keys() & fixtures.keys()
    assert {"top", "context", "settings", "device cpu", "point ok", "point unsupported", "timing",
            "validation", "model ok", "model unsupported", "model incomplete", "shape conv",
            "shape linear", "shape bmm", "time_share"} <= shared
    for place in sorted(shared):
        assert fixtures[place] == real[place], place
    assert fixtures["device gpu"] == real["device cpu"]
    for status in ("oom", "failed"):
        assert fixtures[f"point {status}"] == real["point ok"]
    assert {"models", "boundaries", "points", "context", "settings"} <= real["top"]


def test_boundaries_have_the_fields_the_writer_gives_them():
    """No real CPU run ran out of memory; harness/results/aggregate.cpp's to_json(Boundary) is the
    reference for these keys."""
    keys = {"model", "device", "precision", "pass", "largest_fitting_batch", "first_oom_batch",
            "memory_limit_bytes"}
    boundaries = read_fixture(GPU_A)["boundaries"] + read_fixture(GPU_B)["boundaries"]
    assert boundaries and all(set(b) == keys for b in boundaries)


def test_hand_made_fixtures_are_what_make_fixtures_writes():
    for name, doc in make_fixtures.build().items():
        assert json.loads(json.dumps(doc)) == read_fixture(FIXTURES / name), \
            f"{name} differs from make_fixtures.py's output: regenerate it with the script"


def test_interrupted_fixture_ends_like_a_real_interrupted_run():
    """A real interrupted run stops inside a combination: its model record is incomplete."""
    records = read_fixture(GPU_B)["models"]
    incomplete = [r for r in records if r["status"] == "incomplete"]
    assert len(incomplete) == 1
    assert re.fullmatch(r"incomplete: 2 of 4 points not measured, first \S+ fwd \(.+\)",
                        incomplete[0]["reason"])
