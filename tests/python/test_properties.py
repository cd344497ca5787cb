"""Property tests (hypothesis) of the results reader, compare.py and report.py on broken files:
the real files of fixtures/real/ with fields replaced by NaN, infinity, zero, negative, wrong
types or other valid values, deleted or duplicated; cut short; not UTF-8; not JSON at all. Every
input ends in exit 0 with a sane output, or exit 2 with one line naming the file; never a
traceback. The same holds for the framework timing files, and for the command lines of every
Python entry point (report.py, compare.py, the Slurm fleet, torch_models.py, torch_layers.py):
any argv drawn from their flags, numbers (NaN, infinity, 1e400 among them) and paths (missing,
folders, devices, under a regular file, not UTF-8) ends in exit 0 (1 for compare.py's gate) or
exit 2 with one line, and never replaces a file it was not told to.
Derandomized, so that CI meets the same examples every run; max_examples bound the time."""
import contextlib
import csv
import io
import json
import math
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, event, given, settings, strategies as st

from conftest import FIXTURES, SCRIPTS, import_file, run_script

from layerbench_report import compare
from layerbench_report import framework_file
from layerbench_report import results_file
from layerbench_report import uncertainty
from layerbench_report import cli

REAL = FIXTURES / "real"
REAL_FILES = sorted(REAL.glob("*.json"))
REAL_TEXT = {path.name: path.read_text() for path in REAL_FILES}
JOURNALS = {path.name: path.read_text() for path in REAL.glob("*.json.journal")}

SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

TOO_LARGE = "__a number too large for a double__"  # written as 1e400
VALUES = [None, float("nan"), float("inf"), float("-inf"), 0, -1, 0.0, -0.0, 1e-300, 1e300,
          10 ** 30, -(10 ** 30), 2 ** 31, 10 ** 400, True, False, "", "two\nlines", [], [None],
          {}, {"x": 1}, TOO_LARGE]
# Valid values of the fields with a fixed set, to make files that are well-formed but unusual.
DOMAINS = [*results_file.MODEL_STATUSES, *results_file.FILE_STATUSES, *results_file.PRECISIONS,
           *results_file.POINT_PASSES, "train", "cpu", "gpu", "gpu:0", 1, 2, 64]
# The fields the scripts read; a mutation picks among them half of the time.
READ = {"schema", "status", "context", "points", "models", "boundaries", "devices", "id", "kind",
        "name", "peaks", "tflops", "memory_bandwidth_gbps", "value", "libraries", "doctor",
        "verdict", "facts", "model", "op", "batch", "precision", "pass", "device", "reason",
        "count", "timing", "median_ms", "noise", "validation", "rel_l2", "tolerance", "passed",
        "intensity", "gflop", "time_ms", "images_per_s", "title", "accumulation", "steps",
        "first_oom_batch", "largest_fitting_batch", "memory_limit_bytes"}


def places(node, path=()):
    """Every (path to a value) in a JSON document, the root's children first."""
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, child in items:
        yield path + (key,)
        yield from places(child, path + (key,))


@st.composite
def mutated_document(draw, names=tuple(REAL_TEXT), texts=None):
    """A real file's document with one to three fields replaced, deleted or duplicated."""
    name = draw(st.sampled_from(names))
    doc = json.loads((texts or REAL_TEXT)[name])
    for _ in range(draw(st.integers(1, 3))):
        paths = list(places(doc))
        read = [p for p in paths if p[-1] in READ]
        path = draw(st.sampled_from(read if read and draw(st.booleans()) else paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "valid", "delete", "duplicate", "scale"]))
        value = parent[path[-1]]
        if action == "scale":  # a time or rate changed as between two runs
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                parent[path[-1]] = value * draw(st.sampled_from([0.5, 1.04, 1.5, 10]))
        elif action == "replace":
            parent[path[-1]] = draw(st.sampled_from(VALUES))
        elif action == "valid":
            parent[path[-1]] = draw(st.sampled_from(DOMAINS))
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.append(json.loads(json.dumps(value)))
    return name, doc


