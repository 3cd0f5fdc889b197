"""Conversation memory for runs: the :class:`MemoryProvider` protocol and :class:`InMemoryMemory`.

A run reaches its memory as ``ctx.memory``; entries carry the session (thread)
they belong to, so one provider serves every thread of a graph and ``read``
scopes by ``session_id``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.checkpoint.base import check_limit

__all__ = ["InMemoryMemory", "MemoryEntry", "MemoryProvider"]


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One remembered item: a message, a fact, a tool result."""

    content: str
    """The text of the entry."""
    role: str = "user"
    """Who produced it: ``"user"``, ``"assistant"``, ``"system"`` or ``"tool"``."""
    session_id: str | None = None
    """The session (thread) it belongs to; ``None`` for entries shared by all sessions."""
    tags: tuple[str, ...] = ()
    """Labels that ``read(tags=...)`` filters on."""
    created_at: str = field(default_factory=_now)
    """ISO 8601 UTC time the entry was made."""
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Anything else worth keeping, read-only."""

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise ArgumentTypeError(
                f"MemoryEntry.content must be a str, not {type(self.content).__name__!r}"
            )
        tags: object = self.tags
        if isinstance(tags, str) or not all(isinstance(t, str) for t in self.tags):
            raise ArgumentTypeError("MemoryEntry.tags must be a tuple of str")
        object.__setattr__(self, "tags", tuple(self.tags))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))


@runtime_checkable
class MemoryProvider(Protocol):
    """Where a run's memory lives. Every method is async, so remote or browser stores fit."""

    async def read(
        self,
        *,
        session_id: str | None = None,
        limit: int | None = None,
        query: str | None = None,
        tags: Sequence[str] | None = None,
    ) -> list[MemoryEntry]:
        """Entries oldest first, filtered; ``limit`` keeps the newest ``limit`` of them.

        ``session_id`` keeps that session's entries; ``tags`` keeps entries that
        carry every given tag; ``query`` keeps entries whose content contains it,
        ignoring case.
        """
        ...

    async def write(self, entries: Iterable[MemoryEntry]) -> None:
        """Append entries, all or none."""
        ...

    async def clear(self, *, session_id: str | None = None) -> None:
        """Remove the entries of one session, or every entry when ``session_id`` is ``None``."""
        ...

    async def entries(self) -> list[MemoryEntry]:
        """Every entry, oldest first."""
        ...


class InMemoryMemory:
    """A :class:`MemoryProvider` that keeps entries in a list, for tests and single pages."""

    def __init__(self, entries: Iterable[MemoryEntry] = ()) -> None:
        self._entries: list[MemoryEntry] = []
        self._append(entries)

    def _append(self, entries: Iterable[MemoryEntry]) -> None:
        batch = list(entries)
        for entry in batch:
            if not isinstance(entry, MemoryEntry):
                raise ArgumentTypeError(
                    f"memory entries must be MemoryEntry objects, not {type(entry).__name__!r}"
                )
        self._entries.extend(batch)

    async def read(
        self,
        *,
        session_id: str | None = None,
        limit: int | None = None,
        query: str | None = None,
        tags: Sequence[str] | None = None,
    ) -> list[MemoryEntry]:
        """Entries oldest first, filtered as :meth:`MemoryProvider.read` says."""
        check_limit(limit)
        if isinstance(tags, str):
            raise ArgumentTypeError("tags must be a sequence of str, not a str")
        needle = query.casefold() if query else None
        wanted = set(tags or ())
        found = [
            entry
            for entry in self._entries
            if (session_id is None or entry.session_id == session_id)
            and wanted.issubset(entry.tags)
            and (needle is None or needle in entry.content.casefold())
        ]
        if limit is not None:
            found = found[len(found) - limit :] if limit else []
        return found

    async def write(self, entries: Iterable[MemoryEntry]) -> None:
        """Append entries, all or none (a bad entry rejects the whole batch)."""
        self._append(entries)

    async def clear(self, *, session_id: str | None = None) -> None:
        """Remove one session's entries, or all of them."""
        if session_id is None:
            self._entries.clear()
        else:
            self._entries = [e for e in self._entries if e.session_id != session_id]

    async def entries(self) -> list[MemoryEntry]:
        """Every entry, oldest first."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
