"""The pure parts of the Slurm fleet (scripts/slurm/fleet.py): target parsing, time limits, file
naming, the job scripts, resumption and the "not measured" list. The results and doctor files
are written here by the real binary, with the Slurm variables a job would have (set by hand:
the end-to-end run under a real Slurm is tests/slurm/fleet_test.sh). Needs LAYERBENCH_BINARY
(scripts/test.sh sets it) or a build in build/."""
import json
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPORTS, ROOT, SCRIPTS, import_file, run_script

from layerbench_report import results_file

fleet = import_file(SCRIPTS / "slurm" / "fleet.py")

TINY = ROOT / "tests" / "data" / "models" / "tiny.json"
TINY_RUN = ["--device", "cpu", "--model-file", str(TINY), "--model", "tiny", "--batch", "1",
            "--precision", "fp32", "--pass", "fwd", "--max-time-per-point", "0.05",
            "--cpu-roofs", "skip"]


# The job scripts' arithmetic is pinned to oneDNN's 4 points, whether or not the build has
# OpenBLAS (which would plan its own points on the CPU).
ONEDNN_ONLY = ["--backend", "onednn"]


def binary():
    path = Path(os.environ.get("LAYERBENCH_BINARY") or ROOT / "build" / "layerbench")
    if not path.is_file():
        pytest.skip(f"no layerbench binary at {path}: build it, or set LAYERBENCH_BINARY")
    return path


