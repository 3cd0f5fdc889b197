"""What every route handler of the agent server reads: its graphs, checkpointer and thread store.

Route modules type their ``server`` argument as :class:`ServerCore`, which
:class:`~pyctx_web.server.app.AgentServer` extends with the route table, so
no route module imports the module that imports them all.

Threads and runs are plain JSON-ready dicts (see :mod:`.threads` and
:mod:`.runs` for their fields) kept in a :class:`ThreadStore` and a
:class:`RunStore`; the events a run streamed, for a client that joins or
reconnects, in an :class:`EventLog`. The stores' methods are coroutines so that
ones kept in IndexedDB or SQLite fit the same protocols; the ``Memory`` ones
keep everything in dicts for the process's life.

A :class:`ServerStorage` is the four together (checkpointer, threads, runs,
events), as a LangGraph Server keeps them in one database:
``AgentServer(graphs, storage=SqliteStorage("app.db"))`` (from
:mod:`.store_sqlite`) or ``storage=IndexedDBStorage("pyctx_web")`` (from
:mod:`.store_indexeddb`, in a browser) keep them across reloads, next to the
checkpoints; :class:`MemoryStorage` is the default.
"""

from __future__ import annotations

import copy
import os
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol, Self

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError, PyctxError
from pyctx_web.graph.checkpoint import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.state import CompiledStateGraph

__all__ = [
    "EventLog",
    "MemoryEventLog",
    "MemoryRunStore",
    "MemoryStorage",
    "MemoryThreadStore",
    "RunStore",
    "ServerCore",
    "ServerStorage",
    "ServerStorageError",
    "StoredEvent",
    "ThreadStore",
    "new_uuid7",
    "utc_now",
]


_last_uuid7 = 0


def new_uuid7() -> str:
    """A new UUID version 7, as the LangGraph Server makes thread and run ids.

    Each is greater than the one before in this process, also within one
    millisecond (the random bits then count up), so ids sort in creation order.
    """
    global _last_uuid7
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10)) >> 2
    value = max(value, _last_uuid7 + 1)
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # RFC 4122 variant
    _last_uuid7 = value
    return str(uuid.UUID(int=value))


def utc_now() -> str:
    """The current time as the server writes times: ISO 8601 in UTC with microseconds."""
    return datetime.now(UTC).isoformat()


class ThreadStore(Protocol):
    """Where the server keeps thread records, keyed by ``thread_id``."""

    async def get(self, thread_id: str) -> dict[str, Any] | None:
        """A copy of the thread's record, or None when there is none."""
        ...

    async def put(self, thread: dict[str, Any]) -> None:
        """Store ``thread`` (a copy of it), replacing the record with its ``thread_id``."""
        ...

    async def claim(self, thread: dict[str, Any]) -> bool:
        """Store ``thread`` as :meth:`put` does unless the stored record is ``busy``, in one
        transaction (a run taking an idle thread); False, storing nothing, when it is."""
        ...

    async def delete(self, thread_id: str) -> bool:
        """Forget the thread; False when there was none."""
        ...

    async def all(self) -> list[dict[str, Any]]:
        """Copies of every record, in the order they were first stored."""
        ...


class MemoryThreadStore:
    """A :class:`ThreadStore` in a dict: records live as long as the store."""

    def __init__(self) -> None:
        self._threads: dict[str, dict[str, Any]] = {}

    async def get(self, thread_id: str) -> dict[str, Any] | None:
        """A copy of the thread's record, or None when there is none."""
        thread = self._threads.get(thread_id)
        return None if thread is None else copy.deepcopy(thread)

    async def put(self, thread: dict[str, Any]) -> None:
        """Store a copy of ``thread``, replacing the record with its ``thread_id``."""
        self._threads[thread["thread_id"]] = copy.deepcopy(thread)

    async def claim(self, thread: dict[str, Any]) -> bool:
        """Store a copy of ``thread`` unless the stored record is busy; False when it is."""
        stored = self._threads.get(thread["thread_id"])
        if stored is not None and stored.get("status") == "busy":
            return False
        self._threads[thread["thread_id"]] = copy.deepcopy(thread)
        return True

    async def delete(self, thread_id: str) -> bool:
        """Forget the thread; False when there was none."""
        return self._threads.pop(thread_id, None) is not None

    async def all(self) -> list[dict[str, Any]]:
        """Copies of every record, in the order they were first stored."""
        return [copy.deepcopy(thread) for thread in self._threads.values()]


class RunStore(Protocol):
    """Where the server keeps run records, keyed by ``run_id`` (``thread_id`` None: stateless)."""

    async def get(self, run_id: str) -> dict[str, Any] | None:
        """A copy of the run's record, or None when there is none."""
        ...

    async def put(self, run: dict[str, Any]) -> None:
        """Store ``run`` (a copy of it), replacing the record with its ``run_id``."""
        ...

    async def delete(self, run_id: str) -> bool:
        """Forget the run; False when there was none."""
        ...

    async def of_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """Copies of the thread's runs, in the order they were first stored."""
        ...


StoredEvent = tuple[str, str, bytes]
"""One event a run streamed: its id, its name, its JSON data."""


class EventLog(Protocol):
    """The events each run streamed, in order, for clients that join or reconnect later."""

    async def append(self, run_id: str, event: StoredEvent) -> None:
        """Add ``event`` after the run's others."""
        ...

    async def after(self, run_id: str, last_event_id: str | None) -> list[StoredEvent]:
        """The run's events after the one with ``last_event_id`` (all of them when None)."""
        ...

    async def drop(self, run_id: str) -> None:
        """Forget the run's events."""
        ...


