"""The SQLite connection of :mod:`.store_sqlite`: its tables, transactions, and who holds a run.

A run stored pending or running is owned by the storage that stored it: its
``owner`` column names the host, the process id and a token of that open
storage. :func:`held_by` tells whether that owner still holds it: a storage
of this process while it is open, another process of this host while it lives
(``os.kill(pid, 0)``), a process of another host always (it cannot be checked).
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pyctx_web.server._core import ServerStorageError

__all__ = ["OPEN_TOKENS", "Db", "Owners", "held_by", "record_of", "release"]

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

OPEN_TOKENS: set[str] = set()
"""The tokens of this process's open storages: a run owned by one of them is held."""


def held_by(owner: str | None) -> bool:
    """Whether the owner named in a run's ``owner`` column still holds it."""
    if owner is None:
        return False
    host, _, rest = owner.partition("\t")
    pid_text, _, token = rest.partition("\t")
    if host != platform.node():
        return True  # another host's process cannot be checked
    pid = int(pid_text)
    if pid == os.getpid():
        return token in OPEN_TOKENS
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        # PermissionError: the process lives under another user; elsewhere (no kill, as
        # in Pyodide) nothing tells it is gone, so it holds its runs.
        return True
    return True


def record_of(text: Any) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ServerStorageError("read a stored record", f"its data is {type(text).__name__}")
    record: dict[str, Any] = json.loads(text)
    return record


class Db:
    """One connection, its lock, and this storage's owner name."""

    def __init__(self, conn: sqlite3.Connection, path: str, owned: bool) -> None:
        self.conn, self.path, self.owned = conn, path, owned
        self.lock = threading.RLock()
        self.closed = False
        self.token = uuid.uuid4().hex
        self.owner = f"{platform.node()}\t{os.getpid()}\t{self.token}"
        OPEN_TOKENS.add(self.token)
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
                return record_of(row[1])
            conn.execute(
                f"UPDATE {table} SET status = ?, data = ? WHERE {key} = ?",
                (record.get("status"), json.dumps(record), record[key]),
            )
        return record

    def close(self) -> None:
        OPEN_TOKENS.discard(self.token)
        if self.owned and not self.closed:
            with self.lock:
                self.conn.close()
        self.closed = True


class Owners:
    """What :mod:`.store_lost` reads and writes, on the server tables."""

    def __init__(self, db: Db) -> None:
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
        return {run_id for run_id, owner in rows if held_by(owner)}

    async def thread_runs(self, thread_id: str) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT data FROM pyctx_server_runs WHERE thread_id = ? ORDER BY seq",
            (thread_id,),
            f"read the runs of thread {thread_id!r}",
        )
        return [record_of(row[0]) for row in rows]

    async def replace_run(
        self, run: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        return self.db.replace("pyctx_server_runs", "run_id", run, only_if)

    async def replace_thread(
        self, thread: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        return self.db.replace("pyctx_server_threads", "thread_id", thread, only_if)


def release(conn: sqlite3.Connection, thread_id: str, owner: str) -> None:
    """The thread's ended runs that ``owner`` held are held no more."""
    conn.execute(
        "UPDATE pyctx_server_runs SET owner = NULL WHERE thread_id = ? AND owner = ? "
        f"AND status NOT IN {_LIVE_SQL}",
        (thread_id, owner),
    )
