"""Signals at seeded moments of real `layerbench run`s (run by tests/cli/signals.sh).

Every interrupted run must end 130 with a loadable results file marked "interrupted" whose points
are all complete, and `--resume` must finish it with exactly the point keys of a clean run. A
second Ctrl-C ends the process at once; SIGKILL at any moment leaves a file --resume completes.
The moments are placed by phase, as a clean run measures them: in set-up (device probing,
before the journal exists), at seeded moments after the journal appears (warm-up, sampling,
validation, between points) and at the end (the final write). SIGINT and SIGTERM take the same
path (the signal thread), so they alternate over the moments instead of each taking every one.
LAYERBENCH_SIGNAL_TRIES scales the number of seeded moments while measuring.
"""
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = sys.argv[1]
SOURCE = Path(os.environ["LAYERBENCH_SOURCE_DIR"])
TINY = [
    "--device", "cpu", "--backend", "onednn",
    "--model-file", str(SOURCE / "tests/data/models/tiny.json"),
    "--model", "tiny", "--precision", "fp32", "--quiet", "--cpu-roofs", "skip",
]
SHORT = ["--max-time-per-point", "0.05"]
SEED = 20261201
TRIES = int(os.environ.get("LAYERBENCH_SIGNAL_TRIES", "2"))
STATUSES = {"ok", "unsupported", "oom", "failed"}
WORK = Path(tempfile.mkdtemp(prefix="lb-signals-"))
failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what, file=sys.stderr)


def key(p):
    """The point's identity; the backend too, since two backends may share a device."""
    return "/".join(str(p.get(k)) for k in ("model", "op", "batch", "precision", "pass", "device",
                                           "backend"))