@st.composite
def rerun(draw, name):
    """A real file as another run of the same command might write it: some medians slower or
    faster, some points missing or not timed. A valid file, for compare.py's gate."""
    doc = json.loads(REAL_TEXT[name])
    for p in doc["points"]:
        if p["timing"] is not None:
            p["timing"]["median_ms"] *= draw(st.sampled_from([1.5, 1, 0.5, 1.04, 1, 10]))
    for _ in range(draw(st.integers(0, 2))):
        if doc["points"]:
            i = draw(st.integers(0, len(doc["points"]) - 1))
            if draw(st.booleans()):
                del doc["points"][i]
            else:
                doc["points"][i].update(status="unsupported", timing=None, validation=None)
    return name, json.dumps(doc)


@st.composite
def broken_file(draw, names=tuple(REAL_TEXT)):
    """(the real file it came from, the text of a broken file; bytes where not UTF-8)."""
    kind = draw(st.sampled_from(["mutated", "mutated", "mutated", "cut", "garbage",
                                 "not_utf8"]))
    if kind == "mutated":
        name, doc = draw(mutated_document(names))
        return name, json.dumps(doc).replace(f'"{TOO_LARGE}"', "1e400")
    name = draw(st.sampled_from(names))
    if kind == "cut":
        text = REAL_TEXT[name].rstrip()
        return name, text[:draw(st.integers(0, len(text) - 1))]
    if kind == "not_utf8":  # one byte no UTF-8 text holds, as a Latin-1 name would put there
        raw = REAL_TEXT[name].encode()
        at = draw(st.integers(0, len(raw) - 1))
        return name, raw[:at] + bytes([draw(st.integers(0x80, 0xFF))]) + raw[at + 1:]
    return name, draw(st.text(max_size=40))


