"""Stores: what graphs remember across threads, as ``langgraph.store``.

:mod:`~pyctx_web.graph.store.base` (the interface), :mod:`~pyctx_web.graph.store.memory`
(:class:`InMemoryStore`), :mod:`~pyctx_web.graph.store.sqlite` (:class:`SqliteStore`)
and :mod:`~pyctx_web.graph.store.indexeddb` (:class:`IndexedDBStore`, in a browser).
A graph gets one with ``compile(store=...)``; nodes reach it as ``runtime.store``,
:func:`~pyctx_web.graph.config.get_store` or a ``store`` parameter.
"""

from __future__ import annotations

__all__: list[str] = []