class MemoryRunStore:
    """A :class:`RunStore` in a dict: records live as long as the store."""

    def __init__(self) -> None:
        self._runs: dict[str, dict[str, Any]] = {}

    async def get(self, run_id: str) -> dict[str, Any] | None:
        """A copy of the run's record, or None when there is none."""
        run = self._runs.get(run_id)
        return None if run is None else copy.deepcopy(run)

    async def put(self, run: dict[str, Any]) -> None:
        """Store a copy of ``run``, replacing the record with its ``run_id``."""
        self._runs[run["run_id"]] = copy.deepcopy(run)

    async def delete(self, run_id: str) -> bool:
        """Forget the run; False when there was none."""
        return self._runs.pop(run_id, None) is not None

    async def of_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """Copies of the thread's runs, in the order they were first stored."""
        return [copy.deepcopy(r) for r in self._runs.values() if r.get("thread_id") == thread_id]


class MemoryEventLog:
    """An :class:`EventLog` in a dict of lists: events live as long as the log."""

    def __init__(self) -> None:
        self._events: dict[str, list[StoredEvent]] = {}

    async def append(self, run_id: str, event: StoredEvent) -> None:
        """Add ``event`` after the run's others."""
        self._events.setdefault(run_id, []).append(event)

    async def after(self, run_id: str, last_event_id: str | None) -> list[StoredEvent]:
        """The run's events after the one with ``last_event_id`` (all of them when None)."""
        events = self._events.get(run_id, [])
        if last_event_id is None:
            return list(events)
        ids = [event[0] for event in events]
        return list(events[ids.index(last_event_id) + 1 :]) if last_event_id in ids else []

    async def drop(self, run_id: str) -> None:
        """Forget the run's events."""
        self._events.pop(run_id, None)


class ServerStorageError(PyctxError, RuntimeError):
    """A store of the server failed an operation; a failed write stored nothing.

    ``action`` is what was attempted, ``detail`` what the storage reported.
    """

    def __init__(self, action: str, detail: str) -> None:
        super().__init__(f"cannot {action}: {detail}")
        self.action = action
        self.detail = detail


class ServerStorage:
    """Everything an agent server keeps: the checkpointer its graphs save threads in,
    and its thread, run and event stores.

    :meth:`close` closes what the storage opened; a run it stored that has not
    ended is then lost for every other server on the same storage (see
    :mod:`.store_lost`).
    """

    def __init__(
        self, *, checkpointer: Checkpointer, threads: ThreadStore, runs: RunStore, events: EventLog
    ) -> None:
        self.checkpointer = checkpointer
        self.threads = threads
        self.runs = runs
        self.events = events

    def close(self) -> None:
        """Close what the storage opened (nothing, here)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class MemoryStorage(ServerStorage):
    """A :class:`ServerStorage` in this process's memory: an :class:`InMemorySaver` and
    the ``Memory`` stores, gone with the process."""

    def __init__(self) -> None:
        super().__init__(
            checkpointer=InMemorySaver(),
            threads=MemoryThreadStore(),
            runs=MemoryRunStore(),
            events=MemoryEventLog(),
        )


class ServerCore:
    """The graphs an agent server serves, the checkpointer they keep threads in, the stores.

    ``storage`` (a :class:`ServerStorage`, a :class:`MemoryStorage` when none)
    gives the checkpointer and the thread, run and event stores; each of
    ``checkpointer``, ``threads``, ``runs`` and ``events`` given replaces the
    storage's. A graph compiled without a checkpointer is given the server's,
    as a LangGraph Server gives every graph one: threads need one to have
    state. Graphs compiled with their own keep it.
    """

    def __init__(
        self,
        graphs: Mapping[str, CompiledStateGraph],
        *,
        storage: ServerStorage | None = None,
        checkpointer: Checkpointer | None = None,
        threads: ThreadStore | None = None,
        runs: RunStore | None = None,
        events: EventLog | None = None,
    ) -> None:
        if not graphs:
            raise ArgumentValueError("an agent server needs at least one graph")
        if storage is None:
            storage = MemoryStorage()
        elif not isinstance(storage, ServerStorage):
            raise ArgumentTypeError(
                f"storage is a {type(storage).__name__}, not a ServerStorage "
                "(MemoryStorage, SqliteStorage or IndexedDBStorage)"
            )
        self.storage = storage
        self.checkpointer: Checkpointer = (
            storage.checkpointer if checkpointer is None else checkpointer
        )
        self.graphs: dict[str, CompiledStateGraph] = {}
        for graph_id, graph in graphs.items():
            if not isinstance(graph, CompiledStateGraph):
                raise ArgumentTypeError(
                    f"graph {graph_id!r} is a {type(graph).__name__}, not a compiled graph: "
                    "call .compile() on its StateGraph"
                )
            if graph.checkpointer is None:
                # Set on the graph itself: its runs read the attribute at each call.
                graph.checkpointer = self.checkpointer
            self.graphs[graph_id] = graph
        self.threads: ThreadStore = storage.threads if threads is None else threads
        self.runs: RunStore = storage.runs if runs is None else runs
        self.events: EventLog = storage.events if events is None else events
        self.created_at = utc_now()
        """When the server started: its assistants' ``created_at`` and ``updated_at``."""
