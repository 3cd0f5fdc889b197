"""A run's memory kept in a list: :class:`InMemoryMemory`, for tests and single pages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph._engine.extension import MemoryEntry
from pyctx_web.graph.checkpoint.base import check_limit

__all__ = ["InMemoryMemory"]


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


publish("pyctx_web.graph.memory", InMemoryMemory)
