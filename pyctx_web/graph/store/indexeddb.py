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

import json
from collections.abc import Iterable
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError, JsUnavailableError, UsageError
from pyctx_web.graph.checkpoint._idb import Database, failed, indexeddb_missing
from pyctx_web.graph.errors import GraphError
from pyctx_web.graph.store._batch import Key, Plan, Snapshot, clock
from pyctx_web.graph.store._rows import Row, under_prefix
from pyctx_web.graph.store._rowstore import RowStore
from pyctx_web.graph.store.base import IndexConfig, Op, Result, TTLConfig

__all__ = ["SCHEMA_VERSION", "IndexedDBStore", "StoreStorageError"]

SCHEMA_VERSION: Final = 1
"""The IndexedDB version of the layout the module docstring describes."""


class StoreStorageError(GraphError):
    """IndexedDB failed an operation of the store (quota, a closed database...); a failed
    write stored nothing. ``action`` is what was attempted, ``detail`` what IndexedDB said."""

    def __init__(self, action: str, detail: str) -> None:
        super().__init__(f"cannot {action}: {detail}")
        self.action = action
        self.detail = detail


def _require_browser() -> None:
    where = indexeddb_missing()
    if where is not None:
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
        self._db = Database(
            "idbstore",
            database_name,
            SCHEMA_VERSION,
            error=StoreStorageError,
            source="the stored items",
        )

    def __repr__(self) -> str:
        return f"IndexedDBStore({self.database_name!r})"

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Not offered: IndexedDB is async; use :meth:`abatch` or the ``a``-methods."""
        raise UsageError(
            "IndexedDBStore is async only: use await store.aput/aget/asearch/adelete/"
            "alist_namespaces or abatch"
        )

    def close(self) -> None:
        """Close the connection; the next call opens it again."""
        self._db.close()

    async def _call(self, operation: str, argument: Any, what: str) -> Any:
        outcome = await self._db.call(operation, argument, what=what)
        if outcome["status"] != "ok":
            raise StoreStorageError(what, failed(outcome))
        return outcome["value"]

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
