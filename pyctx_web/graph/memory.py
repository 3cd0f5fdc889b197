"""Conversation memory for runs: the :class:`MemoryProvider` protocol and :class:`InMemoryMemory`.

A graph compiled with ``memory=`` gives each run's nodes and tools that
provider as ``runtime.memory``. Entries carry the session (thread) they belong
to, so one provider serves every thread of a graph and ``read`` scopes by
``session_id``. Every method is async, so remote or browser stores fit.
"""

from __future__ import annotations

from pyctx_web.graph._engine.extension import MemoryEntry, MemoryProvider
from pyctx_web.graph._runctx.memory import InMemoryMemory

__all__ = ["InMemoryMemory", "MemoryEntry", "MemoryProvider"]
