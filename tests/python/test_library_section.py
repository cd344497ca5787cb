"""Two backends on one device: the "Library vs library" section, the point identity that keeps
older files comparable, and the other sections reading each device's original backend alone.
fixtures/real/two_backends.json is a real CPU run of oneDNN and OpenBLAS (fixtures/real/README.md);
complete.json is the same run's settings, written before the backend dimension existed."""
import json
import re

from conftest import FIXTURES, read_fixture, run_script

from layerbench_report import results_file, uncertainty
from layerbench_report import cli
from layerbench_report.data import Data
from layerbench_report.sections import MODEL_SECTIONS

REAL = FIXTURES / "real"
TWO_BACKENDS, OLD_FORMAT = REAL / "two_backends.json", REAL / "complete.json"


def section_html(index_html):
    """The library section's HTML: from its heading to the next section's."""
    title = "Library vs library on the same device"
    start = index_html.index(f". {title}</h3>")
    end = index_html.find("<h3", start)
    return index_html[start:end if end > 0 else None]


def test_the_section_is_one_line_in_the_list():
    assert [s.title for s in MODEL_SECTIONS].count("Library vs library on the same device") == 1


def test_each_gemm_shape_shows_both_libraries_and_their_ratio(tmp_path):
    assert cli.main([str(TWO_BACKENDS), "-o", str(tmp_path)]) == 0
    html = section_html((tmp_path / "index.html").read_text(encoding="utf-8"))
    # the file predates context.backends and its library names: shown as its points name them
    assert "onednn vs openblas" in html
    doc = read_fixture(TWO_BACKENDS)
    gemms = [p for p in doc["points"] if p["kind"] in ("linear", "bmm")]
    shapes = {(p["op"], p["pass"], p["precision"], p["batch"]) for p in gemms}
    rows = re.findall(r"<tr><td>(\w+)</td><td>(\w+)</td><td>(\w+)</td><td>(\d+)</td>", html)
    assert len(rows) == len(shapes) > 0  # one row per shape, both libraries in it
    by = {(p["op"], p["precision"], p["batch"], p["backend"]): p for p in gemms}
    for (op, prec, batch) in {(op, prec, b) for op, _, prec, b in shapes}:
        onednn, openblas = by[(op, prec, batch, "onednn")], by[(op, prec, batch, "openblas")]
        if onednn["status"] == openblas["status"] == "ok":
            # The time ratio with the range both points' uncertainties allow.
            ratio = results_file.median_ms(openblas) / results_file.median_ms(onednn)
            factor = (1 + uncertainty.noise(openblas)) * (1 + uncertainty.noise(onednn))
            assert factor > 1
            text = (f"{fmt(ratio)} ({fmt(ratio / factor).rstrip('×')}–"
                    f"{fmt(ratio * factor)})")
            assert re.search(rf"<td>{op}</td><td>fwd</td><td>FP32</td><td>{batch}</td>.*?"
                             rf"{re.escape(text)}</td></tr>", html), (op, batch, text)
    # Each ok cell shows the point's in-run noise (this file predates rounds: no spread).
    ok = next(p for p in gemms if p["status"] == "ok")
    assert f"<br>±{ok['timing']['noise']:.1%}</td>" in html
    assert ", rounds " not in html
    # OpenBLAS's FP16 points are unsupported, and say so in the table.
    assert "unsupported" in html


def fmt(ratio):
    from layerbench_report.markup import fmt_ratio
    return fmt_ratio(ratio)


def test_a_file_of_one_backend_per_device_says_how_to_get_two(tmp_path):
    assert cli.main([str(OLD_FORMAT), "-o", str(tmp_path)]) == 0
    html = section_html((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert "--backend onednn,openblas" in html


def test_other_sections_read_the_original_backend_and_the_csv_every_point(tmp_path):
    data = Data([results_file.load(TWO_BACKENDS)])
    assert {p["backend"] for _, p in data.points} == {"onednn"}
    assert {p["backend"] for _, p in data.all_points} == {"onednn", "openblas"}
    assert all("backend" not in r for _, r in data.records)
    assert cli.main([str(TWO_BACKENDS), "-o", str(tmp_path)]) == 0
    csv_rows = (tmp_path / "results.csv").read_text(encoding="utf-8").strip().splitlines()
    assert len(csv_rows) == 1 + len(read_fixture(TWO_BACKENDS)["points"])


def test_model_sums_are_per_backend_and_openblas_has_none_without_convolutions():
    doc = read_fixture(TWO_BACKENDS)
    openblas = [r for r in doc["models"] if r.get("backend") == "openblas"]
    assert openblas and all(r["status"] == "unsupported" and r["images_per_s"] is None
                            for r in openblas)
    assert all("no convolution" in r["reason"] for r in openblas)


def test_an_old_format_file_compares_with_a_two_backend_one():
    """complete.json predates the backend dimension: its oneDNN points keep their keys and match
    the new file's; OpenBLAS's are only in NEW, keyed cpu@openblas."""
    proc = run_script("compare.py", OLD_FORMAT, TWO_BACKENDS)
    assert proc.returncode == 0, proc.stderr
    old, new = read_fixture(OLD_FORMAT)["points"], read_fixture(TWO_BACKENDS)["points"]
    n_openblas = sum(p["backend"] == "openblas" for p in new)
    assert f"{len(old)} points in both files" in proc.stdout
    assert f"0 only in BASE, {n_openblas} only in NEW" in proc.stdout
    assert "on cpu@openblas" in proc.stdout
    assert {results_file.point_id(p) for p in old} == {results_file.point_id(p) for p in new
                                             if p["backend"] == "onednn"}


def test_libraries_are_named_as_the_files_backends_name_them(tmp_path):
    doc = read_fixture(TWO_BACKENDS)
    # test data: the roles this file's build had, with the names today's descriptors give
    doc["context"]["backends"] = {
        "onednn": {"device_type": "cpu", "primary": True, "point_backends": ["onednn"],
                   "library_names": {"onednn": "oneDNN"}},
        "openblas": {"device_type": "cpu", "primary": False, "point_backends": ["openblas"],
                     "library_names": {"openblas": "OpenBLAS"}}}
    named = tmp_path / "named.json"
    named.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main([str(named), "-o", str(tmp_path / "report")]) == 0
    html = section_html((tmp_path / "report" / "index.html").read_text(encoding="utf-8"))
    assert "oneDNN vs OpenBLAS" in html and "OpenBLAS / oneDNN time" in html
