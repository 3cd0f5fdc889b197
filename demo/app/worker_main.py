"""The Python end of the demo's Web Worker: page messages in, chat events out.

``worker.js`` calls :func:`boot` once with a ``post(text)`` function, posts ready,
calls :func:`prepare`, then :func:`receive` with the JSON text of every message the
page posts. Everything goes back through ``post`` as JSON text. Page messages (``op``):

* ``{op: "send", thread_id, message}``: a chat-protocol message for that thread;
  its events come back with ``thread_id`` added.
* ``{op: "configure_model", model: {kind: "offline", token_delay_ms?} |
  {kind: "openai", base_url, model, api_key}}``: answered with ``{type: "model", ok, ...}``.
* ``{op: "delete_thread", thread_id}``: answered with ``{type: "deleted", thread_id}``.
* ``{op: "two_chats", thread_ids: [a, b], texts: [x, y]}``: two chats at once.
* ``{op: "graph"}``: answered with ``{type: "graph", nodes: [{id, name}],
  edges: [{source, target, conditional}]}``, the assistant's graph as ``get_graph()`` draws it.

Inspector records come as ``{type: "inspect", thread_id, record}``. A malformed
message gets ``{type: "error", message}`` (with its ``thread_id`` when it had one).
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, Final

from assistant import AssistantData, build_assistant
from model_error import ModelError

import pyctx_web
from pyctx_web import IN_BROWSER, ExecutionContext
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.jsonparse import MESSAGE_CHARS, parse_json

if TYPE_CHECKING:
    from protocol import ChatModel

    from pyctx_web.chat import ChatSession

__all__ = ["boot", "preload", "prepare", "receive"]

MAX_THREAD_ID = 200

FIRST_TURN_MODULES = (
    "pyctx_web.chat._session",
    "pyctx_web.graph.func",
    "pyctx_web.graph._engine.execute",
    "pyctx_web.graph._engine.views",
    "pyctx_web.graph._runctx.tool_calls",
    "pyctx_web.graph._runctx.approval",
    "offline_model",
)
"""The chat session (with the chat protocol), the functional API of the assistant's ``think``
task and the run machinery pyctx_web imports at a thread's first message, and the offline
model that answers it (with the reply types of :mod:`protocol`): imported once the page is
ready, so that a first message typed meanwhile does not wait."""

REHEARSAL_TEXT = "help me with email"
"""The first message :func:`preload` rehearses: one that asks a question."""


TURN_DEADLINE_S: Final = 600.0
"""How long a turn may run, model calls, tools and retries included, unless the model
settings name ``turn_deadline_s``."""


def turn_deadline(config: Any) -> float:
    """The turn deadline the model settings name (``turn_deadline_s``, 1 to 86,400 s), else
    :data:`TURN_DEADLINE_S`; ``ModelError`` for any other value."""
    value = config.get("turn_deadline_s") if isinstance(config, dict) else None
    if value is None:
        return TURN_DEADLINE_S
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= 86400:
        raise ModelError("turn_deadline_s must be a number from 1 to 86,400.")
    return float(value)


class DemoWorker:
    """The chat sessions of the page, one per thread, over one graph and checkpointer."""

    def __init__(self, post: Callable[[str], object], checkpointer: Checkpointer) -> None:
        self.post = post
        self.checkpointer = checkpointer
        self.graph: CompiledStateGraph = build_assistant(checkpointer)
        self.chosen: ChatModel | None = None  # until the settings choose one: the offline model
        self.sessions: dict[str, ChatSession] = {}
        self.turns: dict[str, int] = {}
        self.turn_deadline_s = TURN_DEADLINE_S
        # Handling tasks, kept until done so that they are not collected while running.
        self.tasks: set[asyncio.Task[object]] = set()

    @property
    def model(self) -> ChatModel:
        """The model chosen in the settings, else the offline one (made at first use: a
        worker starts without the models' modules)."""
        if self.chosen is None:
            from offline_model import OfflineModel

            self.chosen = OfflineModel()
        return self.chosen

    def send(self, event: dict[str, Any]) -> None:
        self.post(json.dumps(event))

    def session(self, thread_id: str) -> ChatSession:
        session = self.sessions.get(thread_id)
        if session is None:
            from pyctx_web.chat import ChatSession  # imported after ready (FIRST_TURN_MODULES)

            session = ChatSession(
                self.graph,
                checkpointer=self.checkpointer,
                thread_id=thread_id,
                context=lambda: AssistantData(model=self.model),
                execution_context=lambda: self._execution_context(thread_id),
            )
            self.sessions[thread_id] = session
        return session

    def _execution_context(self, thread_id: str) -> ExecutionContext:
        turn = self.turns.get(thread_id, 0) + 1
        self.turns[thread_id] = turn
        return ExecutionContext.of(
            tenant_id="demo", user_id="demo-user", correlation_id=f"{thread_id}:{turn}"
        )

    def receive(self, raw: str) -> None:
        self.start(self.handle(raw))

    def start(self, work: Coroutine[Any, Any, object], failure: str = "") -> None:
        """Run ``work`` as a task kept until done; an error it ends with is posted after
        ``failure`` (when given)."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        if failure:
            task.add_done_callback(lambda done: self._report(done, failure))

    def _report(self, task: asyncio.Task[object], failure: str) -> None:
        error = None if task.cancelled() else task.exception()
        if error is not None:
            self.error(f"{failure}: {error}", None)

    async def handle(self, raw: str) -> None:
        thread_id: str | None = None
        try:
            message = parse_json(raw, source="A message to the worker", max_chars=MESSAGE_CHARS)
            if not isinstance(message, dict):
                raise ValueError("A message to the worker must be an object with an op.")
            op = message.get("op")
            raw_thread = message.get("thread_id")
            if isinstance(raw_thread, str):
                thread_id = raw_thread
            if op == "send":
                await self.chat(_thread(message), message.get("message"))
            elif op == "configure_model":
                self.configure(message.get("model"))
            elif op == "delete_thread":
                await self.delete(_thread(message))
            elif op == "two_chats":
                await self.two_chats(message.get("thread_ids"), message.get("texts"))
            elif op == "graph":
                self.send_graph()
            else:
                raise ValueError(
                    f"Unknown op {op!r}: "
                    "expected send, configure_model, delete_thread, two_chats or graph."
                )
        except (ValueError, ModelError) as error:
            self.error(str(error), thread_id)
        except Exception as error:
            words = str(error).strip() or f"it failed without saying why ({type(error).__name__})"
            self.error(f"The worker could not handle the message: {words}", thread_id)

    def error(self, message: str, thread_id: str | None) -> None:
        event: dict[str, Any] = {"type": "error", "message": message}
        if thread_id is not None:
            event["thread_id"] = thread_id
        self.send(event)

    async def chat(self, thread_id: str, message: Any) -> None:
        # However its model calls go, a turn ends by its deadline: past it, the run is
        # cancelled (its committed steps stay, and the turn can be continued).
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.turn_deadline_s, self._past_deadline, thread_id)
        try:
            async for event in self.session(thread_id).handle(message):
                self.send({**event, "thread_id": thread_id})
        finally:
            timer.cancel()

    def _past_deadline(self, thread_id: str) -> None:
        session = self.sessions.get(thread_id)
        if session is None or not session.running:
            return
        self.error(
            f"The turn ran past its deadline of {self.turn_deadline_s:g} s and was stopped.",
            thread_id,
        )
        self.start(self.graph.cancel(thread_id, "the turn ran past its deadline"))

    def send_graph(self) -> None:
        drawn = self.graph.get_graph()
        nodes = [{"id": key, "name": node.name} for key, node in drawn.nodes.items()]
        edges = [
            {"source": e.source, "target": e.target, "conditional": e.conditional}
            for e in drawn.edges
        ]
        self.send({"type": "graph", "nodes": nodes, "edges": edges})

    def configure(self, config: Any) -> None:
        try:
            deadline = turn_deadline(config)
            from models import make_model  # with the offline model's module, after ready

            self.chosen = make_model(config)
            self.turn_deadline_s = deadline
        except ModelError as error:
            self.send({"type": "model", "ok": False, "message": str(error)})
            return
        self.send({"type": "model", "ok": True, **self.model.describe()})

    async def delete(self, thread_id: str) -> None:
        session = self.sessions.pop(thread_id, None)
        if session is not None and session.running:
            await self.graph.cancel(thread_id, "thread deleted")
        await self.checkpointer.adelete_thread(thread_id)
        self.turns.pop(thread_id, None)
        self.send({"type": "deleted", "thread_id": thread_id})

    async def two_chats(self, thread_ids: Any, texts: Any) -> None:
        if not (
            isinstance(thread_ids, list)
            and isinstance(texts, list)
            and len(thread_ids) == len(texts) == 2
            and all(isinstance(t, str) and t for t in thread_ids)
        ):
            raise ValueError("two_chats needs two thread_ids and two texts.")
        await asyncio.gather(
            *(
                self.chat(tid, {"type": "chat", "text": text})
                for tid, text in zip(thread_ids, texts, strict=True)
            )
        )


def _thread(message: dict[str, Any]) -> str:
    thread_id = message.get("thread_id")
    if not isinstance(thread_id, str) or not thread_id or len(thread_id) > MAX_THREAD_ID:
        raise ValueError(f"A thread_id must be text of 1 to {MAX_THREAD_ID} characters.")
    return thread_id


_worker: DemoWorker | None = None


async def boot(post: Callable[[str], object] | None = None) -> None:
    """Make the worker ready to take page messages: IndexedDB checkpoints in a browser,
    memory elsewhere; its answers go through ``post``."""
    global _worker
    if post is None:
        import demo_bridge

        post = demo_bridge.post
    if IN_BROWSER:
        from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver

        _worker = DemoWorker(post, IndexedDBSaver("pyctx-demo"))
    else:
        from pyctx_web.graph.checkpoint.memory import InMemorySaver

        _worker = DemoWorker(post, InMemorySaver())


def prepare() -> None:
    """Start what can follow the ready message: opening the checkpoint store (a first
    message waits for an open under way) and, a moment later, importing the run machinery,
    so that a first message typed meanwhile does not wait for the import."""
    worker = _booted()
    setup = getattr(worker.checkpointer, "setup", None)
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


async def preload() -> None:
    """Import every module of the app and of pyctx_web, then rehearse a first turn that
    nobody sees, on a checkpointer in memory, and forget it.

    The demo's memory snapshot is taken after this (``tools/snapshot.py``): a restored
    worker's first turn then finds done what Python does on first use (the ABC caches of
    ``isinstance``, the tools' schemas, compiled regular expressions...).
    """
    from pathlib import Path

    from pyctx_web.graph.checkpoint.memory import InMemorySaver

    _import_all([str(Path(__file__).parent)], "")
    _import_all(pyctx_web.__path__, "pyctx_web.")
    rehearsal = DemoWorker(lambda text: None, InMemorySaver())
    await rehearsal.chat("rehearsal", {"type": "chat", "text": REHEARSAL_TEXT})


def _booted() -> DemoWorker:
    if _worker is None:
        raise RuntimeError("the worker is not booted: call await boot(post) first")
    return _worker


def receive(raw: str) -> None:
    """Handle the JSON text of one page message; the answers come through ``post``."""
    _booted().receive(str(raw))
