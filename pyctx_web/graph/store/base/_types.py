"""The store's records and operations: :class:`Item`, :class:`SearchItem` and the four ops.

A store runs a list of ops (:class:`GetOp`, :class:`PutOp`, :class:`SearchOp`,
:class:`ListNamespacesOp`) in one :meth:`~pyctx_web.graph.store.base.BaseStore.batch`;
the convenience methods (``get``, ``put``...) each make one op. The ops are
named tuples, so two equal ops compare equal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, NamedTuple, TypedDict

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentValueError

__all__ = [
    "NOT_PROVIDED",
    "GetOp",
    "IndexConfig",
    "InvalidNamespaceError",
    "Item",
    "ListNamespacesOp",
    "MatchCondition",
    "NamespacePath",
    "NotProvided",
    "Op",
    "PutOp",
    "Result",
    "SearchItem",
    "SearchOp",
    "TTLConfig",
    "validate_op_namespace",
]


class NotProvided:
    """The marker of an argument left out (``ttl`` of :meth:`BaseStore.put`)."""

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_PROVIDED"


NOT_PROVIDED = NotProvided()


def _when(value: datetime | str) -> datetime:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


class Item:
    """A stored value: its ``namespace``, ``key``, ``value`` (a dict) and timestamps."""

    __slots__ = ("created_at", "key", "namespace", "updated_at", "value")

    def __init__(
        self,
        *,
        value: dict[str, Any],
        key: str,
        namespace: tuple[str, ...],
        created_at: datetime | str,
        updated_at: datetime | str,
    ) -> None:
        self.value = value
        self.key = key
        self.namespace = tuple(namespace)
        self.created_at = _when(created_at)
        self.updated_at = _when(updated_at)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return False
        return (self.namespace, self.key, self.value, self.created_at, self.updated_at) == (
            other.namespace,
            other.key,
            other.value,
            other.created_at,
            other.updated_at,
        )

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))

    def dict(self) -> dict[str, Any]:
        """The item as JSON-ready data (namespace as a list, timestamps in ISO format)."""
        return {
            "namespace": list(self.namespace),
            "key": self.key,
            "value": self.value,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.dict().items())
        return f"{type(self).__name__}({fields})"


class SearchItem(Item):
    """An item found by ``search``, with its similarity ``score`` (``None`` without a query)."""

    __slots__ = ("score",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime | str,
        updated_at: datetime | str,
        score: float | None = None,
    ) -> None:
        super().__init__(
            value=value,
            key=key,
            namespace=namespace,
            created_at=created_at,
            updated_at=updated_at,
        )
        self.score = score

    def dict(self) -> dict[str, Any]:
        """The item as JSON-ready data, with its ``score``."""
        return {**super().dict(), "score": self.score}


class GetOp(NamedTuple):
    """Read the item at ``namespace``/``key``; ``refresh_ttl`` restarts its time to live."""

    namespace: tuple[str, ...]
    key: str
    refresh_ttl: bool = True


class SearchOp(NamedTuple):
    """Find items under ``namespace_prefix``: by ``filter``, ranked by ``query``, paged."""

    namespace_prefix: tuple[str, ...]
    filter: dict[str, Any] | None = None
    limit: int = 10
    offset: int = 0
    query: str | None = None
    refresh_ttl: bool = True


NamespacePath = tuple[str, ...]
"""A namespace pattern; a ``"*"`` label matches any one label."""


class MatchCondition(NamedTuple):
    """Namespaces that start (``"prefix"``) or end (``"suffix"``) with ``path``."""

    match_type: Literal["prefix", "suffix"]
    path: NamespacePath


class ListNamespacesOp(NamedTuple):
    """List the namespaces that meet every condition, cut to ``max_depth`` labels, paged."""

    match_conditions: tuple[MatchCondition, ...] | None = None
    max_depth: int | None = None
    limit: int = 100
    offset: int = 0


class PutOp(NamedTuple):
    """Store ``value`` at ``namespace``/``key``, or delete it (``value=None``).

    ``index`` names the fields to embed (``False``: none; ``None``: the
    store's ``fields``); ``ttl`` is the time to live in minutes (``None``: forever).
    """

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    index: Literal[False] | list[str] | None = None  # type: ignore[assignment]
    ttl: float | None = None


Op = GetOp | SearchOp | PutOp | ListNamespacesOp
Result = Item | list[Item] | list[SearchItem] | list[tuple[str, ...]] | None


class InvalidNamespaceError(ArgumentValueError):
    """A namespace that a store cannot hold (empty, or a bad label)."""


class TTLConfig(TypedDict, total=False):
    """How a store expires items: ``default_ttl`` minutes, ``refresh_on_read``, sweep interval."""

    refresh_on_read: bool
    default_ttl: float | None
    sweep_interval_minutes: int | None


class IndexConfig(TypedDict, total=False):
    """A store's vector index: ``dims``, ``embed`` (a function or ``Embeddings``), ``fields``."""

    dims: int
    embed: Any
    fields: list[str] | None


def check_labels(namespace: tuple[Any, ...]) -> None:
    """Raise :class:`InvalidNamespaceError` unless every label is a usable str."""
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"namespace {namespace!r} has a label of type {type(label).__name__}: "
                "labels must be str"
            )
        if not label:
            raise InvalidNamespaceError(f"namespace {namespace!r} has an empty label")
        for char, name in ((".", "a period ('.')"), ("\x00", "a NUL byte")):
            if char in label:
                raise InvalidNamespaceError(
                    f"namespace {namespace!r} has the label {label!r}, which contains {name}"
                )


def check_put_namespace(namespace: tuple[Any, ...]) -> None:
    """The rules of ``put``: not empty, usable labels, not under ``"langgraph"``."""
    if not namespace:
        raise InvalidNamespaceError("namespace must not be empty")
    check_labels(namespace)
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(
            f'namespace {namespace!r} starts with "langgraph", which is reserved'
        )


def validate_op_namespace(op: Op) -> None:
    """Check the namespace labels ``op`` carries; raise :class:`InvalidNamespaceError`."""
    if isinstance(op, (GetOp, PutOp)):
        check_labels(op.namespace)
    elif isinstance(op, SearchOp):
        check_labels(op.namespace_prefix)
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            check_labels(condition.path)


publish(
    "pyctx_web.graph.store.base",
    NotProvided,
    Item,
    SearchItem,
    GetOp,
    SearchOp,
    MatchCondition,
    ListNamespacesOp,
    PutOp,
    InvalidNamespaceError,
    TTLConfig,
    IndexConfig,
    validate_op_namespace,
)