def job_env(job_id, target, node="node7"):
    """The variables Slurm sets in a job of `target` ("partition=NAME")."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM")}
    env.update(SLURM_JOB_ID=job_id, SLURMD_NODENAME=node,
               SLURM_JOB_PARTITION=target.split("=")[1], LAYERBENCH_FLEET_TARGET=target)
    return env


# ---- targets

def test_targets_parse_into_sbatch_options_and_file_names():
    a100, h100 = fleet.parse_targets("partition=a100; partition=h100, gres=gpu:h100:1")
    assert a100.options == (("partition", "a100"),)
    assert h100.text == "partition=h100,gres=gpu:h100:1"
    assert (a100.slug, h100.slug) == ("a100", "h100_gpu-h100-1")
    assert fleet.sbatch_lines(h100.options) == ["#SBATCH --partition=h100",
                                                "#SBATCH --gres=gpu:h100:1"]


@pytest.mark.parametrize("text, words", [
    ("", "empty target"),
    ("partition=a;;partition=b", "empty target"),
    ("partition", "not key=value"),
    ("partition=", "not key=value"),
    ("Partition=a", "not an sbatch long option"),
    ("time=10", "set by the fleet"),
    ("exclusive=user", "set by the fleet"),
    ("partition=a,partition=b", "given twice"),
    ("partition=a b", "space or quote"),
    ("partition=a;partition=a", "share the file name"),
    ("partition=a:b;partition=a-b", "share the file name"),
])
def test_bad_targets_are_refused_naming_the_flag(text, words):
    with pytest.raises(fleet.FleetError, match=words) as e:
        fleet.parse_targets(text)
    assert str(e.value).startswith("--targets: ")


@pytest.mark.parametrize("text, gpus", [
    ("partition=cpu", None),
    ("partition=g,gres=gpu", 1),
    ("partition=g,gres=gpu:h100", 1),
    ("partition=g,gres=gpu:h100:4", 4),
    ("partition=g,gres=gpu:2", 2),
    ("partition=g,gres=tmpfs:10G+gpu:a100:8", 8),
    ("partition=g,gpus=3", 3),
    ("partition=g,gpus-per-node=a100:2", 2),
])
def test_gpu_count_of_a_target(text, gpus):
    assert fleet.gpu_count(fleet.parse_targets(text)[0]) == gpus


# ---- time limits

DRY_RUN = {"devices": {"cpu": {"points": 10, "estimated_seconds": 20.0},
                       "gpu:0": {"points": 30, "estimated_seconds": 60.0}}}


def test_every_gpu_of_an_auto_run_adds_the_planned_gpu_again():
    assert fleet.node_plan(DRY_RUN, "auto", None) == (40, 80)  # one GPU assumed
    assert fleet.node_plan(DRY_RUN, "auto", 4) == (10 + 4 * 30, 20 + 4 * 60)
    assert fleet.node_plan(DRY_RUN, "all", 2) == (10 + 2 * 30, 20 + 2 * 60)
    # gpu:N names one GPU: the count the target gets does not multiply it.
    assert fleet.node_plan({"devices": {"gpu:1": DRY_RUN["devices"]["gpu:0"]}}, "gpu:1", 4) \
        == (30, 60)


def test_time_limit_is_the_estimate_with_margins_in_whole_minutes():
    assert (fleet.SETUP_S_PER_POINT, fleet.STARTUP_ALLOWANCE_S) == (2, 300)
    # (600 s x 1.5 + 150 points x 2 s + 300 s) / 60 = 25 minutes; a little more rounds up.
    assert fleet.time_limit_minutes(150, 600, 1.5) == 25
    assert fleet.time_limit_minutes(150, 601, 1.5) == 26
    assert fleet.time_limit_minutes(0, 0, 1.5) == 5


def test_the_device_of_the_run_flags():
    assert fleet.run_device([]) == "auto"
    assert fleet.run_device(["--batch", "1", "--device", "gpu:1"]) == "gpu:1"
    assert fleet.run_device(["--device=cpu"]) == "cpu"


def binary_suites():
    """The suites as the binary prints them (`layerbench list --suites --json`), by name."""
    proc = subprocess.run([binary(), "list", "--suites", "--json"], capture_output=True,
                          text=True, check=True)
    return {s["name"]: s for s in json.loads(proc.stdout)["suites"]}


def test_dry_run_estimate_of_the_real_binary():
    estimate = fleet.dry_run_estimate(binary(), TINY_RUN)
    # tiny, batch 1, fp32, forward: 4 points on the CPU, oneDNN runs each; per point the default
    # suite's rounds of (0.05 s cap + its warm-up + set-up per visit), the extra rounds' budget
    # (a tenth more with 2 rounds or more), plus the first visit's set-up.
    default, = (s for s in binary_suites().values() if s["default"])
    assert estimate["rounds"] == default["rounds"] == 2
    assert estimate["extra_rounds_fraction"] == 0.1
    per_visit = 0.05 + default["warmup_min_s"] + estimate["setup_per_visit_s"]
    per_point = estimate["rounds"] * per_visit * 1.1 + estimate["first_visit_s"]
    assert estimate["devices"]["cpu"] == {"points": 4, "refused_points": 0,
                                          "estimated_seconds": pytest.approx(4 * per_point)}
    # A build with OpenBLAS plans its backend on the CPU too, keyed apart (cpu@openblas).
    assert set(estimate["devices"]) <= {"cpu", "cpu@openblas"}
    both = fleet.dry_run_estimate(binary(), [f for f in TINY_RUN if f not in ("cpu", "--device")])
    # auto plans the CPU and one GPU
    assert {"cpu", "gpu:0"} <= set(both["devices"]) <= {"cpu", "cpu@openblas", "gpu:0"}
    with pytest.raises(fleet.FleetError, match="--batch"):
        fleet.dry_run_estimate(binary(), ["--batch", "0"])


# ---- job scripts

def scripts_of(tmp_path, *extra):
    out = tmp_path / "fleet"
    proc = run_script("slurm/fleet.py", "--binary", binary(), "--targets",
                      "partition=alpha;partition=beta,gres=gpu:2", "--out", out, "--dry-run",
                      *extra, "--", *TINY_RUN, *ONEDNN_ONLY)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def test_dry_run_prints_exclusive_jobs_and_an_afterany_report(tmp_path):
    out, text = scripts_of(tmp_path)
    assert not out.exists()  # nothing written, nothing submitted
    jobs = text.split("# ---- ")[1:]
    assert [j.splitlines()[0] for j in jobs] == [
        f"{out}/jobs/alpha.sbatch", f"{out}/jobs/beta_gpu-2.sbatch", f"{out}/jobs/report.sbatch"]
    for job in jobs[:2]:
        assert "#SBATCH --exclusive\n" in job and "#SBATCH --nodes=1\n" in job
        # 4 points x (2 rounds x (0.05 s + 0.02 s + 0.013 s) + 0.083 s) = 1.0 s; x 1.5 + 4 x 2 s
        # + 300 s = 309.5 s, 6 minutes.
        assert "#SBATCH --time=6\n" in job
        assert " doctor --json > \"$stem.doctor.json\"" in job
    assert "#SBATCH --partition=beta\n#SBATCH --gres=gpu:2\n" in jobs[1]
    assert f"stem={out}/results/beta_gpu-2-\"$SLURMD_NODENAME\"-\"$SLURM_JOB_ID\"" in jobs[1]
    assert "export LAYERBENCH_FLEET_TARGET=partition=beta,gres=gpu:2" in jobs[1]
    assert "#SBATCH --dependency=afterany:<job of alpha>:<job of beta_gpu-2>" in jobs[2]
    assert "--exclusive" not in jobs[2]


def test_the_suite_is_the_binarys_to_check_and_default(tmp_path):
    """fleet.py keeps no list of suites: --suite goes to the binary's run, which checks it, and
    without --suite the jobs run the binary's default."""
    suites = binary_suites()
    other = next(name for name, s in suites.items() if not s["default"])
    _, text = scripts_of(tmp_path, "--suite", other)
    assert f" run --suite {other} --device cpu " in text
    _, text = scripts_of(tmp_path)
    assert " run --device cpu " in text and "--suite" not in text


