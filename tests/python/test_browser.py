"""The report opened in headless Chromium: every chart decodes, no console errors, a screenshot.

The page sets data-charts-rendered / data-charts-total on <body> once loaded and logs a console
error naming any chart the browser could not decode; --dump-dom shows the attributes and
--enable-logging=stderr shows console messages as "...:CONSOLE:..." lines.
"""
import re

import pytest

from conftest import CHROMIUM, chromium, png_size, screenshot

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                "(Debian package 'chromium'; scripts/setup.sh lists it)")


def open_page(html, profile_dir):
    """(charts rendered, charts total, console lines) of a page after it has loaded."""
    proc = chromium(profile_dir, "--enable-logging=stderr", "--v=0", "--dump-dom",
                    html.resolve().as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    body = re.search(r"<body[^>]*>", proc.stdout)
    assert body, "no <body> in the dumped DOM"
    rendered = re.search(r'data-charts-rendered="(\d+)"', body.group(0))
    total = re.search(r'data-charts-total="(\d+)"', body.group(0))
    assert rendered and total, f"the page's load check did not run: {body.group(0)}"
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return int(rendered.group(1)), int(total.group(1)), console


def test_every_chart_renders_without_console_errors(fixture_report, tmp_path, capsys):
    html = fixture_report / "index.html"
    images = html.read_text().count("<img ")
    rendered, total, console = open_page(html, tmp_path / "profile")
    assert total == images > 0
    assert rendered == total
    assert console == []
    shot = screenshot(html, tmp_path / "report-fixtures.png", tmp_path / "profile")
    assert png_size(shot) == (1400, 4000)
    with capsys.disabled():
        print(f"\nscreenshot of the fixture report: {shot}")


def test_the_render_check_catches_a_chart_that_does_not_decode(fixture_report, tmp_path):
    page = (fixture_report / "index.html").read_text()
    alt = re.search(r'<img class="chart" alt="([^"]*)" src="data:image/png;base64,', page).group(1)
    broken = re.sub(r'src="data:image/png;base64,[^"]*"', 'src="data:image/png;base64,AAAA"',
                    page, count=1)
    html = tmp_path / "broken.html"
    html.write_text(broken)
    rendered, total, console = open_page(html, tmp_path / "profile")
    assert rendered == total - 1
    assert len(console) == 1 and f"charts not rendered: {alt}" in console[0]
