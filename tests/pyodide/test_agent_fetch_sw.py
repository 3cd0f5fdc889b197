"""A service worker answers a same-origin path (/api/) with the agent server of the page's Web
Worker, so a client that only takes an apiUrl (and uses the page's own fetch) works.

A service worker cannot well host Pyodide itself (the browser stops it when idle, and it may
not use dynamic import); so it holds no server. Its fetch handler sends each /api/ request to
the page that made it (``clients.get(event.clientId)``) with
``createAgentServerFetch(client, { basePath: "/api" })``; the page passes it on to its Worker
with ``forwardAgentFetch(navigator.serviceWorker, worker)``, and the Worker's
``serveAgentServer`` answers on the request's own MessagePort, straight to the service
worker, which streams it into the page's response.

Served here by a small HTTP server on 127.0.0.1 (a secure context, as service workers need):
this folder's page, service worker and worker from :data:`FILES`, ``/pyctx_web.mjs`` from
the checkout (pyctx_web._js.module_source, as demo/serve.py serves it), ``/vendor/`` from
build/vendor and everything else from build/dist. The page uses the SDK bundle's ``Client``
with only ``apiUrl`` set, in Chromium.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyctx_web._js import module_source
from tools import chromium

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "build" / "dist"
VENDOR = ROOT / "build" / "vendor"

SERVICE_WORKER = """\
import { createAgentServerFetch } from "/pyctx_web.mjs";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== location.origin || !url.pathname.startsWith("/api/")) return;
  event.respondWith(
    self.clients.get(event.clientId).then((client) =>
      client
        ? createAgentServerFetch(client, { basePath: "/api" })(event.request)
        : Response.json({ detail: "no page to answer" }, { status: 503 }),
    ),
  );
});
"""

WORKER = """\
const base = new URL("/", location.href).href;
const { loadPyodide } = await import("/pyodide.mjs");
const pyodide = await loadPyodide({ indexURL: base });
await pyodide.loadPackage(["pyctx-web"]);
const module = await import("/pyctx_web.mjs");
pyodide.registerJsModule("pyctx_web_js", module);
await pyodide.runPythonAsync(`
import asyncio
from typing import TypedDict
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.types import interrupt
from pyctx_web.server import AgentServer

class Ask(TypedDict, total=False):
    topic: str
    answer: str

def ask(state):
    return {"answer": interrupt({"question": "why " + state["topic"] + "?"})}

class Tick(TypedDict, total=False):
    ticks: int
    count: int

async def tick(state):
    write = get_stream_writer()
    for i in range(state["ticks"]):
        write({"tick": i})
        await asyncio.sleep(0.02)
    return {"count": state["ticks"]}

def graph(state_type, name, node):
    builder = StateGraph(state_type)
    builder.add_node(name, node)
    builder.add_edge(START, name)
    builder.add_edge(name, END)
    return builder.compile()

server = AgentServer({"ask": graph(Ask, "ask", ask), "tick": graph(Tick, "tick", tick)})
`);
module.serveAgentServer(pyodide, pyodide.globals.get("server"));
postMessage({ type: "ready" });
"""

PAGE = """\
import { forwardAgentFetch } from "/pyctx_web.mjs";

await navigator.serviceWorker.register("/sw.mjs", { type: "module", scope: "/" });
if (!navigator.serviceWorker.controller) {
  await new Promise((resolve) =>
    navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }),
  );
}
const worker = new Worker("/worker.mjs", { type: "module" });
await new Promise((resolve, reject) => {
  worker.onmessage = (event) => event.data.type === "ready" && resolve();
  worker.onerror = (event) => reject(new Error(event.message));
});
forwardAgentFetch(navigator.serviceWorker, worker);
const { Client } = await import("/vendor/langgraph-sdk.mjs");
globalThis.client = new Client({ apiUrl: `${location.origin}/api` });
globalThis.ready = true;
"""

FILES = {
    "/index.html": ('<!doctype html><script type="module" src="/page.mjs"></script>', "text/html"),
    "/page.mjs": (PAGE, "text/javascript"),
    "/sw.mjs": (SERVICE_WORKER, "text/javascript"),
    "/worker.mjs": (WORKER, "text/javascript"),
}
"""The test's own files, by path: text and content type."""


