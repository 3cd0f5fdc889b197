"""What a first visit moves: per asset, raw, gzip and brotli bytes, the demo against a bare page.

usage: python tools/asset_bytes.py [DIST_DIR] [--json FILE]

The demo's assets are the requests its page and worker really make: the demo is served by
``demo/serve.py`` from ``DIST_DIR`` (default build/dist, with build/demo-app beside it) and
loaded once in headless Chromium with an empty cache, until no request has come for a few
seconds. A request counts as before ready when its response ended before the page turned
ready, by the browser's clock (what ready waited for), else as after (the worker's loads in
the background). The bare page is what stock ``loadPyodide`` fetches from the npm package
that ``./build.sh setup`` unpacked (``build/cache/pyodide-<version>/package``): its module,
``pyodide.asm.mjs``, the wasm, the stock ``python_stdlib.zip`` and ``pyodide-lock.json``.

gzip is level 9, brotli quality 11 with a 16 MB window: what a static host's precompressed
siblings hold (a file already compressed, such as a zip of deflated members, gains little).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import brotli  # type: ignore[import-untyped]  # the tooling's, not pyctx_web's dependency

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.chromium import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

BARE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
"""What stock ``loadPyodide`` fetches in a browser, with no packages to load."""

QUIET_S = 4.0
"""Seconds without a new request after which the demo's background loads are over."""

READY_TIMEOUT_MS = 180_000

# Injected before the page's scripts: the time (ms since the epoch, as Chromium times each
# request) at which the page turns ready.
READY_CLOCK = """
new MutationObserver((_, observer) => {
  if (document.body?.dataset.state === "ready") {
    window.__readyAt = performance.timeOrigin + performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
"""


@dataclass(frozen=True)
class Asset:
    """One file a visit moves, and when: ``before`` or ``after`` the page is ready."""

    name: str
    phase: str
    raw: int
    gzip: int
    brotli: int


def measure(name: str, phase: str, data: bytes) -> Asset:
    """``data``'s sizes as it is, gzipped and brotli-compressed."""
    return Asset(
        name,
        phase,
        len(data),
        len(gzip.compress(data, 9)),
        len(brotli.compress(data, quality=11, lgwin=24)),
    )


def bare_assets(package: Path) -> list[Asset]:
    """The bare page's files, from the Pyodide npm package folder ``package``."""
    return [measure(name, "before", (package / name).read_bytes()) for name in BARE_FILES]


def demo_bodies(dist: Path) -> list[tuple[str, str, bytes]]:
    """Each request of one cold visit of the demo: its path, its phase and its body."""
    os.environ.setdefault("PYCTX_DEMO_QUIET", "1")
    sys.path.insert(0, str(ROOT / "demo"))
    import serve  # demo/serve.py: the demo's own server, headers and all
    from playwright.sync_api import sync_playwright

    seen: list[Any] = []
    with (
        serve.running(serve.make_server("127.0.0.1", 0, dist)) as origin,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        context = browser.new_context()
        context.add_init_script(READY_CLOCK)
        context.on("requestfinished", lambda request: seen.append(request))
        page = context.new_page()
        page.goto(origin)
        page.wait_for_selector("body[data-state=ready]", state="attached", timeout=READY_TIMEOUT_MS)
        ready = float(page.evaluate("window.__readyAt"))
        count, quiet_since = len(seen), time.monotonic()
        while time.monotonic() - quiet_since < QUIET_S:
            page.wait_for_timeout(250)
            if len(seen) != count:
                count, quiet_since = len(seen), time.monotonic()
        made = []
        for request in seen:
            response = request.response()
            if response is None or request.method != "GET" or response.status >= 400:
                continue
            timing = request.timing
            ended = float(timing["startTime"]) + float(timing["responseEnd"])
            made.append((request.url, "before" if ended <= ready else "after"))
        browser.close()
        # Again, outside the browser, whose inspector keeps no large body.
        bodies = []
        for url, phase in made:
            try:
                with urllib.request.urlopen(url) as response:
                    bodies.append((urlsplit(url).path, phase, response.read()))
            except urllib.error.HTTPError as error:
                raise SystemExit(f"{url} answered {error.code} when fetched again") from error
    return bodies


def demo_assets(dist: Path) -> list[Asset]:
    """The demo's requests of one cold visit, measured."""
    return [measure(path, phase, body) for path, phase, body in demo_bodies(dist)]


def table(title: str, assets: list[Asset]) -> str:
    """``assets`` as a text table with totals: all, and those before ready."""
    mb = 1e6
    lines = [title, f"{'asset':48} {'when':6} {'raw MB':>8} {'gzip MB':>8} {'br MB':>8}"]
    for asset in sorted(assets, key=lambda a: (a.phase != "before", -a.brotli)):
        lines.append(
            f"{asset.name[-48:]:48} {asset.phase:6} {asset.raw / mb:8.3f} "
            f"{asset.gzip / mb:8.3f} {asset.brotli / mb:8.3f}"
        )
    for label, chosen in (
        ("total before ready", [a for a in assets if a.phase == "before"]),
        ("total", assets),
    ):
        lines.append(
            f"{label:55} {sum(a.raw for a in chosen) / mb:8.3f} "
            f"{sum(a.gzip for a in chosen) / mb:8.3f} {sum(a.brotli for a in chosen) / mb:8.3f}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dist", nargs="?", type=Path, default=ROOT / "build" / "dist")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    version = pins["tool"]["pyctx-web"]["dist"]["pyodide"]
    package = ROOT / "build" / "cache" / f"pyodide-{version}" / "package"
    if not package.is_dir():
        parser.error(f"{package} is missing: ./build.sh setup unpacks the Pyodide npm package")
    bare = bare_assets(package)
    demo = demo_assets(args.dist)
    print(table(f"bare page (stock Pyodide {version})", bare))
    print()
    print(table("the demo, first visit", demo))
    if args.json:
        figures = {"bare": [asdict(a) for a in bare], "demo": [asdict(a) for a in demo]}
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
