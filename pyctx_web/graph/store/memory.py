"""The store in memory, as ``langgraph.store.memory``: :class:`InMemoryStore`.

Items live as long as the store object; a vector index
(``index={"dims": ..., "embed": ..., "fields": [...]}``) ranks ``search``
by cosine similarity to the ``query``. Items may hold any dict (nothing is
serialized); ``ttl=`` (a :class:`~pyctx_web.graph.store.base.TTLConfig`) and
``put(..., ttl=minutes)`` expire items.
"""

from __future__ import annotations

import copy

from pyctx_web.graph.store._batch import Key, Plan, Snapshot, alive
from pyctx_web.graph.store._rows import Row, under_prefix
from pyctx_web.graph.store._rowstore import RowStore
from pyctx_web.graph.store.base import IndexConfig, TTLConfig

__all__ = ["InMemoryStore"]


class InMemoryStore(RowStore):
    """A store in this process's memory; ``sweep_ttl()`` drops expired items."""

    _json_only = False

    def __init__(self, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None) -> None:
        super().__init__(index=index, ttl=ttl)
        self._rows: dict[Key, Row] = {}

    def _read(self, plan: Plan, now: float) -> Snapshot:
        snapshot = Snapshot()
        for key in plan.gets:
            row = self._rows.get(key)
            if row is not None:
                snapshot.rows[key] = row
        for prefix in plan.prefixes:
            snapshot.under[prefix] = [
                r for k, r in self._rows.items() if under_prefix(k[0], prefix)
            ]
        if plan.wants_namespaces:
            snapshot.namespaces = list({k[0] for k, r in self._rows.items() if alive(r, now)})
        return snapshot

    def _write(self, rows: list[Row], deletes: list[Key], refresh: dict[Key, float]) -> None:
        for key, expires_at in refresh.items():
            if key in self._rows:
                self._rows[key]["expires_at"] = expires_at
        for key in deletes:
            self._rows.pop(key, None)
        for row in rows:
            key = (tuple(row["ns"]), row["key"])
            old = self._rows.get(key)
            if old is not None:
                row["created_at"] = old["created_at"]
            # The caller keeps its dict; the store keeps its own copy.
            row["value"] = copy.copy(row["value"])
            self._rows[key] = row

    def sweep_ttl(self) -> int:
        """Delete the expired items now; return how many."""
        from pyctx_web.graph.store._batch import clock

        now = clock()
        dead = [k for k, r in self._rows.items() if not alive(r, now)]
        for key in dead:
            del self._rows[key]
        return len(dead)