def accepted(case) -> bool:
    """Whether the reader accepts a broken_file() case (with its real file's journal)."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            results_file.load(write_broken(folder, "case", *case))
        except results_file.BadResultsFile:
            return False
    return True


# Broken files the reader still accepts: well-formed but unusual, what report.py must draw.
USABLE_FILE = broken_file().filter(accepted)


def write_broken(folder, stem, name, text, draw_journal_cut=None):
    """Writes the file (and, if its real file had one, the journal, perhaps cut short)."""
    path = Path(folder) / f"{stem}.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    if name in JOURNALS:
        journal = JOURNALS[name]
        cut = len(journal) if draw_journal_cut is None else draw_journal_cut(len(journal))
        Path(f"{path}.journal").write_text(journal[:cut])
    return path


def assert_one_line(err, script, paths):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert any(lines[0].startswith(f"{script}: {p}") for p in paths), lines[0]
    assert "Traceback" not in err


def assert_usable(results):
    """What the reader promises the scripts about a file it accepts."""
    ids = [results_file.point_id(p) for p in results.points]
    assert len(set(ids)) == len(ids)
    for p in results.points:
        assert isinstance(p["batch"], int) and not isinstance(p["batch"], bool)
        assert p["batch"] >= 1 and p["device"] in results.devices
        assert p["precision"] in results_file.PRECISIONS and p["pass"] in results_file.POINT_PASSES
        median = results_file.median_ms(p)
        assert (median is not None) if p["status"] == "ok" else True
        assert median is None or (math.isfinite(median) and median > 0)
        assert math.isfinite(uncertainty.noise(p)) and uncertainty.noise(p) >= 0
    for r in results.models:
        assert r["status"] in results_file.MODEL_STATUSES and r["device"] in results.devices
        if r["status"] == "ok":
            assert math.isfinite(r["images_per_s"]) and r["images_per_s"] > 0


@settings(max_examples=400, **SETTINGS)
@given(broken_file(), st.data())
def test_the_reader_accepts_a_usable_file_or_names_the_problem(case, data):
    name, text = case
    with tempfile.TemporaryDirectory() as folder:
        path = write_broken(folder, "case", name, text,
                            lambda n: data.draw(st.integers(0, n), label="journal cut"))
        try:
            results = results_file.load(path)
        except results_file.BadResultsFile as e:
            event("refused")
            assert "\n" not in str(e)
            assert str(e).startswith(f"{path}: ") or str(e).startswith(f"{path}.journal: ")
            return
    event("accepted")
    assert_usable(results)


def compare_oracle(base, new, fail_above):
    """compare.py's exit code from the loaded files: 1 when a point BASE timed is slower by more
    than fail_above in NEW or has no time in NEW, or no point was timed in both."""
    if fail_above is None:
        return 0
    new_times = {results_file.point_id(p): results_file.median_ms(p) for p in new.points}
    compared = 0
    for p in base.points:
        tb, tn = results_file.median_ms(p), new_times.get(results_file.point_id(p))
        if tb is not None and (tn is None or (tn / tb - 1) * 100 > fail_above):
            return 1
        compared += tb is not None
    return 0 if compared else 1


@settings(max_examples=150, **SETTINGS)
@given(st.one_of(st.sampled_from(sorted(REAL_TEXT)).flatmap(rerun), broken_file()), st.data(),
       st.sampled_from([5.0, 0.0, 50.0, 1e6, None]))
def test_compare_exits_0_1_or_2_with_one_line_and_its_gate_holds(base_case, data, fail_above):
    # NEW is most of the time from the same real file, so that most points meet in both.
    new_case = data.draw(st.one_of(rerun(base_case[0]), rerun(base_case[0]),
                                   broken_file((base_case[0],)), broken_file()), label="NEW")
    with tempfile.TemporaryDirectory() as folder:
        base = write_broken(folder, "base", *base_case)
        new = write_broken(folder, "new", *new_case)
        args = [str(base), str(new)] + ([] if fail_above is None else
                                        ["--fail-above", str(fail_above)])
        with Capture() as out:
            code = compare.main(args)
        event(f"compare.py exit {code}")
        try:
            expected = compare_oracle(results_file.load(base), results_file.load(new), fail_above)
        except results_file.BadResultsFile:
            expected = 2
    assert code == expected, out.text()
    if code == 2:
        assert_one_line(out.err.getvalue(), "compare.py", [base, new])
    else:
        assert " points in both files: " in out.out.getvalue()


@settings(max_examples=40, **SETTINGS)
@given(st.lists(st.one_of(USABLE_FILE, USABLE_FILE, broken_file()), min_size=1, max_size=2),
       st.booleans())
def test_report_renders_or_names_the_bad_file(cases, skip_bad):
    with tempfile.TemporaryDirectory() as folder:
        paths = [write_broken(folder, f"file{i}", *c) for i, c in enumerate(cases)]
        out_dir = Path(folder) / "out"
        with Capture() as out:
            code = cli.main([*map(str, paths), "-o", str(out_dir)] +
                               (["--skip-bad"] if skip_bad else []))
        event(f"report.py exit {code}")
        readable, loaded = [], []  # loaded: a copy of an earlier file's results counts once
        for p in paths:
            try:
                readable.append(results_file.load(p))
            except results_file.BadResultsFile:
                continue
            if all(f.data != readable[-1].data for f in loaded):
                loaded.append(readable[-1])
        err = out.err.getvalue()
        if code == 2:
            assert not readable or (len(readable) < len(paths) and not skip_bad)
            # With --skip-bad a warning line for each bad file comes before the error.
            assert_one_line(err.strip().splitlines()[-1] if skip_bad else err, "report.py", paths)
            return
        assert code == 0, out.text()
        assert len(readable) == len(paths) or skip_bad
        page = (out_dir / "index.html").read_text()
        with open(out_dir / "results.csv", newline="") as f:
            rows = list(csv.reader(f))
        assert len(rows) == 1 + sum(len(f.points) for f in loaded)
        for f in loaded:
            assert f.name in page
            if f.status != "complete":
                assert f"{f.name} is {f.status.upper()}" in page


@settings(max_examples=4, **SETTINGS)
@given(broken_file(), broken_file())
def test_the_scripts_as_processes(base_case, new_case):
    """A handful of runs as a user makes them: a separate interpreter, exit code and stderr."""
    with tempfile.TemporaryDirectory() as folder:
        base = write_broken(folder, "base", *base_case)
        new = write_broken(folder, "new", *new_case)
        proc = run_script("compare.py", base, new, "--fail-above", "5")
        assert proc.returncode in (0, 1, 2) and "Traceback" not in proc.stderr
        if proc.returncode == 2:
            assert_one_line(proc.stderr, "compare.py", [base, new])
        proc = run_script("report.py", base, "-o", Path(folder) / "out")
        assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr
        if proc.returncode == 2:
            assert_one_line(proc.stderr, "report.py", [base])


class Capture:
    """Captures sys.stdout and sys.stderr of a main() called in this process."""

    def __enter__(self):
        self.out, self.err = io.StringIO(), io.StringIO()
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(contextlib.redirect_stdout(self.out))
        self._stack.enter_context(contextlib.redirect_stderr(self.err))
        return self

    def __exit__(self, *exc):
        self._stack.close()

    def text(self):
        return self.out.getvalue() + self.err.getvalue()


# ---- framework timing files

FRAMEWORK_FILE = FIXTURES / "real" / "models" / "torch_models_cpu.json"
FRAMEWORK_TEXT = {FRAMEWORK_FILE.name: FRAMEWORK_FILE.read_text()}


@st.composite
def broken_framework_file(draw):
    """The text (bytes where not UTF-8) of a real framework file with fields broken."""
    kind = draw(st.sampled_from(["mutated", "mutated", "mutated", "cut", "not_utf8"]))
    text = FRAMEWORK_TEXT[FRAMEWORK_FILE.name]
    if kind == "mutated":
        _, doc = draw(mutated_document(tuple(FRAMEWORK_TEXT), FRAMEWORK_TEXT))
        return json.dumps(doc).replace(f'"{TOO_LARGE}"', "1e400")
    if kind == "cut":
        return text[:draw(st.integers(0, len(text) - 1))]
    raw = text.encode()
    at = draw(st.integers(0, len(raw) - 1))
    return raw[:at] + bytes([draw(st.integers(0x80, 0xFF))]) + raw[at + 1:]


def finite_numbers(node):
    """Every number in a document (NaN and infinity included) is finite."""
    if isinstance(node, dict):
        return all(finite_numbers(v) for v in node.values())
    if isinstance(node, list):
        return all(finite_numbers(v) for v in node)
    return not isinstance(node, float) or math.isfinite(node)


@settings(max_examples=300, **SETTINGS)
@given(broken_framework_file())
def test_the_framework_reader_accepts_finite_times_or_names_the_problem(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "torch.json"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        try:
            loaded = framework_file.load(path)
        except results_file.BadResultsFile as e:
            event("refused")
            assert "\n" not in str(e) and str(e).startswith(f"{path}: ")
            return
    event("accepted")
    assert finite_numbers(loaded.data)
    for run in loaded.runs:
        if run["status"] == "ok":
            assert all(run["timing"][k] > 0 for k in ("median_ms", "min_ms", "max_ms"))
            assert run["images_per_s"] > 0


# ---- the command lines of every entry point

fleet = import_file(SCRIPTS / "slurm" / "fleet.py")
torch_models = import_file(SCRIPTS / "torch_models.py")
torch_layers = import_file(SCRIPTS / "torch_layers.py")

NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1e400", "0", "-0", "-1", "0.5",
           "1", "1.5", "2", "8", "100", "1e300", "9" * 400, "0x10", "1_000", "", "x", " 1 "]
WORDS = ["fp32", "fp16,bf16", "fwd", "fwd,train", "cpu", "gpu", "all", "resnet50", "1,8",
         "quick", "partition=a", "partition=a;partition=b", "partition=report",
         "partition=" + "a" * 300, "partition=a b", "time=5", "gres=gpu:2", "\udce9", "-"]
# Paths, relative to each example's folder (absolute ones stand for themselves).
PATHS = ["results.json", "framework.json", "broken.json", "latin1.json", "absent.json",
         "folder", "results.json/under", "/dev/null", "/proc/nope", "/proc/nope/x.json",
         "caf\udce9.json", "out", "out/deeper", "existing.txt", "plan-zero", "plan-good",
         "plan-array", "plan-huge"]

PLANS = {"plan-good": '{"points": 4, "devices": {"cpu": {"points": 4, "estimated_seconds": 0.4}}}',
         "plan-zero": '{"points": 0, "devices": {"cpu": {"points": 0, "estimated_seconds": 0}}}',
         "plan-array": "[4]",
         "plan-huge": '{"devices": {"cpu": {"points": 4, "estimated_seconds": 1e999}}}'}

# Test stand-in for Slurm's sbatch (test data): answers a made-up job id, submits nothing.
FAKE_SBATCH = "#!/bin/sh\necho 4242\n"


def make_example_folder(folder: Path, broken_text):
    """The files the drawn paths name: a real results file, a framework file, a broken and a
    not-UTF-8 one, a folder, a file that must survive, fake binaries printing each plan."""
    shutil.copy(REAL / "sigint_0.json", folder / "results.json")
    shutil.copy(FRAMEWORK_FILE, folder / "framework.json")
    write_broken(folder, "broken", "sigint_0.json", broken_text)
    (folder / "latin1.json").write_bytes((REAL / "sigint_0.json").read_bytes().replace(
        b'"status"', b'"st\xe4tus"', 1))
    (folder / "folder").mkdir()
    (folder / "existing.txt").write_text("measured before")
    (folder / os.fsencode("caf\udce9.json").decode("utf-8", "surrogateescape")).write_bytes(
        (folder / "results.json").read_bytes())
    for name, plan in PLANS.items():
        (folder / f"{name}.txt").write_text(plan)
        (folder / name).write_text(f"#!/bin/sh\ncat '{folder / name}.txt'\n")
        (folder / name).chmod(0o755)
    (folder / "bin").mkdir()
    (folder / "bin" / "sbatch").write_text(FAKE_SBATCH)
    (folder / "bin" / "sbatch").chmod(0o755)


@st.composite
def argv_of(draw, flags, first=()):
    """An argv: an optional first word, then flags with a drawn value and lone values."""
    argv = [draw(st.sampled_from(first))] if first else []
    for _ in range(draw(st.integers(0, 7))):
        kind = draw(st.sampled_from(["flag", "flag", "flag", "path", "word"]))
        if kind == "flag":
            argv.append(draw(st.sampled_from(flags)))
            kind = draw(st.sampled_from(["number", "number", "path", "path", "word", "none"]))
        if kind == "number":
            argv.append(draw(st.sampled_from(NUMBERS)))
        elif kind == "path":
            argv.append(draw(st.sampled_from(PATHS)))
        elif kind == "word":
            argv.append(draw(st.sampled_from(WORDS)))
    return argv


ENTRY_POINTS = {
    # name: (main, flags, first words, exit codes, the prefixes of its one-line errors)
    "report.py": (cli.main, ["-o", "--output", "--baseline", "--skip-bad", "--not-measured",
                             "--framework"], (), (0, 2), ("report.py: ",)),
    "compare.py": (compare.main, ["--threshold", "--fail-above"], (), (0, 1, 2),
                   ("compare.py: ",)),
    "fleet": (fleet.main, ["--targets", "--suite", "--out", "--resume", "--dry-run", "--binary",
                           "--time-margin", "--report-options", "--", "--device",
                           "--benchmark_filter=zzz"], (), (0, 2), ("fleet: ", "fleet.sh: ")),
    "torch_models.py": (torch_models.main, [
        "-o", "--force", "--model", "--batch", "--precision", "--pass", "--device", "--threads",
        "--memory-format", "--warmup-runs", "--warmup-min-time", "--min-time", "--max-time",
        "--min-runs", "--max-runs", "--noise-target", "--no-profile"], (), (0, 2),
        ("torch_models.py: ",)),
    "torch_layers.py": (torch_layers.main, ["-o", "--output", "--torch", "--force",
                                            "--max-time-per-point", "--warmup"],
                        ("table", "measure", "compare"), (0, 2), ("torch_layers.py",)),
}


def run_entry_point(name, argv):
    """(exit code, stdout, stderr) of the entry point's main(argv), in this process."""
    main = ENTRY_POINTS[name][0]
    with Capture() as out:
        try:
            code = main(argv)
        except SystemExit as e:  # argparse's usage errors
            code = e.code
    return code, out.out.getvalue(), out.err.getvalue()


