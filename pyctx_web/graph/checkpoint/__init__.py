"""Checkpoint savers: where a graph saves its threads, as ``langgraph.checkpoint``.

:mod:`.memory` (``InMemorySaver``), :mod:`.sqlite` (``SqliteSaver``) and, in a
browser, :mod:`.indexeddb` (``IndexedDBSaver``); :mod:`.base` holds the contract
every saver meets. Import each saver from its module, as in LangGraph.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Final

from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    StoredCheckpoint,
    StoredWrite,
)

__all__ = ["CheckpointRecord", "Checkpointer", "StoredCheckpoint", "StoredWrite"]

_MOVED: Final = {
    "InMemoryCheckpointer": ("pyctx_web.graph.checkpoint.memory", "InMemorySaver"),
    "SQLiteCheckpointer": ("pyctx_web.graph.checkpoint.sqlite", "SqliteSaver"),
    "IndexedDBCheckpointer": ("pyctx_web.graph.checkpoint.indexeddb", "IndexedDBSaver"),
}
"""The savers' names before they took LangGraph's: one release more."""


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, new = _MOVED[name]
    warnings.warn(
        f"pyctx_web.graph.checkpoint.{name} is deprecated; import {new} from {module}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), new)
