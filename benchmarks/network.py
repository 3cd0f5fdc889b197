"""The demo's first and second visits over an emulated network, against a stock Pyodide page.

Chromium emulates the link (CDP ``Network.emulateNetworkConditions``, sent to each
page's own session before it navigates); the emulation also applies to the fetches
of the page's dedicated workers, and every run checks that it does: a worker's fetch
of a file of known size must take the link's time for it (the "link check" rows).

Two folders are served, each by its own ``demo/serve.py --root``, precompressed alike
with ``tools/site.py``'s ``precompress``: a copy of the demo's static site
(``build/site``, which ``./build.sh dist`` assembles), and a page whose worker only
runs ``loadPyodide`` and one line of Python, assembled here from the npm package of the
same Pyodide version with the files ``loadPyodide`` fetches (the stock
``python_stdlib.zip``).
Every first visit is a fresh browser with a profile of its own in a new temporary
folder: an empty HTTP cache, kept on disk as a user's is (a browser context without a
profile keeps its HTTP cache in memory, and in this Chromium it did not keep a 20 MB
response from one visit to the next). The two pages take turns at going first; the
demo's second visit is a new page in the browser of its first. A script injected before
each page's own takes ``performance.now()`` when ``body[data-state=ready]`` appears, and
the bytes of a visit are the ``transferSize`` of every Resource Timing entry of the page
and of its workers (a response from the HTTP cache counts 0).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import goals
import startup
from goals import BROADBAND, SLOW_3G, Link
from stats import figure

ROOT = Path(__file__).resolve().parent.parent
SERVE = ROOT / "demo" / "serve.py"
SITE = ROOT / "build" / "site"
OUT = ROOT / "build" / "bench" / "network"

STOCK_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
"""What ``loadPyodide`` fetches from a stock distribution, and all the bare page keeps of it."""

CHECK_SIZE = 512 * 1024
"""The size of the file a worker fetches to check that the emulated link applies to it."""

BARE_PAGE = {
    "index.html": """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>stock Pyodide</title>
  <link rel="icon" href="data:,">
  <script type="module" src="main.js"></script>
</head>
<body data-state="loading"></body>
</html>
""",
    "main.js": """const worker = new Worker("./worker.js", { type: "module" });
worker.onmessage = (event) => {
  if (event.data?.type === "ready") document.body.dataset.state = "ready";
};
worker.onerror = (event) => {
  document.body.dataset.state = "error";
  document.body.textContent = String(event.message);
};
""",
    # A worker that only loads Pyodide, runs one line of Python and posts ready.
    "worker.js": """import { loadPyodide } from "./pyodide/pyodide.mjs";
const base = new URL("./pyodide/", self.location.href).href;
const pyodide = await loadPyodide({ indexURL: base, packageBaseUrl: base });
const version = pyodide.runPython("import sys; sys.version");
postMessage({ type: "ready", version });
""",
    "link-check.html": """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>link check</title>
<link rel="icon" href="data:,"></head><body></body></html>
""",
    "link-check-worker.js": """const start = performance.now();
