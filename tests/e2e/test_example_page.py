"""The README's example page (examples/page), served as a developer would serve it.

The page, ``pyctx_web.mjs`` and the wheels come from a local HTTP server (the page's
folder, then ``build/dist``); the page's Pyodide URL on jsDelivr is answered from
``build/dist`` by Playwright's routing, so no request leaves the machine. The offline
variant is what ``./build.sh page DIR`` writes, served as a plain static folder.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import pyctx_web

from .conftest import DIST, ROOT

sys.path.insert(0, str(ROOT / "demo"))
import serve  # demo/serve.py, for running(): the example's own site, on a thread

PAGE_DIR = ROOT / "examples" / "page"
PYODIDE = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyctx-web"]["dist"][
    "pyodide"
]
CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE}/full/"
WHEEL = f"pyctx_web-{pyctx_web.__version__}-py3-none-any.whl"
TIMEOUT_MS = 90_000
TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".json": "application/json",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The page's folder first, then build/dist, as one static site."""

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        return TYPES.get(Path(path).suffix) or super().guess_type(path)

    def translate_path(self, path: str) -> str:
        name = urlsplit(path).path.lstrip("/") or "index.html"
        for folder in (PAGE_DIR, DIST):
            candidate = (folder / name).resolve()
            if candidate.parent == folder.resolve() and candidate.is_file():
                return str(candidate)
        return str(PAGE_DIR / "__missing__")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    """The page's site on a free port of 127.0.0.1."""
    if not (DIST / "pyctx_web.mjs").is_file():
        pytest.fail("build/dist is missing pyctx_web.mjs: run ./build.sh setup first")
    with serve.running(http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)) as url:
        yield url


@dataclass
class Visit:
    """A page of the example site, and what it did."""

    page: Any
    console: list[str] = field(default_factory=list)
    """Every console error or warning, and every uncaught error, as ``type: text``."""
    requests: list[str] = field(default_factory=list)
    """Every URL the page requested."""
    foreign: list[str] = field(default_factory=list)
    """Requests to neither 127.0.0.1 nor the page's Pyodide URL; each was aborted."""


def _from_dist(route: Any) -> None:
    name = route.request.url.removeprefix(CDN).split("?", 1)[0]
    path = DIST / name
    if "/" in name or not path.is_file():
        route.fulfill(status=404, body="not found", headers={"Access-Control-Allow-Origin": "*"})
        return
    route.fulfill(
        path=str(path),
        headers={
            "Content-Type": TYPES.get(path.suffix, "application/octet-stream"),
            "Access-Control-Allow-Origin": "*",
        },
    )


