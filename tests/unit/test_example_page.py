"""The README's example page is examples/page/index.html, names this release's files, and
tools/offline_page.py (./build.sh page) writes it with its own copy of Pyodide."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import pyctx_web

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "examples" / "page" / "index.html"
TOOL = ROOT / "tools" / "offline_page.py"


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


def _offline_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pyctx_offline_page", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WHEEL = f"pyctx_web-{pyctx_web.__version__}-py3-none-any.whl"
DIST_FILES = [
    ".stamp",
    "pyodide.mjs",
    "pyodide.asm.wasm",
    "pyodide-lock.json",
    "python_stdlib.zip",
    "python_stdlib.stock.zip",
    "pyctx_web.mjs",
    WHEEL,
    "micropip-0.11.1-py3-none-any.whl",
    "packaging-26.1-py3-none-any.whl",
    "pytest-9.0.2-py3-none-any.whl",
    "typing_extensions-4.15.0-py3-none-any.whl",
]


def _fake_dist(folder: Path) -> Path:
    folder.mkdir()
    for name in DIST_FILES:
        (folder / name).write_text(f"contents of {name}")
    return folder


def test_offline_page_is_the_page_with_its_own_pyodide(tmp_path: Path) -> None:
    """tools/offline_page.py (./build.sh page) writes the page importing ./pyodide/pyodide.mjs,
    pyctx_web.mjs and the wheel beside it, and the distribution less test and benchmark files."""
    tool = _offline_tool()
    dist = _fake_dist(tmp_path / "dist")
    site = tmp_path / "site"
    dropped = tool.offline_page(dist, site)
    assert dropped == [
        ".stamp",
        "pytest-9.0.2-py3-none-any.whl",
        "python_stdlib.stock.zip",
        "typing_extensions-4.15.0-py3-none-any.whl",
    ]
    assert sorted(p.name for p in (site / "pyodide").iterdir()) == sorted(
        set(DIST_FILES) - set(dropped)
    )
    assert sorted(p.name for p in site.iterdir()) == sorted(
        ["index.html", "pyctx_web.mjs", WHEEL, "pyodide"]
    )
    assert (site / WHEEL).read_text() == f"contents of {WHEEL}"
    page = PAGE.read_text(encoding="utf-8")
    cdn = re.search(r'"https://cdn\.jsdelivr\.net/[^"]+"', page)
    assert cdn is not None
    assert (site / "index.html").read_text() == page.replace(
        cdn.group(0), '"./pyodide/pyodide.mjs"'
    )


def test_offline_page_leaves_out_the_test_only_wheels_of_pyproject() -> None:
    """The wheels left out are [tool.pyctx-web.dist]'s, less micropip and packaging."""
    assert _offline_tool().left_out() == {
        "pytest",
        "pluggy",
        "iniconfig",
        "pygments",
        "tblib",
        "typing_extensions",
    }


def test_offline_page_refuses_a_folder_with_files(tmp_path: Path) -> None:
    """A folder that already holds files is refused, not written into."""
    tool = _offline_tool()
    dist = _fake_dist(tmp_path / "dist")
    site = tmp_path / "site"
    site.mkdir()
    (site / "mine.txt").write_text("keep")
    with pytest.raises(
        tool.OfflinePageError,
        match=rf"^{re.escape(str(site))} is not an empty folder: give a new or empty one$",
    ):
        tool.offline_page(dist, site)
    assert [p.name for p in site.iterdir()] == ["mine.txt"]
