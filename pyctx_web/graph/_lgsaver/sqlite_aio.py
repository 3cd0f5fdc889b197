"""``langgraph.checkpoint.sqlite.aio``: :class:`AsyncSqliteSaver`, the SQLite saver for async code.

pyctx_web's SQLite saver already stores through ``async`` methods (each finishes
without waiting: SQLite answers at once), so LangGraph's async saver is the same
saver with LangGraph's async constructor forms: ``async with
AsyncSqliteSaver.from_conn_string(path)``, ``async with saver`` and ``await saver.setup()``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from pyctx_web.graph._lgsaver.sqlite import SqliteSaver

__all__ = ["AsyncSqliteSaver"]


class AsyncSqliteSaver(SqliteSaver):
    """Checkpoints in SQLite, opened and closed from async code (see the module)."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str) -> AsyncIterator[AsyncSqliteSaver]:  # type: ignore[override]  # LangGraph's async form
        """A saver on its own connection to ``conn_string``, closed when the block ends."""
        saver = cls(conn_string)
        try:
            yield saver
        finally:
            saver.close()

    async def setup(self) -> None:
        """Nothing to do: the saver makes its tables when it first opens the database."""

    async def __aenter__(self) -> AsyncSqliteSaver:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.close()
