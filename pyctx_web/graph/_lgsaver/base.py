"""``langgraph.checkpoint.base``: LangGraph's saver names beside pyctx_web's storage contract."""

from __future__ import annotations

from pyctx_web.graph._lgsaver.names import (
    DeltaChannelHistory,
    SerializerProtocol,
    create_checkpoint,
    get_checkpoint_metadata,
    get_serializable_checkpoint_metadata,
    writes_sort_key,
)
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
from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    DocumentCheckpointer,
    DocumentStore,
    StoredCheckpoint,
    StoredWrite,
    check_limit,
    expected_latest,
)

__all__ = [
    "WRITES_IDX_MAP",
    "BaseCheckpointSaver",
    "ChannelVersions",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointRecord",
    "CheckpointTuple",
    "Checkpointer",
    "DeltaChannelHistory",
    "DocumentCheckpointer",
    "DocumentStore",
    "PendingWrite",
    "SerializerProtocol",
    "StoredCheckpoint",
    "StoredWrite",
    "check_limit",
    "create_checkpoint",
    "empty_checkpoint",
    "expected_latest",
    "get_checkpoint_id",
    "get_checkpoint_metadata",
    "get_serializable_checkpoint_metadata",
    "writes_sort_key",
]