def _handler(files: dict[str, tuple[str, str]]) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(DIST), **kwargs)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path in files:
                text, kind = files[path]
                data = text.encode()
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            else:
                super().do_GET()

        def translate_path(self, path: str) -> str:
            if path.startswith("/vendor/"):
                return str(VENDOR / path.removeprefix("/vendor/").split("?", 1)[0])
            return super().translate_path(path)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    Handler.extensions_map = {**Handler.extensions_map, ".mjs": "text/javascript"}
    return Handler


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    """The origin serving the page, its workers, Pyodide and the SDK bundle, for the module."""
    if not (VENDOR / "langgraph-sdk.mjs").is_file():
        pytest.skip("build/vendor is missing: run ./build.sh setup")
    files = {**FILES, "/pyctx_web.mjs": (module_source(), "text/javascript")}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(files))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def page(origin: str) -> Iterator[Any]:
    """The page, controlled by its service worker, with ``client`` set up, for the module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium.CHROMIUM, args=list(chromium.CHROMIUM_FLAGS)
        )
        try:
            page = browser.new_page()
            page.goto(f"{origin}/index.html")
            page.wait_for_function("globalThis.ready === true", timeout=120_000)
            yield page
        finally:
            browser.close()


def test_client_with_only_an_api_url_runs_a_thread_through_the_service_worker(page: Any) -> None:
    """The SDK Client given only apiUrl (origin + /api) finds the assistants, streams a run
    to its interrupt and resumes it, the requests answered by the service worker."""
    result = page.evaluate(
        """async () => {
        const graphs = (await client.assistants.search()).map((a) => a.graph_id).sort();
        const thread = await client.threads.create();
        const events = [];
        for await (const part of client.runs.stream(thread.thread_id, "ask", {
          input: { topic: "sky" }, streamMode: ["values"] })) events.push(part.event);
        const paused = (await client.threads.get(thread.thread_id)).status;
        let last = null;
        for await (const part of client.runs.stream(thread.thread_id, "ask", {
          command: { resume: "blue" }, streamMode: ["values"] })) last = part.data;
        const controlled = navigator.serviceWorker.controller !== null;
        return { graphs, events, paused, last, controlled };
        }"""
    )
    assert result == {
        "graphs": ["ask", "tick"],
        "events": ["metadata", "values", "values"],
        "paused": "interrupted",
        "last": {"topic": "sky", "answer": "blue"},
        "controlled": True,
    }


def test_aborting_the_page_fetch_cancels_the_run_behind_the_service_worker(page: Any) -> None:
    """Aborting the page's own fetch of a streamed run, after its first custom event, reaches
    the server through the service worker: the run ends as interrupted."""
    result = page.evaluate(
        """async () => {
        const thread = await client.threads.create();
        const controller = new AbortController();
        let runId = null;
        const seen = [];
        for await (const part of client.runs.stream(thread.thread_id, "tick", {
          input: { ticks: 1000 }, streamMode: ["custom"], onDisconnect: "cancel",
          signal: controller.signal })) {
          if (part.event === "metadata") runId = part.data.run_id;
          else { seen.push(part.data); controller.abort(); }
        }
        let run = await client.runs.get(thread.thread_id, runId);
        while (run.status === "pending" || run.status === "running") {
          await new Promise((resolve) => setTimeout(resolve, 20));
          run = await client.runs.get(thread.thread_id, runId);
        }
        return { seen, status: run.status };
        }"""
    )
    assert result == {"seen": [{"tick": 0}], "status": "interrupted"}
