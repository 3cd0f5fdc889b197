"""pytest plugin of the pyctx side: the suite's ``InMemoryStore`` is pyctx_web's SqliteStore.

Loaded after pyctx_plugin (suites.toml ``plugins = ["store_as_sqlite"]``), before the
suite's modules import ``langgraph.store.memory``: every ``InMemoryStore(...)`` they build
is a :class:`~pyctx_web.graph.store.sqlite.SqliteStore` on a fresh in-memory database, so
LangGraph's store tests hold the SQLite store to the in-memory store's behaviour.
"""

from __future__ import annotations

import sqlite3

import langgraph.store.memory

from pyctx_web.graph.store.base import IndexConfig, TTLConfig
from pyctx_web.graph.store.sqlite import SqliteStore


class SqliteAsMemory(SqliteStore):
    """A SqliteStore on its own ``:memory:`` database, built as ``InMemoryStore`` is."""

    def __init__(self, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None) -> None:
        super().__init__(sqlite3.connect(":memory:", isolation_level=None), index=index, ttl=ttl)


langgraph.store.memory.InMemoryStore = SqliteAsMemory
