"""How a run reads and writes its thread: checkpoints and pending writes, encoded."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.records import (
    Checkpoint,
    Pending,
    TaskRecord,
    TaskResult,
    TaskSpec,
    checkpoint_parts,
    decode_record,
    encode_checkpoint,
    encode_input_update,
    encode_write,
    parts_text,
)
from pyctx_web.graph.constants import START
from pyctx_web.graph.errors import GraphConfigError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.channels import StateSchema
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.serde import JsonSerde
    from pyctx_web.graph.checkpoint.base import Checkpointer, DocumentCheckpointer, StoredWrite

__all__ = ["CheckpointAccess"]


class CheckpointAccess:
    """One run's reads and writes of its checkpointer (none for a graph compiled without one).

    ``durability`` says when checkpoints are written, as LangGraph's:
    ``"sync"`` before the next step starts, ``"async"`` while it runs (the write
    is awaited before the next one and when the run stops), ``"exit"`` only
    when the run stops (completes, pauses or fails), so a thread keeps no
    checkpoint of the steps in between.
    """

    __slots__ = (
        "_documents",
        "_expected",
        "_last_saved",
        "_saving",
        "_store_now",
        "_unsaved",
        "_unsaved_writes",
        "checkpointer",
        "durability",
        "run",
        "schema",
        "serde",
    )

    def __init__(
        self,
        checkpointer: Checkpointer | None,
        serde: JsonSerde,
        schema: StateSchema,
        run: Run,
        durability: str = "sync",
    ) -> None:
        self.checkpointer = checkpointer
        self.serde = serde
        self.schema = schema
        self.run = run
        self.durability = durability
        self._saving: asyncio.Future[None] | None = None
        self._unsaved: Checkpoint | None = None
        self._unsaved_writes: list[StoredWrite] | None = None
        self._last_saved: str | None = None
        self._documents = _document_saver(checkpointer)
        """The checkpointer again when it keeps checkpoints as documents, else ``None``."""
        self._store_now = self._documents.document_store() if self._documents else None
        """Stores a document at once (see :meth:`saved_now`), when the checkpointer can."""
        self._expected: str | EllipsisType | None = ...
        """The thread's latest checkpoint as this run last saw it (``...``: not read yet)."""

    async def save_checkpoint(self, cp: Checkpoint, writes: Sequence[StoredWrite] = ()) -> None:
        """Write ``cp`` if the graph has a checkpointer; without one nothing is encoded.

        ``writes`` are the encoded pending writes ``cp`` is made with (a run's input): stored
        with it, in one transaction where the checkpointer has them (``aput_with_writes``).
        """
        if self.checkpointer is None:
            return
        if self.durability == "exit":
            self._unsaved, self._unsaved_writes = cp, list(writes)
            return
        if self._saving is not None:
            await self._settle()
        # Compare-and-set: written only on top of the latest checkpoint this run saw.
        saving = self._put(cp, self._expected, writes)
        self._expected = cp.id
        if self.durability == "async":
            self._saving = asyncio.ensure_future(saving)
        else:
            await saving
        self._last_saved = cp.id

    def saved_now(self, cp: Checkpoint) -> bool:
        """Save ``cp`` as :meth:`save_checkpoint` does, at once when that needs no waiting.

        It needs none without a checkpointer, nor with one that stores documents at once
        (in memory) when checkpoints are saved before the next step (``"sync"``).
        ``False``: nothing was done, await :meth:`save_checkpoint`.
        """
        store = self._store_now
        if self.checkpointer is not None and (store is None or self.durability != "sync"):
            return False
        if store is not None:
            parts = checkpoint_parts(self.serde, _tracked(self.schema, cp))
            store(
                cp.thread_id, cp.id, cp.parent_id, cp.created_at, parts, parts_text, self._expected
            )
            self._expected = self._last_saved = cp.id
        return True

    def _put(
        self,
        cp: Checkpoint,
        expected: str | EllipsisType | None,
        writes: Sequence[StoredWrite] = (),
    ) -> Awaitable[None]:
        """Store ``cp`` (with ``writes``): its document to a checkpointer that keeps documents,
        else its text.

        Encoded at once, so that a value that cannot be stored fails this call, before
        anything is written or the run's view of the thread changes.
        """
        cp = _tracked(self.schema, cp)
        if self._documents is not None:
            parts = checkpoint_parts(self.serde, cp)
            stored = self._documents.aput_document(
                cp.thread_id, cp.id, cp.parent_id, cp.created_at, parts, parts_text, latest=expected
            )
            return _then_writes(stored, self._documents, cp, writes) if writes else stored
        assert self.checkpointer is not None
        text = encode_checkpoint(self.serde, cp)
        if writes:
            return self.checkpointer.aput_with_writes(text, writes, latest=expected)
        return self.checkpointer.aput(text, latest=expected)

    async def _settle(self) -> None:
        """Wait for the checkpoint being written in the background, if any."""
        saving = self._saving
        if saving is None:
            return
        # Every writer of a parallel step waits for it, not only the first that asks:
        # it is forgotten once it is done.
        try:
            await saving
        finally:
            if self._saving is saving and saving.done():
                self._saving = None

    async def put_writes(self, cp: Checkpoint, writes: list[StoredWrite]) -> None:
        """Write encoded pending writes of ``cp``, after ``cp`` itself."""
        assert self.checkpointer is not None
        if self._unsaved is not None and self._unsaved.id == cp.id:
            assert self._unsaved_writes is not None
            self._unsaved_writes.extend(writes)
            return
        await self._settle()
        await self.checkpointer.aput_writes(cp.thread_id, cp.id, writes)

    async def finish(self) -> None:
        """Write what the run's durability held back; call when the run stops."""
        await self._settle()
        cp, writes = self._unsaved, self._unsaved_writes or []
        if cp is None or self.checkpointer is None:
            return
        self._unsaved = self._unsaved_writes = None
        # The checkpoints in between were not written: the parent is the last one that was.
        cp.parent_id = self._last_saved
        saving = self._put(cp, self._expected, writes)
        self._expected = cp.id
        await saving
        self._last_saved = cp.id

    async def save_writes(
        self,
        cp: Checkpoint,
        items: Sequence[tuple[TaskSpec | None, str, TaskRecord]],
        *,
        input_updates: Sequence[tuple[str, Any]] | None = None,
    ) -> None:
        """Write pending writes of ``cp`` in one transaction.

        ``input_updates`` replaces the step's stored ``Command(update=...)`` writes.
        """
        if self.checkpointer is None or not (items or input_updates is not None):
            return
        untracked = self.schema.untracked
        writes = [
            encode_write(
                self.serde, task, kind, _tracked_record(rec, untracked) if untracked else rec
            )
            for task, kind, rec in items
        ]
        if input_updates is not None:
            writes.append(encode_input_update(self.serde, input_updates))
        await self.put_writes(cp, writes)

    async def save_input_updates(self, cp: Checkpoint, pending: Pending) -> None:
        """Write the ``Command(update=...)`` given with the answers of the step of ``cp``,
        which has finished, before the next checkpoint: the record of the step keeps them
        (its snapshot in the history shows them, as LangGraph's shows its null writes)."""
        pending.unsaved_updates = False
        await self.save_writes(cp, [], input_updates=pending.input_updates)

    def require_thread(self, thread_id: str | None, what: str) -> str:
        """``thread_id``, or :class:`GraphConfigError` when ``what`` cannot run without one."""
        if self.checkpointer is None:
            raise GraphConfigError(
                f"{what} needs a checkpointer: compile(checkpointer=InMemorySaver())"
            )
        if thread_id is None:
            raise GraphConfigError(
                f"{what} needs a thread_id because the graph has a checkpointer: pass "
                f"config={{'configurable': {{'thread_id': '...'}}}} (or thread_id='...')"
            )
        return thread_id

    async def load(
        self, thread_id: str, checkpoint_id: str | None
    ) -> tuple[Checkpoint, Pending] | None:
        """The thread's latest checkpoint (or ``checkpoint_id``) and its pending writes.

        ``None`` when the thread has none; :class:`GraphConfigError` when the named
        checkpoint does not exist. ``Command(update=...)`` writes given to a paused
        step are applied to the values, as the step's tasks see them.
        """
        assert self.checkpointer is not None
        record = await self.checkpointer.aget(thread_id, checkpoint_id)
        if record is None and checkpoint_id is None:
            self._expected = None  # a new thread: nothing may have been written meanwhile
        if record is None:
            if checkpoint_id is not None:
                raise GraphConfigError(f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}")
            return None
        cp, pending = decode_record(self.serde, record)
        self._last_saved = cp.id
        if checkpoint_id is None:
            self._expected = cp.id
        if pending.input_updates:
            starts = [(START, k, v) for k, v in pending.input_updates]
            cp.values = self.schema.apply(cp.values, starts)
        return cp, pending