const response = await fetch("./link-check.bin", { cache: "no-store" });
const size = (await response.arrayBuffer()).byteLength;
const ms = performance.now() - start;
const entry = performance.getEntriesByType("resource").find((e) => e.name.includes("link-check"));
postMessage({ ms, size, transferSize: entry ? entry.transferSize : size });
""",
}
"""The bare page's own files, and the link check's (a page and a worker never in a visit)."""

PROBE = startup.PAGE_PROBE + "\ntry { performance.setResourceTimingBufferSize(5000); } catch {}\n"

READY = "() => window.__bench.readyAt !== null || document.body?.dataset.state === 'error'"

ENTRIES = """() => [
  ...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource"),
].map((e) => ({ name: e.name, transferSize: e.transferSize }))"""

RUN_CHECK = """() => new Promise((resolve, reject) => {
  const worker = new Worker("./link-check-worker.js", { type: "module" });
  worker.onmessage = (event) => { resolve(event.data); worker.terminate(); };
  worker.onerror = (event) => reject(new Error(event.message || "the link check worker failed"));
})"""


def pyodide_version() -> str:
    """The Pyodide version ``./build.sh`` fetches (``[tool.pyctx-web.dist] pyodide``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return str(config["tool"]["pyctx-web"]["dist"]["pyodide"])


def bare_folder(version: str) -> Path:
    """The stock Pyodide page's folder under ``build/bench/network``, assembled when stale."""
    package = ROOT / "build" / "cache" / f"pyodide-{version}" / "package"
    missing = [name for name in STOCK_FILES if not (package / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{package} lacks {', '.join(missing)}: run ./build.sh setup to fetch Pyodide {version}"
        )
    folder = OUT / f"bare-pyodide-{version}"
    stamp = repr((version, BARE_PAGE, CHECK_SIZE, _precompress_source()))
    if (folder / ".stamp").is_file() and (folder / ".stamp").read_text() == stamp:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "pyodide").mkdir(parents=True)
    for name in STOCK_FILES:
        shutil.copyfile(package / name, folder / "pyodide" / name)
    for name, text in BARE_PAGE.items():
        (folder / name).write_text(text)
    (folder / "link-check.bin").write_bytes(random.Random(0).randbytes(CHECK_SIZE))
    precompress(folder)
    (folder / ".stamp").write_text(stamp)
    return folder


def site_copy() -> Path:
    """A copy of the demo's site under ``build/bench/network``, which a rebuild of
    ``build/site`` during the run leaves alone."""
    if not (SITE / "index.html").is_file():
        raise FileNotFoundError(f"{SITE} has no index.html: run ./build.sh dist")
    copy = OUT / "site"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(SITE, copy)
    return copy


def _precompress_source() -> str:
    path = ROOT / "tools" / "site.py"
    return path.read_text() if path.is_file() else ""


def precompress(folder: Path) -> None:
    """Write the .br and .gz siblings of ``folder``'s files, as the demo's site has them."""
    sys.path.insert(0, str(ROOT))
    from tools.site import precompress as write_siblings

    write_siblings(folder)


@contextmanager
def serving(root: Path) -> Iterator[str]:
    """``root`` served by ``demo/serve.py --root`` on a free port; yields its URL.

    The server's stderr goes to ``build/bench/network/<folder>.serve.log``: it prints a
    traceback for every keep-alive connection a closing browser resets.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYCTX_DEMO_QUIET": "1"}
    OUT.mkdir(parents=True, exist_ok=True)
    log = OUT / f"{root.name}.serve.log"
    with log.open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, str(SERVE), "--root", str(root), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"http://[\d.]+:\d+/", line)
        if not found:
            process.terminate()
            process.wait(timeout=30)
            raise RuntimeError(
                f"serve.py --root {root} printed {line!r}, not its URL: {log.read_text()[-600:]}"
            )
        yield found.group(0)
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


@contextmanager
def fresh_context(launcher: Any, launch: dict[str, Any]) -> Iterator[Any]:
    """A browser of its own with a new empty profile (its HTTP cache on disk), and the probe."""
    with tempfile.TemporaryDirectory(prefix="pyctx-bench-profile-") as profile:
        context = launcher.launch_persistent_context(profile, **launch)
        try:
            context.add_init_script(PROBE)
            yield context
        finally:
            context.close()


def throttled_page(context: Any, link: Link | None) -> Any:
    """A new page of ``context`` whose requests, and its workers', go over ``link``."""
    page = context.new_page()
    if link is not None:
        session = context.new_cdp_session(page)
        session.send("Network.enable")
        session.send("Network.emulateNetworkConditions", link.conditions())
    return page


def visit(context: Any, url: str, link: Link | None, timeout_ms: float) -> dict[str, Any]:
    """One visit of ``url`` in ``context``: its ready time (ms), the bytes it moved and
    its largest files; raises when the page failed or was not ready in time."""
    page = throttled_page(context, link)
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else 0)
    try:
        page.goto(url, wait_until="commit", timeout=timeout_ms)
        page.wait_for_function(READY, timeout=timeout_ms, polling=200)
        if page.evaluate("document.body.dataset.state") == "error":
            raise RuntimeError(f"{url} failed to start: {page.inner_text('body')[:300]!r}")
        ready_ms = float(page.evaluate("window.__bench.readyAt"))
        entries = list(page.evaluate(ENTRIES))
        for worker in page.workers:
            entries += worker.evaluate(ENTRIES)
        if failed:
            raise RuntimeError(f"{url}: requests answered with errors: {'; '.join(failed)}")
        return {
            "ready_ms": ready_ms,
            "bytes": goals.transferred(entries),
            "largest": goals.largest(entries),
        }
    finally:
        page.close()