def test_time_margin_changes_the_limit(tmp_path):
    _, text = scripts_of(tmp_path, "--time-margin", "2")
    assert "estimate 1 s x 2.0 + 4 points x 2 s set-up + 300 s start-up" in text


@pytest.mark.parametrize("args, words", [
    (["--time-margin", "0.5"], "--time-margin"),
    (["--binary", "/nonexistent/layerbench"], "--binary"),
    (["--", "-o", "x.json"], "set by the fleet"),
    (["--", "--resume=x.json"], "set by the fleet"),
    (["--report-options", "dependency=afterok:1"], "--report-options"),
    (["--", "--precision", "fp99"], "--precision"),
    (["--suite", "huge"], "--suite: huge not in {"),
])
def test_bad_fleet_input_is_one_line_and_exit_2(tmp_path, args, words):
    base = ["--targets", "partition=alpha", "--out", tmp_path / "f", "--dry-run"]
    if "--binary" not in args:
        base = ["--binary", binary(), *base]
    proc = run_script("slurm/fleet.py", *base, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_fleet_directory_with_results_needs_resume(tmp_path):
    (tmp_path / "f" / "results").mkdir(parents=True)
    (tmp_path / "f" / "results" / "old.json").write_text("{}")
    proc = run_script("slurm/fleet.py", "--binary", binary(), "--targets", "partition=alpha",
                      "--out", tmp_path / "f", "--dry-run", "--", *TINY_RUN)
    assert proc.returncode == 2 and "--resume" in proc.stderr, proc.stderr


# ---- hostile --out and --targets: every value reaches the job scripts as one quoted value

# Test stand-in for Slurm's sbatch: submits nothing, keeps a copy of each script and answers a
# made-up job id (test data).
RECORDING_SBATCH = """#!/bin/sh
n=$(ls "$SBATCH_RECORD" | wc -l)
cp "$2" "$SBATCH_RECORD/$n.sbatch"
echo "$((100 + n))"
"""


def submit_with_recording_sbatch(tmp_path, out, targets):
    bin_dir, record = tmp_path / "bin", tmp_path / "record"
    bin_dir.mkdir()
    record.mkdir()
    (bin_dir / "sbatch").write_text(RECORDING_SBATCH)
    (bin_dir / "sbatch").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SBATCH_RECORD": str(record),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPORTS),
                                                       os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, str(SCRIPTS / "slurm" / "fleet.py"), "--binary",
                           str(binary().resolve()), "--targets", targets, "--out", str(out), "--",
                           *TINY_RUN, *ONEDNN_ONLY],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    return proc, [record / f"{i}.sbatch" for i in range(len(list(record.iterdir())))]


def sbatch_values(script: str, option: str) -> list:
    """The values sbatch reads for --OPTION in the script's #SBATCH lines (double quotes strip)."""
    return [shlex.split(line.split("=", 1)[1])[0] for line in script.splitlines()
            if line.startswith(f"#SBATCH --{option}=")]


@pytest.mark.parametrize("folder", ["out dir", "o'q $(touch PWNED) `touch PWNED` 100%j"])
def test_a_hostile_out_folder_is_quoted_in_every_job_script_and_runs(tmp_path, folder):
    out = tmp_path / folder
    target = "partition=a$(touch${IFS}PWNED)`touch${IFS}PWNED`"
    proc, scripts = submit_with_recording_sbatch(tmp_path, out, target)
    assert proc.returncode == 0, proc.stderr
    assert len(scripts) == 2  # the target's job and the report's
    job, report = (path.read_text() for path in scripts)
    escaped = str(out.resolve()).replace("%", "%%")
    slug = "a-touch-IFS-PWNED-touch-IFS-PWNED"
    assert sbatch_values(job, "output") == [f"{escaped}/logs/{slug}-%j.out"]
    assert sbatch_values(report, "output") == [f"{escaped}/logs/report-%j.out"]
    # The job script as a node runs it: nothing injected runs, and its results land in --out.
    done = subprocess.run(["bash", str(scripts[0])], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, **job_env("101", target)})
    assert done.returncode == 0, done.stderr
    assert not list(tmp_path.rglob("PWNED")), "an injected command ran"
    assert len(list((out / "results").glob("*-101.json"))) == 1
    assert subprocess.run(["bash", "-n", str(scripts[1])], timeout=30).returncode == 0


