"""The timings files the measuring commands write, and the points of a results file each
compares."""
import os

from layerbench_report import checked_json, results_file
from layerbench_report.command_line import BadInput, check_output_file


TIMINGS_FILE = "PyTorch timings file"


def load_timings(path) -> dict:
    """A timings file `measure` wrote: {"points": [{model, op, batch, precision, pass, status,
    median_ms, reason}]}, checked as strictly as the results files."""
    doc = checked_json.read_document(path, TIMINGS_FILE)
    if not isinstance(doc, dict):
        raise checked_json.BadResultsFile(path, f"not a {TIMINGS_FILE}: the top level is "
                                                f"{checked_json.json_words(doc)}")
    top = checked_json.Fields(path, doc, "")
    for p in top.objects("points"):
        p.text("model")
        p.text("op")
        p.count("batch")
        p.text("precision", results_file.PRECISIONS)
        p.text("pass", results_file.POINT_PASSES)
        ok = p.text("status", ("ok", "failed")) == "ok"
        p.number("median_ms", positive=True, optional=not ok, nullable=not ok)
        p.text("reason", optional=True)
    return doc


def point_key(p):
    return (p.get("model"), p.get("op"), p.get("batch"), p.get("precision"), p.get("pass"))


def gpu_points(results):
    return [p for p in results.points if str(p.get("device", "")).startswith("gpu")]


def cpu_points(results):
    """The ok CPU points of the device's primary backend (oneDNN), in the file's order."""
    return [p for p in results.points if p.get("status") == "ok" and results.is_primary(p)
            and str(p.get("device", "")).startswith("cpu")]


def measuring_start(args):
    """The results file and PyTorch for a measuring subcommand, after checking its -o."""
    results = results_file.load(args.results)
    check_output_file(args.output, "-o", args.force)
    # PyTorch's CPU tensors of 2 MiB or more on huge pages, as layerbench's operands are
    # (docs/measuring.md, "Pages"); read by its allocator, so set before the import.
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    try:
        import torch
    except ImportError:
        raise BadInput(f"{args.command}: PyTorch is not installed (scripts/setup.sh --torch "
                       "installs it into .venv)") from None
    return results, torch
