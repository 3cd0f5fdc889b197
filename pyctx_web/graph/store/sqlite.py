"""A store on the standard library's :mod:`sqlite3`, as ``langgraph.store.sqlite``.

``SqliteStore(conn)`` on a connection you hold, or
``with SqliteStore.from_conn_string("store.db") as store:``. One table,
``pyctx_store``, keyed by the namespace (its labels joined with ``"."``,
which no label may contain) and the key; values, vectors and times are
JSON text and numbers. A batch's writes are one transaction; values must be
JSON data (anything else is refused before anything is written).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.store._batch import Key, Plan, Snapshot, clock
from pyctx_web.graph.store._rows import Row, under_prefix
from pyctx_web.graph.store._rowstore import RowStore
from pyctx_web.graph.store.base import IndexConfig, TTLConfig

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pyctx_store (
    prefix TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    expires_at REAL,
    ttl_minutes REAL,
    vectors TEXT NOT NULL,
    PRIMARY KEY (prefix, key)
);
CREATE INDEX IF NOT EXISTS pyctx_store_expiry ON pyctx_store (expires_at);
"""

_COLUMNS = "prefix, key, value, created_at, updated_at, expires_at, ttl_minutes, vectors"

_UPSERT = f"""
INSERT INTO pyctx_store ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (prefix, key) DO UPDATE SET value = excluded.value,
    updated_at = excluded.updated_at, expires_at = excluded.expires_at,
    ttl_minutes = excluded.ttl_minutes, vectors = excluded.vectors
"""


def _row(record: tuple[Any, ...]) -> Row:
    prefix, key, value, created, updated, expires, ttl, vectors = record
    return {
        "ns": prefix.split("."),
        "key": key,
        "value": json.loads(value),
        "created_at": created,
        "updated_at": updated,
        "expires_at": expires,
        "ttl": ttl,
        "vectors": json.loads(vectors),
    }


class SqliteStore(RowStore):
    """A store in an SQLite database; ``index=`` and ``ttl=`` as :class:`InMemoryStore`'s."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        if not isinstance(conn, sqlite3.Connection):
            raise ArgumentTypeError(
                f"SqliteStore takes an sqlite3.Connection, not {type(conn).__name__}; "
                'use SqliteStore.from_conn_string("path.db") for a path'
            )
        super().__init__(index=index, ttl=ttl)
        self.conn = conn
        self._lock = threading.Lock()
        self._ready = False

    @classmethod
    @contextmanager
    def from_conn_string(
        cls, conn_string: str, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None
    ) -> Iterator[SqliteStore]:
        """A store on the database at ``conn_string``, closed when the block ends."""
        conn = sqlite3.connect(conn_string, check_same_thread=False, isolation_level=None)
        try:
            yield cls(conn, index=index, ttl=ttl)
        finally:
            conn.close()

    def setup(self) -> None:
        """Create the table if needed (done by the first operation anyway)."""
        with self._lock:
            self._setup()

    def _setup(self) -> None:
        if not self._ready:
            self.conn.executescript(_SCHEMA)
            self._ready = True

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            self._setup()
            return self.conn.execute(sql, params).fetchall()

    def _under(self, prefix: tuple[str, ...]) -> list[Row]:
        if not prefix:
            return [_row(r) for r in self._query(f"SELECT {_COLUMNS} FROM pyctx_store")]
        text = ".".join(prefix)
        records = self._query(
            f"SELECT {_COLUMNS} FROM pyctx_store WHERE prefix = ? OR substr(prefix, 1, ?) = ?",
            (text, len(text) + 1, text + "."),
        )
        return [r for r in map(_row, records) if under_prefix(r["ns"], prefix)]

    def _read(self, plan: Plan, now: float) -> Snapshot:
        snapshot = Snapshot()
        for ns, key in plan.gets:
            found = self._query(
                f"SELECT {_COLUMNS} FROM pyctx_store WHERE prefix = ? AND key = ?",
                (".".join(ns), key),
            )
            if found:
                snapshot.rows[(ns, key)] = _row(found[0])
        for prefix in plan.prefixes:
            snapshot.under[prefix] = self._under(prefix)
        if plan.wants_namespaces:
            records = self._query(
                "SELECT DISTINCT prefix FROM pyctx_store"
                " WHERE expires_at IS NULL OR expires_at > ?",
                (now,),
            )
            snapshot.namespaces = [tuple(r[0].split(".")) for r in records]
        return snapshot

    def _write(self, rows: list[Row], deletes: list[Key], refresh: dict[Key, float]) -> None:
        params = [
            (
                ".".join(r["ns"]),
                r["key"],
                json.dumps(r["value"], ensure_ascii=False),
                r["created_at"],
                r["updated_at"],
                r["expires_at"],
                r["ttl"],
                json.dumps(r["vectors"]),
            )
            for r in rows
        ]
        with self._lock:
            self._setup()
            with _transaction(self.conn) as cursor:
                for (ns, key), expires in refresh.items():
                    cursor.execute(
                        "UPDATE pyctx_store SET expires_at = ? WHERE prefix = ? AND key = ?",
                        (expires, ".".join(ns), key),
                    )
                for ns, key in deletes:
                    cursor.execute(
                        "DELETE FROM pyctx_store WHERE prefix = ? AND key = ?", (".".join(ns), key)
                    )
                cursor.executemany(_UPSERT, params)

    def sweep_ttl(self) -> int:
        """Delete the expired items now; return how many."""
        with self._lock:
            self._setup()
            with _transaction(self.conn) as cursor:
                cursor.execute(
                    "DELETE FROM pyctx_store WHERE expires_at IS NOT NULL AND expires_at <= ?",
                    (clock(),),
                )
                return cursor.rowcount


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Cursor]:
    """All or nothing: released when the block ends, rolled back when it raises.

    A savepoint, so that it also nests in a transaction the caller's connection has open.
    """
    cursor = conn.cursor()
    cursor.execute("SAVEPOINT pyctx_store")
    try:
        yield cursor
    except BaseException:
        cursor.execute("ROLLBACK TO pyctx_store")
        cursor.execute("RELEASE pyctx_store")
        raise
    cursor.execute("RELEASE pyctx_store")
