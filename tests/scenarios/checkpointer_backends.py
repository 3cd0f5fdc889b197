"""The storages the checkpointer and graph scenarios run against: memory, SQLite and IndexedDB.

Each factory is one fresh storage; calling it gives a checkpointer over that
storage, and its hooks damage a row or make writes fail inside their
transaction, through the storage itself (an SQLite trigger, an aborted
IndexedDB transaction). :func:`make_factory` builds one by name; runners call
``aclose()`` when the scenario is over.

Used on CPython (memory, SQLite) and copied into Pyodide (SQLite, and
IndexedDB in a browser), so it imports only pyctx_web and the standard
library, plus Pyodide's modules behind ``IN_PYODIDE``.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

from pyctx_web._env import IN_PYODIDE
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from tests.scenarios.common import FAILURE, NON_TEXT, PERSISTENT, CheckpointerFactory

if IN_PYODIDE:
    from pyodide.code import run_js

CAPABILITIES: dict[str, frozenset[str]] = {
    "memory": frozenset(),
    "sqlite": frozenset({PERSISTENT, FAILURE, NON_TEXT}),
    "indexeddb": frozenset({PERSISTENT, FAILURE, NON_TEXT}),
}
"""What each storage offers the scenarios (see common.requires)."""

_LACKING = {
    "persistent": "keeps nothing beyond its checkpointer object",
    "failure": "cannot be made to fail a write",
    "non_text": "holds only the values it was given",
}


def lacking(kind: str, capabilities: frozenset[str]) -> str:
    """Why a scenario needing ``capabilities`` cannot run on storage ``kind``."""
    return f"the {kind} storage " + " and ".join(_LACKING[c] for c in sorted(capabilities))


class MemoryFactory:
    """The in-memory storage: the checkpointer object is the storage, so each call returns it."""

    capabilities = CAPABILITIES["memory"]

    def __init__(self) -> None:
        self._saver = InMemorySaver()

    def __call__(self) -> Checkpointer:
        return self._saver

    async def corrupt(
        self,
        thread_id: str,
        checkpoint_id: str,
        *,
        write: tuple[str, str] | None = None,
        text: str | None = None,
    ) -> None:
        if text is None:
            raise NotImplementedError("the in-memory storage holds only what it was given")
        thread = self._saver._threads[thread_id]
        if write is None:
            # Read first: a checkpoint the saver keeps as its document becomes its text.
            stored = self._saver._record(thread, checkpoint_id).checkpoint
            thread.checkpoints[checkpoint_id] = dataclasses.replace(stored, data=text)
        else:
            writes = thread.writes[checkpoint_id]
            writes[write] = dataclasses.replace(writes[write], data=text)

    async def fail_writes_with(self, data: str) -> None:
        raise NotImplementedError("the in-memory storage cannot fail a write")

    async def aclose(self) -> None:
        return None


class SQLiteFactory:
    """An SQLite file; each call opens a new SqliteSaver on it."""

    capabilities = CAPABILITIES["sqlite"]

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._opened: list[SqliteSaver] = []

    def __call__(self) -> Checkpointer:
        saver = SqliteSaver(self.path)
        self._opened.append(saver)
        return saver

    async def corrupt(
        self,
        thread_id: str,
        checkpoint_id: str,
        *,
        write: tuple[str, str] | None = None,
        text: str | None = None,
    ) -> None:
        value: str | bytes = b"\x00\xff" if text is None else text
        with sqlite3.connect(self.path) as conn:
            if write is None:
                cursor = conn.execute(
                    "UPDATE pyctx_checkpoints SET data = ? "
                    "WHERE thread_id = ? AND checkpoint_id = ?",
                    (value, thread_id, checkpoint_id),
                )
            else:
                cursor = conn.execute(
                    "UPDATE pyctx_writes SET data = ? "
                    "WHERE thread_id = ? AND checkpoint_id = ? AND task_id = ? AND kind = ?",
                    (value, thread_id, checkpoint_id, *write),
                )
            assert cursor.rowcount == 1, (thread_id, checkpoint_id, write)
        conn.close()

    async def fail_writes_with(self, data: str) -> None:
        with sqlite3.connect(self.path) as conn:
            for table in ("pyctx_checkpoints", "pyctx_writes"):
                for event in ("INSERT", "UPDATE"):
                    conn.execute(
                        f"CREATE TRIGGER IF NOT EXISTS fail_{table}_{event.lower()} "
                        f"BEFORE {event} ON {table} WHEN NEW.data = {_sql_text(data)} "
                        "BEGIN SELECT RAISE(ABORT, 'injected storage failure'); END"
                    )
        conn.close()

    async def aclose(self) -> None:
        for saver in self._opened:
            saver.close()


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


_IDB_HOOKS = r"""
(() => {
  const failing = new Set();
  const tag = (name, data) => JSON.stringify([name, data]);
  let patched = false;
  const asError = (e) => e instanceof Error ? e : new Error(String(e && e.message || e));
  const withDb = (name, work) => new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(asError(open.error));
    open.onsuccess = () => {
      const db = open.result;
      let tx;
      try {
        tx = db.transaction(["checkpoints", "writes"], "readwrite");
      } catch (e) {
        db.close();
        reject(asError(e));
        return;
      }
      tx.oncomplete = () => { db.close(); resolve(true); };
      tx.onabort = () => {
        db.close();
        reject(asError(tx.error || new Error("nothing to corrupt")));
      };
      work(tx);
    };
  });
  const replace = (tx, store, request, value) => {
    request.onsuccess = () => {
      const row = request.result;
      if (row === undefined) { tx.abort(); return; }
      row.data = value;
      tx.objectStore(store).put(row);
    };
  };
  return {
    corrupt: (name, t, c, task, kind, text) => withDb(name, (tx) => {
      const value = text == null ? new Uint8Array([0, 255]) : text;
      if (task == null) {
        const request = tx.objectStore("checkpoints").index("by_id").get([t, c]);
        replace(tx, "checkpoints", request, value);
      } else {
        const request = tx.objectStore("writes").get([t, c, task, kind]);
        replace(tx, "writes", request, value);
      }
    }),
    failWith: (name, data) => {
      failing.add(tag(name, data));
      if (patched) return;
      patched = true;
      for (const method of ["add", "put"]) {
        const original = IDBObjectStore.prototype[method];
        IDBObjectStore.prototype[method] = function (value, ...rest) {
          const request = original.call(this, value, ...rest);
          const db = this.transaction.db.name;
          if (value && typeof value === "object" && failing.has(tag(db, value.data))) {
            this.transaction.abort();  // as a storage failure after the request was queued
          }
          return request;
        };
      }
    },
    forget: (name) => {
      for (const key of [...failing]) if (JSON.parse(key)[0] === name) failing.delete(key);
    },
    drop: (name) => new Promise((resolve, reject) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = () => resolve(true);
      request.onerror = () => reject(asError(request.error));
    }),
  };
})()
"""

_idb_hooks: Any = None


def _hooks() -> Any:
    global _idb_hooks
    if _idb_hooks is None:
        _idb_hooks = run_js(_IDB_HOOKS)
    return _idb_hooks


class IndexedDBFactory:
    """An IndexedDB database; each call opens a new IndexedDBSaver on it."""

    capabilities = CAPABILITIES["indexeddb"]

    def __init__(self, database_name: str) -> None:
        self.database_name = database_name
        self._opened: list[Any] = []

    def __call__(self) -> Checkpointer:
        from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver

        saver = IndexedDBSaver(self.database_name)
        self._opened.append(saver)
        return saver

    async def corrupt(
        self,
        thread_id: str,
        checkpoint_id: str,
        *,
        write: tuple[str, str] | None = None,
        text: str | None = None,
    ) -> None:
        task, kind = write if write is not None else (None, None)
        await _hooks().corrupt(self.database_name, thread_id, checkpoint_id, task, kind, text)

    async def fail_writes_with(self, data: str) -> None:
        _hooks().failWith(self.database_name, data)

    async def aclose(self) -> None:
        for saver in self._opened:
            saver.close()
        _hooks().forget(self.database_name)
        await _hooks().drop(self.database_name)


def make_factory(kind: str, place: str) -> CheckpointerFactory:
    """A fresh storage of ``kind``: ``place`` is a new directory (SQLite) or database name."""
    if kind == "memory":
        return MemoryFactory()
    if kind == "sqlite":
        return SQLiteFactory(Path(place) / "checkpoints.db")
    if kind == "indexeddb":
        return IndexedDBFactory(place)
    raise ValueError(f"unknown storage {kind!r}")
