"""Checkpoint savers: where a graph saves its threads, as ``langgraph.checkpoint``.

:mod:`.memory` (``InMemorySaver``), :mod:`.sqlite` (``SqliteSaver``) and, in a
browser, :mod:`.indexeddb` (``IndexedDBSaver``); :mod:`.base` holds the contract
every saver meets. Import each saver from its module, as in LangGraph.
"""

from __future__ import annotations

from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    StoredCheckpoint,
    StoredWrite,
)

__all__ = ["CheckpointRecord", "Checkpointer", "StoredCheckpoint", "StoredWrite"]