@pytest.mark.parametrize("folder", ["out\nline", "out\"quote", "out\ttab"])
def test_an_out_folder_an_sbatch_line_cannot_hold_is_refused(tmp_path, folder):
    proc, scripts = submit_with_recording_sbatch(tmp_path, tmp_path / folder, "partition=alpha")
    assert proc.returncode == 2 and "--out" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not scripts


# ---- results directory: real files written under the Slurm variables of a job

@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory):
    """alpha measured (job 11), beta's doctor verdict only (job 12, died before its results
    file), an unfinished gamma file on this host (job 13, kill -9 in the middle)."""
    results = tmp_path_factory.mktemp("fleet") / "results"
    results.mkdir()
    exe = str(binary())
    for job, target in (("11", "partition=alpha"), ("12", "partition=beta")):
        with open(results / f"{target[10:]}-node7-{job}.doctor.json", "w") as f:
            subprocess.run([exe, "doctor", "--json"], stdout=f, env=job_env(job, target),
                           timeout=300)
    done = subprocess.run([exe, "run", *TINY_RUN, "--quiet", "-o",
                           str(results / "alpha-node7-11.json")],
                          env=job_env("11", "partition=alpha"), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    unfinished = results / "gamma-node7-13.json"
    proc = subprocess.Popen([exe, "run", "--device", "cpu", "--model-file", str(TINY), "--model",
                             "tiny", "--batch", "1,2,4", "--pass", "train", "--precision", "fp32",
                             "--max-time-per-point", "0.3", "--quiet", "--cpu-roofs", "skip",
                             "-o", str(unfinished)],
                            env=job_env("13", "partition=gamma"))
    journal = Path(str(unfinished) + ".journal")
    for _ in range(600):  # bounded: 60 s
        # A measured point, not only the refused ones the run records first.
        if journal.exists() and '"status":"ok"' in journal.read_text():
            break
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    return results


def loaded(results_dir):
    warnings = []
    results, doctors = fleet.load_results_dir(results_dir, warnings.append)
    assert not warnings
    return results, doctors


def test_results_carry_the_jobs_provenance(fleet_dir):
    results, doctors = loaded(fleet_dir)
    alpha = next(r for r in results if r.name == "alpha-node7-11.json")
    assert alpha.context["scheduler"] == {
        "name": "slurm", "job_id": "11", "array_job_id": None, "array_task_id": None,
        "node": "node7", "partition": "alpha", "target": "partition=alpha"}
    assert {fleet.scheduler_of(d)["target"] for d in doctors} == {"partition=alpha",
                                                                   "partition=beta"}
    assert fleet.complete_targets(results) == {"partition=alpha"}


def test_resume_picks_the_unfinished_file_of_the_target_on_this_host(fleet_dir):
    results, _ = loaded(fleet_dir)
    gamma = fleet_dir / "gamma-node7-13.json"
    assert results_file.load(gamma).status == "incomplete"
    host = socket.gethostname()
    assert fleet.pick_resume_file(results, "partition=gamma", host) == gamma
    assert fleet.pick_resume_file(results, "partition=gamma", "another-host") is None
    assert fleet.pick_resume_file(results, "partition=alpha", host) is None  # complete
    proc = run_script("slurm/fleet.py", "job-resume-file", "--results", fleet_dir, "--target",
                      "partition=gamma")
    assert proc.returncode == 0 and proc.stdout.strip() == str(gamma), proc.stderr


def state_of(states):
    return lambda job: states.get(job, {})


def test_not_measured_names_the_jobs_that_left_no_results(fleet_dir, tmp_path):
    results, doctors = loaded(fleet_dir)
    jobs = [("partition=alpha", "11"), ("partition=beta", "12"), ("partition=delta", "14")]
    states = {"12": {"JobState": "TIMEOUT", "Reason": "None"},
              "14": {"JobState": "CANCELLED", "Reason": "Dependency", "NodeList": "(null)",
                     "Partition": "delta"}}
    records = fleet.not_measured(jobs, results, doctors, "cpu", state_of(states), tmp_path)
    assert [(r["target"], r["job_id"], r["node"], r["partition"]) for r in records] == [
        ("partition=beta", "12", "node7", "beta"), ("partition=delta", "14", None, "delta")]
    assert records[0]["reason"].startswith("job 12 ended TIMEOUT without a results file")
    assert f"log {tmp_path}/beta-12.out" in records[0]["reason"]
    assert "ended CANCELLED" in records[1]["reason"]
    forgotten = fleet.not_measured([("partition=delta", "14")], results, doctors, "cpu",
                                   state_of({}), tmp_path)
    assert forgotten[0]["reason"] == f"job 14 left no results file (log {tmp_path}/delta-14.out)"


def test_an_unusable_gpu_is_listed_with_the_doctors_verdict(fleet_dir, tmp_path):
    results, doctors = loaded(fleet_dir)
    doctor = next(d for d in doctors if fleet.scheduler_of(d)["target"] == "partition=beta")
    if doctor["diagnosis"]["gpu_usable"]:
        pytest.skip("a GPU is usable here: the doctor has no unusable-GPU verdict to show")
    jobs = [("partition=alpha", "11"), ("partition=beta", "12")]
    records = fleet.not_measured(jobs, results, doctors, "auto", state_of({}), tmp_path)
    verdict = doctor["diagnosis"]["verdict"]
    assert verdict.startswith("No usable GPU")
    # alpha measured its CPU but no GPU; beta left only the doctor's verdict.
    assert [(r["target"], r["reason"]) for r in records] == [
        ("partition=alpha", f"GPU not measured: {verdict}"), ("partition=beta", verdict)]


def test_the_report_step_writes_the_list_and_a_report_of_every_results_file(fleet_dir, tmp_path):
    out = tmp_path / "fleet"
    (out / "results").mkdir(parents=True)
    for f in fleet_dir.iterdir():
        (out / "results" / f.name).write_bytes(f.read_bytes())
    proc = run_script("slurm/fleet.py", "job-report", "--out", out, "--device", "cpu",
                      "--job", "11", "partition=alpha", "--job", "12", "partition=beta")
    assert proc.returncode == 0, proc.stderr
    listed = json.loads((out / "report" / "not-measured.json").read_text())
    assert listed["schema"] == "layerbench-not-measured/1"
    assert [t["target"] for t in listed["targets"]] == ["partition=beta"]
    page = (out / "report" / "index.html").read_text()
    assert "Not measured" in page and "job 12 left no results file" in page
    # Both the complete and the unfinished (partial) files are in the report, labelled.
    assert "(partition alpha, node node7)" in page and "(partition gamma, node node7)" in page
    assert "gamma-node7-13.json is INCOMPLETE" in page


# ---- bad input reaches exit 2 and one line, whatever the flag, the folder or the binary

def fleet_exit_2(*args, words):
    proc = run_script("slurm/fleet.py", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    return proc


@pytest.mark.parametrize("margin", ["inf", "1e400", "nan", "Infinity"])
def test_a_time_margin_that_is_not_finite_is_refused(tmp_path, margin):
    fleet_exit_2("--binary", tmp_path, "--targets", "partition=a", "--out", tmp_path / "f",
                 "--time-margin", margin, words=f"--time-margin: '{margin}' is not a finite")


def test_a_time_limit_beyond_slurms_is_refused():
    with pytest.raises(fleet.FleetError, match="--time-margin: .* beyond what Slurm can set"):
        fleet.time_limit_minutes(4, 0.4, 1e300)


def fake_binary(tmp_path, plan):
    """Test stand-in for layerbench whose `run --dry-run` prints PLAN (text or bytes)."""
    path = tmp_path / "fake-layerbench"
    (tmp_path / "plan.txt").write_bytes(plan if isinstance(plan, bytes) else plan.encode())
    path.write_text(f"#!/bin/sh\ncat {shlex.quote(str(tmp_path / 'plan.txt'))}\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("plan, words", [
    ("[1, 2]", "printed an array, not a plan"),
    ('{"devices": []}', "printed an object, not a plan"),
    ('{"devices": {"cpu": {"points": "4", "estimated_seconds": 1}}}', "'cpu'.points \"4\""),
    ('{"devices": {"cpu": {"points": 4.5, "estimated_seconds": 1}}}', "'cpu'.points 4.5"),
    ('{"devices": {"cpu": {"points": -1, "estimated_seconds": 1}}}', "'cpu'.points -1"),
    ('{"devices": {"cpu": 7}}', "'cpu'.points null"),
    ('{"devices": {"cpu": {"points": 4, "estimated_seconds": 1e999}}}',
     "'cpu'.estimated_seconds Infinity"),
    ('{"devices": {"cpu": {"points": 4, "estimated_seconds": NaN}}}',
     "'cpu'.estimated_seconds NaN"),
    ('{"devices": {"cpu": {"points": 4, "estimated_seconds": true}}}',
     "'cpu'.estimated_seconds true"),
    ('{"points": 0, "devices": {"cpu": {"points": 0, "estimated_seconds": 0}}}',
     "the plan has no point to measure"),
    ('{"points": 0, "devices": {}}', "the plan has no point to measure"),
    ("[" * 100_000, "has no `run --dry-run`"),
    (b"\xff not UTF-8", "has no `run --dry-run`"),
], ids=lambda x: x[:40] if isinstance(x, str) else None)
def test_a_plan_the_fleet_cannot_use_writes_no_job(tmp_path, plan, words):
    binary_path = fake_binary(tmp_path, plan)
    for mode in (["--dry-run"], []):
        proc = fleet_exit_2("--binary", binary_path, "--targets", "partition=a", "--out",
                            tmp_path / "f", *mode, words=words)
        assert proc.stdout == "" and not (tmp_path / "f").exists()


@pytest.mark.parametrize("out, words", [
    ("/dev/null", "--out: /dev/null: exists and is not a folder"),
    ("/proc/nope", "--out: /proc/nope: cannot be created"),
    ("file/sub", "file is not a folder"),
    ("file", "file: exists and is not a folder"),
])
@pytest.mark.parametrize("mode", [["--dry-run"], []], ids=["dry", "submit"])
def test_an_out_that_cannot_be_a_folder_is_refused(tmp_path, out, words, mode):
    (tmp_path / "file").write_text("mine")
    plan = '{"devices": {"cpu": {"points": 4, "estimated_seconds": 0.4}}}'
    out = out if out.startswith("/") else tmp_path / out
    if out == "/proc/nope" and mode:
        pytest.skip("a dry run creates nothing, so it cannot know /proc refuses a folder")
    fleet_exit_2("--binary", fake_binary(tmp_path, plan), "--targets", "partition=a", "--out",
                 out, *mode, words=words)
    assert (tmp_path / "file").read_text() == "mine"


@pytest.mark.parametrize("targets, words", [
    ("partition=report", "share the file name 'report' of the report job"),
    ("partition=" + "a" * 4000, "makes a file-name part of 4000 bytes"),
    ("partition=a;partition=" + "b" * 200, "makes a file-name part of 200 bytes"),
], ids=["report", "4000_bytes", "200_bytes"])
def test_targets_whose_files_would_clash_or_not_fit_are_refused(tmp_path, targets, words):
    plan = '{"devices": {"cpu": {"points": 4, "estimated_seconds": 0.4}}}'
    fleet_exit_2("--binary", fake_binary(tmp_path, plan), "--targets", targets, "--out",
                 tmp_path / "f", "--dry-run", words=words)


def test_the_longest_target_name_that_fits_makes_names_within_the_limit(tmp_path):
    room = 255 - fleet.NAME_ADDED_BY_JOB
    target, = fleet.parse_targets("partition=" + "a" * room, 255)
    longest = f"{target.slug}-{'n' * 64}-{'9' * 24}.json.journal"
    assert len(longest) == 255
    with pytest.raises(fleet.FleetError):
        fleet.parse_targets("partition=" + "a" * (room + 1), 255)


def with_scheduler(**fields):
    """A real results file (fixtures/real/complete.json) placed under Slurm with FIELDS."""
    doc = json.loads((ROOT / "tests" / "python" / "fixtures" / "real" / "complete.json")
                     .read_text())
    doc["context"]["scheduler"] = {"name": "slurm", "job_id": "11", **fields}
    return json.dumps(doc)


# What --resume says of each damaged file in results/.
DAMAGE_WORDS = {
    "truncated": "truncated", "dangling": "a symbolic link to ", "not_utf8": "not UTF-8",
    # Fields the fleet matches targets and hosts by: once a TypeError on the list.
    "target_list": "context.scheduler.target: expected a string, found an array",
    "job_id_number": "context.scheduler.job_id: expected a string, found an integer",
    "host_object": "context.host: expected a string, found an object",
    "doctor_target_list": "scheduler.target: expected a string, found an array",
    "doctor_diagnosis_list": "diagnosis: expected an object, found an array",
    "doctor_gpu_usable_text": "diagnosis.gpu_usable: expected true/false, found a string",
}


@pytest.mark.parametrize("damage", DAMAGE_WORDS)
def test_resume_over_a_results_file_it_cannot_read_is_bad_input(tmp_path, damage):
    results = tmp_path / "f" / "results"
    results.mkdir(parents=True)
    bad = results / ("a-node7-11.doctor.json" if damage.startswith("doctor") else
                     "a-node7-11.json")
    if damage == "truncated":
        bad.write_text('{"schema": "layerbench-results/1", "status": "comp')
    elif damage == "dangling":
        bad.symlink_to(tmp_path / "gone.json")
    elif damage == "not_utf8":
        bad.write_bytes(b'{"schema": "layerbench-results/1", "status": "\xff"}')
    elif damage == "target_list":
        bad.write_text(with_scheduler(target=["partition=a"]))
    elif damage == "job_id_number":
        bad.write_text(with_scheduler(job_id=11, target="partition=a"))
    elif damage == "host_object":
        doc = json.loads(with_scheduler(target="partition=a"))
        doc["context"]["host"] = {"name": "node7"}
        bad.write_text(json.dumps(doc))
    else:
        doctor = {"scheduler": {"name": "slurm", "job_id": "11", "target": "partition=a"},
                  "diagnosis": {"gpu_usable": False, "verdict": "no GPU"}}
        if damage == "doctor_target_list":
            doctor["scheduler"]["target"] = ["partition=a"]
        elif damage == "doctor_diagnosis_list":
            doctor["diagnosis"] = ["no GPU"]
        else:
            doctor["diagnosis"]["gpu_usable"] = "no"
        bad.write_text(json.dumps(doctor))
    plan = '{"devices": {"cpu": {"points": 4, "estimated_seconds": 0.4}}}'
    for mode in (["--dry-run"], []):
        proc = fleet_exit_2("--binary", fake_binary(tmp_path, plan), "--targets", "partition=a",
                            "--out", tmp_path / "f", "--resume", *mode,
                            words=f"--resume: {bad}: ")
        assert DAMAGE_WORDS[damage] in proc.stderr, proc.stderr
        assert "move it out of results/" in proc.stderr
        assert not (tmp_path / "f" / "jobs").exists()


def test_an_unknown_run_flag_is_named_not_the_help_texts_last_line(tmp_path):
    # layerbench once printed its help text after a usage error, whose last line was shown.
    proc = fleet_exit_2("--binary", binary(), "--targets", "partition=a", "--out", tmp_path / "f",
                        "--dry-run", "--", "--frob", words="layerbench run flags: ")
    assert "--frob" in proc.stderr, proc.stderr


def test_a_run_flag_value_with_a_line_break_is_named_whole(tmp_path):
    # Once only the fragment after the break was shown: "layerbench run flags: y'; known: ...".
    proc = fleet_exit_2("--binary", binary(), "--targets", "partition=a", "--out", tmp_path / "f",
                        "--dry-run", "--", "--model", "x\ny", words="layerbench run flags: ")
    assert "unknown model 'x\\ny'" in proc.stderr, proc.stderr


def killed_binary(tmp_path):
    """Test stand-in for a layerbench that crashes before it prints anything."""
    path = tmp_path / "killed"
    path.write_text("#!/bin/sh\nkill -9 $$\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("make_binary, words", [
    (lambda _: "/bin/false", "run --dry-run exited with code 1 and printed no message"),
    (killed_binary, "run --dry-run was killed by signal 9 and printed no message"),
], ids=["false", "killed"])
def test_a_binary_that_fails_silently_is_said_to(tmp_path, make_binary, words):
    for mode in (["--dry-run"], []):
        proc = fleet_exit_2("--binary", make_binary(tmp_path), "--targets", "partition=a",
                            "--out", tmp_path / "f", *mode, words=words)
        assert proc.stderr.startswith("fleet: --binary: ") and "(no message)" not in proc.stderr
        assert not (tmp_path / "f").exists()


