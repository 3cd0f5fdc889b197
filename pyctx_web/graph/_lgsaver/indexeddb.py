"""The IndexedDB saver with LangGraph's saver interface too (a browser's Pyodide).

:class:`IndexedDBSaver` is :class:`pyctx_web.graph.checkpoint.indexeddb.IndexedDBSaver`
that also takes LangGraph's ``aput(config, checkpoint, metadata, new_versions)``,
``aput_writes``, ``aget_tuple``, ``alist`` and ``adelete_thread``. IndexedDB answers
later, so only the async forms work; a sync form raises
:class:`~pyctx_web.errors.UsageError` naming the async one.
"""

from __future__ import annotations

from pyctx_web._homes import publish
from pyctx_web.graph._lgsaver.saver import LangGraphSaver
from pyctx_web.graph.checkpoint import indexeddb

__all__ = ["IndexedDBSaver"]


class IndexedDBSaver(LangGraphSaver, indexeddb.IndexedDBSaver):  # type: ignore[misc]  # both forms
    """Checkpoints in IndexedDB, read and written by the graph or through LangGraph's interface."""


publish("pyctx_web.graph.saver", IndexedDBSaver)
