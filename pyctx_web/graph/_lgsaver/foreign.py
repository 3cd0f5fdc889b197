"""A LangGraph ``BaseCheckpointSaver`` of the user's own, as a graph's checkpointer.

:func:`as_checkpointer` gives the graph a checkpointer for whatever
``compile(checkpointer=...)`` got: pyctx_web's savers as they are, and any other
:class:`~.types.BaseCheckpointSaver` subclass wrapped in :class:`ForeignSaver`, which
keeps each of the graph's checkpoints as one LangGraph checkpoint: its stored document in
the channel ``__pyctx_document__``, its pending writes as writes on channels named by
their kind.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from types import EllipsisType
from typing import Any

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph._lgsaver.types import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointTuple,
    get_checkpoint_id,
)
from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    StoredCheckpoint,
    StoredWrite,
    check_limit,
    expected_latest,
)
from pyctx_web.graph.errors import CheckpointExistsError, ThreadBusyError

__all__ = ["ForeignSaver", "as_checkpointer"]

_CHANNEL = "__pyctx_document__"


def as_checkpointer(saver: object) -> Checkpointer | None:
    """The checkpointer a graph uses for ``saver``; raises if it is no saver."""
    if saver is None or isinstance(saver, Checkpointer):
        return saver
    if isinstance(saver, BaseCheckpointSaver):
        return ForeignSaver(saver)
    raise ArgumentTypeError(
        "checkpointer must be a checkpoint saver (InMemorySaver, SqliteSaver...),"
        f" not {type(saver).__qualname__!r}"
    )


def _config(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _overrides(saver: BaseCheckpointSaver[Any], method: str) -> bool:
    return getattr(type(saver), method) is not getattr(BaseCheckpointSaver, method)


class ForeignSaver(Checkpointer):
    """The graph's storage contract over a LangGraph saver (see the module)."""

    def __init__(self, saver: BaseCheckpointSaver[Any]) -> None:
        self.saver = saver
        """The wrapped saver."""
        # A saver written with the sync forms only is called through them.
        self._sync = not _overrides(saver, "aput") and _overrides(saver, "put")

    async def _get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        if self._sync:
            return self.saver.get_tuple(config)
        return await self.saver.aget_tuple(config)

    def _record(self, found: CheckpointTuple) -> CheckpointRecord:
        thread_id = str(found.config["configurable"]["thread_id"])
        parent = None if found.parent_config is None else get_checkpoint_id(found.parent_config)
        checkpoint = found.checkpoint
        stored = StoredCheckpoint(
            thread_id,
            str(checkpoint["id"]),
            parent,
            str(checkpoint.get("ts", "")),
            str(checkpoint.get("channel_values", {}).get(_CHANNEL, "")),
        )
        writes = tuple(
            StoredWrite(task_id, channel, value)
            for task_id, channel, value in found.pending_writes or ()
        )
        return CheckpointRecord(stored, writes)

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        """The checkpoint the saver keeps for the thread (the latest when ``None``)."""
        found = await self._get_tuple(_config(thread_id, checkpoint_id))
        return None if found is None else self._record(found)

    async def aput(
        self, checkpoint: StoredCheckpoint, *, latest: str | EllipsisType | None = ...
    ) -> None:
        """Store the checkpoint as the thread's latest, if ``latest`` still is (checked first)."""
        thread_id = checkpoint.thread_id
        if await self._get_tuple(_config(thread_id, checkpoint.checkpoint_id)) is not None:
            raise CheckpointExistsError(thread_id, checkpoint.checkpoint_id)
        current = await self._get_tuple(_config(thread_id))
        current_id = None if current is None else get_checkpoint_id(current.config)
        if current_id != expected_latest(checkpoint, latest):
            raise ThreadBusyError(thread_id)
        document = Checkpoint(
            v=1,
            id=checkpoint.checkpoint_id,
            ts=checkpoint.created_at,
            channel_values={_CHANNEL: checkpoint.data},
            channel_versions={_CHANNEL: 1},
            versions_seen={},
            pending_sends=[],
            updated_channels=[_CHANNEL],
        )
        metadata: Any = {"source": "loop", "step": -1, "parents": {}}
        config = _config(thread_id, checkpoint.parent_id)
        if self._sync:
            self.saver.put(config, document, metadata, {_CHANNEL: 1})
        else:
            await self.saver.aput(config, document, metadata, {_CHANNEL: 1})

    async def aput_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
    ) -> None:
        """Store the writes, one call of the saver per task."""
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for write in writes:
            by_task.setdefault(write.task_id, []).append((write.kind, write.data))
        config = _config(thread_id, checkpoint_id)
        for task_id, task_writes in by_task.items():
            if self._sync:
                self.saver.put_writes(config, task_writes, task_id)
            else:
                await self.saver.aput_writes(config, task_writes, task_id)

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> AsyncIterator[CheckpointRecord]:
        """The thread's checkpoints newest first, as the saver lists them."""
        check_limit(limit)
        cursor = None if before is None else _config(thread_id, before)
        if self._sync:
            for found in self.saver.list(_config(thread_id), before=cursor, limit=limit):
                yield self._record(found)
            return
        async for found in self.saver.alist(_config(thread_id), before=cursor, limit=limit):
            yield self._record(found)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete the thread in the saver."""
        if self._sync:
            self.saver.delete_thread(thread_id)
        else:
            await self.saver.adelete_thread(thread_id)
