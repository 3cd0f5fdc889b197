"""createAgentServerFetch with LangGraph's own SDK Client, against a real pyctx_web.server.

In Chromium the server runs in a module Web Worker (its own Pyodide, ``serveAgentServer`` on
the worker's scope) and the page uses the SDK bundle ``./build.sh setup`` makes
(build/vendor/langgraph-sdk.mjs). In Node the server runs in the test's own Pyodide, in the
same thread, and the client is the npm package from node_modules. Either way the client is
``new Client({ apiUrl, callerOptions: { fetch } })`` with the fetch of
``createAgentServerFetch``, imported from build/dist/pyctx_web.mjs as pages import it.

pytest-pyodide's Node driver joins the lines of a script without line breaks: the scripts
here end their statements with semicolons and hold no ``//`` comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDK_BUNDLE = ROOT / "build" / "vendor" / "langgraph-sdk.mjs"
SDK_PACKAGE = ROOT / "node_modules" / "@langchain" / "langgraph-sdk" / "dist" / "index.js"

GRAPHS = """
import asyncio
from typing import TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.types import interrupt
from pyctx_web.server import AgentServer, Response
from pyctx_web.server.app import Route


class Ask(TypedDict, total=False):
    topic: str
    answer: str


def ask(state):
    return {"answer": interrupt({"question": f"why {state['topic']}?"})}


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


async def echo(server, request, name):
    body = request.body.decode()
    return Response(200, {"content-type": "application/json"}, __import__("json").dumps(
        {"method": request.method, "path": request.path, "query": request.query,
         "headers": dict(request.headers), "body": body}).encode())


async def broken(server, request):
    async def body():
        yield b"first"
        yield bytes([255, 0])
        raise RuntimeError("the body broke")
    return Response(200, {"content-type": "text/plain"}, body())