def load(path):
    """The results document, or None (with a failure) when it is missing or not JSON."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        fail(f"{path}: not loadable: {e}")
        return None


def complete_points(doc, what):
    """Checks every point is whole; returns their keys."""
    keys = [key(p) for p in doc["points"]]
    if len(keys) != len(set(keys)):
        fail(f"{what}: a point key appears twice")
    for p in doc["points"]:
        if p["status"] not in STATUSES:
            fail(f"{what}: {key(p)} has status {p['status']!r}")
        elif p["status"] == "ok":
            median = p.get("timing", {}).get("median_ms")
            if not (isinstance(median, (int, float)) and math.isfinite(median) and median > 0):
                fail(f"{what}: {key(p)} ok without a positive median")
            if not p.get("validation", {}).get("passed"):
                fail(f"{what}: {key(p)} ok without a passed validation")
        elif not p.get("reason"):
            fail(f"{what}: {key(p)} {p['status']} without a reason")
    return set(keys)


def start(args, out):
    return subprocess.Popen([BIN, "run", *args, "-o", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


SIGNAL_BITS = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))


def blocked_signals(tid_status):
    for line in tid_status.read_text().splitlines():
        if line.startswith("SigBlk:"):
            return int(line.split()[1], 16)
    return 0


def wait_until_started(proc):
    """Waits until main() has blocked SIGINT and SIGTERM (interrupt::install), so a signal is
    the program's to handle, not the default action's: counting threads is not enough, since
    a sanitizer runtime starts threads of its own before main."""
    status = Path(f"/proc/{proc.pid}/status")
    for _ in range(5000):
        try:
            if blocked_signals(status) & SIGNAL_BITS == SIGNAL_BITS:
                return
        except OSError:
            return
        if proc.poll() is not None:
            return
        time.sleep(0.001)


def wait_for_journal(proc, out):
    """Waits (at most 30 s) until the run has its journal, i.e. is past set-up and measuring."""
    journal = Path(str(out) + ".journal")
    for _ in range(600):
        if journal.exists() and journal.stat().st_size > 0 or proc.poll() is not None:
            return
        time.sleep(0.05)


def clean_run(args, out):
    """Runs to the end; returns the seconds of set-up (until the journal exists) and of
    measuring after it, and the point keys."""
    t0 = time.monotonic()
    proc = start(args, out)
    wait_for_journal(proc, out)
    set_up = time.monotonic() - t0
    _, err = proc.communicate(timeout=300)
    if proc.returncode != 0:
        sys.exit(f"FAIL: clean run {args}: exit {proc.returncode}\n{err}")
    doc = json.loads(Path(out).read_text())
    return set_up, time.monotonic() - t0 - set_up, complete_points(doc, f"clean run {out.name}")


def resume(out, expected_keys, what):
    proc = subprocess.run([BIN, "run", "--resume", str(out), "--quiet"], capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        fail(f"{what}: --resume exit {proc.returncode}: {proc.stderr.strip()}")
        return
    doc = load(out)
    if doc is None:
        return
    if doc["status"] != "complete":
        fail(f"{what}: resumed file is {doc['status']}")
    keys = complete_points(doc, f"{what} resumed")
    if keys != expected_keys:
        fail(f"{what}: resumed keys differ from a clean run's: {sorted(keys ^ expected_keys)[:4]}")


def wait_for_moment(proc, out, moment):
    """moment: ("set-up", seconds after main() blocked the signals) or ("measuring", seconds
    after the journal appeared), so a loaded host cannot move a moment into another phase."""
    phase, delay = moment
    wait_until_started(proc)
    if phase == "measuring":
        wait_for_journal(proc, out)
    time.sleep(delay)


def interrupted_run(args, moment, sig, out, expected_keys, what, check_resume=True):
    proc = start(args, out)
    wait_for_moment(proc, out, moment)
    if proc.poll() is not None:  # finished before the moment came: nothing to interrupt
        return "finished first"
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(f"{what}: still running 120 s after {sig.name}")
        return "hung"
    doc = load(out) if proc.returncode in (0, 130) else None
    if proc.returncode == 0 and doc is not None and doc["status"] == "complete":
        # The signal came after the run had measured its last point and decided its status:
        # the run is complete and says so (exit and status agree).
        if complete_points(doc, what) != expected_keys and check_resume:
            fail(f"{what}: a complete run without the clean run's points")
        return "completed before the signal was taken"
    if proc.returncode != 130:
        fail(f"{what}: exit {proc.returncode} after {sig.name}, wanted 130\n{err}")
        return f"exit {proc.returncode}"
    if doc is None:
        return "no file"
    if doc["status"] != "interrupted":
        fail(f"{what}: status {doc['status']!r}, wanted 'interrupted'")
    complete_points(doc, what)
    if check_resume:
        resume(out, expected_keys, what)
    return f"130, {len(doc['points'])} points kept"


def signal_mask_check():
    """Every thread but the signal thread blocks SIGINT and SIGTERM while points run."""
    out = WORK / "mask.json"
    proc = start([*TINY, "--pass", "train", "--batch", "1,2,4", "--max-time-per-point", "2"], out)
    wait_for_journal(proc, out)
    time.sleep(0.5)  # inside a point: oneDNN's worker threads exist
    wanted = SIGNAL_BITS
    masks = {int(task.name): blocked_signals(task / "status")
             for task in Path(f"/proc/{proc.pid}/task").iterdir()}
    unblocked = [tid for tid, mask in masks.items() if mask & wanted != wanted]
    if masks.get(proc.pid, 0) & wanted != wanted:
        fail("the main thread does not block SIGINT/SIGTERM while measuring")
    if len(unblocked) > 1:  # the one that waits in sigwait() shows them unblocked
        fail(f"{len(unblocked)} of {len(masks)} threads can take SIGINT/SIGTERM asynchronously")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    print(f"mask: {len(masks)} threads, {len(masks) - len(unblocked)} block SIGINT and SIGTERM")


def second_signal_stops_at_once():
    out = WORK / "twice.json"
    # Long points: the first signal alone would wait for the current point's 5 s cap.
    proc = start([*TINY, "--pass", "train", "--batch", "1,2", "--max-time-per-point", "5",
                  "--noise-target", "1e-9"], out)
    wait_for_journal(proc, out)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.2)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    took = time.monotonic() - t0
    if proc.returncode != 130:
        fail(f"second Ctrl-C: exit {proc.returncode}, wanted 130")
    if took > 2:
        fail(f"second Ctrl-C: the process took {took:.1f} s to end")
    doc = load(out)
    if doc is not None:
        complete_points(doc, "second Ctrl-C")
    print(f"second Ctrl-C: ended in {took:.2f} s, exit {proc.returncode}")


def second_signal_during_set_up():
    """Two Ctrl-Cs while the run still sets up (its framework probe runs a Python that takes
    20 s): exit 130, no results file, and the message does not claim one holds any point."""
    out = WORK / "set-up.json"
    slow_python = WORK / "slow-python"
    slow_python.write_text("#!/bin/sh\nsleep 20\n")
    slow_python.chmod(0o755)
    proc = start([*TINY, "--python", str(slow_python)], out)
    wait_until_started(proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode != 130:
        fail(f"second Ctrl-C in set-up: exit {proc.returncode}, wanted 130\n{err}")
    if out.exists():
        fail("second Ctrl-C in set-up: a results file was written")
    if "stopped at once, before the results file was written" not in err:
        fail(f"second Ctrl-C in set-up: the message does not say no file was written\n{err}")
    print("second Ctrl-C in set-up: no file, said so")


def started_with_sigint_ignored():
    """A script's background job (`layerbench run ... &`) starts with SIGINT ignored."""
    out = WORK / "ignored.json"
    args = [*TINY, "--pass", "train", "--batch", "1,2", "--max-time-per-point", "0.3"]
    proc = subprocess.Popen([BIN, "run", *args, "-o", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    wait_for_journal(proc, out)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=120)
    if proc.returncode != 130:
        fail(f"SIGINT to a run started with SIGINT ignored: exit {proc.returncode}, wanted 130")
    print(f"started with SIGINT ignored: exit {proc.returncode}")


def killed_run(args, moment, out, expected_keys, what):
    """SIGKILL: no handler runs at all; the journal keeps what the file does not yet."""
    proc = start(args, out)
    wait_for_moment(proc, out, moment)
    proc.kill()
    proc.wait()
    doc = load(out) if out.exists() else None
    if doc is None:  # a kill during set-up comes before the file is made
        return "killed before the file existed"
    if doc["status"] == "complete":
        return "finished first"
    resume(out, expected_keys, what)
    return f"resumed from {len(doc['points'])} points"


def main():
    rng = random.Random(SEED)
    signal_mask_check()
    second_signal_stops_at_once()
    second_signal_during_set_up()
    started_with_sigint_ignored()
    runs = 0
    signals = (signal.SIGINT, signal.SIGTERM)
    for pass_, batches in (("fwd", "1,2"), ("train", "1")):
        args = [*TINY, *SHORT, "--pass", pass_, "--batch", batches]
        set_up, measuring, keys = clean_run(args, WORK / f"clean-{pass_}.json")
        print(f"tiny {pass_}: clean run {set_up:.2f} s set-up, {measuring:.2f} s measuring, "
              f"{len(keys)} points")
        # 0.05 s after main() blocked the signals: past the command-line parsing, in set-up.
        moments = [("set-up", 0.05), ("set-up", set_up / 2)]
        # One seeded moment in each of TRIES equal parts of the measuring, so they spread.
        moments += [("measuring", measuring * (k + rng.random()) / TRIES) for k in range(TRIES)]
        moments.append(("measuring", measuring * 0.97))
        for i, moment in enumerate(moments):
            sig = signals[i % 2]
            what = f"tiny {pass_} {sig.name} {moment[1]:.2f} s into {moment[0]}"
            out = WORK / f"{pass_}-{i}-{sig.name}.json"
            print(f"{what}: {interrupted_run(args, moment, sig, out, keys, what)}")
            runs += 1
        for i, moment in enumerate((moments[1], moments[2])):
            what = f"tiny {pass_} SIGKILL {moment[1]:.2f} s into {moment[0]}"
            out = WORK / f"{pass_}-kill-{i}.json"
            print(f"{what}: {killed_run(args, moment, out, keys, what)}")

    # The real shapes: oneDNN's JIT GEMM and convolution kernels of ViT-B/16 and ResNet-50
    # training (where an asynchronous handler corrupted the heap), interrupted mid-run.
    for model, sig in (("vit_b_16", signal.SIGINT), ("resnet50", signal.SIGTERM)):
        args = ["--device", "cpu", "--model", model, "--batch", "1", "--precision", "fp32",
                "--pass", "train", "--max-time-per-point", "0.05", "--quiet",
                "--cpu-roofs", "skip"]
        moment = ("measuring", rng.uniform(0.5, 3.0))
        what = f"{model} train {sig.name} {moment[1]:.2f} s into measuring"
        out = WORK / f"{model}.json"
        print(f"{what}: {interrupted_run(args, moment, sig, out, set(), what, False)}")
        runs += 1
    print(f"{runs} interrupted runs, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    try:
        main()
    finally:
        subprocess.run(["rm", "-rf", str(WORK)])
