"""pyctx_web.server in Pyodide behind createAgentServerFetch gives the server tier's every flow
exactly as on CPython.

A Node program (:data:`RELAY`) starts Pyodide from build/dist with the wheel, loads the server
tier's graphs (tests/server/graphs) into an ``AgentServer`` there, and puts
``createAgentServerFetch(serveAgentServer(pyodide, server))`` behind a port of 127.0.0.1: each
HTTP request becomes a call of that fetch, its Response is written back as it streams, and a
client that goes away aborts the call. The flows of tests/server then run over real HTTP
against it and against the same graphs served by ``asgi_app`` on CPython
(tests/server/pyctx_side.py); their normalized transcripts must be equal. So this checks the
whole server in Pyodide (its asyncio, its JSON, its clock) and the fetch's streaming and
disconnects on every flow at once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server import pyctx_side
from tests.server.compare import SERVER_ONLY
from tests.server.flows import FLOWS, run_flow
from tests.server.transcript import render

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "build" / "dist"

RELAY = """
import http from "node:http";
import { pathToFileURL } from "node:url";
const [dist, graphs, loader] = process.argv.slice(1);
const { loadPyodide } = await import(pathToFileURL(`${dist}/pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: `${dist}/` });
await pyodide.loadPackage(["pyctx-web", "langchain-core"], { messageCallback: () => {} });
const module = await import(pathToFileURL(`${dist}/pyctx_web.mjs`).href);
pyodide.registerJsModule("pyctx_web_js", module);
pyodide.FS.mkdirTree("/graphs");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: graphs }, "/graphs");
await pyodide.runPythonAsync(loader);
const server = pyodide.globals.get("server");
const fetch = module.createAgentServerFetch(module.serveAgentServer(pyodide, server));
const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding"]);
const relay = http.createServer(async (request, response) => {
  const left = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) left.abort();
  });
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const headers = Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name));
  const bodyless = request.method === "GET" || request.method === "HEAD";
  try {
    const answer = await fetch(`http://relay${request.url}`, {
      method: request.method,
      headers,
      body: bodyless ? null : Buffer.concat(chunks),
      signal: left.signal,
    });
    response.writeHead(answer.status, [...answer.headers].flat());
    if (answer.body) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  } catch (error) {
    if (!left.signal.aborted) console.error(`${request.method} ${request.url}: ${error}`);
    if (!response.headersSent) response.writeHead(502);
    response.end();
  }
});
relay.listen(0, "127.0.0.1", () => console.log(JSON.stringify(relay.address())));
"""
"""The Node program: argv dist folder, graphs folder, :data:`LOADER`; prints its address."""

LOADER = """
import importlib.util, json, sys
from pyctx_web.graph import install_as_langgraph
from pyctx_web.server import AgentServer

install_as_langgraph()
graphs = {}
for graph_id, spec in json.load(open("/graphs/langgraph.json"))["graphs"].items():
    file, _, attribute = spec.partition(":")
    found = importlib.util.spec_from_file_location(f"server_graph_{graph_id}", f"/graphs/{file}")
    module = importlib.util.module_from_spec(found)
    sys.modules[found.name] = module
    found.loader.exec_module(module)
    graphs[graph_id] = getattr(module, attribute)
server = AgentServer(graphs)
"""
"""The graphs of ``langgraph.json`` imported as tests/server/pyctx_side.py imports them."""


@pytest.fixture(scope="module")
def relay() -> Iterator[str]:
    """The base URL of the Node relay to the server in Pyodide, for the module."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    if not (DIST / "pyctx_web.mjs").is_file():
        pytest.skip("build/dist is missing: run ./build.sh setup")
    command = [node, "--input-type=module", "-e", RELAY, str(DIST), str(pyctx_side.GRAPHS), LOADER]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"the relay exited with {process.wait()} before listening")
            yield f"http://127.0.0.1:{json.loads(line)['port']}"
        finally:
            process.terminate()


@pytest.fixture(scope="module")
def cpython() -> Iterator[str]:
    """The base URL of the same graphs served by asgi_app on CPython, for the module."""
    with pyctx_side.serve() as base_url:
        yield base_url


@pytest.mark.parametrize("flow", list(FLOWS))
def test_flow_in_pyodide_is_the_flow_on_cpython(relay: str, cpython: str, flow: str) -> None:
    """The flow's normalized transcript through the fetch in Pyodide is CPython's, exactly."""
    expected = render(run_flow(cpython, flow), cpython, SERVER_ONLY)
    assert render(run_flow(relay, flow), relay, SERVER_ONLY) == expected
