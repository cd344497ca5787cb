"""The Markdown pages link only to files that exist, and README.md leads to every page of docs/."""
import re

from conftest import ROOT

DOCS = ROOT / "docs"
# Fenced blocks and inline code spans hold commands and output, not links.
CODE = re.compile(r"^```.*?^```|`[^`\n]*`", re.DOTALL | re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def markdown_pages():
    """README.md, docs/ and the pages beside the data and code (not build/ or .venv/)."""
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    for folder in ("bench", "reports", "tests"):
        pages += sorted((ROOT / folder).rglob("*.md"))
    return pages


def relative_links(page):
    """The relative link targets of a page, without their #anchor."""
    text = CODE.sub("", page.read_text())
    targets = (t.split("#", 1)[0] for t in LINK.findall(text))
    return [t for t in targets if t and not re.match(r"[a-z]+:", t)]


def broken_links(page):
    return [t for t in relative_links(page) if not (page.parent / t).exists()]


def test_every_relative_link_resolves():
    pages = markdown_pages()
    assert len(pages) > 10, pages  # the README, docs/ and the schemas were found
    broken = {str(p.relative_to(ROOT)): b for p in pages if (b := broken_links(p))}
    assert not broken, broken


def test_the_readme_leads_to_every_docs_page():
    linked = {(ROOT / t).resolve() for t in relative_links(ROOT / "README.md")}
    unlinked = [p.name for p in DOCS.glob("*.md") if p.resolve() not in linked]
    assert DOCS.is_dir() and not unlinked, unlinked


def test_the_checker_finds_a_broken_link_and_skips_code(tmp_path):
    # Guards the tests above against a pattern that matches nothing.
    (tmp_path / "there.md").write_text("x")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#part) [web](https://example.com) [gone](missing.md)\n"
                    "`[a](in_code.md)`\n```\n[b](in_block.md)\n```\n")
    assert relative_links(page) == ["there.md", "missing.md"]
    assert broken_links(page) == ["missing.md"]


def test_the_commands_page_names_gpu_check_s_own_commands():
    # It once named `build`, `measure` and `torch`, which the script refuses.
    script = (ROOT / "scripts" / "gpu-check.sh").read_text(encoding="utf-8")
    taken = set(re.search(r"^\s+(\S+)\) \[ -z \"\$what\" \]", script, re.MULTILINE)
                .group(1).split("|")) | {"take"}
    assert taken == {"check", "torch", "all", "take"}, taken  # the pattern found the case
    page = (DOCS / "commands.md").read_text(encoding="utf-8")
    section = page.split("## `scripts/gpu-check.sh`", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(?:--dry-run )?([a-z]+)(?: FOLDER)?`", section))
    named |= {w for m in re.findall(r"`--dry-run ([a-z|]+)`", section) for w in m.split("|")}
    assert named and named <= taken, named - taken
