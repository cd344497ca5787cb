#!/usr/bin/env python3
"""The busy-machine experiment: the same run quiet, then with 1 and with 2 background CPU hogs.

    contention_experiment.py [--binary build/layerbench] [--out DIR] [-- RUN_FLAGS...]

Runs `layerbench run` (by default `--suite quick`; RUN_FLAGS replace that, e.g. a smaller
model to try the script) three times into DIR: quiet, with one busy loop, with two (each a
separate process spinning on the CPU, started before the run and killed when it ends, also on
Ctrl-C or an error). For each loaded run it prints, against the quiet run's times of the same
points: how many points are more than 1.5x and more than 3x off (slower or faster), how many of
those the loaded run flagged contended (the target is every one), the geometric mean ratio
loaded/quiet over every point both timed, and the warning the report puts at its top. The
figures are only the machine's own when the quiet run was quiet: check its load average.
Exit 0 when the runs completed, 1 when one failed, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import html
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import project_env

project_env.require("matplotlib")
from layerbench_report import page, results_file

HOG = "while True:\n    pass\n"


def start_hogs(count):
    return [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]


def stop_hogs(hogs):
    for hog in hogs:
        hog.kill()
    for hog in hogs:
        hog.wait()


def run(binary, flags, out, hogs_wanted):
    """One run with `hogs_wanted` busy loops beside it; returns the loaded results file."""
    hogs = start_hogs(hogs_wanted)
    try:
        time.sleep(0.5 if hogs else 0)  # the hogs on the CPU before the first point
        started = time.monotonic()
        load = os.getloadavg()[0]
        proc = subprocess.run([binary, "run", *flags, "--python", "none", "--force", "-o",
                               str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        wall = time.monotonic() - started
    finally:
        stop_hogs(hogs)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"contention_experiment.py: the run with {hogs_wanted} hog(s) "
                         f"exited {proc.returncode}")
    print(f"run with {hogs_wanted} hog(s): {wall:.0f} s wall, load average {load:.2f} at "
          f"its start -> {out}")
    return results_file.load(out)


def timed(f):
    return {results_file.point_id(p): p for p in f.points
            if p.get("status") == "ok" and results_file.median_ms(p)}


def warning_text(f):
    """The report's banner about a busy machine, as text; '' when it has none."""
    banners = page.banners(SimpleNamespace(files=[f]))
    return html.unescape(re.sub(r"<[^>]+>", " ", banners)).strip()


def compare(quiet, loaded, label):
    base, new = timed(quiet), timed(loaded)
    both = sorted(set(base) & set(new))
    ratios = {k: results_file.median_ms(new[k]) / results_file.median_ms(base[k]) for k in both}
    print(f"{label}: {len(both)} points timed in both runs")
    for limit in (1.5, 3.0):
        off = [k for k, r in ratios.items() if r > limit or r < 1 / limit]
        flagged = [k for k in off if new[k]["timing"].get("contended")]
        print(f"  more than {limit}x off: {len(off)}, of which flagged contended: {len(flagged)}"
              + ("" if len(flagged) == len(off) else "  (target: every one)"))
        for k in sorted(set(off) - set(flagged), key=lambda k: -abs(math.log(ratios[k])))[:5]:
            print(f"    not flagged: {'/'.join(map(str, k))} {ratios[k]:.2f}x")
    if ratios:
        mean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
        print(f"  geometric mean ratio loaded/quiet: {mean:.3f}")
    print(f"  report warning: {warning_text(loaded) or '(none)'}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="build/layerbench")
    ap.add_argument("--out", default="contention", help="folder for the three results files")
    ap.add_argument("flags", nargs="*", help="run flags after --, default: --suite quick")
    args = ap.parse_args(argv)
    # SIGTERM and SIGHUP end the script through its `finally` clauses, which kill the hogs.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda number, frame: sys.exit(128 + number))
    flags = args.flags or ["--suite", "quick"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    quiet = run(args.binary, flags, out / "quiet.json", 0)
    print(f"  quiet run's warning: {warning_text(quiet) or '(none)'}")
    for hogs in (1, 2):
        loaded = run(args.binary, flags, out / f"hogs{hogs}.json", hogs)
        compare(quiet, loaded, f"{hogs} hog(s) vs quiet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
