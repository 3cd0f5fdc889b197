"""A store on IndexedDB, for Pyodide in a browser page or a Web Worker: :class:`IndexedDBStore`.

What a graph remembers survives a reload and is shared by the tabs of the
origin: every store object opened on the same database name sees the same
items. Storage (database version 1): one object store ``items``, key path
``[prefix, key]`` (``prefix``: the namespace's labels joined with ``"."``),
each record holding the value and the vectors as JSON text, the times and
the expiry. A batch reads in one transaction and writes in one more: its
writes are stored together or not at all, and two tabs writing one key
leave one of the two values whole. Every value is checked (a dict of JSON
data) before anything is written.

The store is async only (``aput``, ``aget``, ``asearch``, ``adelete``,
``alist_namespaces``, ``abatch``): the sync methods raise
:class:`~pyctx_web.errors.UsageError`. Outside Pyodide in a browser the
module imports, and constructing the store raises
:class:`~pyctx_web.errors.JsUnavailableError`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterable
from typing import Any, Final

from pyctx_web._env import IN_BROWSER, IN_PYODIDE
from pyctx_web._js import load_js
from pyctx_web.errors import ArgumentValueError, JsUnavailableError, UsageError
from pyctx_web.graph.errors import GraphError
from pyctx_web.graph.store._batch import Key, Plan, Snapshot, clock
from pyctx_web.graph.store._rows import Row, under_prefix
from pyctx_web.graph.store._rowstore import RowStore
from pyctx_web.graph.store.base import IndexConfig, Op, Result, TTLConfig
from pyctx_web.jsonparse import STORED_CHARS, STORED_DEPTH, parse_json

__all__ = ["SCHEMA_VERSION", "IndexedDBStore", "StoreStorageError"]

SCHEMA_VERSION: Final = 1
"""The IndexedDB version of the layout the module docstring describes."""

_helpers: Any = None


def _js() -> Any:
    global _helpers
    if _helpers is None:
        _helpers = load_js("idbstore")
    return _helpers


class StoreStorageError(GraphError):
    """IndexedDB failed an operation of the store (quota, a closed database...); a failed
    write stored nothing. ``action`` is what was attempted, ``detail`` what IndexedDB said."""

    def __init__(self, action: str, detail: str) -> None:
        super().__init__(f"cannot {action}: {detail}")
        self.action = action
        self.detail = detail


def _require_browser() -> None:
    if IN_BROWSER and getattr(sys.modules.get("js"), "indexedDB", None) is not None:
        return
    where = (
        "a browser context without IndexedDB"
        if IN_BROWSER
        else "Pyodide in Node, which has no IndexedDB"
        if IN_PYODIDE
        else f"{sys.implementation.name} on {sys.platform!r}"
    )
    raise JsUnavailableError(
        f"IndexedDBStore needs Pyodide in a browser with IndexedDB; this is {where}."
        " Use SqliteStore or InMemoryStore elsewhere."
    )


def _row(record: dict[str, Any]) -> Row:
    prefix, key, value = record["prefix"], record["key"], record["value"]
    if not (isinstance(prefix, str) and isinstance(key, str) and isinstance(value, dict)):
        raise StoreStorageError(
            "read the store", f"a stored item ({prefix!r}, {key!r}) is not an item of this store"
        )
    record["ns"] = prefix.split(".")
    return record


class IndexedDBStore(RowStore):
    """A store in the IndexedDB database ``database_name`` of the page's origin.

    ``index=`` and ``ttl=`` as :class:`~pyctx_web.graph.store.memory.InMemoryStore`'s.
    The connection opens on first use and closes with :meth:`close`; when
    another connection upgrades or deletes the database, it reopens on next use.
    """

    def __init__(
        self,
        database_name: str = "pyctx_web_store",
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        _require_browser()
        if not isinstance(database_name, str) or not database_name:
            raise ArgumentValueError(
                f"database_name must be a non-empty str, not {database_name!r}"
            )
        super().__init__(index=index, ttl=ttl)
        self.database_name = database_name
        self._conn: Any = None
        self._opening: asyncio.Lock | None = None

    def __repr__(self) -> str:
        return f"IndexedDBStore({self.database_name!r})"

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Not offered: IndexedDB is async; use :meth:`abatch` or the ``a``-methods."""
        raise UsageError(
            "IndexedDBStore is async only: use await store.aput/aget/asearch/adelete/"
            "alist_namespaces or abatch"
        )

    async def _connection(self) -> Any:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._conn is None or self._conn.closed:
                opened = await _js().open(self.database_name, SCHEMA_VERSION)
                if isinstance(opened, str):
                    reason = parse_json(opened, source="the open error", max_chars=STORED_CHARS)
                    raise StoreStorageError(
                        f"open the IndexedDB database {self.database_name!r}",
                        f"{reason['name']}: {reason['message']}",
                    )
                self._conn = opened
        return self._conn

    def close(self) -> None:
        """Close the connection; the next call opens it again."""
        if self._conn is not None:
            _js().close(self._conn)
            self._conn = None

    async def _call(self, operation: str, argument: Any, what: str) -> Any:
        for _ in range(2):
            conn = await self._connection()
            text = await getattr(_js(), operation)(conn, argument)
            outcome = parse_json(
                text, source="the stored items", max_chars=STORED_CHARS, max_depth=STORED_DEPTH
            )
            if outcome["status"] == "ok":
                return outcome["value"]
            if outcome["status"] != "closed":
                raise StoreStorageError(what, f"{outcome['name']}: {outcome['message']}")
            self._conn = None
        raise StoreStorageError(what, "the database connection keeps closing")

    async def _aread(self, plan: Plan, now: float) -> Snapshot:
        request = {
            "gets": [[".".join(ns), key] for ns, key in plan.gets],
            "prefixes": [".".join(p) for p in plan.prefixes],
            "namespaces": plan.wants_namespaces,
        }
        found = await self._call("read", json.dumps(request), "read the store")
        snapshot = Snapshot()
        for record in found["rows"]:
            row = _row(record)
            snapshot.rows[(tuple(row["ns"]), row["key"])] = row
        for prefix in plan.prefixes:
            rows = [_row(r) for r in found["under"][".".join(prefix)]]
            snapshot.under[prefix] = [r for r in rows if under_prefix(r["ns"], prefix)]
        alive = {p for p, expires in found["namespaces"] if expires is None or expires > now}
        snapshot.namespaces = [tuple(p.split(".")) for p in alive]
        return snapshot

    async def _awrite(self, rows: list[Row], deletes: list[Key], refresh: dict[Key, float]) -> None:
        payload = {
            "refresh": [[".".join(ns), key, expires] for (ns, key), expires in refresh.items()],
            "deletes": [[".".join(ns), key] for ns, key in deletes],
            "rows": [
                {
                    "prefix": ".".join(r["ns"]),
                    "key": r["key"],
                    "value": json.dumps(r["value"], ensure_ascii=False),
                    "created_at": r["created_at"],
                    "updated_at": r["updated_at"],
                    "expires_at": r["expires_at"],
                    "ttl": r["ttl"],
                    "vectors": json.dumps(r["vectors"]),
                }
                for r in rows
            ],
        }
        await self._call("write", json.dumps(payload, ensure_ascii=False), "write to the store")

    async def asweep_ttl(self) -> int:
        """Delete the expired items now; return how many."""
        return int(await self._call("sweep", clock(), "sweep the store"))
