"""The agent server's threads, runs and events in SQLite, beside the checkpoints.

``AgentServer(graphs, storage=SqliteStorage("app.db"))`` keeps everything in
one database file (the standard library's :mod:`sqlite3`, which Pyodide ships
too): the checkpoints through a :class:`~pyctx_web.graph.checkpoint.sqlite.SqliteSaver`
on the same connection, and the server's records in tables of their own
(``pyctx_server_threads``, ``pyctx_server_runs``, ``pyctx_server_events``),
each record as its JSON text. A new server on the same file (after a restart)
sees every thread, run and stored event.

Several processes may share the file: every write is one ``BEGIN IMMEDIATE``
transaction, as the saver's are. A run stored pending or running is owned by
the process and the storage that stored it (its ``owner`` column: host, process
id, a token of the open storage) until its thread leaves ``busy``; another
process reads the thread as busy (a second run is refused with 409) while that
process lives, and settles the run as lost (:mod:`.store_lost`) once it has
died or closed the storage. A process on another host cannot be checked: its
runs stay held.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import weakref
from typing import Any

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.server._core import ServerStorage, ServerStorageError, StoredEvent
from pyctx_web.server.store_events import QueuedEventLog
from pyctx_web.server.store_lost import LIVE_STATUSES, settled_runs, settled_thread
from pyctx_web.server.store_sqlite_db import OPEN_TOKENS, Db, Owners, record_of, release

__all__ = ["SqliteEventLog", "SqliteRunStore", "SqliteStorage", "SqliteThreadStore"]

_THREADS = sys.platform != "emscripten"
"""Whether a write can wait in a thread (not in Pyodide, which has none)."""


class SqliteThreadStore:
    """A :class:`~pyctx_web.server._core.ThreadStore` in table ``pyctx_server_threads``."""

    def __init__(self, db: Db, owners: Owners) -> None:
        self._db, self._owners = db, owners

    async def get(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's record (settled if its run was lost), or None when there is none."""
        rows = self._db.query(
            "SELECT data FROM pyctx_server_threads WHERE thread_id = ?",
            (thread_id,),
            f"read thread {thread_id!r}",
        )
        return await settled_thread(self._owners, record_of(rows[0][0])) if rows else None

    async def put(self, thread: dict[str, Any]) -> None:
        """Store ``thread``; once it is not busy, its ended runs stop being held here."""
        self._write(thread, claim=False)

    async def claim(self, thread: dict[str, Any]) -> bool:
        """Store ``thread`` unless the stored record is busy; False when it is."""
        return self._write(thread, claim=True)

    def _write(self, thread: dict[str, Any], *, claim: bool) -> bool:
        thread_id, status = thread["thread_id"], thread.get("status")
        with self._db.transaction(f"write thread {thread_id!r}") as conn:
            if claim:
                row = conn.execute(
                    "SELECT status FROM pyctx_server_threads WHERE thread_id = ?", (thread_id,)
                ).fetchone()
                if row is not None and row[0] == "busy":
                    return False
            conn.execute(
                "INSERT INTO pyctx_server_threads (thread_id, status, data) VALUES (?, ?, ?) "
                "ON CONFLICT (thread_id) DO UPDATE SET status = excluded.status, "
                "data = excluded.data",
                (thread_id, status, json.dumps(thread)),
            )
            if status != "busy":
                release(conn, thread_id, self._db.owner)
        return True

    async def delete(self, thread_id: str) -> bool:
        """Forget the thread; False when there was none."""
        with self._db.transaction(f"delete thread {thread_id!r}") as conn:
            deleted = conn.execute(
                "DELETE FROM pyctx_server_threads WHERE thread_id = ?", (thread_id,)
            ).rowcount
            release(conn, thread_id, self._db.owner)
        return bool(deleted)

    async def all(self) -> list[dict[str, Any]]:
        """Every record (settled), in the order they were first stored."""
        rows = self._db.query(
            "SELECT data FROM pyctx_server_threads ORDER BY seq", (), "read the threads"
        )
        threads = []
        for (data,) in rows:
            thread = await settled_thread(self._owners, record_of(data))
            if thread is not None:
                threads.append(thread)
        return threads


class SqliteRunStore:
    """A :class:`~pyctx_web.server._core.RunStore` in table ``pyctx_server_runs``."""

    def __init__(self, db: Db, owners: Owners) -> None:
        self._db, self._owners = db, owners

    async def get(self, run_id: str) -> dict[str, Any] | None:
        """The run's record (settled if it was lost), or None when there is none."""
        rows = self._db.query(
            "SELECT data FROM pyctx_server_runs WHERE run_id = ?", (run_id,), f"read run {run_id!r}"
        )
        if not rows:
            return None
        settled = await settled_runs(self._owners, [record_of(rows[0][0])])
        return settled[0] if settled else None

    async def put(self, run: dict[str, Any]) -> None:
        """Store ``run``; stored pending or running first here, this storage holds it."""
        status = run.get("status")
        owner = self._db.owner if status in LIVE_STATUSES else None
        with self._db.transaction(f"write run {run['run_id']!r}") as conn:
            conn.execute(
                "INSERT INTO pyctx_server_runs (run_id, thread_id, status, owner, data) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET "
                "thread_id = excluded.thread_id, status = excluded.status, "
                "owner = coalesce(owner, excluded.owner), data = excluded.data",
                (run["run_id"], run.get("thread_id"), status, owner, json.dumps(run)),
            )

    async def delete(self, run_id: str) -> bool:
        """Forget the run; False when there was none."""
        with self._db.transaction(f"delete run {run_id!r}") as conn:
            deleted = conn.execute(
                "DELETE FROM pyctx_server_runs WHERE run_id = ?", (run_id,)
            ).rowcount
        return bool(deleted)

    async def of_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's runs (settled), in the order they were first stored."""
        return await settled_runs(self._owners, await self._owners.thread_runs(thread_id))


