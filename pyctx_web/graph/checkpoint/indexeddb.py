"""A checkpointer on IndexedDB, for Pyodide in a browser page or a Web Worker.

Threads survive a page reload: every checkpointer object opened on the same
database name (in this page, a later page or another tab of the origin) sees
the same checkpoints.

Storage (database version 1):

* object store ``checkpoints``, key path ``[thread_id, seq]``, where ``seq``
  numbers the checkpoints of a thread from 1; a unique index ``by_id`` on
  ``[thread_id, checkpoint_id]``. The latest checkpoint is the first entry of
  a ``"prev"`` cursor over the thread's key range, one checkpoint is one index
  lookup, and a new one reads only the thread's last key: the cost does not
  grow with the history.
* object store ``writes``, key path ``[thread_id, checkpoint_id, task_id,
  kind]``: a write replaces an earlier one with the same task and kind; a
  ``seq`` field keeps the order in which each pair was first stored.

Every operation is one IndexedDB transaction whose requests are all issued
from JavaScript callbacks of that transaction, so it cannot commit early
while Python code runs; a checkpoint (with the writes it is made with, for
``aput_with_writes``) or a batch of writes is stored whole or not at all.
The JavaScript side resolves each operation with a JSON text:
no Python object is ever handed to JavaScript, so no proxy can leak
(the connection is :mod:`pyctx_web.graph.checkpoint._idb`'s, shared with the
IndexedDB store).

Outside Pyodide in a browser the module imports, and constructing the
checkpointer raises :class:`~pyctx_web.errors.JsUnavailableError`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from types import EllipsisType
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError, JsUnavailableError
from pyctx_web.graph.checkpoint import _tabs
from pyctx_web.graph.checkpoint._idb import Database, failed, indexeddb_missing
from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    StoredCheckpoint,
    StoredWrite,
    check_limit,
    expected_latest,
)
from pyctx_web.graph.errors import (
    CheckpointExistsError,
    CheckpointNotFoundError,
    CheckpointStorageError,
    CorruptCheckpointError,
    ThreadBusyError,
)

__all__ = ["SCHEMA_VERSION", "IndexedDBSaver"]

SCHEMA_VERSION: Final = 1
"""The IndexedDB version of the database layout described in the module docstring."""


def _require_browser() -> None:
    where = indexeddb_missing()
    if where is not None:
        raise JsUnavailableError(
            "IndexedDBSaver needs Pyodide in a browser (a page or a Web Worker) "
            f"with IndexedDB; this is {where}. Use SqliteSaver elsewhere."
        )


def _is_text(value: object) -> bool:
    return isinstance(value, str)


class IndexedDBSaver(Checkpointer):
    """Stores checkpoints in the IndexedDB database ``database_name`` of the page's origin.

    The connection opens on first use (creating the stores) and closes with
    :meth:`close`. Several checkpointers may share one database: each
    operation is its own transaction. When another connection upgrades or
    deletes the database, this one closes and reopens on its next use.
    ``page_size`` is how many checkpoints :meth:`alist` reads per transaction.
    """

    def __init__(self, database_name: str = "pyctx_web", *, page_size: int = 100) -> None:
        _require_browser()
        if not isinstance(database_name, str) or not database_name:
            raise ArgumentValueError(
                f"database_name must be a non-empty str, not {database_name!r}"
            )
        if not isinstance(page_size, int) or isinstance(page_size, bool) or page_size < 1:
            raise ArgumentValueError(f"page_size must be an int >= 1, not {page_size!r}")
        self.database_name = database_name
        self._page_size = page_size
        self._db = Database(
            "indexeddb",
            database_name,
            SCHEMA_VERSION,
            error=CheckpointStorageError,
            source="the stored data",
        )

    def __repr__(self) -> str:
        return f"IndexedDBSaver({self.database_name!r})"

    async def setup(self) -> None:
        """Open the database now, creating its stores, rather than at the first call: as
        ``await AsyncPostgresSaver.setup()`` prepares LangGraph's, so that a first run does
        not wait for it. Calling it again, or while a call opens it, opens nothing more.

        Raises :class:`CheckpointStorageError` when the database cannot be opened.
        """
        await self._db.connection()

    def close(self) -> None:
        """Close the connection; the next call opens it again."""
        self._db.close()

    def __enter__(self) -> IndexedDBSaver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _record(self, thread_id: str, raw: dict[str, Any]) -> CheckpointRecord:
        cp = raw["checkpoint"]
        checkpoint_id = cp["checkpoint_id"]
        shown = checkpoint_id if _is_text(checkpoint_id) else "?"

        def corrupt(what: str, value: object) -> CorruptCheckpointError:
            found = value["corrupt"] if isinstance(value, dict) else type(value).__name__
            return CorruptCheckpointError(thread_id, str(shown), f"{what} is {found!r}, not text")

        for name in ("checkpoint_id", "created_at", "data"):
            if not _is_text(cp[name]):
                raise corrupt(f"its {name}", cp[name])
        if cp["parent_id"] is not None and not _is_text(cp["parent_id"]):
            raise corrupt("its parent_id", cp["parent_id"])
        writes: list[tuple[float, StoredWrite]] = []
        for w in raw["writes"]:
            for name in ("task_id", "kind", "data"):
                if not _is_text(w[name]):
                    raise corrupt(f"the {name} of a pending write", w[name])
            seq = w["seq"]
            if not isinstance(seq, int | float) or isinstance(seq, bool):
                raise corrupt("the position of a pending write", seq)
            writes.append((seq, StoredWrite(w["task_id"], w["kind"], w["data"])))
        writes.sort(key=lambda item: item[0])
        stored = StoredCheckpoint(
            thread_id, checkpoint_id, cp["parent_id"], cp["created_at"], cp["data"]
        )
        return CheckpointRecord(stored, tuple(w for _, w in writes))

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        """Return the latest checkpoint of the thread, or the one with ``checkpoint_id``."""
        what = f"read thread {thread_id!r}"
        if checkpoint_id is None:
            outcome = await self._db.call("latest", thread_id, what=what)
        else:
            outcome = await self._db.call("byId", thread_id, checkpoint_id, what=what)
        if outcome["status"] != "ok":
            raise CheckpointStorageError(
                what, failed(outcome), thread_id=thread_id, checkpoint_id=checkpoint_id
            )
        raw = outcome["value"]
        return None if raw is None else self._record(thread_id, raw)

    async def aput(
        self, checkpoint: StoredCheckpoint, *, latest: str | EllipsisType | None = ...
    ) -> None:
        """Store ``checkpoint`` as the latest of its thread, in one transaction.

        Only if the thread's latest checkpoint is still ``latest`` (see the base
        class), read in the same readwrite transaction, which IndexedDB runs
        after any other on the store, from any tab.
        """
        await self._put(checkpoint, (), latest)

    async def aput_with_writes(
        self,
        checkpoint: StoredCheckpoint,
        writes: Sequence[StoredWrite],
        *,
        latest: str | EllipsisType | None = ...,
    ) -> None:
        """Store ``checkpoint`` as :meth:`aput` does and its ``writes``, in one transaction:
        both or neither."""
        await self._put(checkpoint, writes, latest)

    async def _put(
        self,
        checkpoint: StoredCheckpoint,
        writes: Sequence[StoredWrite],
        latest: str | EllipsisType | None,
    ) -> None:
        payload = json.dumps(
            {
                "thread_id": checkpoint.thread_id,
                "checkpoint_id": checkpoint.checkpoint_id,
                "parent_id": checkpoint.parent_id,
                "created_at": checkpoint.created_at,
                "data": checkpoint.data,
                "expected": expected_latest(checkpoint, latest),
                "writes": [[w.task_id, w.kind, w.data] for w in writes],
            }
        )
        what = f"write checkpoint {checkpoint.checkpoint_id!r} of thread {checkpoint.thread_id!r}"
        outcome = await self._db.call("put", payload, what=what)
        if outcome["status"] == "ok":
            _tabs.announce(
                self.database_name, checkpoint.thread_id, "checkpoint", checkpoint.checkpoint_id
            )
            return
        if outcome["status"] == "busy":
            raise ThreadBusyError(checkpoint.thread_id)
        if outcome["status"] == "duplicate":
            raise CheckpointExistsError(checkpoint.thread_id, checkpoint.checkpoint_id)
        raise CheckpointStorageError(
            what,
            failed(outcome),
            thread_id=checkpoint.thread_id,
            checkpoint_id=checkpoint.checkpoint_id,
        )

    async def aput_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
    ) -> None:
        """Store pending writes of checkpoint ``checkpoint_id`` in one transaction."""
        payload = json.dumps([[w.task_id, w.kind, w.data] for w in writes])
        outcome = await self._db.call(
            "putWrites",
            thread_id,
            checkpoint_id,
            payload,
            what=f"store writes of checkpoint {checkpoint_id!r} of thread {thread_id!r}",
        )
        if outcome["status"] == "ok":
            return
        if outcome["status"] == "missing":
            raise CheckpointNotFoundError(thread_id, checkpoint_id, action="store writes")
        raise CheckpointStorageError(
            f"store writes of checkpoint {checkpoint_id!r} of thread {thread_id!r}",
            failed(outcome),
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> AsyncIterator[CheckpointRecord]:
        """Yield the thread's checkpoints newest first, one transaction per page."""
        check_limit(limit)
        remaining = limit
        below: int | None = None
        first = True
        while remaining is None or remaining > 0:
            size = self._page_size if remaining is None else min(self._page_size, remaining)
            outcome = await self._db.call(
                "page",
                thread_id,
                before if first else None,
                below,
                size,
                what=f"list thread {thread_id!r}",
            )
            if outcome["status"] == "missing":
                assert before is not None
                raise CheckpointNotFoundError(thread_id, before)
            if outcome["status"] != "ok":
                raise CheckpointStorageError(
                    f"list thread {thread_id!r}", failed(outcome), thread_id=thread_id
                )
            first = False
            page: list[dict[str, Any]] = outcome["value"]
            for raw in page:
                seq = raw["checkpoint"]["seq"]
                record = self._record(thread_id, raw)
                if not isinstance(seq, int):
                    raise CorruptCheckpointError(
                        thread_id, record.checkpoint.checkpoint_id, "its position is not a number"
                    )
                below = seq
                yield record
            if remaining is not None:
                remaining -= len(page)
            if len(page) < size:
                return

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of the thread, in one transaction."""
        outcome = await self._db.call(
            "deleteThread", thread_id, what=f"delete thread {thread_id!r}"
        )
        if outcome["status"] != "ok":
            raise CheckpointStorageError(
                f"delete thread {thread_id!r}", failed(outcome), thread_id=thread_id
            )

    def hold_thread(self, thread_id: str, *, wait: bool) -> AbstractAsyncContextManager[None]:
        """Hold the thread's Web Lock for the run: a run in another tab is refused at once.

        :class:`~pyctx_web.graph.errors.ThreadBusyError` before anything runs when
        another tab or worker of the origin runs the thread (``wait`` queues
        instead). The run's end is posted on the ``BroadcastChannel``
        ``"pyctx_web:<database_name>"``, as is every checkpoint written; see
        :mod:`pyctx_web.graph.checkpoint._tabs`.
        """
        return _tabs.hold(self.database_name, thread_id, wait=wait)