def check_entry_point(name, argv, broken_text):
    _, _, _, codes, prefixes = ENTRY_POINTS[name]
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        make_example_folder(folder, broken_text)
        argv = [a if a.startswith("/") or a.startswith("-") or a not in PATHS else
                str(folder / a) for a in argv]
        # No PyTorch (a valid torch_models.py run would measure), Slurm's sbatch a stand-in, and
        # a drawn word taken as a relative output path lands in the example's folder.
        with mock.patch.dict(sys.modules, {"torch": None}), \
                mock.patch.dict(os.environ, {"PATH": f"{folder / 'bin'}:{os.environ['PATH']}"}), \
                contextlib.chdir(folder):
            code, out, err = run_entry_point(name, argv)
        event(f"{name} exit {code}")
        assert code in codes, (argv, out, err)
        if code == 2:
            lines = err.splitlines()
            if name == "report.py" and "--skip-bad" in argv:  # a warning per file left out first
                assert all(line.endswith("(skipped)") for line in lines[:-1]), (argv, err)
                lines = lines[-1:]
            assert len(lines) == 1 and lines[0].startswith(prefixes), (argv, err)
        # A file is replaced only where the command line says so: -o FILE --force.
        if "--force" not in argv:
            assert (folder / "existing.txt").read_text() == "measured before", argv
        assert (folder / "results.json").read_bytes() == (REAL / "sigint_0.json").read_bytes()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# A valid command of each entry point, which the drawn arguments follow half of the time, so
# that the drawn flags reach the checks past the first missing argument.
VALID_STARTS = {
    "report.py": ["results.json", "-o", "out"],
    "compare.py": ["results.json", "results.json"],
    "fleet": ["--targets", "partition=a", "--out", "out", "--binary", "plan-good"],
    "torch_models.py": ["-o", "out/torch.json"],
    "torch_layers.py": ["table", "results.json"],
}


@st.composite
def entry_point_argv(draw):
    name = draw(st.sampled_from(sorted(ENTRY_POINTS)))
    _, flags, first, _, _ = ENTRY_POINTS[name]
    if draw(st.booleans()):
        return name, VALID_STARTS[name] + draw(argv_of(flags))
    return name, draw(argv_of(flags, first))


@settings(max_examples=250, **SETTINGS)
@given(entry_point_argv(), broken_file(("sigint_0.json",)))
def test_every_entry_point_ends_in_its_exit_codes_with_one_line(case, broken):
    name, argv = case
    check_entry_point(name, argv, broken[1])