def one_round(
    launcher: Any, launch: dict[str, Any], urls: dict[str, str], link: Link, index: int
) -> dict[str, dict[str, Any]]:
    """Round ``index`` on ``link``: the demo and the bare page in fresh browsers, in rotated
    order; on :data:`goals.BROADBAND`, the demo again right after its first visit."""
    timeout = 60_000 + link.fetch_ms(100_000_000)
    visits: dict[str, dict[str, Any]] = {}
    for kind in goals.rotation(["demo", "bare"], index):
        with fresh_context(launcher, launch) as context:
            visits[kind] = visit(context, urls[kind], link, timeout)
            if kind == "demo" and link == BROADBAND:
                visits["second"] = visit(context, urls[kind], link, timeout)
    return visits


def link_check(
    launcher: Any, launch: dict[str, Any], url: str, link: Link, runtime: str
) -> dict[str, Any]:
    """A row: a dedicated worker's fetch of a file of known size on ``link``, against the
    time the link gives it; met when the link applied to the worker's fetch."""
    with fresh_context(launcher, launch) as context:
        page = throttled_page(context, link)
        page.goto(f"{url}link-check.html")
        out = page.evaluate(RUN_CHECK)
    size = int(out["transferSize"]) or int(out["size"])
    share = goals.link_share(link, float(out["ms"]), size)
    return figure(
        f"emulated link {link.label}: a dedicated worker's fetch of {size / 1024:.0f} KB",
        runtime,
        float(out["ms"]),
        "ms",
        baseline="one round trip plus the bytes over the bandwidth",
        baseline_value=link.fetch_ms(size),
        ratio=share,
        goal=f">= {goals.THROTTLED:g}x (the link applies to workers)",
        met=share >= goals.THROTTLED,
        note="CDP Network.emulateNetworkConditions on the page's session, nothing on the worker's",
    )


def run(quick: bool, launch: dict[str, Any]) -> list[dict[str, Any]]:
    """The link checks, then the rounds on each link (fewer with ``quick``), as rows."""
    from playwright.sync_api import sync_playwright

    site = site_copy()
    bare = bare_folder(pyodide_version())
    rounds = {BROADBAND: 2 if quick else 5, SLOW_3G: 1 if quick else 3}
    with ExitStack() as stack:
        urls = {"demo": stack.enter_context(serving(site))}
        urls["bare"] = stack.enter_context(serving(bare))
        launcher = stack.enter_context(sync_playwright()).chromium
        for url in urls.values():  # the first pages of each server are not counted
            with fresh_context(launcher, launch) as context:
                visit(context, url, None, 120_000)
                runtime = f"pyodide-chromium {context.browser.version}"
        checks = {
            link: link_check(launcher, launch, urls["bare"], link, runtime) for link in rounds
        }
        figures = list(checks.values())
        for link, count in rounds.items():
            got = link_rows((launcher, launch), urls, link, runtime, count, quick)
            if not checks[link]["met"]:
                share = checks[link]["ratio"]
                goals.unjudged(got, f"a worker's fetch took {share:.2f}x the link's time for it")
            figures += got
    return [{"runtime": runtime, "clock_resolution": None, "figures": figures}]


def link_rows(
    launching: tuple[Any, dict[str, Any]],
    urls: dict[str, str],
    link: Link,
    runtime: str,
    count: int,
    quick: bool,
) -> list[dict[str, Any]]:
    """``count`` rounds on ``link`` and their rows; the second visit on the goal's link only."""
    visits: dict[str, list[dict[str, Any]]] = {"demo": [], "bare": [], "second": []}
    for index in range(count):
        got = one_round(*launching, urls, link, index)
        for kind, result in got.items():
            visits[kind].append(result)
        times = ", ".join(f"{kind} {result['ready_ms']:.0f} ms" for kind, result in got.items())
        print(f"bench: {link.label}, round {index + 1}/{count}: {times}", file=sys.stderr)
    note = (
        f"{goals.rounds_note(count, quick)}; each page served by its own serve.py --root "
        "from .br/.gz siblings"
    )
    rows = goals.network_rows(
        runtime, visits, link, limit=1.0 if link == BROADBAND else None, note=note
    )
    demo, bare = visits["demo"][-1]["largest"], visits["bare"][-1]["largest"]
    rows[0]["note"] += (
        "; largest in the last round: demo " + _files(demo) + ", bare " + _files(bare)
    )
    rows[0]["transfers"] = {kind: [one["bytes"] for one in those] for kind, those in visits.items()}
    rows[0]["largest"] = {"demo": demo, "bare": bare}
    return rows


def _files(largest: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name} {goals.megabytes(size)}" for name, size in largest[:4])
