"""Write the README's example page into a folder with everything it loads, to serve offline.

usage: python tools/offline_page.py DIST_DIR OUT_DIR

``./build.sh page OUT_DIR`` runs it after assembling ``DIST_DIR`` (build/dist). ``OUT_DIR``
(new or empty) gets:

- ``index.html``: examples/page/index.html importing Pyodide from ``./pyodide/pyodide.mjs``
  instead of jsDelivr;
- ``pyctx_web.mjs`` and the pyctx_web wheel the page loads, beside it;
- ``pyodide/``: a copy of ``DIST_DIR`` without what only the tests and benchmarks use: the
  wheels of ``[tool.pyctx-web.dist]`` other than micropip and its dependency packaging
  (the page's ``?micropip`` way), ``python_stdlib.stock.zip`` and build.sh's ``.stamp``.

Serve ``OUT_DIR`` with any static server (``python3 -m http.server -d OUT_DIR``).
"""

from __future__ import annotations

import re
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "examples" / "page" / "index.html"
PAGE_WHEELS = frozenset({"micropip", "packaging"})
"""The wheels of [tool.pyctx-web.dist] that the page uses (micropip, and what it needs)."""
BENCH_ONLY = frozenset({"python_stdlib.stock.zip"})
CDN_PYODIDE = re.compile(r'"https://cdn\.jsdelivr\.net/pyodide/v[^"/]+/full/pyodide\.mjs"')
LOCAL_PYODIDE = '"./pyodide/pyodide.mjs"'


class OfflinePageError(Exception):
    """The folder cannot be written as asked."""


def _project_name(requirement: str) -> str:
    return re.split(r"[=<>!~ ]", requirement, maxsplit=1)[0].replace("-", "_").lower()


def left_out(pyproject: Path = ROOT / "pyproject.toml") -> frozenset[str]:
    """The normalized project names of the test-only wheels of ``[tool.pyctx-web.dist]``."""
    wheels = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["pyctx-web"]["dist"]
    return frozenset(_project_name(pin) for pin in wheels["wheels"]) - PAGE_WHEELS


def _kept(path: Path, test_only: frozenset[str]) -> bool:
    if path.name in BENCH_ONLY or path.name.startswith("."):  # .stamp: build.sh's own
        return False
    return path.suffix != ".whl" or path.name.split("-", 1)[0].lower() not in test_only


def offline_page(dist: Path, out: Path, test_only: frozenset[str] | None = None) -> list[str]:
    """Write the page, its files and the Pyodide copy into ``out``; the names left out."""
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
    test_only = left_out() if test_only is None else test_only
    dropped = sorted(p.name for p in dist.iterdir() if p.is_file() and not _kept(p, test_only))
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(
        dist, out / "pyodide", ignore=lambda at, _names: dropped if at == str(dist) else []
    )
    for name in ["pyctx_web.mjs", *wheels]:
        shutil.copy2(dist / name, out / name)
    (out / "index.html").write_text(page, encoding="utf-8")
    return dropped


def main(argv: list[str]) -> int:
    """Command line: DIST_DIR OUT_DIR."""
    if len(argv) != 2:
        print("usage: python tools/offline_page.py DIST_DIR OUT_DIR", file=sys.stderr)
        return 2
    try:
        dropped = offline_page(Path(argv[0]), Path(argv[1]))
    except OfflinePageError as error:
        print(f"offline_page: {error}", file=sys.stderr)
        return 2
    print(f"wrote {argv[1]}/index.html and its files; left out of pyodide/: {', '.join(dropped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
