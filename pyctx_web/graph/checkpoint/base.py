"""The storage contract of checkpointers.

A checkpointer stores, per thread, an ordered list of checkpoints and, per
checkpoint, the pending writes of its tasks. It stores text: the graph encodes
and decodes the documents (see :mod:`pyctx_web.graph._engine.serde`), so any storage
that keeps strings (SQLite, IndexedDB, a dict) can implement it.

The contract is async so that storages with async APIs (IndexedDB in a
browser) fit it; a sync storage such as SQLite just does its work inside the
``async`` methods.

Rules every implementation follows:

* ``aput`` stores a checkpoint whole or not at all; a failed write leaves the
  previous checkpoints readable.
* ``aput_writes`` stores all the given writes or none; a write replaces an
  earlier one with the same ``(task_id, kind)`` of the same checkpoint.
* ``aput_with_writes`` stores a new checkpoint with writes known when it is
  made (a run's input): a storage with transactions stores both in one, so
  that no crash leaves the checkpoint without them. By default it is
  ``aput`` then ``aput_writes``.
* Reading the latest checkpoint, one checkpoint by id, and storing one, cost
  the same however long the thread's history is.
* ``alist`` yields the newest checkpoint first.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from types import EllipsisType
from typing import Any, TypeAlias

from pyctx_web._records import lazy_dataclass
from pyctx_web.errors import ArgumentValueError

__all__ = [
    "CheckpointRecord",
    "Checkpointer",
    "DocumentCheckpointer",
    "DocumentStore",
    "StoredCheckpoint",
    "StoredWrite",
    "check_limit",
    "expected_latest",
]


@lazy_dataclass(frozen=True, slots=True)
class StoredCheckpoint:
    """One checkpoint as a checkpointer stores it."""

    thread_id: str
    """The thread the checkpoint belongs to."""
    checkpoint_id: str
    """Unique id of the checkpoint within its thread."""
    parent_id: str | None
    """Id of the checkpoint this one follows, or ``None``."""
    created_at: str
    """ISO 8601 UTC time of creation."""
    data: str
    """The encoded checkpoint document (JSON text)."""


@lazy_dataclass(frozen=True, slots=True)
class StoredWrite:
    """A pending write of one task of a checkpoint: its result, question, answers or error."""

    task_id: str
    """The task that produced the write (``""`` for the checkpoint itself)."""
    kind: str
    """What the write holds: ``"result"``, ``"interrupt"``, ``"resume"``, ``"error"``..."""
    data: str
    """The encoded write (JSON text)."""


@lazy_dataclass(frozen=True, slots=True)
class CheckpointRecord:
    """A stored checkpoint with its pending writes."""

    checkpoint: StoredCheckpoint
    """The checkpoint."""
    writes: tuple[StoredWrite, ...]
    """Its pending writes, in the order they were first stored."""


class Checkpointer(ABC):
    """Base class of checkpointers: async storage of checkpoints and pending writes."""

    @abstractmethod
    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        """Return the checkpoint ``checkpoint_id`` of the thread (the latest when ``None``).

        ``None`` when the thread has no checkpoints or no checkpoint with that id.
        """

    @abstractmethod
    async def aput(
        self, checkpoint: StoredCheckpoint, *, latest: str | EllipsisType | None = ...
    ) -> None:
        """Store a new checkpoint as the latest of its thread, in one transaction.

        Only if the thread's latest checkpoint is still ``latest`` (by default the
        checkpoint's parent; ``None`` for a thread with none), checked in the same
        transaction: otherwise nothing is written and
        :class:`~pyctx_web.graph.errors.ThreadBusyError` says another run wrote
        the thread first. A checkpoint id the thread already has is refused first.
        """

    @abstractmethod
    async def aput_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
    ) -> None:
        """Store pending writes of a checkpoint, all or none, replacing same ``(task_id, kind)``."""

    async def aput_with_writes(
        self,
        checkpoint: StoredCheckpoint,
        writes: Sequence[StoredWrite],
        *,
        latest: str | EllipsisType | None = ...,
    ) -> None:
        """Store a new checkpoint as :meth:`aput` does, with pending writes of its own.

        The graph calls it for a checkpoint whose writes exist when it is made (the
        input of a run). A storage with transactions overrides it to store both in
        one, all or nothing; this default stores the checkpoint, then the writes.
        """
        await self.aput(checkpoint, latest=latest)
        if writes:
            await self.aput_writes(checkpoint.thread_id, checkpoint.checkpoint_id, writes)

    @abstractmethod
    def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> AsyncIterator[CheckpointRecord]:
        """Yield the thread's checkpoints newest first.

        ``before`` starts below the checkpoint with that id (a
        :class:`~pyctx_web.graph.errors.CheckpointError` if the thread has
        none); ``limit`` caps how many are yielded.
        """

    @abstractmethod
    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of the thread."""

    def hold_thread(self, thread_id: str, *, wait: bool) -> AbstractAsyncContextManager[None]:
        """Hold ``thread_id`` for the length of one run, where the storage can.

        Entered before the run reads the thread, left when it ends. A storage
        shared by several programs at once (browser tabs) may refuse a thread
        another of them holds with :class:`~pyctx_web.graph.errors.ThreadBusyError`,
        or with ``wait`` queue until it is free. The default holds nothing: the
        compare-and-set of :meth:`aput` alone keeps the thread whole.
        """
        return nullcontext()


DocumentStore: TypeAlias = Callable[
    [str, str, str | None, str, Any, Callable[[Any], str], Any], None
]
"""A function storing a checkpoint's document at once: the arguments of
:meth:`DocumentCheckpointer.aput_document` in its order, ``latest`` last."""


class DocumentCheckpointer(Checkpointer):
    """A checkpointer that keeps a checkpoint as its document, not as text (one in memory).

    The graph calls :meth:`aput_document` instead of :meth:`aput`, with the checkpoint's
    document in a compact form of the graph's own: a tree of tuples, dicts, lists, str,
    int, float, bool and None made for this checkpoint alone, which nothing else holds.
    Kept as it is (or copied, as with ``marshal``), it needs no JSON text until the
    checkpoint is read; ``to_text`` makes the text :meth:`aput` would have been given.
    """

    @abstractmethod
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
        """Store a new checkpoint given as its document, as :meth:`aput` stores one."""

    def document_store(self) -> DocumentStore | None:
        """A function that stores a document at once as :meth:`aput_document` does, or ``None``.

        A storage that never waits (memory) gives one, and the graph stores each step's
        checkpoint with it, without a coroutine. ``None``, the default: the graph awaits
        :meth:`aput_document`.
        """
        return None


def expected_latest(checkpoint: StoredCheckpoint, latest: str | EllipsisType | None) -> str | None:
    """The latest checkpoint id ``aput`` expects: ``latest``, or the checkpoint's parent."""
    return checkpoint.parent_id if latest is ... else latest


def check_limit(limit: int | None) -> None:
    """Raise if ``limit`` is not ``None`` or an int >= 0."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise ArgumentValueError(f"limit must be None or an int >= 0, not {limit!r}")
