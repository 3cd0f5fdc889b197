"""The README's example page is examples/page/index.html, and names this release's files."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pyctx_web

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "examples" / "page" / "index.html"


def _html_blocks(text: str) -> list[str]:
    return re.findall(r"^```html\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_readme_shows_the_page_verbatim() -> None:
    """The README's html block is the example page's file, byte for byte."""
    blocks = _html_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert blocks == [PAGE.read_text(encoding="utf-8")]


def test_page_names_this_release_and_the_pinned_pyodide() -> None:
    """The page loads this version's wheel and the Pyodide that build/dist is made of."""
    text = PAGE.read_text(encoding="utf-8")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pyodide = pyproject["tool"]["pyctx-web"]["dist"]["pyodide"]
    assert f'"pyctx_web-{pyctx_web.__version__}-py3-none-any.whl"' in text
    assert f'"https://cdn.jsdelivr.net/pyodide/v{pyodide}/full/pyodide.mjs"' in text
