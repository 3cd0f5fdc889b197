"""The part every pyctx_web store shares: a :class:`BaseStore` over a backend of rows.

A subclass says how to read the rows a batch needs (:meth:`RowStore._read`)
and how to write its rows in one transaction (:meth:`RowStore._write`), or
their async forms; this class checks, embeds, answers and expires.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph.store._batch import (
    Key,
    Plan,
    Snapshot,
    answer,
    clock,
    plan_batch,
    rows_to_write,
)
from pyctx_web.graph.store._rows import Row
from pyctx_web.graph.store.base import BaseStore, IndexConfig, Op, Result, TTLConfig
from pyctx_web.graph.store.base.embed import Embedder, ensure_embeddings

__all__ = ["RowStore"]


def _index(index: IndexConfig | None) -> tuple[dict[str, Any] | None, Embedder | None, list[str]]:
    if index is None:
        return None, None, []
    if not isinstance(index, dict) or "embed" not in index or "dims" not in index:
        raise ArgumentValueError(
            'index must be a dict with "dims" and "embed" (and maybe "fields")'
        )
    fields = index.get("fields") or ["$"]
    if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
        raise ArgumentTypeError(f"index fields must be a list of str, not {fields!r}")
    config = {**index, "fields": fields}
    return config, ensure_embeddings(index["embed"], index["dims"]), fields


def _ttl(ttl: TTLConfig | None) -> TTLConfig | None:
    if ttl is None:
        return None
    if not isinstance(ttl, dict):
        raise ArgumentTypeError(f"ttl must be a TTLConfig dict, not {type(ttl).__name__}")
    unknown = sorted(set(ttl) - {"default_ttl", "refresh_on_read", "sweep_interval_minutes"})
    if unknown:
        raise ArgumentValueError(f"ttl has unknown key(s) {', '.join(map(repr, unknown))}")
    return ttl


class RowStore(BaseStore):
    """A store whose backend holds rows; vector index and TTL handled here."""

    _json_only = True

    def __init__(self, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None) -> None:
        self.index_config, self._embedder, self._fields = _index(index)
        self.ttl_config = _ttl(ttl)
        self.supports_ttl = True

    def _read(self, plan: Plan, now: float) -> Snapshot:
        raise NotImplementedError

    def _write(self, rows: list[Row], deletes: list[Key], refresh: dict[Key, float]) -> None:
        raise NotImplementedError

    async def _aread(self, plan: Plan, now: float) -> Snapshot:
        return self._read(plan, now)

    async def _awrite(self, rows: list[Row], deletes: list[Key], refresh: dict[Key, float]) -> None:
        self._write(rows, deletes, refresh)

    def _plan(self, ops: Iterable[Op]) -> Plan:
        return plan_batch(list(ops), self._embedder, self._fields, json_only=self._json_only)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops``: all checked first; reads see the store before the batch's writes."""
        now = clock()
        plan = self._plan(ops)
        embedder = self._embedder
        vectors = embedder.embed([t for _, t in plan.texts]) if embedder and plan.texts else []
        queries = {q: embedder.embed_query(q) for q in plan.queries} if embedder else {}
        snapshot = self._read(plan, now)
        results, refresh = answer(plan, snapshot, queries, now)
        rows, deletes = rows_to_write(plan, vectors, now)
        if rows or deletes or refresh:
            self._write(rows, deletes, refresh)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch`, awaiting the embedder's and the backend's async forms."""
        now = clock()
        plan = self._plan(ops)
        embedder = self._embedder
        vectors = (
            await embedder.aembed([t for _, t in plan.texts]) if embedder and plan.texts else []
        )
        queries = {q: await embedder.aembed_query(q) for q in plan.queries} if embedder else {}
        snapshot = await self._aread(plan, now)
        results, refresh = answer(plan, snapshot, queries, now)
        rows, deletes = rows_to_write(plan, vectors, now)
        if rows or deletes or refresh:
            await self._awrite(rows, deletes, refresh)
        return results
