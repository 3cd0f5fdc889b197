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

import json
import os
import platform
import sqlite3
import threading
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.server._core import ServerStorage, ServerStorageError, StoredEvent
from pyctx_web.server.store_lost import LIVE_STATUSES, settled_runs, settled_thread

__all__ = ["SqliteEventLog", "SqliteRunStore", "SqliteStorage", "SqliteThreadStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pyctx_server_threads (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id TEXT NOT NULL UNIQUE,
    status TEXT,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pyctx_server_runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL UNIQUE,
    thread_id TEXT,
    status TEXT,
    owner TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pyctx_server_runs_by_thread ON pyctx_server_runs (thread_id, seq);
CREATE TABLE IF NOT EXISTS pyctx_server_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    name TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS pyctx_server_events_by_id ON pyctx_server_events (run_id, event_id);
"""

_LIVE_SQL = "('pending', 'running')"

_OPEN_TOKENS: set[str] = set()
"""The tokens of this process's open storages: a run owned by one of them is held."""


def _held_by(owner: str | None) -> bool:
    """Whether the owner named in a run's ``owner`` column still holds it."""
    if owner is None:
        return False
    host, _, rest = owner.partition("\t")
    pid_text, _, token = rest.partition("\t")
    if host != platform.node():
        return True  # another host's process cannot be checked
    pid = int(pid_text)
    if pid == os.getpid():
        return token in _OPEN_TOKENS
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        # PermissionError: the process lives under another user; elsewhere (no kill, as
        # in Pyodide) nothing tells it is gone, so it holds its runs.
        return True
    return True


def _record(text: Any) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ServerStorageError("read a stored record", f"its data is {type(text).__name__}")
    record: dict[str, Any] = json.loads(text)
    return record


class _Db:
    """One connection, its lock, and this storage's owner name."""

    def __init__(self, conn: sqlite3.Connection, path: str, owned: bool) -> None:
        self.conn, self.path, self.owned = conn, path, owned
        self.lock = threading.RLock()
        self.token = uuid.uuid4().hex
        self.owner = f"{platform.node()}\t{os.getpid()}\t{self.token}"
        _OPEN_TOKENS.add(self.token)
        try:
            conn.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise ServerStorageError(f"open server database {path!r}", str(exc)) from exc

    @contextmanager
    def transaction(self, what: str) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction: no other process writes until it ends."""
        with self.lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self.conn
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
                self.conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise ServerStorageError(f"{what} in {self.path!r}", str(exc)) from exc

    def query(self, sql: str, params: tuple[Any, ...], what: str) -> list[tuple[Any, ...]]:
        with self.lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise ServerStorageError(f"{what} in {self.path!r}", str(exc)) from exc

    def replace(
        self, table: str, key: str, record: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        """Store ``record`` over the row with its ``key`` if its status is one of ``only_if``;
        the record stored once done."""
        with self.transaction(f"update {key} {record[key]!r}") as conn:
            row = conn.execute(
                f"SELECT status, data FROM {table} WHERE {key} = ?", (record[key],)
            ).fetchone()
            if row is None:
                return None
            if row[0] not in only_if:
                return _record(row[1])
            conn.execute(
                f"UPDATE {table} SET status = ?, data = ? WHERE {key} = ?",
                (record.get("status"), json.dumps(record), record[key]),
            )
        return record

    def close(self) -> None:
        _OPEN_TOKENS.discard(self.token)
        if self.owned:
            with self.lock:
                self.conn.close()


class _Owners:
    """What :mod:`.store_lost` reads and writes, on the server tables."""

    def __init__(self, db: _Db) -> None:
        self.db = db

    async def held(self, runs: list[dict[str, Any]]) -> set[str]:
        ids = [run["run_id"] for run in runs]
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        rows = self.db.query(
            f"SELECT run_id, owner FROM pyctx_server_runs WHERE run_id IN ({marks})",
            tuple(ids),
            "read run owners",
        )
        return {run_id for run_id, owner in rows if _held_by(owner)}

    async def thread_runs(self, thread_id: str) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT data FROM pyctx_server_runs WHERE thread_id = ? ORDER BY seq",
            (thread_id,),
            f"read the runs of thread {thread_id!r}",
        )
        return [_record(row[0]) for row in rows]

    async def replace_run(
        self, run: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        return self.db.replace("pyctx_server_runs", "run_id", run, only_if)

    async def replace_thread(
        self, thread: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        return self.db.replace("pyctx_server_threads", "thread_id", thread, only_if)


class SqliteThreadStore:
    """A :class:`~pyctx_web.server._core.ThreadStore` in table ``pyctx_server_threads``."""

    def __init__(self, db: _Db, owners: _Owners) -> None:
        self._db, self._owners = db, owners

    async def get(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's record (settled if its run was lost), or None when there is none."""
        rows = self._db.query(
            "SELECT data FROM pyctx_server_threads WHERE thread_id = ?",
            (thread_id,),
            f"read thread {thread_id!r}",
        )
        return await settled_thread(self._owners, _record(rows[0][0])) if rows else None

    async def put(self, thread: dict[str, Any]) -> None:
        """Store ``thread``; once it is not busy, its ended runs stop being held here."""
        thread_id, status = thread["thread_id"], thread.get("status")
        with self._db.transaction(f"write thread {thread_id!r}") as conn:
            conn.execute(
                "INSERT INTO pyctx_server_threads (thread_id, status, data) VALUES (?, ?, ?) "
                "ON CONFLICT (thread_id) DO UPDATE SET status = excluded.status, "
                "data = excluded.data",
                (thread_id, status, json.dumps(thread)),
            )
            if status != "busy":
                _release(conn, thread_id, self._db.owner)

    async def delete(self, thread_id: str) -> bool:
        """Forget the thread; False when there was none."""
        with self._db.transaction(f"delete thread {thread_id!r}") as conn:
            deleted = conn.execute(
                "DELETE FROM pyctx_server_threads WHERE thread_id = ?", (thread_id,)
            ).rowcount
            _release(conn, thread_id, self._db.owner)
        return bool(deleted)

    async def all(self) -> list[dict[str, Any]]:
        """Every record (settled), in the order they were first stored."""
        rows = self._db.query(
            "SELECT data FROM pyctx_server_threads ORDER BY seq", (), "read the threads"
        )
        threads = []
        for (data,) in rows:
            thread = await settled_thread(self._owners, _record(data))
            if thread is not None:
                threads.append(thread)
        return threads


def _release(conn: sqlite3.Connection, thread_id: str, owner: str) -> None:
    """The thread's ended runs that ``owner`` held are held no more."""
    conn.execute(
        "UPDATE pyctx_server_runs SET owner = NULL WHERE thread_id = ? AND owner = ? "
        f"AND status NOT IN {_LIVE_SQL}",
        (thread_id, owner),
    )


class SqliteRunStore:
    """A :class:`~pyctx_web.server._core.RunStore` in table ``pyctx_server_runs``."""

    def __init__(self, db: _Db, owners: _Owners) -> None:
        self._db, self._owners = db, owners

    async def get(self, run_id: str) -> dict[str, Any] | None:
        """The run's record (settled if it was lost), or None when there is none."""
        rows = self._db.query(
            "SELECT data FROM pyctx_server_runs WHERE run_id = ?", (run_id,), f"read run {run_id!r}"
        )
        if not rows:
            return None
        settled = await settled_runs(self._owners, [_record(rows[0][0])])
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


class SqliteEventLog:
    """An :class:`~pyctx_web.server._core.EventLog` in table ``pyctx_server_events``."""

    def __init__(self, db: _Db) -> None:
        self._db = db

    async def append(self, run_id: str, event: StoredEvent) -> None:
        """Add ``event`` after the run's others."""
        event_id, name, data = event
        with self._db.transaction(f"store an event of run {run_id!r}") as conn:
            (seq,) = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM pyctx_server_events WHERE run_id = ?",
                (run_id,),
            ).fetchone()
            conn.execute(
                "INSERT INTO pyctx_server_events (run_id, seq, event_id, name, data) "
                "VALUES (?, ?, ?, ?, ?)",
                (run_id, seq + 1, event_id, name, bytes(data)),
            )

    async def after(self, run_id: str, last_event_id: str | None) -> list[StoredEvent]:
        """The run's events after the one with ``last_event_id`` (all of them when None;
        none when the run has no event with that id)."""
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

    async def drop(self, run_id: str) -> None:
        """Forget the run's events."""
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
        self._db = _Db(conn, path, owned)
        # A storage dropped without close() stops holding its runs, as a closed one does.
        self._finalizer = weakref.finalize(self, _OPEN_TOKENS.discard, self._db.token)
        owners = _Owners(self._db)
        super().__init__(
            checkpointer=SqliteSaver(conn),
            threads=SqliteThreadStore(self._db, owners),
            runs=SqliteRunStore(self._db, owners),
            events=SqliteEventLog(self._db),
        )

    def __repr__(self) -> str:
        return f"SqliteStorage({self.path!r})"

    def close(self) -> None:
        """Close the connection this storage opened; its runs that have not ended are lost."""
        self._finalizer()
        self._db.close()
