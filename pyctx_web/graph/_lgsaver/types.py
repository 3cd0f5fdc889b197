"""LangGraph's saver vocabulary: ``Checkpoint``, ``CheckpointTuple``, ``BaseCheckpointSaver``...

What ``langgraph.checkpoint.base`` names, for code written against LangGraph's saver
interface: a checkpoint as a dict of channel values and versions, keyed by a config's
``thread_id``, ``checkpoint_ns`` and ``checkpoint_id``. pyctx_web's own savers are
subclasses of :class:`BaseCheckpointSaver` (see :mod:`.saver`); a user's subclass
works as a graph's checkpointer through :mod:`.foreign`.
"""

from __future__ import annotations

import copy
import logging
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, NamedTuple, TypeAlias, TypedDict, TypeVar

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph._engine.serde import JsonSerde

__all__ = [
    "ERROR",
    "INTERRUPT",
    "RESUME",
    "SCHEDULED",
    "WRITES_IDX_MAP",
    "BaseCheckpointSaver",
    "ChannelVersions",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointTuple",
    "JsonValueSerializer",
    "PendingWrite",
    "config_parts",
    "empty_checkpoint",
    "get_checkpoint_id",
    "uuid6",
]

ERROR = "__error__"
"""The channel of a task's error write."""
SCHEDULED = "__scheduled__"
"""The channel marking a scheduled task."""
INTERRUPT = "__interrupt__"
"""The channel of a task's interrupt write."""
RESUME = "__resume__"
"""The channel of a task's resume values."""
WRITES_IDX_MAP: dict[str, int] = {ERROR: -1, SCHEDULED: -2, INTERRUPT: -3, RESUME: -4}
"""The fixed (negative) write index of each special channel: a later write replaces it."""

ChannelVersions: TypeAlias = dict[str, str | int | float]
"""The version of each channel."""
PendingWrite: TypeAlias = tuple[str, str, Any]
"""A pending write: ``(task_id, channel, value)``."""
_logger = logging.getLogger("langgraph.checkpoint.base")
V = TypeVar("V", int, float, str)
"""The type of a saver's channel versions (``BaseCheckpointSaver[str]``...)."""


class CheckpointMetadata(TypedDict, total=False):
    """What a saver keeps beside a checkpoint: ``source``, ``step``, ``parents`` and any key."""

    source: str
    step: int
    parents: dict[str, str]
    run_id: str


class Checkpoint(TypedDict, total=False):
    """A graph's state at one point: channel values and the versions it has seen."""

    v: int
    id: str
    ts: str
    channel_values: dict[str, Any]
    channel_versions: ChannelVersions
    versions_seen: dict[str, ChannelVersions]
    pending_sends: list[Any]
    updated_channels: list[str] | None


class CheckpointTuple(NamedTuple):
    """A stored checkpoint with its config, metadata, parent and pending writes."""

    config: dict[str, Any]
    checkpoint: Checkpoint
    metadata: CheckpointMetadata
    parent_config: dict[str, Any] | None = None
    pending_writes: list[PendingWrite] | None = None


def empty_checkpoint() -> Checkpoint:
    """A checkpoint with no values, a fresh id and the current time."""
    from datetime import UTC, datetime

    return Checkpoint(
        v=1,
        id=str(uuid6()),
        ts=datetime.now(UTC).isoformat(),
        channel_values={},
        channel_versions={},
        versions_seen={},
        pending_sends=[],
        updated_channels=None,
    )


_last_timestamp = 0


