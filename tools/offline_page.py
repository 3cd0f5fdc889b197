"""Write the README's example page into a folder with everything it loads, to serve offline.

usage: python tools/offline_page.py [--llm] DIST_DIR OUT_DIR

``./build.sh page [--llm] OUT_DIR`` runs it after assembling ``DIST_DIR`` (build/dist).
``OUT_DIR`` (new or empty) gets:

- ``index.html``: examples/page/index.html importing Pyodide from ``./pyodide/pyodide.mjs``
  instead of jsDelivr;
- ``pyctx_web.mjs`` and the pyctx_web wheel the page loads, beside it;
- ``pyodide/``: a copy of ``DIST_DIR`` with, of its wheels, only pyctx_web's and those the
  page uses (micropip and its dependency packaging, for the page's ``?micropip`` way), and
  without ``python_stdlib.stock.zip`` (the benchmarks') and build.sh's ``.stamp``. The
  ``llm`` set of ``[tool.pyctx-web.dist]`` (langchain-openai, openai, httpx... about 10 MB)
  is left out unless ``--llm`` is given: then it is copied with every wheel it needs, as
  ``pyodide-lock.json`` says (typing-extensions, packaging), so the page may load it.
  ``pyodide-lock.json`` is copied whole either way; a package left out fails to load with
  a 404 for its wheel.

Serve ``OUT_DIR`` with any static server (``python3 -m http.server -d OUT_DIR``).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "examples" / "page" / "index.html"
PAGE_WHEELS = frozenset({"micropip", "packaging", "pyctx_web"})
"""The wheels the page uses (pyctx_web; micropip, and what it needs)."""
BENCH_ONLY = frozenset({"python_stdlib.stock.zip"})
CDN_PYODIDE = re.compile(r'"https://cdn\.jsdelivr\.net/pyodide/v[^"/]+/full/pyodide\.mjs"')
LOCAL_PYODIDE = '"./pyodide/pyodide.mjs"'


class OfflinePageError(Exception):
    """The folder cannot be written as asked."""


def _project_name(requirement: str) -> str:
    return re.split(r"[=<>!~ \[]", requirement, maxsplit=1)[0].replace("-", "_").lower()


def _closure(roots: Iterable[str], lock: Mapping[str, Any]) -> set[str]:
    """``roots`` and every package they depend on in ``lock``'s packages, normalized."""
    depends = {
        _project_name(name): [_project_name(d) for d in entry.get("depends", [])]
        for name, entry in lock.items()
    }
    seen: set[str] = set()
    todo = [_project_name(name) for name in roots]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(depends.get(name, []))
    return seen


def kept_wheels(
    dist: Path, llm: bool = False, pyproject: Path = ROOT / "pyproject.toml"
) -> frozenset[str]:
    """The normalized project names of the wheels the folder gets: the page's, and with
    ``llm`` the ``llm`` set of ``[tool.pyctx-web.dist]`` and everything it depends on."""
    if not llm:
        return PAGE_WHEELS
    pins = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["pyctx-web"]["dist"]
    lock = json.loads((dist / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    roots = [*pins["llm"], *pins.get("llm-sdists", [])]
    missing = sorted({_project_name(r) for r in roots} - {_project_name(n) for n in lock})
    if missing:
        raise OfflinePageError(
            f"{dist}/pyodide-lock.json does not register the llm wheels {missing}: "
            "run ./build.sh setup"
        )
    return PAGE_WHEELS | _closure(roots, lock)


def _kept(path: Path, wheels: frozenset[str]) -> bool:
    if path.name in BENCH_ONLY or path.name.startswith("."):  # .stamp: build.sh's own
        return False
    return path.suffix != ".whl" or path.name.split("-", 1)[0].lower() in wheels


def offline_page(dist: Path, out: Path, llm: bool = False) -> list[str]:
    """Write the page, its files and the Pyodide copy into ``out`` (with the ``llm`` wheel
    set if ``llm``); the names of ``dist``'s files left out."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise OfflinePageError(f"{out} is not an empty folder: give a new or empty one")
    if not (dist / "pyodide.mjs").is_file() or not (dist / "pyctx_web.mjs").is_file():
        raise OfflinePageError(f"{dist} has no pyodide.mjs or pyctx_web.mjs: run ./build.sh setup")
    page, count = CDN_PYODIDE.subn(LOCAL_PYODIDE, PAGE.read_text(encoding="utf-8"))
    if count != 1:
        raise OfflinePageError(f"{PAGE} imports Pyodide from jsDelivr {count} times, not once")
    wheels = re.findall(r'"(pyctx_web-[^"]+\.whl)"', page)
    missing = [name for name in wheels if not (dist / name).is_file()]
    if not wheels or missing:
        raise OfflinePageError(f"{dist} lacks the wheel the page loads: {missing or 'none named'}")
    wheels_kept = kept_wheels(dist, llm)
    dropped = sorted(p.name for p in dist.iterdir() if p.is_file() and not _kept(p, wheels_kept))
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(
        dist, out / "pyodide", ignore=lambda at, _names: dropped if at == str(dist) else []
    )
    for name in ["pyctx_web.mjs", *wheels]:
        shutil.copy2(dist / name, out / name)
    (out / "index.html").write_text(page, encoding="utf-8")
    return dropped


def main(argv: list[str]) -> int:
    """Command line: [--llm] DIST_DIR OUT_DIR."""
    llm = argv[:1] == ["--llm"]
    argv = argv[1:] if llm else argv
    if len(argv) != 2 or any(arg.startswith("-") for arg in argv):
        print("usage: python tools/offline_page.py [--llm] DIST_DIR OUT_DIR", file=sys.stderr)
        return 2
    try:
        dropped = offline_page(Path(argv[0]), Path(argv[1]), llm)
    except OfflinePageError as error:
        print(f"offline_page: {error}", file=sys.stderr)
        return 2
    print(f"wrote {argv[1]}/index.html and its files; left out of pyodide/: {', '.join(dropped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