@pytest.fixture
def visit(browser: Any) -> Iterator[Visit]:
    """A fresh page whose jsDelivr requests are answered from build/dist."""
    context = browser.new_context()
    page = context.new_page()
    seen = Visit(page)

    def route(route: Any) -> None:
        url = route.request.url
        seen.requests.append(url)
        if url.startswith(CDN):
            _from_dist(route)
        elif urlsplit(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            seen.foreign.append(url)
            route.abort()

    context.route("**/*", route)

    def console(message: Any) -> None:
        if message.type in {"error", "warning"}:
            seen.console.append(f"{message.type}: {message.text}")

    page.on("console", console)
    page.on("pageerror", lambda error: seen.console.append(f"uncaught: {error}"))
    try:
        yield seen
    finally:
        context.close()


def assert_graph_asked_and_resumed(visit: Visit) -> None:
    """The visited page showed the graph's question and its resumption, with a clean console
    and no request to another origin."""
    output = visit.page.locator("#output")
    output.filter(has_text="It resumed with").wait_for(timeout=TIMEOUT_MS)
    assert output.inner_text().splitlines() == [
        "The graph asked: What should I do with 'help me with email'?",
        "It resumed with: send the daily report",
    ]
    assert visit.console == []
    assert visit.foreign == []


@pytest.mark.parametrize("query", ["", "?micropip"], ids=["loader", "micropip"])
def test_example_page_runs_a_graph_that_asks(visit: Visit, site_url: str, query: str) -> None:
    """The page installs pyctx_web (loader or micropip), runs a graph that interrupts and resumes,
    and shows both, with a clean console."""
    page = visit.page
    page.goto(site_url + query)
    assert_graph_asked_and_resumed(visit)
    wheels = [url.rsplit("/", 1)[-1] for url in visit.requests if url.endswith(".whl")]
    if query:
        assert sorted(wheels) == [
            "micropip-0.11.1-py3-none-any.whl",
            "pyctx_web-0.1.0-py3-none-any.whl",
        ]
    else:
        assert wheels == ["pyctx_web-0.1.0-py3-none-any.whl"]


LOADER_ERRORS = """async () => {
  const { loadPyodide } = await import("%(cdn)spyodide.mjs");
  const { loadPyctxWeb, resumePyctxWeb } = await import("./pyctx_web.mjs");
  const pyodide = await loadPyodide();
  const failure = (promise) => promise.then(() => "resolved", (error) => error.message);
  return {
    notRestored: await failure(resumePyctxWeb(pyodide)),
    missing: await failure(loadPyctxWeb(pyodide, { wheelURL: "./no-such.whl" })),
    notWheel: await failure(loadPyctxWeb(pyodide, { wheelURL: "./pyodide-lock.json" })),
    noURL: await failure(loadPyctxWeb(pyodide, {})),
    notPyodide: await failure(loadPyctxWeb({}, { wheelURL: "./x.whl" })),
    outside: await failure(loadPyctxWeb(pyodide, { wheelURL: "./outside.whl" })),
    prefetched: await loadPyctxWeb(pyodide, {
      wheelURL: "%(wheel)s",
      wheel: fetch("%(wheel)s").then((r) => r.arrayBuffer()),
    }),
    registered: pyodide.runPython("import pyctx_web_js; sorted(dir(pyctx_web_js))").toJs(),
  };
}"""


def test_loader_names_the_url_and_the_problem(visit: Visit, site_url: str) -> None:
    """A missing wheel, a file that is no wheel, a wheel naming a file outside site-packages,
    wrong arguments and resuming a Pyodide that never imported pyctx_web reject with what went
    wrong; a prefetched ArrayBuffer installs and registers pyctx_web_js."""
    page = visit.page
    outside = io.BytesIO()
    with zipfile.ZipFile(outside, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("../escape.py", "x = 1\n")
    page.route("**/outside.whl", lambda route: route.fulfill(body=outside.getvalue()))
    page.goto(site_url)
    page.locator("#output").filter(has_text="It resumed with").wait_for(timeout=TIMEOUT_MS)
    result = page.evaluate(LOADER_ERRORS % {"cdn": CDN, "wheel": WHEEL})
    assert result["missing"] == (
        f"loadPyctxWeb: could not fetch the pyctx_web wheel {site_url}no-such.whl: "
        "HTTP 404 File not found"
    )
    assert result["notWheel"] == (
        f"loadPyctxWeb: {site_url}pyodide-lock.json is not a wheel (not a zip archive)"
    )
    assert (
        result["noURL"]
        == "loadPyctxWeb: options.wheelURL must be the wheel's URL (a string or a URL)"
    )
    assert result["notPyodide"] == (
        "loadPyctxWeb: the first argument must be the Pyodide that loadPyodide() resolved with"
    )
    assert result["outside"] == (
        f"loadPyctxWeb: {site_url}outside.whl did not install pyctx_web: "
        'the wheel\'s entry "../escape.py" names a file outside its folder'
    )
    assert result["notRestored"] == (
        "resumePyctxWeb: this Pyodide has not imported pyctx_web; use loadPyctxWeb"
    )
    assert result["prefetched"] == pyctx_web.__version__
    assert {"indexeddb", "jsbridge", "loadPyctxWeb", "tabs"} <= set(result["registered"])
    assert visit.foreign == []


def test_page_says_when_pyodide_is_out_of_reach(visit: Visit, site_url: str) -> None:
    """With jsDelivr unreachable the page shows why it stopped, not "Loading Python…" forever."""
    page = visit.page
    page.route(f"{CDN}**", lambda route: route.abort("internetdisconnected"))
    page.goto(site_url)
    output = page.locator("#output")
    output.filter(has_text="The example stopped").wait_for(timeout=TIMEOUT_MS)
    assert output.inner_text() == (
        f"The example stopped: Failed to fetch dynamically imported module: {CDN}pyodide.mjs"
    )
    assert any(f"{CDN}pyodide.mjs" in line for line in visit.console if line.startswith("error:"))


def test_page_says_when_the_wheel_is_out_of_reach(visit: Visit, site_url: str) -> None:
    """A wheel the server does not have stops the page with the loader's error, shown in it."""
    page = visit.page
    page.route(f"**/{WHEEL}", lambda route: route.fulfill(status=404, body="not found"))
    page.goto(site_url)
    output = page.locator("#output")
    output.filter(has_text="The example stopped").wait_for(timeout=TIMEOUT_MS)
    assert output.inner_text() == (
        "The example stopped: loadPyctxWeb: could not fetch the pyctx_web wheel "
        f"{site_url}{WHEEL}: HTTP 404 Not Found"
    )


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """A static file handler that writes no line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        """Drop the request's log line."""


@pytest.fixture(scope="module")
def offline_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The folder ``./build.sh page DIR`` writes, served by a plain static server, and its URL."""
    folder = tmp_path_factory.mktemp("offline") / "site"
    subprocess.run([str(ROOT / "build.sh"), "page", str(folder)], check=True, timeout=600)
    handler = functools.partial(QuietHandler, directory=str(folder))
    with serve.running(http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)) as url:
        yield folder, url


def test_offline_page_loads_everything_from_its_folder(
    visit: Visit, offline_site: tuple[Path, str]
) -> None:
    """The page ./build.sh page writes runs the graph with Pyodide from its own copy, jsDelivr
    unreachable, and that copy has no wheel only the tests use."""
    folder, url = offline_site
    page = visit.page
    page.route(f"{CDN}**", lambda route: route.abort("internetdisconnected"))
    page.goto(url)
    assert_graph_asked_and_resumed(visit)
    assert all(request.startswith(url) for request in visit.requests)
    assert f"{url}pyodide/pyodide.asm.wasm" in visit.requests
    assert sorted(path.name for path in (folder / "pyodide").glob("*.whl")) == [
        "micropip-0.11.1-py3-none-any.whl",
        "packaging-26.1-py3-none-any.whl",
        f"pyctx_web-{pyctx_web.__version__}-cp314-cp314-emscripten_5_0_3_wasm32.whl",
        WHEEL,
    ]
