"""A backend the report has never heard of, on a device type of its own, reaches every section.

fixtures/fixture_test_accelerator.json is TEST DATA (make_fixtures.py): "test_library" on two
"test_accelerator" devices, a second library on the first, and a CPU; its roles are in
context.backends, which is all the report may know of them."""
import html
import re

from conftest import FIXTURES, read_fixture, write_json

from layerbench_report import cli, results_file
from layerbench_report.checked_json import BadResultsFile
from layerbench_report.sections import MODEL_SECTIONS

ACCELERATOR = FIXTURES / "fixture_test_accelerator.json"
DEVICE = "Test accelerator 0 (fixture)"
# Its subject is a framework's own run, which no framework makes on a test device.
NEEDS_A_FRAMEWORK = "Explained share: the estimate against a framework"


def sections(page):
    """{title: HTML} of the model sections, each from its heading to the next heading."""
    parts = re.split(r"<h3>(?:\d+\. )?([^<]+)</h3>", page)
    return {html.unescape(title): body for title, body in zip(parts[1::2], parts[2::2])}


def report_sections(doc, out):
    path = write_json(out.with_suffix(".json"), doc)
    assert cli.main([str(path), "-o", str(out)]) == 0
    return sections((out / "index.html").read_text(encoding="utf-8"))


def without_the_test_backend(doc):
    """The same file with the test backend's devices and points left out: the CPU alone."""
    def mine(item):
        return item["device"].startswith("test_accelerator")
    doc["context"]["devices"] = [d for d in doc["context"]["devices"] if d["kind"] == "cpu"]
    doc["points"] = [p for p in doc["points"] if not mine(p)]
    doc["models"] = [r for r in doc["models"] if not mine(r)]
    doc["boundaries"] = [b for b in doc["boundaries"] if not mine(b)]
    return doc


def test_its_points_reach_every_section(tmp_path):
    """Each section differs from the same file's without the test backend's points (charts show
    them as images, so the HTML is compared), and the tables name its device."""
    doc = read_fixture(ACCELERATOR)
    with_it = report_sections(doc, tmp_path / "with")
    without_it = report_sections(without_the_test_backend(doc), tmp_path / "without")
    for section in MODEL_SECTIONS:
        if section.title == NEEDS_A_FRAMEWORK:
            continue
        assert section.title in with_it, section.title
        assert with_it[section.title] != without_it[section.title], section.title
    assert DEVICE in with_it["Best throughput per device and precision"]
    # named as its descriptor names it; test_library_b gives no name and is shown as it is
    assert "Test Library A vs test_library_b" in with_it["Library vs library on the same device"]


def test_a_device_kind_no_backend_declares_is_refused(tmp_path):
    doc = read_fixture(ACCELERATOR)
    del doc["context"]["backends"]["test_library"]
    del doc["context"]["backends"]["test_library_b"]
    try:
        results_file.check(ACCELERATOR, doc)
    except BadResultsFile as e:
        assert "kind" in str(e) and "test_accelerator" in str(e)
    else:
        raise AssertionError("a device kind no backend declares was read")
