"""The rest of LangGraph's saver vocabulary, as add-on savers (Postgres) import it.

``SerializerProtocol`` (what a saver's ``serde`` is), the history a delta channel reads
(``DeltaChannelHistory``, ``_DeltaSnapshot``), the order of a step's writes
(``writes_sort_key``), the metadata a saver stores from a run's config
(``get_checkpoint_metadata``, ``get_serializable_checkpoint_metadata``) and a copy of a
checkpoint dict (``copy_checkpoint``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple, NotRequired, Protocol, TypedDict

from pyctx_web._homes import publish
from pyctx_web.graph._engine.run_metadata import EXCLUDED_KEYS
from pyctx_web.graph._lgsaver.types import (
    Checkpoint,
    CheckpointMetadata,
    PendingWrite,
    uuid6,
)

__all__ = [
    "EXCLUDED_METADATA_KEYS",
    "TASKS",
    "DeltaChannelHistory",
    "SerializerProtocol",
    "_DeltaSnapshot",
    "copy_checkpoint",
    "create_checkpoint",
    "get_checkpoint_metadata",
    "get_serializable_checkpoint_metadata",
    "writes_sort_key",
]

TASKS = "__pregel_tasks"
"""The channel of the tasks a step sends (``Send``)."""

EXCLUDED_METADATA_KEYS = EXCLUDED_KEYS
"""Config keys that never become checkpoint metadata: they say where a run is, not what it is."""


class SerializerProtocol(Protocol):
    """What a saver's ``serde`` does: a value to ``(type name, bytes)`` and back."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """The value as ``(type name, bytes)``."""
        ...

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """The value :meth:`dumps_typed` gave ``data`` for."""
        ...


class DeltaChannelHistory(TypedDict):
    """What one channel wrote along a checkpoint's ancestors.

    ``writes``: its writes, oldest first; ``seed``: the value stored at the nearest
    ancestor that holds one (absent when none does).
    """

    writes: list[PendingWrite]
    seed: NotRequired[Any]


class _DeltaSnapshot(NamedTuple):
    """A delta channel's whole value, stored so that reading it needs no replay of writes."""

    value: Any


def writes_sort_key(task_path: str, task_id: str = "", idx: int = 0) -> tuple[str, str, int]:
    """The order a step's writes apply in: by task path, then task id, then index."""
    return (task_path, task_id, idx)


def _metadata_value(value: Any) -> Any:
    # Text loses NUL characters (databases refuse them); other plain scalars stay.
    return value.replace("\x00", "") if isinstance(value, str) else value


def get_checkpoint_metadata(
    config: Mapping[str, Any], metadata: CheckpointMetadata
) -> CheckpointMetadata:
    """``metadata`` with the config's plain ``metadata`` and ``configurable`` values added.

    Keys already in ``metadata``, keys starting with ``__``, the keys of
    :data:`EXCLUDED_METADATA_KEYS` and values that are not text, numbers or booleans are
    left out.
    """
    merged: dict[str, Any] = {k: _metadata_value(v) for k, v in metadata.items()}
    for source in (config.get("metadata"), config.get("configurable")):
        for key, value in (source or {}).items():
            if key in merged or key in EXCLUDED_METADATA_KEYS or key.startswith("__"):
                continue
            if isinstance(value, str | int | float | bool):
                merged[key] = _metadata_value(value)
    return merged  # type: ignore[return-value]  # a CheckpointMetadata with the config's keys


def get_serializable_checkpoint_metadata(
    config: Mapping[str, Any], metadata: CheckpointMetadata
) -> CheckpointMetadata:
    """:func:`get_checkpoint_metadata` without ``writes`` (a step's writes are stored apart)."""
    merged = get_checkpoint_metadata(config, metadata)
    merged.pop("writes", None)  # type: ignore[typeddict-item]  # an older metadata key
    return merged


def copy_checkpoint(checkpoint: Checkpoint) -> Checkpoint:
    """A copy of a checkpoint dict whose values, versions and seen versions can change apart."""
    return Checkpoint(
        v=checkpoint["v"],
        ts=checkpoint["ts"],
        id=checkpoint["id"],
        channel_values=dict(checkpoint["channel_values"]),
        channel_versions=dict(checkpoint["channel_versions"]),
        versions_seen={k: dict(v) for k, v in checkpoint["versions_seen"].items()},
        updated_channels=checkpoint.get("updated_channels"),
    )


def create_checkpoint(
    checkpoint: Checkpoint, channels: Mapping[str, Any] | None, step: int, *, id: str | None = None
) -> Checkpoint:
    """The checkpoint that follows ``checkpoint``: a new id (``id``, or one made for ``step``)
    and time, its versions and seen versions.

    Its values are ``checkpoint``'s when ``channels`` is ``None``; else each channel's
    ``checkpoint()`` value, for the channels ``checkpoint`` has a version of.
    """
    versions = checkpoint["channel_versions"]
    if channels is None:
        values = checkpoint["channel_values"]
    else:
        values = {k: channel.checkpoint() for k, channel in channels.items() if k in versions}
    return Checkpoint(
        v=1,
        ts=datetime.now(UTC).isoformat(),
        id=id or str(uuid6(clock_seq=step)),
        channel_values=values,
        channel_versions=versions,
        versions_seen=checkpoint["versions_seen"],
        pending_sends=checkpoint.get("pending_sends", []),
        updated_channels=None,
    )


publish(
    "pyctx_web.graph.saver",
    DeltaChannelHistory,
    SerializerProtocol,
    create_checkpoint,
    get_checkpoint_metadata,
)