# ---- values Slurm judges: checked before the first job, or the missing job's command given

# Test stand-in for Slurm's sbatch: records each script it is given and refuses, as Slurm does,
# a --time that is not a time and a partition named "nope" (made-up job ids, test data).
CHECKING_SBATCH = """#!/bin/sh
script="$2"
if grep -Eq '^#SBATCH --time=.*[^0-9:-]' "$script"; then
    echo "sbatch: error: Invalid --time specification" >&2; exit 1
fi
if grep -q '^#SBATCH --partition=nope$' "$script"; then
    echo "sbatch: error: invalid partition specified: nope" >&2; exit 1
fi
n=$(ls "$SBATCH_RECORD" | wc -l)
cp "$script" "$SBATCH_RECORD/$n.sbatch"
echo "$((100 + n))"
"""


def fleet_with_checking_sbatch(tmp_path, *args):
    bin_dir, record = tmp_path / "bin", tmp_path / "record"
    bin_dir.mkdir(exist_ok=True)
    record.mkdir(exist_ok=True)
    (bin_dir / "sbatch").write_text(CHECKING_SBATCH)
    (bin_dir / "sbatch").chmod(0o755)
    plan = '{"devices": {"cpu": {"points": 4, "estimated_seconds": 0.4}}}'
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SBATCH_RECORD": str(record),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPORTS),
                                                       os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, str(SCRIPTS / "slurm" / "fleet.py"), "--binary",
                           str(fake_binary(tmp_path, plan)), "--out", str(tmp_path / "f"), *args],
                          capture_output=True, text=True, timeout=120, env=env)
    return proc, sorted(record.iterdir())


