"""A checkpoint saver on the standard library's :mod:`sqlite3` (also shipped by Pyodide).

Each checkpoint is one row holding the whole document, written in its own
transaction; pending writes are rows keyed by checkpoint, task and kind.
Reads go through indexes on ``(thread_id, seq)`` and ``(thread_id,
checkpoint_id)``, so a step costs the same however long the history is.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from types import EllipsisType
from typing import Any

from pyctx_web.errors import ArgumentTypeError
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

__all__ = ["SqliteSaver"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pyctx_checkpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    parent_id TEXT,
    created_at TEXT NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (thread_id, checkpoint_id)
);
CREATE INDEX IF NOT EXISTS pyctx_checkpoints_by_thread ON pyctx_checkpoints (thread_id, seq);
CREATE TABLE IF NOT EXISTS pyctx_writes (
    thread_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_id, task_id, kind)
);
"""


def _database_path(conn: sqlite3.Connection) -> str:
    """The file behind ``conn``, for error messages (``":memory:"`` when it has none)."""
    try:
        rows = conn.execute("PRAGMA database_list").fetchall()
    except sqlite3.Error:
        return "<connection>"
    return next((str(r[2]) for r in rows if r[1] == "main" and r[2]), ":memory:")


def _prepared(conn: sqlite3.Connection, path: str) -> sqlite3.Connection:
    """``conn`` with the saver's tables created."""
    try:
        conn.executescript(_SCHEMA)
    except sqlite3.Error as exc:
        raise CheckpointStorageError(f"open checkpoint database {path!r}", str(exc)) from exc
    return conn


