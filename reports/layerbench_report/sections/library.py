"""Section: library vs library on the same device (e.g. oneDNN and OpenBLAS on one CPU)."""
from __future__ import annotations

from layerbench_report import results_file
from layerbench_report.backend_roles import library_name

from layerbench_report.markup import P, Raw, esc, fmt_ms, noise_text, note, status_pill, table
from layerbench_report.op_kinds import GEMM_KINDS
from layerbench_report.uncertainty import noise, ranged_text


def gemms_by_library(data, model):
    """{device: {(op, pass, precision, batch): {library: point}}} of the GEMM points."""
    out = {}
    for d, p in data.all_points:
        if p["model"] == model and p.get("kind") in GEMM_KINDS:
            shape = (p["op"], p["pass"], p["precision"], p["batch"])
            out.setdefault(d, {}).setdefault(shape, {})[p.get("backend") or "?"] = p
    return out


def libraries_of(shapes, primary) -> list:
    """The libraries of a device's GEMMs, its primary backend's first (file order otherwise)."""
    seen = []
    for by_library in shapes.values():
        for library, p in by_library.items():
            if library not in seen:
                seen.append(library)
    return sorted(seen,
                  key=lambda library: not results_file.is_primary_backend({"backend": library},
                                                                           primary))


def cell(p):
    if p is None:
        return "not measured"
    if p["status"] != "ok":
        return status_pill(p["status"], p.get("reason", ""))
    tflops = p.get("tflops")
    rate = f"{tflops:.3g} TFLOP/s" if tflops else "–"
    return Raw(f"{esc(fmt_ms(results_file.median_ms(p)))} ms<br>{esc(rate)}<br>"
               f"{esc(noise_text(p))}")


def comparison_rows(shapes, libraries):
    """One row per GEMM shape two libraries measured: each library's time and TFLOP/s, and each
    other library's time relative to the first's when both are ok."""
    rows = []
    for (op, pass_, precision, batch), by_library in shapes.items():
        if sum(library in by_library for library in libraries) < 2:
            continue
        first = by_library.get(libraries[0])
        shape_text = next(iter(by_library.values())).get("shape_text", "")
        row = [op, pass_, P(precision), batch, shape_text]
        row += [cell(by_library.get(library)) for library in libraries]
        for library in libraries[1:]:
            other = by_library.get(library)
            both_ok = first and other and first["status"] == other["status"] == "ok"
            row.append(ranged_text(results_file.median_ms(other) / results_file.median_ms(first),
                                   noise(other), noise(first)) if both_ok else "–")
        rows.append(row)
    return rows


def render(data, model, charts) -> str:
    parts = []
    for device, shapes in gemms_by_library(data, model).items():
        libraries = libraries_of(shapes, device.file.primary_backends)
        rows = comparison_rows(shapes, libraries) if len(libraries) > 1 else []
        if not rows:
            continue
        names = [library_name(device.file.context, library) for library in libraries]
        parts.append(f"<h4>{esc(device.label)}: {esc(' vs '.join(names))}</h4>")
        parts.append(f"<p>The same GEMMs (linear layers and batched products) through each "
                     f"library on this device: median time, TFLOP/s per execution and the "
                     f"noise (in-run, and the spread between rounds), every "
                     f"point validated against the double-precision reference; last, each other "
                     f"library's time divided by {esc(names[0])}'s (below 1: faster), with the "
                     f"range the two points' uncertainties allow.</p>")
        headers = ["op", "pass", "precision", "batch", "shape (batch m n k tA tB)"] + names
        headers += [f"{name} / {names[0]} time" for name in names[1:]]
        parts.append(table(headers, rows))
    if not parts:
        return note("Each device's GEMMs come from one library in these files: "
                    "`layerbench run --backend onednn,openblas` measures two on the CPU.")
    return "".join(parts)