@pytest.mark.parametrize("args, words", [
    (["--report-options", "time=abc"], "--report-options: time=abc in 'time=abc': sbatch takes "
                                       "a time limit"),
    (["--report-options", "partition=cpu,time=1:2:3:4"], "time=1:2:3:4"),
    (["--report-options", "mem=lots"], "--report-options: mem=lots"),
    (["--targets", "partition=a,mem-per-cpu=4Q"], "--targets: mem-per-cpu=4Q"),
    (["--targets", "partition=a;partition=b,cpus-per-task=0"], "--targets: cpus-per-task=0"),
], ids=["time_abc", "time_4_fields", "mem", "mem_per_cpu", "cpus_per_task"])
@pytest.mark.parametrize("mode", [["--dry-run"], []], ids=["dry", "submit"])
def test_a_value_sbatch_would_refuse_is_refused_before_any_job(tmp_path, args, words, mode):
    if "--targets" not in args:
        args = ["--targets", "partition=a;partition=b", *args]
    proc, submitted = fleet_with_checking_sbatch(tmp_path, *args, *mode)
    assert proc.returncode == 2 and words in proc.stderr, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stdout == "" and not submitted


@pytest.mark.parametrize("time", ["90", "1:30", "1:30:00", "2-0", "2-1:30", "2-1:30:00",
                                  "UNLIMITED"])
