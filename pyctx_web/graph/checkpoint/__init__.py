"""Checkpointers: where a graph saves its threads (in memory, SQLite)."""

from __future__ import annotations

from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    StoredCheckpoint,
    StoredWrite,
)
from pyctx_web.graph.checkpoint.indexeddb import IndexedDBCheckpointer
from pyctx_web.graph.checkpoint.memory import InMemoryCheckpointer
from pyctx_web.graph.checkpoint.sqlite import SQLiteCheckpointer

__all__ = [
    "CheckpointRecord",
    "Checkpointer",
    "InMemoryCheckpointer",
    "IndexedDBCheckpointer",
    "SQLiteCheckpointer",
    "StoredCheckpoint",
    "StoredWrite",
]
