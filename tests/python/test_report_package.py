"""The report package's structure: sections are a list that orders and numbers them, so adding
one is a module and a line; no module grows past about 300 lines; the package is imported as a
package (installed by scripts/setup.sh, or PYTHONPATH), never found by editing the path."""
import re

from conftest import CPU_ONLY, GPU_A, ROOT

from layerbench_report import cli, page
from layerbench_report.sections import MODEL_SECTIONS, Section

PACKAGE = ROOT / "reports" / "layerbench_report"
MODULE_LINES_MAX = 300  # the bound: past it a module wants splitting


def headings(index_html):
    return re.findall(r"<h[23][^>]*>([^<]*)</h[23]>", index_html)


def test_the_page_numbers_sections_by_their_place_in_the_list(tmp_path):
    cli.main([str(GPU_A), str(CPU_ONLY), "-o", str(tmp_path)])
    shown = headings((tmp_path / "index.html").read_text(encoding="utf-8"))
    numbered = [s.title for s in MODEL_SECTIONS if s.numbered]
    assert shown[0] == "1. At a glance"
    for number, title in enumerate(numbered, start=2):
        assert f"{number}. {title}" in shown
    assert f"{len(numbered) + 2}. Environment and validation" in shown
    unnumbered = [s.title for s in MODEL_SECTIONS if not s.numbered]
    assert unnumbered and all(title in shown for title in unnumbered)


def test_a_new_section_is_one_line_in_the_list(tmp_path, monkeypatch):
    def render(data, model, charts):
        return f'<p id="new-section">{len(data.points_of(model))} points</p>'
    extended = MODEL_SECTIONS[:2] + (Section("New chart", render),) + MODEL_SECTIONS[2:]
    monkeypatch.setattr(page, "MODEL_SECTIONS", extended)
    assert cli.main([str(GPU_A), "-o", str(tmp_path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    shown = headings(html)
    number_before = sum(s.numbered for s in MODEL_SECTIONS[:2]) + 1
    assert f"{number_before + 1}. New chart" in shown
    # the section after it moved down one number, and so did the environment
    following = MODEL_SECTIONS[2]
    assert f"{number_before + 2}. {following.title}" in shown
    numbered = sum(s.numbered for s in extended)
    assert f"{numbered + 2}. Environment and validation" in shown
    assert re.search(r'<p id="new-section">[1-9]\d* points</p>', html)


def test_no_module_of_the_package_passes_the_line_bound():
    sizes = {p.relative_to(PACKAGE).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in PACKAGE.rglob("*.py")}
    assert len(sizes) > 10  # the package is found, not an empty folder
    too_long = {name: n for name, n in sizes.items() if n > MODULE_LINES_MAX}
    assert not too_long, f"split these modules: {too_long}"


def test_no_python_file_edits_the_import_path():
    # A script that extends the path imports whichever copy the path finds first; the package is
    # installed (scripts/setup.sh) or named by PYTHONPATH instead, the same way for every caller.
    edits = re.compile(r"sys\.path\s*(\[|\.(insert|append|extend)|[+]?=)")
    sources = [p for folder in ("scripts", "reports", "tests")
               for p in (ROOT / folder).rglob("*.py")]
    assert len(sources) > 30  # the tree is found
    offenders = [p.relative_to(ROOT).as_posix() for p in sources
                 if edits.search(p.read_text(encoding="utf-8"))]
    assert not offenders, f"these edit sys.path: {offenders}"
