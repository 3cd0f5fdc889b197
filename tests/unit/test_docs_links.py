"""The README and the pages of docs/: every relative link resolves, and the README stays short."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
MAX_README_LINES = 300

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+).*?\1")
MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"""<[a-zA-Z][^>]*?\s(?:src|href)\s*=\s*["']([^"']+)["']""")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _prose_lines(text: str) -> Iterator[str]:
    """The lines of a Markdown text outside fenced code blocks."""
    fence: str | None = None
    for line in text.splitlines():
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            yield line


def _links(text: str) -> list[str]:
    """The link targets of a Markdown text, leaving out code blocks and code spans."""
    found: list[str] = []
    for line in _prose_lines(text):
        line = CODE_SPAN.sub("", line)
        found += MARKDOWN_LINK.findall(line) + HTML_LINK.findall(line)
    return found


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lowercased, punctuation dropped, spaces as '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link counts by its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, a repeated one numbered as GitHub does."""
    seen: dict[str, int] = {}
    anchors: set[str] = set()
    for line in _prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if match is None:
            continue
        slug = _slug(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` whose file, or whose heading after '#', does not exist."""
    broken: list[str] = []
    for target in _links(page.read_text(encoding="utf-8")):
        if SCHEME.match(target) or target.startswith("//"):
            continue
        path_part, _, anchor = target.partition("#")
        file = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (file.suffix != ".md" or unquote(anchor) not in _anchors(file)):
            broken.append(f"{target}: no heading #{anchor} in {file.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    """Every relative link and image of the page names a file that exists, and a heading in it."""
    assert broken_links(page) == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    """Every Markdown page of docs/ is reachable from the README by a link."""
    linked = {
        (ROOT / t.partition("#")[0]).resolve() for t in _links(README.read_text(encoding="utf-8"))
    }
    assert [p.name for p in PAGES[1:] if p.resolve() not in linked] == []


def test_readme_is_short() -> None:
    """The README is what a newcomer reads first: at most 300 lines."""
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MAX_README_LINES


def test_broken_links_are_found(tmp_path: Path) -> None:
    """A link to a missing file, to a missing heading, or an image that is missing is reported."""
    (tmp_path / "other.md").write_text("# A `code` heading: yes\n\n## Twice\n\n## Twice\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Top\n[ok](other.md#a-code-heading-yes) [ok](other.md#twice-1) [ok](#top)\n"
        '[gone](missing.md) [no anchor](other.md#nowhere) <img src="gone.svg">\n'
        "![gone](pic.png) [web](https://example.org/x) `[code](skipped.md)`\n"
        "```\n[in a block](skipped.md)\n```\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading #nowhere in other.md",
        "gone.svg: no such file",
        "pic.png: no such file",
    ]