def test_every_time_format_of_sbatch_is_taken(tmp_path, time):
    proc, submitted = fleet_with_checking_sbatch(tmp_path, "--targets", "partition=a",
                                                 "--report-options", f"time={time}", "--dry-run")
    assert proc.returncode == 0 and f"#SBATCH --time={time}\n" in proc.stdout, proc.stderr


def test_a_report_job_slurm_refuses_is_named_with_the_command_that_submits_it(tmp_path):
    proc, submitted = fleet_with_checking_sbatch(tmp_path, "--targets", "partition=a;partition=b",
                                                 "--report-options", "partition=nope")
    report = tmp_path / "f" / "jobs" / "report.sbatch"
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(submitted) == 2  # the two targets' jobs, 100 and 101
    assert proc.stderr == (f"fleet: sbatch {report}: sbatch: error: invalid partition specified: "
                           "nope; the target jobs 100, 101 are submitted: correct the #SBATCH "
                           f"lines of {report}, then submit the report job with: sbatch "
                           f"{shlex.quote(str(report))}\n")
    assert "#SBATCH --dependency=afterany:100:101\n" in report.read_text()


def test_a_target_slurm_refuses_after_another_was_submitted_says_what_to_cancel(tmp_path):
    proc, submitted = fleet_with_checking_sbatch(tmp_path, "--targets",
                                                 "partition=a;partition=nope")
    assert proc.returncode == 2 and len(submitted) == 1, proc.stdout + proc.stderr
    assert "invalid partition specified: nope; jobs 100 of the targets before it are " \
        "submitted and no report job: cancel them (scancel 100)" in proc.stderr, proc.stderr


def test_a_silent_sbatch_refusal_says_so(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").symlink_to("/bin/false")
    plan = '{"devices": {"cpu": {"points": 4, "estimated_seconds": 0.4}}}'
    proc = subprocess.run([sys.executable, str(SCRIPTS / "slurm" / "fleet.py"), "--binary",
                           str(fake_binary(tmp_path, plan)), "--out", str(tmp_path / "f"),
                           "--targets", "partition=a"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin",
                                            "PYTHONPATH": str(REPORTS)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.endswith("a.sbatch: exited with code 1 and printed no message\n"), \
        proc.stderr
