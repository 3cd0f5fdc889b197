"""One batch of ops on a store of rows: check, embed, read, answer, write.

Every op is checked before anything is read or written (a bad value or
namespace fails the whole batch, and nothing is stored); the texts to embed
are embedded next, so an embedding error stores nothing either. Reads see
the store as it was before the batch; the batch's puts (the last one of a
key wins) are written together, in one transaction of the backend.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import field
from datetime import UTC, datetime
from typing import Any

from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph.store._rows import Row, check_filter, item_of, list_namespaces, search_rows
from pyctx_web.graph.store.base._types import (
    GetOp,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    validate_op_namespace,
)
from pyctx_web.graph.store.base.embed import Embedder, get_text_at_path

__all__ = ["Plan", "Snapshot", "answer", "plan_batch"]

Key = tuple[tuple[str, ...], str]


@record
class Snapshot:
    """What a backend read for a batch: rows by key, rows under each prefix, all namespaces."""

    rows: dict[Key, Row] = field(default_factory=dict)
    under: dict[tuple[str, ...], list[Row]] = field(default_factory=dict)
    namespaces: list[tuple[str, ...]] = field(default_factory=list)


@record
class Plan:
    """A checked batch: what to read, what to embed and what to write."""

    ops: list[Op]
    gets: set[Key] = field(default_factory=set)
    prefixes: set[tuple[str, ...]] = field(default_factory=set)
    wants_namespaces: bool = False
    puts: dict[Key, PutOp] = field(default_factory=dict)
    texts: list[tuple[Key, str]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    encoded: dict[Key, str] = field(default_factory=dict)


def _check_put(op: PutOp, json_only: bool) -> str | None:
    where = f"{op.namespace!r}/{op.key!r}"
    if op.value is not None and not isinstance(op.value, dict):
        raise ArgumentTypeError(
            f"the value put at {where} must be a dict, not {type(op.value).__name__}"
        )
    index = op.index
    if (
        index is not None
        and index is not False
        and (not isinstance(index, list) or not all(isinstance(f, str) for f in index))
    ):
        raise ArgumentTypeError(f"index of the put at {where} must be False, None or a list of str")
    ttl = op.ttl
    if ttl is not None and (
        isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not ttl > 0 or math.isinf(ttl)
    ):
        raise ArgumentValueError(
            f"ttl of the put at {where} must be a number of minutes > 0, not {ttl!r}"
        )
    if not json_only or op.value is None:
        return None
    try:
        return json.dumps(op.value, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as error:
        raise ArgumentValueError(f"the value put at {where} is not JSON data: {error}") from None


def _check_op(op: Any, plan: Plan, json_only: bool) -> None:
    if not isinstance(op, (GetOp, PutOp, SearchOp, ListNamespacesOp)):
        raise ArgumentTypeError(
            f"a store runs GetOp, PutOp, SearchOp and ListNamespacesOp, not {op!r}"
        )
    validate_op_namespace(op)
    if isinstance(op, GetOp):
        plan.gets.add((tuple(op.namespace), op.key))
    elif isinstance(op, SearchOp):
        check_filter(op.filter)
        for name, number in (("limit", op.limit), ("offset", op.offset)):
            if isinstance(number, bool) or not isinstance(number, int) or number < 0:
                raise ArgumentValueError(f"search {name} must be an int >= 0, not {number!r}")
        plan.prefixes.add(tuple(op.namespace_prefix))
        if op.query and op.query not in plan.queries:
            plan.queries.append(op.query)
    elif isinstance(op, ListNamespacesOp):
        plan.wants_namespaces = True
    else:
        key = (tuple(op.namespace), op.key)
        encoded = _check_put(op, json_only)
        plan.puts[key] = op
        if encoded is not None:
            plan.encoded[key] = encoded


def _texts(op: PutOp, fields: list[str]) -> list[str]:
    if op.value is None or op.index is False:
        return []
    paths = fields if op.index is None else op.index
    return [text for path in paths for text in get_text_at_path(op.value, path)]


def plan_batch(
    ops: list[Op], embedder: Embedder | None, fields: list[str], *, json_only: bool
) -> Plan:
    """Check every op (raising before anything happens) and say what the batch needs."""
    plan = Plan(ops)
    for op in ops:
        _check_op(op, plan, json_only)
    if embedder is None:
        plan.queries = []
        return plan
    for key, op in plan.puts.items():
        plan.texts.extend((key, text) for text in _texts(op, fields))
    return plan


def rows_to_write(
    plan: Plan, vectors: list[list[float]], now: float
) -> tuple[list[Row], list[Key]]:
    """The rows the batch's puts store, and the keys its deletes remove."""
    by_key: dict[Key, list[list[float]]] = {}
    for (key, _), vector in zip(plan.texts, vectors, strict=True):
        by_key.setdefault(key, []).append(vector)
    stamp = datetime.fromtimestamp(now, UTC).isoformat()
    rows: list[Row] = []
    deletes: list[Key] = []
    for key, op in plan.puts.items():
        if op.value is None:
            deletes.append(key)
            continue
        rows.append(
            {
                "ns": list(key[0]),
                "key": key[1],
                "value": op.value,
                "created_at": stamp,
                "updated_at": stamp,
                "ttl": op.ttl,
                "expires_at": None if op.ttl is None else now + op.ttl * 60,
                "vectors": by_key.get(key, []),
            }
        )
    return rows, deletes


def alive(row: Row | None, now: float) -> bool:
    """Whether a row exists and has not expired."""
    return row is not None and (row["expires_at"] is None or row["expires_at"] > now)


def _refreshed(row: Row, now: float, refresh: dict[Key, float]) -> None:
    if row["ttl"] is not None:
        row["expires_at"] = now + row["ttl"] * 60
        refresh[(tuple(row["ns"]), row["key"])] = row["expires_at"]


def answer(
    plan: Plan, snapshot: Snapshot, queries: dict[str, list[float]], now: float
) -> tuple[list[Result], dict[Key, float]]:
    """Each op's result from what was read, and the new expiry of the rows read with refresh."""
    results: list[Result] = []
    refresh: dict[Key, float] = {}
    for op in plan.ops:
        if isinstance(op, GetOp):
            row = snapshot.rows.get((tuple(op.namespace), op.key))
            if row is None or not alive(row, now):
                results.append(None)
                continue
            if op.refresh_ttl:
                _refreshed(row, now, refresh)
            results.append(item_of(row))
        elif isinstance(op, SearchOp):
            rows = [r for r in snapshot.under.get(tuple(op.namespace_prefix), []) if alive(r, now)]
            found = search_rows(rows, op, queries.get(op.query) if op.query else None)
            if op.refresh_ttl:
                wanted = {(f.namespace, f.key) for f in found}
                for row in rows:
                    if (tuple(row["ns"]), row["key"]) in wanted:
                        _refreshed(row, now, refresh)
            results.append(found)
        elif isinstance(op, ListNamespacesOp):
            results.append(list_namespaces(snapshot.namespaces, op))
        else:
            results.append(None)
    return results, refresh


def clock() -> float:
    """Now, in epoch seconds."""
    return time.time()
