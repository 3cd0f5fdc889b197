"""``langgraph.checkpoint.sqlite``: the SQLite saver with LangGraph's saver interface too.

:class:`SqliteSaver` is :class:`pyctx_web.graph.checkpoint.sqlite.SqliteSaver` that also
takes LangGraph's ``aput(config, checkpoint, metadata, new_versions)``, ``aput_writes``,
``aget_tuple``, ``alist``, ``adelete_thread`` and their sync forms.
"""

from __future__ import annotations

from pyctx_web._homes import publish
from pyctx_web.graph._lgsaver.saver import LangGraphSaver
from pyctx_web.graph.checkpoint import sqlite

__all__ = ["SqliteSaver"]


class SqliteSaver(LangGraphSaver, sqlite.SqliteSaver):  # type: ignore[misc]  # the graph's and LangGraph's forms
    """Checkpoints in SQLite, read and written by the graph or through LangGraph's interface."""

    async def _lg_thread_ids(self) -> list[str]:
        rows = self._query(
            "SELECT thread_id FROM pyctx_checkpoints GROUP BY thread_id ORDER BY min(seq)", ()
        )
        return [str(row[0]) for row in rows]


publish("pyctx_web.graph.saver", SqliteSaver)