def _tracked(schema: StateSchema, cp: Checkpoint) -> Checkpoint:
    """``cp`` as stored: without the values of untracked keys (``UntrackedValue``), in its
    state and in what its nodes wrote."""
    untracked = schema.untracked
    if not untracked or (untracked.isdisjoint(cp.values) and not cp.writes):
        return cp
    values = {key: value for key, value in cp.values.items() if key not in untracked}
    writes = cp.writes
    if writes:
        writes = {node: _without(update, untracked) for node, update in writes.items()}
    return Checkpoint(
        cp.id,
        cp.thread_id,
        cp.parent_id,
        cp.created_at,
        cp.step,
        cp.source,
        values,
        cp.tasks,
        cp.last_nodes,
        writes,
        cp.skip_breakpoint,
        cp.answered,
        cp.barriers,
        cp.meta,
    )


def _without(update: Any, keys: frozenset[str]) -> Any:
    """A node's update (a dict, or a list of them) without ``keys``."""
    if isinstance(update, dict):
        return {key: value for key, value in update.items() if key not in keys}
    if isinstance(update, list):
        return [_without(part, keys) for part in update]
    return update


def _tracked_record(rec: TaskRecord, untracked: frozenset[str]) -> TaskRecord:
    """``rec`` as its pending write is stored: its result without untracked keys."""
    result = rec.result
    if result is None or all(key not in untracked for key, _ in result.updates):
        return rec
    kept = TaskResult([(k, v) for k, v in result.updates if k not in untracked], result.goto)
    return TaskRecord(
        kept, rec.interrupt, rec.interrupt_index, rec.answers, rec.error, rec.task_results
    )


async def _then_writes(
    stored: Awaitable[None], saver: Checkpointer, cp: Checkpoint, writes: Sequence[StoredWrite]
) -> None:
    """Wait for ``cp`` to be stored, then store ``writes`` of it."""
    await stored
    await saver.aput_writes(cp.thread_id, cp.id, writes)


def _document_saver(checkpointer: Checkpointer | None) -> DocumentCheckpointer | None:
    """``checkpointer`` if it keeps checkpoints as documents (:class:`DocumentCheckpointer`)."""
    if checkpointer is None:
        return None
    # Imported here: a graph without a checkpointer never needs the storage contract.
    from pyctx_web.graph.checkpoint.base import DocumentCheckpointer

    return checkpointer if isinstance(checkpointer, DocumentCheckpointer) else None