server = AgentServer({"ask": graph(Ask, "ask", ask), "tick": graph(Tick, "tick", tick)})
server.routes[:0] = [Route("POST", "/test/echo/{name}", echo), Route("GET", "/test/broken", broken)]
"""
"""The server's graphs, and two routes the tests add: one echoing the request, one whose
streamed body raises after a UTF-8 chunk and one that is not."""

WORKER = """
const base = %(base)s;
try {
  const { loadPyodide } = await import(base + "pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: base });
  await pyodide.loadPackage(["pyctx-web"]);
  const module = await import(base + "pyctx_web.mjs");
  pyodide.registerJsModule("pyctx_web_js", module);
  await pyodide.runPythonAsync(%(graphs)s);
  module.serveAgentServer(pyodide, pyodide.globals.get("server"));
  postMessage({ type: "ready" });
} catch (error) {
  postMessage({ type: "fatal", message: String(error && error.stack || error) });
}
"""
"""The Chromium worker: Pyodide and pyctx_web from the test server, the graphs, serveAgentServer."""

SETUP_CHROME = """
const base = new URL(".", location.href).href;
const blob = (text) => URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
const worker = new Worker(blob(%(worker)s.replace("%%(base)s", JSON.stringify(base))),
  { type: "module" });
await new Promise((resolve, reject) => {
  worker.onmessage = (event) => event.data.type === "ready"
    ? resolve() : reject(new Error(event.data.message));
  worker.onerror = (event) => reject(new Error(event.message));
});
worker.onmessage = null;
const { Client } = await import(blob(%(sdk)s));
const module = await import(base + "pyctx_web.mjs");
const fetch = module.createAgentServerFetch(worker);
globalThis.agentFetch = {
  fetch, module, target: worker,
  client: new Client({ apiUrl: "http://localhost:8123", callerOptions: { fetch } }) };
"""

SETUP_NODE = """
const module = await import(`file://${process.cwd()}/pyctx_web.mjs`);
pyodide.registerJsModule("pyctx_web_js", module);
await pyodide.runPythonAsync(%(graphs)s);
const host = module.serveAgentServer(pyodide, pyodide.globals.get("server"));
const { Client } = await import(%(sdk)s);
const fetch = module.createAgentServerFetch(host);
globalThis.agentFetch = {
  fetch, module, target: host,
  client: new Client({ apiUrl: "https://api.example", callerOptions: { fetch } }) };
"""


@pytest.fixture(scope="module")
def agent(pyctx_module: Any) -> Any:
    """The runtime's page or Node with ``globalThis.agentFetch`` set up: ``fetch`` and the
    SDK ``client`` over it, the ``module`` they come from and the fetch's ``target``."""
    if pyctx_module.browser == "node":
        code = SETUP_NODE % {
            "graphs": json.dumps(GRAPHS),
            "sdk": json.dumps(SDK_PACKAGE.as_uri()),
        }
    else:
        code = SETUP_CHROME % {
            "worker": json.dumps(WORKER % {"base": "%(base)s", "graphs": json.dumps(GRAPHS)}),
            "sdk": json.dumps(SDK_BUNDLE.read_text(encoding="utf-8")),
        }
    pyctx_module.run_js(code)
    return pyctx_module


def run(agent: Any, code: str) -> Any:
    """``code`` run with ``client`` and ``fetch`` in scope; what it returns, through JSON."""
    return agent.run_js("const { client, fetch, module, target } = globalThis.agentFetch;\n" + code)


def test_sdk_client_runs_a_thread_to_an_interrupt_and_resumes_it(agent: Any) -> None:
    """The SDK Client finds the assistants, creates a thread, streams a run to its interrupt,
    resumes it with a command and reads the thread's history, all through the fetch."""
    result = run(
        agent,
        """
        const graphs = (await client.assistants.search()).map((a) => a.graph_id).sort();
        const thread = await client.threads.create({ metadata: { owner: "test" } });
        const first = [];
        for await (const part of client.runs.stream(thread.thread_id, "ask", {
          input: { topic: "sky" }, streamMode: ["values", "updates"] })) {
          first.push([part.event, part.event === "metadata" ? null : part.data]);
        }
        const paused = await client.threads.get(thread.thread_id);
        const second = [];
        for await (const part of client.runs.stream(thread.thread_id, "ask", {
          command: { resume: "blue" }, streamMode: ["values"] })) {
          second.push([part.event, part.event === "metadata" ? null : part.data]);
        }
        const history = await client.threads.getHistory(thread.thread_id);
        const ended = await client.threads.get(thread.thread_id);
        return {
          graphs, metadata: thread.metadata, first, paused: paused.status,
          question: Object.values(paused.interrupts)[0][0].value, second,
          history: history.map((state) => state.values), ended: ended.status };
        """,
    )
    interrupt = result["first"][2][1]["__interrupt__"][0]
    assert result == {
        "graphs": ["ask", "tick"],
        "metadata": {"owner": "test"},
        "first": [
            ["metadata", None],
            ["values", {"topic": "sky"}],
            ["updates", {"__interrupt__": [interrupt]}],
            ["values", {"topic": "sky", "__interrupt__": [interrupt]}],
        ],
        "paused": "interrupted",
        "question": {"question": "why sky?"},
        "second": [
            ["metadata", None],
            ["values", {"topic": "sky"}],
            ["values", {"topic": "sky", "answer": "blue"}],
        ],
        "history": [{"topic": "sky", "answer": "blue"}, {"topic": "sky"}, {}],
        "ended": "idle",
    }
    assert interrupt["value"] == {"question": "why sky?"}


WAIT_FOR_RUN = """
const settled = async (threadId, runId) => {
  let run = await client.runs.get(threadId, runId);
  while (run.status === "pending" || run.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, 20));
    run = await client.runs.get(threadId, runId);
  }
  return run.status;
};
"""
"""``settled(threadId, runId)``: the run's status once it is neither pending nor running."""


def test_sdk_stream_aborted_mid_run_cancels_the_run(agent: Any) -> None:
    """Aborting the SDK's stream (on_disconnect cancel) after its first custom event ends the
    stream, and the server, seeing its client leave, ends the run as interrupted."""
    result = run(
        agent,
        WAIT_FOR_RUN
        + """
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
        return { seen, status: await settled(thread.thread_id, runId) };
        """,
    )
    assert result == {"seen": [{"tick": 0}], "status": "interrupted"}


def test_fetch_aborted_mid_body_errors_it_and_cancels_the_run(agent: Any) -> None:
    """Aborting a streamed run's fetch after its first chunk makes the next read reject with
    the AbortError, and the run ends as interrupted, as when an HTTP client leaves."""
    result = run(
        agent,
        WAIT_FOR_RUN
        + """
        const thread = await client.threads.create();
        const controller = new AbortController();
        const response = await fetch(`http://localhost/threads/${thread.thread_id}/runs/stream`, {
          method: "POST", headers: { "content-type": "application/json" },
          signal: controller.signal, body: JSON.stringify({
            assistant_id: "tick", input: { ticks: 1000 }, stream_mode: ["custom"],
            on_disconnect: "cancel" }) });
        const runId = response.headers.get("content-location").split("/").pop();
        const reader = response.body.getReader();
        const first = new TextDecoder().decode((await reader.read()).value);
        controller.abort();
        let error = null;
        try {
          await reader.read();
        } catch (caught) {
          error = caught.name;
        }
        const status = await settled(thread.thread_id, runId);
        return { first: first.split(/\\r?\\n/)[0], error, status };
        """,
    )
    assert result == {"first": "event: metadata", "error": "AbortError", "status": "interrupted"}


def test_two_streams_on_two_threads_at_once(agent: Any) -> None:
    """Two runs streamed at the same time, on two threads, each get all their own events."""
    result = run(
        agent,
        """
        const stream = async (ticks) => {
          const thread = await client.threads.create();
          const events = [];
          for await (const part of client.runs.stream(thread.thread_id, "tick", {
            input: { ticks }, streamMode: ["custom", "values"] })) {
            if (part.event !== "metadata") events.push([part.event, part.data]);
          }
          return { events, status: (await client.threads.get(thread.thread_id)).status };
        };
        return await Promise.all([stream(3), stream(5)]);
        """,
    )

    def expected(ticks: int) -> dict[str, Any]:
        custom = [["custom", {"tick": i}] for i in range(ticks)]
        final = ["values", {"ticks": ticks, "count": ticks}]
        return {"events": [["values", {"ticks": ticks}], *custom, final], "status": "idle"}

    assert result == [expected(3), expected(5)]


def test_method_path_query_headers_and_body_reach_the_server(agent: Any) -> None:
    """Whatever the URL's origin, the server gets its path (decoded) and query, the method,
    the headers and the body; the response's status, headers and body come back."""
    result = run(
        agent,
        """
        const response = await fetch("https://elsewhere.example:9/test/echo/a%20b?x=1&x=2&y=", {
          method: "POST", headers: { "X-Trace": "t1", "Content-Type": "text/plain" },
          body: "caf\\u00e9" });
        return {
          status: response.status, type: response.headers.get("content-type"),
          url: response.url, echo: await response.json() };
        """,
    )
    echo = result.pop("echo")
    assert result == {
        "status": 200,
        "type": "application/json",
        "url": "https://elsewhere.example:9/test/echo/a%20b?x=1&x=2&y=",
    }
    assert echo["headers"]["x-trace"] == "t1"
    assert echo["headers"]["content-type"] == "text/plain"
    del echo["headers"]
    assert echo == {
        "method": "POST",
        "path": "/test/echo/a b",
        "query": {"x": ["1", "2"], "y": [""]},
        "body": "caf\u00e9",
    }


def test_server_errors_are_http_responses(agent: Any) -> None:
    """An unknown path and an unknown thread are the server's 404 responses, as over HTTP."""
    result = run(
        agent,
        """
        const missing = await fetch("http://localhost/nowhere");
        const thread = await fetch(
          "http://localhost/threads/00000000-0000-0000-0000-000000000000");
        const detail = (await thread.json()).detail;
        return [[missing.status, await missing.json()], [thread.status, typeof detail]];
        """,
    )
    assert result == [[404, {"detail": "Not Found"}], [404, "string"]]


def test_a_body_that_fails_errors_the_stream(agent: Any) -> None:
    """A streamed body's parts arrive byte for byte (UTF-8 or not); one that raises then
    errors the response's body with a TypeError naming the failure, as a broken connection
    does to fetch."""
    result = run(
        agent,
        """
        const response = await fetch("http://localhost/test/broken");
        const reader = response.body.getReader();
        const parts = [[...(await reader.read()).value], [...(await reader.read()).value]];
        try {
          await reader.read();
          return { status: response.status, parts, error: null };
        } catch (error) {
          return { status: response.status, parts, error: [error.name, error.message] };
        }
        """,
    )
    assert result == {
        "status": 200,
        "parts": [list(b"first"), [255, 0]],
        "error": ["TypeError", "the agent server failed: RuntimeError: the body broke"],
    }


def test_an_aborted_signal_rejects_before_sending(agent: Any) -> None:
    """A signal aborted before the call rejects with its reason, as fetch does."""
    result = run(
        agent,
        """
        const controller = new AbortController();
        controller.abort();
        try {
          await fetch("http://localhost/ok", { signal: controller.signal });
          return null;
        } catch (error) {
          return error.name;
        }
        """,
    )
    assert result == "AbortError"


def test_a_base_path_is_left_out_of_the_path_the_server_routes(agent: Any) -> None:
    """With basePath "/api/", "/api/ok" reaches the server as "/ok"; a URL outside it is
    refused with a TypeError naming it, and a basePath not starting with "/" too."""
    result = run(
        agent,
        """
        const message = async (call) => {
          try {
            await call();
            return null;
          } catch (error) {
            return `${error.name}: ${error.message}`;
          }
        };
        const under = module.createAgentServerFetch(target, { basePath: "/api/" });
        const ok = await under("http://localhost/api/ok");
        return {
          ok: ok.status,
          outside: await message(() => under("http://a/apiary/ok")),
          relative: await message(() => module.createAgentServerFetch(target, { basePath: "api" })),
        };
        """,
    )
    assert result == {
        "ok": 200,
        "outside": "TypeError: createAgentServerFetch: http://a/apiary/ok is not under /api",
        "relative": 'TypeError: createAgentServerFetch: basePath must start with "/", not "api"',
    }


def test_targets_and_servers_of_the_wrong_kind_are_refused(agent: Any) -> None:
    """createAgentServerFetch refuses a target with no postMessage, and serveAgentServer a
    server that is not an AgentServer, each with a TypeError saying what it needs."""
    result = run(
        agent,
        """
        const message = (call) => {
          try {
            call();
            return null;
          } catch (error) {
            return `${error.name}: ${error.message}`;
          }
        };
        return [
          message(() => module.createAgentServerFetch({})),
          message(() => module.serveAgentServer(pyodide, {})),
          message(() => module.serveAgentServer({}, {})),
        ];
        """,
    )
    assert result == [
        "TypeError: createAgentServerFetch: the target must be a Worker or MessagePort whose "
        "other side called serveAgentServer, or what serveAgentServer returned",
        "TypeError: serveAgentServer: the server must be a PyProxy of an AgentServer",
        "TypeError: serveAgentServer: the first argument must be the Pyodide that loadPyodide() "
        "resolved with",
    ]


def test_closing_the_fetch_fails_its_pending_requests_and_refuses_new_ones(agent: Any) -> None:
    """Aborting the fetch's lifetime signal (its worker died, say) errors a streaming body with
    a TypeError whose cause is the reason, refuses later calls alike, and the server sees the
    client leave: the run ends interrupted."""
    result = run(
        agent,
        WAIT_FOR_RUN
        + """
        const lifetime = new AbortController();
        const closable = module.createAgentServerFetch(target, { signal: lifetime.signal });
        const thread = await client.threads.create();
        const response = await closable(`http://x/threads/${thread.thread_id}/runs/stream`, {
          method: "POST", body: JSON.stringify({
            assistant_id: "tick", input: { ticks: 1000 }, stream_mode: ["custom"],
            on_disconnect: "cancel" }) });
        const runId = response.headers.get("content-location").split("/").pop();
        const reader = response.body.getReader();
        await reader.read();
        lifetime.abort("the worker is gone");
        const failure = (error) => [error.name, error.message, error.cause];
        const pending = await reader.read().then(() => null, failure);
        const later = await closable("http://x/ok").then(() => null, failure);
        return { pending, later, status: await settled(thread.thread_id, runId) };
        """,
    )
    closed = ["TypeError", "createAgentServerFetch: this fetch was closed", "the worker is gone"]
    assert result == {"pending": closed, "later": closed, "status": "interrupted"}


EXERCISE = """
const exercise = async (rounds) => {
  for (let i = 0; i < rounds; i++) {
    await (await fetch("http://x/ok")).json();
    const thread = await client.threads.create();
    for await (const part of client.runs.stream(thread.thread_id, "tick", {
      input: { ticks: 2 }, streamMode: ["custom"] })) part.event;
  }
  pyodide.runPython("import gc; gc.collect()");
  return pyodide._module.hiwire.num_keys();
};
"""
"""``exercise(rounds)``: plain and streamed requests, then the count of JS references Python
holds (pytest-pyodide's measure)."""


def test_requests_leave_no_javascript_references_behind(agent: Any) -> None:
    """Answering requests in the same thread leaves no proxy or JS reference behind."""
    if agent.browser != "node":
        pytest.skip("in Chromium the server's Pyodide is in the worker")
    before, after = run(agent, EXERCISE + "return [await exercise(3), await exercise(20)];")
    assert after <= before
