"""The interface of LangGraph's node caches (``langgraph.cache.base.BaseCache``), by name only.

pyctx_web caches no node results: ``compile(cache=...)`` refuses any cache with a
:class:`~pyctx_web.graph.errors.GraphConfigError`. :class:`BaseCache` is here so that
code typed against LangGraph (LangChain's ``create_agent(cache=...)`` parameter)
imports; a subclass implements LangGraph's methods for its own use.

Under ``install_as_langgraph()`` this module is ``langgraph.cache`` and
``langgraph.cache.base``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeAlias, TypeVar

__all__ = ["BaseCache", "FullKey", "Namespace"]

ValueT = TypeVar("ValueT")

Namespace: TypeAlias = tuple[str, ...]
"""Where a cached value lives: a node's namespace."""
FullKey: TypeAlias = tuple[Namespace, str]
"""A cached value's namespace and key."""


class BaseCache(ABC, Generic[ValueT]):
    """A cache of values by namespace and key, each with an optional time to live (seconds)."""

    def __init__(self, *, serde: Any = None) -> None:
        self.serde = serde
        """How values are turned into bytes and back, as the subclass uses it."""

    @abstractmethod
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """The cached values of ``keys`` that are cached and not expired."""

    @abstractmethod
    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """Async form of :meth:`get`."""

    @abstractmethod
    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """Cache each key's value, for its time to live (``None``: no expiry)."""

    @abstractmethod
    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """Async form of :meth:`set`."""

    @abstractmethod
    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Drop the values of ``namespaces`` (all of them when ``None``)."""

    @abstractmethod
    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Async form of :meth:`clear`."""
