"""The store's interface, as ``langgraph.store.base``: :class:`BaseStore` and its records.

A store keeps JSON-like dicts by ``namespace`` (a tuple of str labels) and
``key``, across threads: what a graph remembers about a user rather than
about a conversation. ``put``/``get``/``delete`` one item, ``search`` a
namespace prefix (by ``filter``, ranked by a ``query`` when the store has a
vector index), ``list_namespaces``; each is one op of :meth:`BaseStore.batch`,
and every method has an ``a``-form for async code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, Literal

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.store.base._types import (
    NOT_PROVIDED,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    check_labels,
    check_put_namespace,
    validate_op_namespace,
)
from pyctx_web.graph.store.base.embed import ensure_embeddings, get_text_at_path, tokenize_path

__all__ = [
    "NOT_PROVIDED",
    "BaseStore",
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
    "ensure_embeddings",
    "get_text_at_path",
    "tokenize_path",
    "validate_op_namespace",
]


def _namespace(namespace: Any, what: str) -> tuple[str, ...]:
    if not isinstance(namespace, tuple):
        raise ArgumentTypeError(f"{what} must be a tuple of str, not {type(namespace).__name__}")
    return namespace


class _Ops:
    """Turns each convenience call into its op, checking the namespace first."""

    supports_ttl: bool = False
    """Whether ``put(..., ttl=...)`` is honoured."""
    ttl_config: TTLConfig | None = None
    """The store's TTL defaults, if any."""

    def _refresh(self, refresh_ttl: bool | None) -> bool:
        if refresh_ttl is not None:
            return refresh_ttl
        return True if self.ttl_config is None else self.ttl_config.get("refresh_on_read", True)

    def _get_op(self, namespace: Any, key: str, refresh_ttl: bool | None) -> GetOp:
        check_labels(_namespace(namespace, "namespace"))
        return GetOp(namespace, str(key), self._refresh(refresh_ttl))

    def _search_op(self, prefix: Any, **fields: Any) -> SearchOp:
        check_labels(_namespace(prefix, "namespace_prefix"))
        fields["refresh_ttl"] = self._refresh(fields["refresh_ttl"])
        return SearchOp(prefix, **fields)

    def _put_op(self, namespace: Any, key: str, value: Any, index: Any, ttl: Any) -> PutOp:
        check_put_namespace(_namespace(namespace, "namespace"))
        if ttl not in (NOT_PROVIDED, None) and not self.supports_ttl:
            raise NotImplementedError(
                f"{type(self).__name__} does not support ttl; leave ttl out or pass ttl=None"
            )
        if ttl is NOT_PROVIDED:
            ttl = None if not self.ttl_config else self.ttl_config.get("default_ttl")
        return PutOp(namespace, str(key), value, index=index, ttl=ttl)

    def _delete_op(self, namespace: Any, key: str) -> PutOp:
        check_labels(_namespace(namespace, "namespace"))
        return PutOp(namespace, str(key), None)

    def _list_op(
        self, prefix: Any, suffix: Any, max_depth: int | None, limit: int, offset: int
    ) -> ListNamespacesOp:
        conditions = []
        for kind, path in (("prefix", prefix), ("suffix", suffix)):
            if path is not None:
                check_labels(_namespace(path, kind))
                conditions.append(MatchCondition(kind, path))  # type: ignore[arg-type]
        return ListNamespacesOp(tuple(conditions), max_depth, limit, offset)


class BaseStore(_Ops, ABC):
    """A key-value store with namespaces, optional vector search and TTL.

    Subclasses implement :meth:`batch` and :meth:`abatch`; the other methods
    each run one op through them.
    """

    @abstractmethod
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` and return one result each (``None`` for a put)."""

    @abstractmethod
    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` and return one result each, without blocking the event loop."""

    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """The item at ``namespace``/``key``, or ``None``."""
        return self.batch([self._get_op(namespace, key, refresh_ttl)])[0]  # type: ignore[return-value]

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """The items under ``namespace_prefix`` meeting ``filter``, ranked by ``query``."""
        op = self._search_op(
            namespace_prefix,
            filter=filter,
            limit=limit,
            offset=offset,
            query=query,
            refresh_ttl=refresh_ttl,
        )
        return self.batch([op])[0]  # type: ignore[return-value]

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """Store ``value`` (a dict) at ``namespace``/``key``, replacing what was there.

        ``index``: the fields to embed (``False``: none); ``ttl``: minutes to live.
        """
        self.batch([self._put_op(namespace, key, value, index, ttl)])

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete the item at ``namespace``/``key`` (nothing when there is none)."""
        self.batch([self._delete_op(namespace, key)])

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """The namespaces holding items, by ``prefix``/``suffix`` (``"*"``: any label)."""
        op = self._list_op(prefix, suffix, max_depth, limit, offset)
        return self.batch([op])[0]  # type: ignore[return-value]

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """:meth:`get`, for async code."""
        return (await self.abatch([self._get_op(namespace, key, refresh_ttl)]))[0]  # type: ignore[return-value]

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """:meth:`search`, for async code."""
        op = self._search_op(
            namespace_prefix,
            filter=filter,
            limit=limit,
            offset=offset,
            query=query,
            refresh_ttl=refresh_ttl,
        )
        return (await self.abatch([op]))[0]  # type: ignore[return-value]

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """:meth:`put`, for async code."""
        await self.abatch([self._put_op(namespace, key, value, index, ttl)])

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """:meth:`delete`, for async code."""
        await self.abatch([self._delete_op(namespace, key)])

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """:meth:`list_namespaces`, for async code."""
        op = self._list_op(prefix, suffix, max_depth, limit, offset)
        return (await self.abatch([op]))[0]  # type: ignore[return-value]