def uuid6(node: int | None = None, clock_seq: int | None = None) -> uuid.UUID:
    """A version-6 UUID: time-ordered, so later ids sort after earlier ones."""
    import random
    import time

    global _last_timestamp
    # A coarse clock (Pyodide's) gives one time to many ids: step past the last one so
    # that ids keep the order they were made in.
    timestamp = max(time.time_ns() // 100 + 0x01B21DD213814000, _last_timestamp + 1)
    _last_timestamp = timestamp
    if clock_seq is None or clock_seq < 0:
        clock_seq = random.getrandbits(14)
    if node is None:
        node = random.getrandbits(48)
    time_high_and_mid = (timestamp >> 12) & 0xFFFFFFFFFFFF
    time_low = timestamp & 0x0FFF
    value = time_high_and_mid << 80 | 0x6 << 76 | time_low << 64
    value |= 0x8 << 60 | (clock_seq & 0x3FFF) << 48 | (node & 0xFFFFFFFFFFFF)
    return uuid.UUID(int=value)


def get_checkpoint_id(config: Mapping[str, Any]) -> str | None:
    """The ``checkpoint_id`` a config names, or ``None``."""
    configurable = config.get("configurable") or {}
    found = configurable.get("checkpoint_id")
    return None if found is None else str(found)


def config_parts(config: Mapping[str, Any] | None) -> tuple[str, str, str | None]:
    """``(thread_id, checkpoint_ns, checkpoint_id)`` of a config; the thread is required."""
    configurable = (config or {}).get("configurable") or {}
    thread_id = configurable.get("thread_id")
    if thread_id is None:
        raise ArgumentValueError(
            "the config names no thread: give config={'configurable': {'thread_id': ...}}"
        )
    checkpoint_id = configurable.get("checkpoint_id")
    return (
        str(thread_id),
        str(configurable.get("checkpoint_ns") or ""),
        None if checkpoint_id is None else str(checkpoint_id),
    )


class JsonValueSerializer:
    """A saver's ``serde``: values to ``("json", bytes)`` and back, with the graph's JSON codec."""

    def __init__(self) -> None:
        self._codec = JsonSerde()

    def dumps_typed(self, value: Any) -> tuple[str, bytes]:
        """``("json", the value's JSON bytes)``; a value JSON cannot hold raises."""
        encoded = self._codec.encode(value, key="value", label="a saved value")
        return "json", JsonSerde.dumps(encoded).encode()

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """The value :meth:`dumps_typed` saved."""
        kind, raw = data
        if kind != "json":
            raise ArgumentValueError(f"cannot read a saved value of type {kind!r} (only 'json')")
        return self._codec.decode(JsonSerde.loads(raw.decode()))


class BaseCheckpointSaver(Generic[V]):
    """LangGraph's saver interface: put and read checkpoints by config, async and sync.

    A subclass implements the async methods (``aput``, ``aput_writes``, ``aget_tuple``,
    ``alist``, ``adelete_thread``) or the sync ones; the rest raise
    :class:`NotImplementedError`. Any subclass can be given to ``compile(checkpointer=...)``.
    """

    serde: Any = JsonValueSerializer()
    """How values are turned into bytes and back."""

    def __init__(self, *args: Any, serde: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if serde is not None:
            self.serde = serde

    def _unsupported(self, method: str) -> NotImplementedError:
        return NotImplementedError(f"{type(self).__qualname__} does not implement {method}()")

    def get(self, config: dict[str, Any]) -> Checkpoint | None:
        """The checkpoint the config names (the latest of its thread without an id)."""
        found = self.get_tuple(config)
        return None if found is None else found.checkpoint

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        """The checkpoint tuple the config names, or ``None``."""
        raise self._unsupported("get_tuple")

    def list(
        self,
        config: dict[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """The thread's checkpoints, newest first."""
        raise self._unsupported("list")

    def put(
        self,
        config: dict[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        """Store a checkpoint; returns the config naming it."""
        raise self._unsupported("put")

    def put_writes(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes for the checkpoint the config names."""
        raise self._unsupported("put_writes")

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of the thread, in every namespace."""
        raise self._unsupported("delete_thread")

    async def aget(self, config: dict[str, Any]) -> Checkpoint | None:
        """The checkpoint the config names, async."""
        found = await self.aget_tuple(config)
        return None if found is None else found.checkpoint

    async def aget_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        """The checkpoint tuple the config names, async."""
        raise self._unsupported("aget_tuple")

    def alist(
        self,
        config: dict[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """The thread's checkpoints, newest first, async."""
        raise self._unsupported("alist")

    async def aput(
        self,
        config: dict[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        """Store a checkpoint, async; returns the config naming it."""
        raise self._unsupported("aput")

    async def aput_writes(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes, async."""
        raise self._unsupported("aput_writes")

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of the thread, async."""
        raise self._unsupported("adelete_thread")

    def get_delta_channel_history(
        self, *, config: dict[str, Any], channels: Sequence[str]
    ) -> dict[str, Any]:
        """What each channel wrote along the checkpoint's ancestors (a ``DeltaChannelHistory``).

        Walks from the parent of the checkpoint ``config`` names (the thread's latest
        without an id) to the root, through :meth:`get_tuple`: each channel's writes,
        oldest first, down to the nearest ancestor holding a value for it, given as
        ``seed`` (no ``seed`` when none does). The checkpoint's own writes are left out:
        they make the next checkpoint.
        """
        history = _History(channels)
        found = self.get_tuple(config) if channels else None
        cursor = None if found is None else found.parent_config
        while cursor is not None and history.wanted:
            found = self.get_tuple(cursor)
            cursor = None if found is None else history.add(found)
        return history.result()

    async def aget_delta_channel_history(
        self, *, config: dict[str, Any], channels: Sequence[str]
    ) -> dict[str, Any]:
        """:meth:`get_delta_channel_history` through :meth:`aget_tuple`."""
        history = _History(channels)
        found = await self.aget_tuple(config) if channels else None
        cursor = None if found is None else found.parent_config
        while cursor is not None and history.wanted:
            found = await self.aget_tuple(cursor)
            cursor = None if found is None else history.add(found)
        return history.result()

    def with_allowlist(self, extra_allowlist: Iterable[Any]) -> Any:
        """This saver reading with its serializer's type allowlist widened by ``extra_allowlist``.

        A shallow copy sharing the saver's storage when the serializer has an allowlist
        (``with_msgpack_allowlist``) that the extra types widen; else the saver itself
        (a serializer without one is logged as a warning).
        """
        widen = getattr(self.serde, "with_msgpack_allowlist", None)
        if widen is None:
            _logger.warning(
                "Serializer %s does not support msgpack allowlist. "
                "Strict msgpack deserialization will not be enforced.",
                type(self.serde).__name__,
            )
            return self
        serde = widen(extra_allowlist)
        if serde is self.serde:
            return self
        clone = copy.copy(self)
        clone.serde = serde
        return clone

    def get_next_version(self, current: str | int | float | None, channel: Any = None) -> Any:
        """The version a channel gets when it is written: one more than ``current``."""
        if current is None:
            return 1
        return int(str(current).split(".", 1)[0]) + 1


class _History:
    """The writes and seeds of a walk up a checkpoint's ancestors, one channel each."""

    def __init__(self, channels: Sequence[str]) -> None:
        self.channels = list(channels)
        self.wanted = set(channels)
        self.writes: dict[str, list[PendingWrite]] = {c: [] for c in channels}  # newest first
        self.seeds: dict[str, Any] = {}

    def add(self, found: CheckpointTuple) -> dict[str, Any] | None:
        """Take an ancestor's writes (and seeds); the config of its parent."""
        for write in reversed(found.pending_writes or ()):
            if write[1] in self.wanted:
                self.writes[write[1]].append(write)
        values = found.checkpoint.get("channel_values") or {}
        for channel in [c for c in self.wanted if c in values]:
            self.seeds[channel] = values[channel]
            self.wanted.discard(channel)
        return found.parent_config

    def result(self) -> dict[str, Any]:
        """Each channel's ``{"writes": [oldest first...], "seed": value}`` (no seed: none)."""
        result: dict[str, Any] = {}
        for channel in self.channels:
            entry: dict[str, Any] = {"writes": self.writes[channel][::-1]}
            if channel in self.seeds:
                entry["seed"] = self.seeds[channel]
            result[channel] = entry
        return result


publish(
    "pyctx_web.graph.saver",
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    empty_checkpoint,
    get_checkpoint_id,
)
