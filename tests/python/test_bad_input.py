"""Bad input: one clear line naming the file and the problem on stderr, exit code 2."""
import json

import pytest

from conftest import CPU_ONLY, FIXTURES, GPU_A, read_fixture, run_script, write_json


def not_json(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("These are my notes, not a results file.\n")
    return path, "not JSON"


def no_schema(tmp_path):
    return write_json(tmp_path / "other.json", {"name": "some other tool", "points": []}), \
        'no "schema" field'


def unknown_version(tmp_path):
    doc = read_fixture(CPU_ONLY)
    doc["schema"] = "layerbench-results/2"
    return write_json(tmp_path / "future.json", doc), \
        "unknown schema version 'layerbench-results/2'"


def truncated(tmp_path):
    text = CPU_ONLY.read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2])
    return path, "truncated"


def missing(tmp_path):
    return tmp_path / "does-not-exist.json", "no such file"


def dangling_link(tmp_path):
    path = tmp_path / "x.json"
    path.symlink_to(tmp_path / "moved.json")
    return path, f"a symbolic link to {tmp_path / 'moved.json'}, which does not exist"


def bad_point(tmp_path):
    doc = read_fixture(CPU_ONLY)
    del doc["points"][3]["batch"]
    return write_json(tmp_path / "badpoint.json", doc), "points[3].batch: missing"


