"""What every store does with its rows, whatever holds them: filter, rank, list namespaces.

A row is a dict as the persistent stores keep it (JSON-ready): ``ns`` (a
list of labels), ``key``, ``value``, ``created_at``/``updated_at`` (ISO
text), ``expires_at`` (epoch seconds or ``None``), ``ttl`` (minutes or
``None``) and ``vectors`` (the embedded fields' vectors, maybe none).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.store.base._types import (
    Item,
    ListNamespacesOp,
    MatchCondition,
    SearchItem,
    SearchOp,
)

__all__ = [
    "Row",
    "item_of",
    "list_namespaces",
    "matches_filter",
    "search_rows",
    "under_prefix",
]

Row = dict[str, Any]

_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def item_of(row: Row) -> Item:
    """The :class:`Item` a row holds."""
    return Item(
        value=row["value"],
        key=row["key"],
        namespace=tuple(row["ns"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _compare(operator: str, actual: Any, expected: Any) -> bool:
    if operator == "$eq":
        return bool(actual == expected)
    if operator == "$ne":
        return bool(actual != expected)
    try:
        left, right = float(actual), float(expected)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field is not greater or lower than anything
    if operator == "$gt":
        return left > right
    if operator == "$gte":
        return left >= right
    if operator == "$lt":
        return left < right
    return left <= right


def _matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, Mapping):
        if any(str(k).startswith("$") for k in expected):
            return all(_compare(op, actual, v) for op, v in expected.items())
        if not isinstance(actual, Mapping):
            return False
        return all(_matches(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(actual) == len(expected)
            and all(_matches(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected)


def check_filter(filter: Any) -> None:
    """Refuse a filter that is not a dict, or that names an unknown ``$`` operator."""
    if filter is None:
        return
    if not isinstance(filter, Mapping):
        raise ArgumentValueError(f"search filter must be a dict, not {type(filter).__name__}")
    for value in filter.values():
        if isinstance(value, Mapping):
            for name in value:
                if str(name).startswith("$") and name not in _OPERATORS:
                    raise ArgumentValueError(
                        f"search filter operator {name!r} is unknown; the operators are "
                        + ", ".join(_OPERATORS)
                    )


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether a stored value meets every field of ``filter``.

    A field is ``{"f": v}`` (equal, nested dicts field by field) or
    ``{"f": {"$gt": v}}`` (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``).
    """
    return not filter or all(_matches(value.get(k), v) for k, v in filter.items())


def under_prefix(namespace: Iterable[str], prefix: tuple[str, ...]) -> bool:
    """Whether ``namespace`` starts with the labels of ``prefix``."""
    labels = tuple(namespace)
    return labels[: len(prefix)] == prefix


def _meets(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    if not path:
        return True
    return all(want == "*" or want == have for want, have in zip(path, part, strict=True))


def list_namespaces(
    namespaces: Iterable[tuple[str, ...]], op: ListNamespacesOp
) -> list[tuple[str, ...]]:
    """The distinct namespaces meeting ``op``'s conditions, cut to ``max_depth``, sorted, paged."""
    found: set[tuple[str, ...]] = set()
    for namespace in namespaces:
        if all(_meets(c, namespace) for c in op.match_conditions or ()):
            found.add(namespace if op.max_depth is None else namespace[: op.max_depth])
    return sorted(found)[op.offset : op.offset + op.limit]


def _cosine(query: list[float], vector: list[float]) -> float:
    dot = sum(a * b for a, b in zip(query, vector, strict=False))
    norm = math.sqrt(sum(a * a for a in query)) * math.sqrt(sum(b * b for b in vector))
    return dot / norm if norm else 0.0


def _found(row: Row, score: float | None) -> SearchItem:
    return SearchItem(
        tuple(row["ns"]), row["key"], row["value"], row["created_at"], row["updated_at"], score
    )


def search_rows(
    rows: list[Row], op: SearchOp, query_vector: list[float] | None
) -> list[SearchItem]:
    """Rank the rows of a search (already under its prefix and alive) and cut its page.

    Without a query vector: the rows that meet the filter, by namespace and
    key. With one: the rows with vectors by their best cosine similarity, then
    the rows without vectors (score ``None``).
    """
    kept = [r for r in rows if matches_filter(r["value"], op.filter)]
    kept.sort(key=lambda r: (tuple(r["ns"]), r["key"]))
    if query_vector is None:
        return [_found(r, None) for r in kept[op.offset : op.offset + op.limit]]
    scored = [
        (max(_cosine(query_vector, v) for v in r["vectors"]), r) for r in kept if r["vectors"]
    ]
    scored.sort(key=lambda pair: -pair[0])
    ranked: list[tuple[float | None, Row]] = [*scored]
    ranked.extend((None, r) for r in kept if not r["vectors"])
    return [_found(r, s) for s, r in ranked[op.offset : op.offset + op.limit]]
