"""The command line of scripts/report.py."""
from __future__ import annotations

import sys
from pathlib import Path

from layerbench_report import framework_file
from layerbench_report import results_file
from layerbench_report.command_line import (BadInput, Parser, output_folder, pass_bytes_through,
                                            path_text, write_text)

from layerbench_report.data import Data, load_not_measured
from layerbench_report.headline import headline
from layerbench_report.outputs import csv_text, summary_markdown
from layerbench_report.page import render_html


def load_results(paths, skip_bad: bool, warn) -> list:
    """Loads every results file given. A bad file raises, or with skip_bad is reported through
    warn(message) and left out. A file given again (the same file, or a copy with the same
    content) is left out with a warning: its points would be counted twice. Raises
    BadResultsFile when no file is left."""
    loaded = []
    for p in paths:
        try:
            results = results_file.load(p)
        except results_file.BadResultsFile as e:
            if not skip_bad:
                raise
            warn(f"{e} (skipped)")
            continue
        repeated = results_file.repeated_run(results, loaded)
        if repeated:
            warn(f"{p}: {repeated}: its points are counted once")
            continue
        loaded.append(results)
    if not loaded:
        raise results_file.BadResultsFile(", ".join(map(str, paths)) or "(none)",
                                          "no usable results file")
    return loaded


def main(argv=None) -> int:
    pass_bytes_through()
    ap = Parser(prog="report.py", description="HTML report from layerbench results files.")
    ap.add_argument("results", nargs="*", type=path_text, help="results files (layerbench run "
                    "-o FILE); framework timing files among them are recognised by their schema")
    ap.add_argument("-o", "--output", required=True, type=path_text, help="folder for "
                    "index.html, results.csv and summary.md (made if absent; those three files "
                    "in it are replaced)")
    ap.add_argument("--baseline", type=path_text, help="the results file the others are "
                    "normalised to (default: the first)")
    ap.add_argument("--skip-bad", action="store_true", help="leave out files that cannot be read "
                    "instead of stopping")
    ap.add_argument("--not-measured", type=path_text, help="a Slurm fleet's list of targets "
                    "that left no results (scripts/slurm/fleet.py writes it)")
    ap.add_argument("--framework", action="append", default=[], metavar="FILE", type=path_text,
                    help="a framework timing file (scripts/torch_models.py -o FILE) whose "
                    "end-to-end times the model estimates are checked against; repeatable")
    args = ap.parse_args(argv)
    framework_paths = args.framework + [p for p in args.results
                                        if framework_file.looks_like_framework_file(p)]
    args.results = [p for p in args.results if p not in framework_paths]

    skipped = []

    def warn(msg):
        print(f"report.py: {msg}", file=sys.stderr)
        skipped.append(msg)

    try:
        not_measured = load_not_measured(args.not_measured) if args.not_measured else []
        frameworks = [framework_file.load(p) for p in framework_paths]
        # A fleet whose every target failed still gets a page that says why.
        files = load_results(args.results, args.skip_bad, warn) \
            if args.results or not not_measured else []
    except (results_file.BadResultsFile, BadInput) as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    baseline_index = 0
    if args.baseline:
        wanted = Path(args.baseline).resolve()
        matches = [i for i, f in enumerate(files) if f.path.resolve() == wanted]
        if not matches:
            print(f"report.py: --baseline {args.baseline}: not one of the results files given",
                  file=sys.stderr)
            return 2
        baseline_index = matches[0]
    data = Data(files, baseline_index, frameworks)
    heads = {m: headline(data, m) for m in data.models}
    page, n_charts = render_html(data, heads, skipped, not_measured)
    try:
        out = output_folder(args.output, "-o")
        write_text(out / "index.html", page, "-o")
        write_text(out / "results.csv", csv_text(data), "-o")
        write_text(out / "summary.md", summary_markdown(data, heads, not_measured), "-o")
    except BadInput as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    print(f"report.py: wrote {out / 'index.html'} ({n_charts} charts, {len(data.points)} points "
          f"from {len(files)} file(s)), results.csv and summary.md")
    return 0