def empty(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("")
    return path, "empty file"


def not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    # A device name in Latin-1: one byte that no UTF-8 text holds.
    text = CPU_ONLY.read_bytes()
    assert b"(fixture)" in text
    path.write_bytes(text.replace(b"(fixture)", b"(fixt\xfcre)", 1))
    return path, "not UTF-8 text (byte 0xfc at offset"


def nested_too_deeply(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"schema": "layerbench-results/1", "x": ' + "[" * 100_000 + "]" * 100_000 +
                    "}")
    return path, "nested too deeply"


CASES = [not_json, no_schema, unknown_version, truncated, missing, dangling_link, bad_point, empty,
         not_utf8, nested_too_deeply]


def assert_one_clear_line(proc, script, path, problem):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"{script}: {path}: ")
    assert problem in lines[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_report_refuses_a_bad_file(tmp_path, case):
    path, problem = case(tmp_path)
    proc = run_script("report.py", GPU_A, path, "-o", tmp_path / "out")
    assert_one_clear_line(proc, "report.py", path, problem)
    assert not (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("position", ["base", "new"])
def test_compare_refuses_a_bad_file(tmp_path, case, position):
    path, problem = case(tmp_path)
    args = (path, GPU_A) if position == "base" else (GPU_A, path)
    proc = run_script("compare.py", *args)
    assert_one_clear_line(proc, "compare.py", path, problem)


def test_skip_bad_keeps_the_good_files(tmp_path):
    bad = [case(tmp_path)[0] for case in CASES]
    proc = run_script("report.py", bad[0], GPU_A, *bad[1:], CPU_ONLY, "--skip-bad",
                      "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    warned = proc.stderr.strip().splitlines()
    assert len(warned) == len(bad)
    for path, line in zip(bad, warned):
        assert line.startswith(f"report.py: {path}: ") and line.endswith("(skipped)")
    page = (tmp_path / "out" / "index.html").read_text()
    assert "Test GPU A (fixture)" in page and "Test CPU C (fixture)" in page
    assert page.count('class="banner bad">Left out:') == len(bad)
    points = len(read_fixture(GPU_A)["points"]) + len(read_fixture(CPU_ONLY)["points"])
    assert len((tmp_path / "out" / "results.csv").read_text().strip().splitlines()) == points + 1


def test_skip_bad_with_nothing_left_is_an_error(tmp_path):
    path, _ = not_json(tmp_path)
    proc = run_script("report.py", path, "--skip-bad", "-o", tmp_path / "out")
    assert proc.returncode == 2
    assert "no usable results file" in proc.stderr.strip().splitlines()[-1]


def test_a_truncated_file_is_told_apart_from_other_json_errors(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "layerbench-results/1", "status": oops}')
    proc = run_script("report.py", path, "-o", tmp_path / "out")
    assert_one_clear_line(proc, "report.py", path, "not valid JSON")
    assert "truncated" not in proc.stderr.split(f"{path}: ", 1)[1]


def test_journal_of_an_incomplete_file_is_checked_too(tmp_path):
    doc = read_fixture(CPU_ONLY)
    doc["status"] = "incomplete"
    path = write_json(tmp_path / "run.json", doc)
    point = dict(doc["points"][0], device="gpu:7")
    (tmp_path / "run.json.journal").write_text(json.dumps({"point": point}) + "\n")
    proc = run_script("report.py", path, "-o", tmp_path / "out")
    assert_one_clear_line(proc, "report.py", f"{path}.journal",
                          "device: 'gpu:7' is not in context.devices")


def output_is_a_file(tmp_path):
    (tmp_path / "taken").write_text("my notes")
    return tmp_path / "taken", "exists and is not a folder"


def output_under_a_file(tmp_path):
    (tmp_path / "taken").write_text("my notes")
    return tmp_path / "taken" / "report", f"{tmp_path / 'taken'} is not a folder"


def output_is_a_device(tmp_path):
    return "/dev/null", "exists and is not a folder"


def output_cannot_be_made(tmp_path):
    return "/proc/nope", "cannot be created"


def output_file_is_a_folder(tmp_path):
    (tmp_path / "out" / "index.html").mkdir(parents=True)
    return tmp_path / "out", "index.html: exists and is a folder"


def output_is_a_dangling_link(tmp_path):
    (tmp_path / "out").symlink_to(tmp_path / "moved")
    return tmp_path / "out", f"is a symbolic link to {tmp_path / 'moved'}, which does not exist"


def output_file_is_a_link(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "summary.md").symlink_to("/dev/null")
    return tmp_path / "out", "summary.md: is a symbolic link"


@pytest.mark.parametrize("case", [output_is_a_file, output_under_a_file, output_is_a_device,
                                  output_cannot_be_made, output_file_is_a_folder,
                                  output_file_is_a_link, output_is_a_dangling_link],
                         ids=lambda c: c.__name__)
def test_report_refuses_an_output_it_cannot_write_naming_it(tmp_path, case):
    out, problem = case(tmp_path)
    proc = run_script("report.py", CPU_ONLY, "-o", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"report.py: -o: {out}") and problem in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    if (tmp_path / "taken").exists():
        assert (tmp_path / "taken").read_text() == "my notes"


def test_report_into_an_existing_folder_replaces_its_own_files(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "index.html").write_text("an older report")
    (tmp_path / "out" / "notes.txt").write_text("mine")
    proc = run_script("report.py", CPU_ONLY, "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "an older report" not in (tmp_path / "out" / "index.html").read_text()
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "index.html", "notes.txt", "results.csv", "summary.md"]


# An empty path is the current folder to Path(''): each tool once wrote or read there.
@pytest.mark.parametrize("script, args, flag", [
    ("report.py", [CPU_ONLY, "-o", ""], "-o/--output"),
    ("report.py", ["", "-o", "out"], "results"),
    ("report.py", [CPU_ONLY, "--framework", "", "-o", "out"], "--framework"),
    ("compare.py", [CPU_ONLY, ""], "new"),
    ("slurm/fleet.py", ["--targets", "partition=a", "--out", "", "--dry-run"], "--out"),
    ("torch_models.py", ["-o", ""], "-o/--output"),
    ("torch_layers.py", ["measure", CPU_ONLY, "-o", ""], "-o/--output"),
    ("torch_layers.py", ["table", CPU_ONLY, "-o", ""], "-o/--output"),
    ("torch_layers.py", ["cpu-table", CPU_ONLY, "-o", ""], "-o/--output"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_an_empty_path_is_refused_naming_the_flag(tmp_path, script, args, flag):
    (tmp_path / "index.html").write_text("mine")
    proc = run_script(script, *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"argument {flag}: an empty path names no file or folder" in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stdout == "", proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]
    assert (tmp_path / "index.html").read_text() == "mine"


def test_a_results_file_given_twice_is_counted_once(tmp_path):
    # Each point was counted twice, the device shown twice ("[complete.json]").
    real = FIXTURES / "real" / "complete.json"
    copy = tmp_path / "copy.json"
    copy.write_bytes(real.read_bytes())
    again = FIXTURES / "real" / ".." / "real" / "complete.json"
    proc = run_script("report.py", real, real, again, copy, "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        f"report.py: {real}: given twice (first as {real}): its points are counted once",
        f"report.py: {again}: given twice (first as {real}): its points are counted once",
        f"report.py: {copy}: the same results as {real} (a copy): its points are counted once"]
    points = len(read_fixture(real)["points"])
    assert len((tmp_path / "out" / "results.csv").read_text().strip().splitlines()) == points + 1
    page = (tmp_path / "out" / "index.html").read_text()
    assert page.count('class="banner bad">Left out:') == 3 and "[complete.json]" not in page


# argparse kept the last of a repeated flag silently: `-o a -o b` wrote to b alone.
@pytest.mark.parametrize("script, args, words", [
    ("report.py", [CPU_ONLY, "-o", "a", "--output=b"], "-o/--output: given twice ('a', then 'b')"),
    ("report.py", [CPU_ONLY, "--baseline", CPU_ONLY, "--baseline", GPU_A, "-o", "a"],
     "--baseline: given twice"),
    ("compare.py", [CPU_ONLY, CPU_ONLY, "--fail-above", "5", "--fail-above", "50"],
     "--fail-above: given twice (5.0, then 50.0)"),
    ("slurm/fleet.py", ["--targets", "partition=a", "--targets", "partition=b", "--out", "f"],
     "--targets: given twice"),
    ("torch_layers.py", ["table", CPU_ONLY, "-o", "a", "-o", "b"], "-o/--output: given twice"),
    ("torch_models.py", ["-o", "a", "-o", "b"], "-o/--output: given twice"),
], ids=["report_o", "report_baseline", "compare", "fleet", "torch_layers", "torch_models"])
def test_a_flag_given_twice_is_refused_naming_it(tmp_path, script, args, words):
    proc = run_script(script, *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and f"argument {words}" in proc.stderr, proc.stderr
    assert proc.stderr.endswith("; give it once\n") and proc.stdout == ""
    assert list(tmp_path.iterdir()) == []
