"""A checkpoint saver that keeps checkpoints in process memory (``langgraph.checkpoint.memory``)."""

from __future__ import annotations

import marshal
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import field
from types import EllipsisType
from typing import Any, TypeAlias

from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.checkpoint.base import (
    CheckpointRecord,
    DocumentCheckpointer,
    DocumentStore,
    StoredCheckpoint,
    StoredWrite,
    check_limit,
)
from pyctx_web.graph.errors import CheckpointExistsError, CheckpointNotFoundError, ThreadBusyError

__all__ = ["InMemorySaver", "MemorySaver"]


@record(slots=True)
class _Thread:
    """The checkpoints and writes of one thread."""

    thread_id: str
    """The thread's id."""
    order: list[str] = field(default_factory=list)
    """Checkpoint ids, oldest first."""
    position: dict[str, int] = field(default_factory=dict)
    """Index of each checkpoint id in ``order``."""
    checkpoints: dict[str, StoredCheckpoint | _Document] = field(default_factory=dict)
    """Checkpoints by id: as text, or as the document the graph gave, until it is read."""
    writes: dict[str, dict[tuple[str, str], StoredWrite]] = field(default_factory=dict)
    """Pending writes by checkpoint id, then by ``(task_id, kind)``."""


_Document: TypeAlias = tuple[str | None, str, bytes, Callable[[Any], str]]
"""A checkpoint as the graph gave it: its parent id, its creation time, and its document in
``marshal`` form, a copy as isolated as text that costs a fraction of JSON to make, with the
function that makes that text when it is read. A plain tuple: one is stored per step."""


class InMemorySaver(DocumentCheckpointer):
    """Stores checkpoints in a dict; they live as long as this object.

    A checkpoint is kept as its encoded document in ``marshal`` form, a copy that
    shares nothing with the run's values, and read back as the same JSON text a
    persistent checkpointer stores, so a run behaves the same with either. The
    text is made when the checkpoint is first read, not when a step writes it.
    """

    def __init__(self) -> None:
        self._threads: dict[str, _Thread] = {}

    def _record(self, thread: _Thread, checkpoint_id: str) -> CheckpointRecord:
        writes = thread.writes.get(checkpoint_id, {})
        stored = thread.checkpoints[checkpoint_id]
        if not isinstance(stored, StoredCheckpoint):  # a document
            parent_id, created_at, data, to_text = stored
            text = to_text(marshal.loads(data))
            stored = StoredCheckpoint(thread.thread_id, checkpoint_id, parent_id, created_at, text)
            thread.checkpoints[checkpoint_id] = stored
        return CheckpointRecord(stored, tuple(writes.values()))

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        """Return the latest checkpoint of the thread, or the one with ``checkpoint_id``."""
        thread = self._threads.get(thread_id)
        if thread is None or not thread.order:
            return None
        if checkpoint_id is None:
            checkpoint_id = thread.order[-1]
        elif checkpoint_id not in thread.checkpoints:
            return None
        return self._record(thread, checkpoint_id)

    async def aput(
        self, checkpoint: StoredCheckpoint, *, latest: str | EllipsisType | None = ...
    ) -> None:
        """Store ``checkpoint`` as the latest of its thread, if ``latest`` still is (see base)."""
        self._store(
            checkpoint.thread_id, checkpoint.checkpoint_id, checkpoint.parent_id, checkpoint, latest
        )

    async def aput_document(
        self,
        thread_id: str,
        checkpoint_id: str,
        parent_id: str | None,
        created_at: str,
        document: Any,
        to_text: Callable[[Any], str],
        *,
        latest: str | EllipsisType | None = ...,
    ) -> None:
        """Store a checkpoint given as its document, as :meth:`aput` stores one."""
        self.put_document(
            thread_id, checkpoint_id, parent_id, created_at, document, to_text, latest
        )

    def document_store(self) -> DocumentStore | None:
        """:meth:`put_document`, unless a subclass changed :meth:`aput_document`."""
        # A subclass that overrides aput_document (to watch or change what is stored) is
        # awaited as usual.
        if type(self).aput_document is not InMemorySaver.aput_document:
            return None
        return self.put_document

    def put_document(
        self,
        thread_id: str,
        checkpoint_id: str,
        parent_id: str | None,
        created_at: str,
        document: Any,
        to_text: Callable[[Any], str],
        latest: str | EllipsisType | None = ...,
    ) -> None:
        """:meth:`aput_document` done at once: memory needs no waiting."""
        stored: StoredCheckpoint | _Document
        try:
            stored = (parent_id, created_at, marshal.dumps(document), to_text)
        except ValueError:
            # marshal takes the exact JSON types only; a subclass of one (a str subclass a
            # node wrote) is kept as the text it stands for.
            text = to_text(document)
            stored = StoredCheckpoint(thread_id, checkpoint_id, parent_id, created_at, text)
        self._store(thread_id, checkpoint_id, parent_id, stored, latest)

    def _store(
        self,
        thread_id: str,
        checkpoint_id: str,
        parent_id: str | None,
        stored: StoredCheckpoint | _Document,
        latest: str | EllipsisType | None,
    ) -> None:
        thread = self._threads.get(thread_id)
        if thread is None:
            thread = self._threads[thread_id] = _Thread(thread_id)
        checkpoints, order = thread.checkpoints, thread.order
        if checkpoint_id in checkpoints:
            raise CheckpointExistsError(thread_id, checkpoint_id)
        if (order[-1] if order else None) != (parent_id if latest is ... else latest):
            if not order:
                del self._threads[thread_id]
            raise ThreadBusyError(thread_id)
        thread.position[checkpoint_id] = len(order)
        order.append(checkpoint_id)
        checkpoints[checkpoint_id] = stored

    async def aput_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
    ) -> None:
        """Store pending writes of checkpoint ``checkpoint_id``, all or none."""
        # Read the whole batch before storing any of it, so that a failure part-way
        # through the sequence stores nothing.
        batch = list(writes)
        for write in batch:
            if not isinstance(write, StoredWrite):
                raise ArgumentTypeError(
                    f"writes must be StoredWrite objects, not {type(write).__name__!r}"
                )
        thread = self._threads.get(thread_id)
        if thread is None or checkpoint_id not in thread.checkpoints:
            raise CheckpointNotFoundError(thread_id, checkpoint_id, action="store writes")
        stored = thread.writes.setdefault(checkpoint_id, {})
        for write in batch:
            stored[(write.task_id, write.kind)] = write

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> AsyncIterator[CheckpointRecord]:
        """Yield the thread's checkpoints newest first."""
        check_limit(limit)
        thread = self._threads.get(thread_id)
        if thread is None:
            if before is not None:
                raise CheckpointNotFoundError(thread_id, before)
            return
        if before is None:
            start = len(thread.order) - 1
        elif before in thread.position:
            start = thread.position[before] - 1
        else:
            raise CheckpointNotFoundError(thread_id, before)
        stop = -1 if limit is None else max(start - limit, -1)
        for index in range(start, stop, -1):
            yield self._record(thread, thread.order[index])

    async def adelete_thread(self, thread_id: str) -> None:
        """Forget every checkpoint of the thread."""
        self._threads.pop(thread_id, None)


MemorySaver = InMemorySaver
"""LangGraph's other name for :class:`InMemorySaver`."""
