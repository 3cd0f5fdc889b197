"""What every route handler of the agent server reads: its graphs, checkpointer and thread store.

Route modules type their ``server`` argument as :class:`ServerCore`, which
:class:`~pyctx_web.server.app.AgentServer` extends with the route table, so
no route module imports the module that imports them all.

Threads are plain JSON-ready dicts (see :mod:`.threads` for their fields) kept
in a :class:`ThreadStore`. The store's methods are coroutines so that one kept
in IndexedDB or SQLite fits the same protocol; :class:`MemoryThreadStore`
keeps them in a dict for the process's life.
"""

from __future__ import annotations

import copy
import os
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph.checkpoint import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.state import CompiledStateGraph

__all__ = ["MemoryThreadStore", "ServerCore", "ThreadStore", "new_uuid7", "utc_now"]


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

    async def delete(self, thread_id: str) -> bool:
        """Forget the thread; False when there was none."""
        return self._threads.pop(thread_id, None) is not None

    async def all(self) -> list[dict[str, Any]]:
        """Copies of every record, in the order they were first stored."""
        return [copy.deepcopy(thread) for thread in self._threads.values()]


class ServerCore:
    """The graphs an agent server serves, the checkpointer they keep threads in, the thread store.

    A graph compiled without a checkpointer is given the server's (an
    :class:`InMemorySaver` unless ``checkpointer``, a pyctx_web checkpointer, is
    given), as a LangGraph Server gives every graph one: threads need one to
    have state. Graphs compiled with their own keep it.
    """

    def __init__(
        self,
        graphs: Mapping[str, CompiledStateGraph],
        *,
        checkpointer: Checkpointer | None = None,
        threads: ThreadStore | None = None,
    ) -> None:
        if not graphs:
            raise ArgumentValueError("an agent server needs at least one graph")
        self.checkpointer: Checkpointer = InMemorySaver() if checkpointer is None else checkpointer
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
        self.threads: ThreadStore = MemoryThreadStore() if threads is None else threads
        self.created_at = utc_now()
        """When the server started: its assistants' ``created_at`` and ``updated_at``."""