class SqliteSaver(Checkpointer):
    """Stores checkpoints in an SQLite database, as ``langgraph-checkpoint-sqlite`` does.

    ``SqliteSaver(sqlite3.connect(path, check_same_thread=False))`` uses that
    connection and leaves it open; ``SqliteSaver(path)`` (``":memory:"`` for a
    private database) opens its own on first use, and :meth:`close` (or
    ``with``) closes it; ``with SqliteSaver.from_conn_string(path) as saver``
    opens and closes one. Several savers, in one process or several, may share
    a file.
    """

    def __init__(
        self, conn: sqlite3.Connection | str | os.PathLike[str], *, timeout: float = 30.0
    ) -> None:
        self._owned = not isinstance(conn, sqlite3.Connection)
        self._conn: sqlite3.Connection | None = None
        if isinstance(conn, sqlite3.Connection):
            self.path = _database_path(conn)
            self._conn = _prepared(conn, self.path)
        elif isinstance(conn, str | os.PathLike):
            self.path = os.fspath(conn)
        else:
            raise ArgumentTypeError(
                "SqliteSaver() takes an sqlite3.Connection or a database path, "
                f"not {type(conn).__qualname__!r}"
            )
        self._timeout = timeout
        # One connection serves every thread that uses this object (sync
        # invoke from several OS threads); the lock keeps transactions apart.
        self._lock = threading.RLock()

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str) -> Iterator[SqliteSaver]:
        """A saver on its own connection to ``conn_string``, closed when the block ends."""
        saver = cls(conn_string)
        try:
            yield saver
        finally:
            saver.close()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                conn = sqlite3.connect(
                    self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
                )
            except sqlite3.Error as exc:
                raise CheckpointStorageError(
                    f"open checkpoint database {self.path!r}", str(exc)
                ) from exc
            self._conn = _prepared(conn, self.path)
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        """Close the connection this saver opened; the next call opens it again.

        A connection given to the constructor stays open: its owner closes it.
        """
        with self._lock:
            if self._conn is not None and self._owned:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> SqliteSaver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._connection().execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise CheckpointStorageError(
                    f"read checkpoint database {self.path!r}", str(exc)
                ) from exc

    def _record(self, thread_id: str, row: tuple[Any, ...]) -> CheckpointRecord:
        checkpoint_id, parent_id, created_at, data = row
        if not isinstance(data, str) or not isinstance(created_at, str):
            raise CorruptCheckpointError(
                thread_id, str(checkpoint_id), f"its data is {type(data).__name__!r}, not text"
            )
        rows = self._query(
            "SELECT task_id, kind, data FROM pyctx_writes "
            "WHERE thread_id = ? AND checkpoint_id = ? ORDER BY seq",
            (thread_id, checkpoint_id),
        )
        writes = []
        for task_id, kind, wdata in rows:
            if not isinstance(wdata, str):
                raise CorruptCheckpointError(
                    thread_id,
                    str(checkpoint_id),
                    f"the data of a pending write is {type(wdata).__name__!r}, not text",
                )
            writes.append(StoredWrite(task_id, kind, wdata))
        stored = StoredCheckpoint(thread_id, checkpoint_id, parent_id, created_at, data)
        return CheckpointRecord(stored, tuple(writes))

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        """Return the latest checkpoint of the thread, or the one with ``checkpoint_id``."""
        if checkpoint_id is None:
            rows = self._query(
                "SELECT checkpoint_id, parent_id, created_at, data FROM pyctx_checkpoints "
                "WHERE thread_id = ? ORDER BY seq DESC LIMIT 1",
                (thread_id,),
            )
        else:
            rows = self._query(
                "SELECT checkpoint_id, parent_id, created_at, data FROM pyctx_checkpoints "
                "WHERE thread_id = ? AND checkpoint_id = ?",
                (thread_id, checkpoint_id),
            )
        return self._record(thread_id, rows[0]) if rows else None

    async def aput(
        self, checkpoint: StoredCheckpoint, *, latest: str | EllipsisType | None = ...
    ) -> None:
        """Store ``checkpoint`` as the latest of its thread, in one transaction.

        Only if the thread's latest checkpoint is still ``latest`` (see the base
        class), read in the same ``BEGIN IMMEDIATE`` transaction: other processes
        on the same file cannot write in between.
        """
        self._put(checkpoint, (), latest)

    async def aput_with_writes(
        self,
        checkpoint: StoredCheckpoint,
        writes: Sequence[StoredWrite],
        *,
        latest: str | EllipsisType | None = ...,
    ) -> None:
        """Store ``checkpoint`` as :meth:`aput` does and its ``writes``, in one transaction:
        both or neither."""
        self._put(checkpoint, writes, latest)

    def _put(
        self,
        checkpoint: StoredCheckpoint,
        writes: Sequence[StoredWrite],
        latest: str | EllipsisType | None,
    ) -> None:
        try:
            with self._transaction() as conn:
                _insert_checkpoint(conn, checkpoint, expected_latest(checkpoint, latest))
                if writes:
                    _insert_writes(conn, checkpoint.thread_id, checkpoint.checkpoint_id, writes)
        except sqlite3.Error as exc:
            raise CheckpointStorageError(
                f"write checkpoint {checkpoint.checkpoint_id!r} of thread {checkpoint.thread_id!r}",
                str(exc),
                thread_id=checkpoint.thread_id,
                checkpoint_id=checkpoint.checkpoint_id,
            ) from exc

    async def aput_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
    ) -> None:
        """Store pending writes of checkpoint ``checkpoint_id`` in one transaction."""
        try:
            with self._transaction() as conn:
                (count,) = conn.execute(
                    "SELECT count(*) FROM pyctx_checkpoints "
                    "WHERE thread_id = ? AND checkpoint_id = ?",
                    (thread_id, checkpoint_id),
                ).fetchone()
                if not count:
                    raise CheckpointNotFoundError(thread_id, checkpoint_id, action="store writes")
                _insert_writes(conn, thread_id, checkpoint_id, writes)
        except sqlite3.Error as exc:
            raise CheckpointStorageError(
                f"store writes of checkpoint {checkpoint_id!r} of thread {thread_id!r}",
                str(exc),
                thread_id=thread_id,
                checkpoint_id=checkpoint_id,
            ) from exc

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> AsyncIterator[CheckpointRecord]:
        """Yield the thread's checkpoints newest first, one query per page."""
        check_limit(limit)
        if before is None:
            upper = None
        else:
            rows = self._query(
                "SELECT seq FROM pyctx_checkpoints WHERE thread_id = ? AND checkpoint_id = ?",
                (thread_id, before),
            )
            if not rows:
                raise CheckpointNotFoundError(thread_id, before)
            upper = rows[0][0]
        remaining = limit
        page = 100
        while remaining is None or remaining > 0:
            size = page if remaining is None else min(page, remaining)
            rows = self._query(
                "SELECT seq, checkpoint_id, parent_id, created_at, data FROM pyctx_checkpoints "
                "WHERE thread_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                (thread_id, upper if upper is not None else 2**62, size),
            )
            if not rows:
                return
            for row in rows:
                upper = row[0]
                yield self._record(thread_id, row[1:])
            if remaining is not None:
                remaining -= len(rows)
            if len(rows) < size:
                return

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of the thread, in one transaction."""
        try:
            with self._transaction() as conn:
                conn.execute("DELETE FROM pyctx_writes WHERE thread_id = ?", (thread_id,))
                conn.execute("DELETE FROM pyctx_checkpoints WHERE thread_id = ?", (thread_id,))
        except sqlite3.Error as exc:
            raise CheckpointStorageError(
                f"delete thread {thread_id!r}", str(exc), thread_id=thread_id
            ) from exc


def _insert_checkpoint(
    conn: sqlite3.Connection, checkpoint: StoredCheckpoint, expected: str | None
) -> None:
    """Insert ``checkpoint`` as its thread's latest, if that is still ``expected``."""
    if conn.execute(
        "SELECT 1 FROM pyctx_checkpoints WHERE thread_id = ? AND checkpoint_id = ?",
        (checkpoint.thread_id, checkpoint.checkpoint_id),
    ).fetchone():
        raise CheckpointExistsError(checkpoint.thread_id, checkpoint.checkpoint_id)
    row = conn.execute(
        "SELECT checkpoint_id FROM pyctx_checkpoints WHERE thread_id = ? ORDER BY seq DESC LIMIT 1",
        (checkpoint.thread_id,),
    ).fetchone()
    if (row[0] if row else None) != expected:
        raise ThreadBusyError(checkpoint.thread_id)
    conn.execute(
        "INSERT INTO pyctx_checkpoints "
        "(thread_id, checkpoint_id, parent_id, created_at, data) "
        "VALUES (?, ?, ?, ?, ?)",
        (
            checkpoint.thread_id,
            checkpoint.checkpoint_id,
            checkpoint.parent_id,
            checkpoint.created_at,
            checkpoint.data,
        ),
    )


def _insert_writes(
    conn: sqlite3.Connection, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
) -> None:
    """Insert or replace ``writes`` of a stored checkpoint, after the ones it has."""
    (seq,) = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM pyctx_writes WHERE thread_id = ? AND checkpoint_id = ?",
        (thread_id, checkpoint_id),
    ).fetchone()
    # An upsert keeps the first position of a (task, kind) pair.
    conn.executemany(
        "INSERT INTO pyctx_writes (thread_id, checkpoint_id, task_id, kind, seq, data) "
        "VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (thread_id, checkpoint_id, task_id, kind) "
        "DO UPDATE SET data = excluded.data",
        [
            (thread_id, checkpoint_id, w.task_id, w.kind, seq + i + 1, w.data)
            for i, w in enumerate(writes)
        ],
    )
