"""The Python end of the demo's Web Worker: the LangGraph Server API over the assistant's graph.

``worker.js`` calls :func:`boot` once, which gives it the worker's
:class:`~pyctx_web.server.AgentServer` (graph id ``agent``: the assistant of
:mod:`assistant`; in a browser its checkpoints, threads, runs and events are kept in
IndexedDB, so that they survive a reload and another tab sees them, in memory
elsewhere); the
worker serves it to the page's ``fetch`` (``serveAgentServer``), through which
the page's LangGraph SDK client does everything a chat does. Then ``worker.js``
posts ready and calls :func:`prepare`.

A few page messages stay outside the API; ``worker.js`` passes their JSON text
to :func:`receive`, and the answers go back through ``post`` as JSON text:

* ``{op: "configure_model", model: {kind: "offline", token_delay_ms?} |
  {kind: "openai", base_url, model, api_key, ...}}``: the settings are checked
  and an API key kept in this worker's memory for that base URL (runs name
  their model in their ``context``, never the key: see :mod:`models`); answered
  with ``{type: "model", ok, ...}``.
* ``{op: "graph"}``: answered with ``{type: "graph", nodes: [{id, name}],
  edges: [{source, target, conditional}]}``, the assistant's graph as ``get_graph()``
  draws it.

A malformed message gets ``{type: "error", message}``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Iterable
from typing import Any, Final

from pyctx_web.graph import install_as_langgraph

install_as_langgraph()  # the assistant imports LangGraph's names: they are pyctx_web's here

from assistant import build_assistant, graph  # noqa: E402  (after install_as_langgraph)
from model_error import ModelError  # noqa: E402

import pyctx_web  # noqa: E402
from pyctx_web import IN_BROWSER  # noqa: E402
from pyctx_web.jsonparse import MESSAGE_CHARS, parse_json  # noqa: E402
from pyctx_web.server import AgentServer, Request  # noqa: E402
from pyctx_web.server._core import MemoryStorage, ServerStorage  # noqa: E402

__all__ = ["GRAPH_ID", "boot", "make_server", "preload", "prepare", "receive"]

GRAPH_ID: Final = "agent"
"""The assistant's graph id, as ``demo/langgraph.json`` names it for ``langgraph dev``."""

DATABASE: Final = "pyctx-demo"
"""The IndexedDB database of the page's threads."""

FIRST_TURN_MODULES = (
    "pyctx_web.graph._engine.execute",
    "pyctx_web.graph._engine.views",
    "pyctx_web.server.runs",
    "pyctx_web.server.threads",
    "pyctx_web.server.state_routes",
    "offline_model",
)
"""What a thread's first run needs: imported once the page is ready, so that a first
message typed meanwhile does not wait for the import."""

REHEARSAL_TEXT = "help me with email"
"""The first message :func:`preload` rehearses: one that asks a question."""


def make_server(storage: ServerStorage | None = None) -> AgentServer:
    """The agent server of the demo: the assistant as graph ``agent``, compiled over the
    checkpointer of ``storage`` (memory when None) for this server alone."""
    if storage is None:
        storage = MemoryStorage()
    return AgentServer({GRAPH_ID: build_assistant(storage.checkpointer)}, storage=storage)


