"""LangGraph's saver interface under pyctx_web's own name (``langgraph.checkpoint.base``'s).

:class:`BaseCheckpointSaver` is what a saver of the user's own subclasses: one that
implements its async methods (``aput``, ``aput_writes``, ``aget_tuple``, ``alist``,
``adelete_thread``) or its sync ones works as a graph's checkpointer
(``compile(checkpointer=MySaver())``). The savers here are pyctx_web's, with that
interface as well as the graph's: :class:`InMemorySaver`, :class:`SqliteSaver` and, in a
browser, :class:`IndexedDBSaver` (async forms only). After ``install_as_langgraph()``,
``langgraph.checkpoint.base``, ``.memory``, ``.sqlite`` and ``.serde.jsonplus`` name
these same objects.
"""

from __future__ import annotations

from pyctx_web.graph._lgsaver.indexeddb import IndexedDBSaver
from pyctx_web.graph._lgsaver.jsonplus import JsonPlusSerializer
from pyctx_web.graph._lgsaver.memory import InMemorySaver
from pyctx_web.graph._lgsaver.names import (
    DeltaChannelHistory,
    SerializerProtocol,
    create_checkpoint,
    get_checkpoint_metadata,
)
from pyctx_web.graph._lgsaver.sqlite import SqliteSaver
from pyctx_web.graph._lgsaver.types import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    PendingWrite,
    empty_checkpoint,
    get_checkpoint_id,
)

__all__ = [
    "WRITES_IDX_MAP",
    "BaseCheckpointSaver",
    "ChannelVersions",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointTuple",
    "DeltaChannelHistory",
    "InMemorySaver",
    "IndexedDBSaver",
    "JsonPlusSerializer",
    "PendingWrite",
    "SerializerProtocol",
    "SqliteSaver",
    "create_checkpoint",
    "empty_checkpoint",
    "get_checkpoint_id",
    "get_checkpoint_metadata",
]