class SqliteEventLog(QueuedEventLog):
    """An :class:`~pyctx_web.server._core.EventLog` in table ``pyctx_server_events``, written
    behind the stream (:mod:`.store_events`)."""

    def __init__(self, db: Db) -> None:
        super().__init__()
        self._db = db

    def write_now(self, batch: list[tuple[str, StoredEvent]]) -> None:
        """Store ``batch`` in one transaction, each event after its run's others."""
        with self._db.transaction("store events") as conn:
            last: dict[str, int] = {}
            for run_id, (event_id, name, data) in batch:
                if run_id not in last:
                    (last[run_id],) = conn.execute(
                        "SELECT coalesce(max(seq), 0) FROM pyctx_server_events WHERE run_id = ?",
                        (run_id,),
                    ).fetchone()
                last[run_id] += 1
                conn.execute(
                    "INSERT INTO pyctx_server_events (run_id, seq, event_id, name, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (run_id, last[run_id], event_id, name, bytes(data)),
                )

    async def write(self, batch: list[tuple[str, StoredEvent]]) -> None:
        """Store ``batch`` in one transaction: in a thread where there are threads, so that
        the stream goes on (and queues the next batch) while the commit reaches the disk."""
        if _THREADS:
            await asyncio.to_thread(self.write_now, batch)
        else:
            self.write_now(batch)

    async def read(self, run_id: str, last_event_id: str | None) -> list[StoredEvent]:
        """The run's stored events after the one with ``last_event_id``."""
        what = f"read the events of run {run_id!r}"
        start = 0
        if last_event_id is not None:
            rows = self._db.query(
                "SELECT seq FROM pyctx_server_events WHERE run_id = ? AND event_id = ? "
                "ORDER BY seq LIMIT 1",
                (run_id, last_event_id),
                what,
            )
            if not rows:
                return []
            start = rows[0][0]
        rows = self._db.query(
            "SELECT event_id, name, data FROM pyctx_server_events "
            "WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, start),
            what,
        )
        return [(str(event_id), str(name), bytes(data)) for event_id, name, data in rows]

    async def remove(self, run_id: str) -> None:
        """Delete the run's stored events."""
        with self._db.transaction(f"drop the events of run {run_id!r}") as conn:
            conn.execute("DELETE FROM pyctx_server_events WHERE run_id = ?", (run_id,))


class SqliteStorage(ServerStorage):
    """Checkpoints, threads, runs and events in one SQLite database.

    ``SqliteStorage(path)`` (``":memory:"`` for a private database) opens a
    connection that :meth:`close` (or ``with``) closes;
    ``SqliteStorage(sqlite3.connect(path, check_same_thread=False,
    isolation_level=None))`` uses that one and leaves it open. ``timeout`` is how
    long a write waits for another process's transaction. The checkpointer is a
    :class:`SqliteSaver` on the same connection.
    """

    def __init__(
        self, conn: sqlite3.Connection | str | os.PathLike[str], *, timeout: float = 30.0
    ) -> None:
        if isinstance(conn, sqlite3.Connection):
            path, owned = "<connection>", False
        elif isinstance(conn, str | os.PathLike):
            path, owned = os.fspath(conn), True
            try:
                conn = sqlite3.connect(
                    path, timeout=timeout, isolation_level=None, check_same_thread=False
                )
            except sqlite3.Error as exc:
                raise ServerStorageError(f"open server database {path!r}", str(exc)) from exc
        else:
            raise ArgumentTypeError(
                "SqliteStorage() takes an sqlite3.Connection or a database path, "
                f"not {type(conn).__qualname__!r}"
            )
        self.path = path
        self._db = Db(conn, path, owned)
        # A storage dropped without close() stops holding its runs, as a closed one does.
        self._finalizer = weakref.finalize(self, OPEN_TOKENS.discard, self._db.token)
        owners = Owners(self._db)
        self._events = SqliteEventLog(self._db)
        super().__init__(
            checkpointer=SqliteSaver(conn),
            threads=SqliteThreadStore(self._db, owners),
            runs=SqliteRunStore(self._db, owners),
            events=self._events,
        )

    def __repr__(self) -> str:
        return f"SqliteStorage({self.path!r})"

    def close(self) -> None:
        """Write the events still queued, close the connection this storage opened; its runs
        that have not ended are lost."""
        self._finalizer()
        if not self._db.closed:
            batch = self._events.pending()
            if batch:
                self._events.write_now(batch)
        self._db.close()