class DemoWorker:
    """The worker's server and its answers to the page messages outside the API."""

    def __init__(self, post: Callable[[str], object], server: AgentServer) -> None:
        self.post = post
        self.server = server
        # Handling tasks, kept until done so that they are not collected while running.
        self.tasks: set[asyncio.Task[object]] = set()

    def send(self, event: dict[str, Any]) -> None:
        self.post(json.dumps(event))

    def start(self, work: Any, failure: str) -> None:
        """Run the coroutine ``work`` as a task kept until done; its error is posted after
        ``failure``."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(lambda done: self._report(done, failure))

    def _report(self, task: asyncio.Task[object], failure: str) -> None:
        error = None if task.cancelled() else task.exception()
        if error is not None:
            self.send({"type": "error", "message": f"{failure}: {error}"})

    def receive(self, raw: str) -> None:
        try:
            message = parse_json(raw, source="A message to the worker", max_chars=MESSAGE_CHARS)
            if not isinstance(message, dict):
                raise ValueError("A message to the worker must be an object with an op.")
            op = message.get("op")
            if op == "configure_model":
                self.configure(message.get("model"))
            elif op == "graph":
                self.send_graph()
            else:
                raise ValueError(f"Unknown op {op!r}: expected configure_model or graph.")
        except ValueError as error:
            self.send({"type": "error", "message": str(error)})

    def send_graph(self) -> None:
        drawn = graph.get_graph()
        nodes = [{"id": key, "name": node.name} for key, node in drawn.nodes.items()]
        edges = [
            {"source": e.source, "target": e.target, "conditional": e.conditional}
            for e in drawn.edges
        ]
        self.send({"type": "graph", "nodes": nodes, "edges": edges})

    def configure(self, config: Any) -> None:
        """Check the model settings and keep their key for the runs that name the model."""
        from models import make_model, remember_key

        try:
            model = make_model(config)
        except ModelError as error:
            self.send({"type": "model", "ok": False, "message": str(error)})
            return
        if isinstance(config, dict) and isinstance(config.get("api_key"), str):
            remember_key(str(config.get("base_url", "")), config["api_key"])
        self.send({"type": "model", "ok": True, **model.describe()})


_worker: DemoWorker | None = None


async def boot(post: Callable[[str], object] | None = None) -> AgentServer:
    """Make the worker's server (IndexedDB checkpoints in a browser, memory elsewhere) and
    return it for ``serveAgentServer``; answers outside the API go through ``post``."""
    global _worker
    if post is None:
        import demo_bridge

        post = demo_bridge.post
    if IN_BROWSER:
        from pyctx_web.server.store_indexeddb import IndexedDBStorage

        server = make_server(IndexedDBStorage(DATABASE))
    else:
        server = make_server()
    _worker = DemoWorker(post, server)
    return server


def prepare() -> None:
    """Start what can follow the ready message: opening the checkpoint store (a first
    run waits for an open under way) and, a moment later, importing the run machinery."""
    worker = _booted()
    setup = getattr(worker.server.checkpointer, "setup", None)
    if setup is not None:
        worker.start(setup(), "The checkpoint store could not open")
    asyncio.get_running_loop().call_later(0.05, _warm_up)


def _warm_up() -> None:
    for name in FIRST_TURN_MODULES:
        importlib.import_module(name)


def _import_all(folders: Iterable[str], prefix: str) -> None:
    """Import every module under ``folders`` (named with ``prefix``) that this runtime can
    import: a restored worker then needs none of their files to answer (``worker.js``
    writes pyctx_web's after ready)."""
    import pkgutil  # only the snapshot's preload walks packages: not at a worker's start

    for found in pkgutil.walk_packages(folders, prefix):
        try:
            importlib.import_module(found.name)
        except ImportError:
            # Needs what this runtime lacks (sqlite3 before its Pyodide package is loaded):
            # it imports from its file, once written, if ever used.
            continue


async def rehearse(server: AgentServer, text: str = REHEARSAL_TEXT) -> bytes:
    """Stream one run of ``text`` on a new thread of ``server``, as the page's client would;
    the event stream's bytes."""
    created = await server.handle(Request("POST", "/threads", body=b"{}"))
    thread_id = json.loads(created.body)["thread_id"]  # type: ignore[arg-type]
    run = {
        "assistant_id": GRAPH_ID,
        "input": {"messages": [{"role": "user", "content": text}]},
        "stream_mode": ["values", "updates", "custom"],
        "context": {"model": {"kind": "offline", "token_delay_ms": 0}},
    }
    path = f"/threads/{thread_id}/runs/stream"
    response = await server.handle(Request("POST", path, body=json.dumps(run).encode()))
    if isinstance(response.body, bytes):
        return response.body
    return b"".join([chunk async for chunk in response.body])


async def preload() -> None:
    """Import every module of the app and of pyctx_web, then rehearse a first run that
    nobody sees, on a server in memory, and forget it.

    The demo's memory snapshot is taken after this (``tools/snapshot.py``): a restored
    worker's first run then finds done what Python does on first use (the ABC caches of
    ``isinstance``, compiled regular expressions...).
    """
    from pathlib import Path

    _import_all([str(Path(__file__).parent)], "")
    _import_all(pyctx_web.__path__, "pyctx_web.")
    await rehearse(make_server())


def _booted() -> DemoWorker:
    if _worker is None:
        raise RuntimeError("the worker is not booted: call await boot(post) first")
    return _worker


def receive(raw: str) -> None:
    """Handle the JSON text of one page message outside the API; answers come through ``post``."""
    _booted().receive(str(raw))
