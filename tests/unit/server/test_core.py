"""The server core's in-memory stores and storage, and how AgentServer takes a storage."""

from __future__ import annotations

import asyncio

import pytest

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.server import AgentServer
from pyctx_web.server._core import (
    MemoryEventLog,
    MemoryRunStore,
    MemoryStorage,
    MemoryThreadStore,
)
from tests.unit.server.server_support import call_json, counter_graph
from tests.unit.server.store_contract import (
    check_claims,
    check_events,
    check_runs,
    check_threads,
)


def test_memory_thread_store_keeps_copies_in_first_stored_order() -> None:
    """MemoryThreadStore gives and keeps copies, in the order threads were first stored."""
    asyncio.run(check_threads(MemoryThreadStore()))


def test_memory_thread_store_claims_only_a_thread_not_busy() -> None:
    """MemoryThreadStore.claim() stores over no record or one not busy, never over a busy one."""
    asyncio.run(check_claims(MemoryThreadStore()))


def test_memory_run_store_keeps_copies_per_thread_in_order() -> None:
    """MemoryRunStore gives and keeps copies and lists a thread's runs in first-stored order."""
    asyncio.run(check_runs(MemoryRunStore()))


def test_memory_event_log_replays_after_an_event_id() -> None:
    """MemoryEventLog gives a run's events after an id, all for None, none for an unknown id."""
    asyncio.run(check_events(MemoryEventLog()))


def test_server_takes_the_stores_of_its_storage() -> None:
    """AgentServer(storage=...) uses the storage's checkpointer and stores, also for graphs."""
    storage = MemoryStorage()
    graph = counter_graph()
    server = AgentServer({"agent": graph}, storage=storage)
    assert server.storage is storage
    assert server.checkpointer is storage.checkpointer is graph.checkpointer
    assert (server.threads, server.runs, server.events) == (
        storage.threads,
        storage.runs,
        storage.events,
    )
    status, created = call_json(server, "POST", "/threads", {})
    assert status == 200
    assert asyncio.run(storage.threads.get(created["thread_id"])) is not None


def test_keywords_replace_the_storage_parts_one_by_one() -> None:
    """checkpointer=, threads=, runs=, events= given beside storage= win over the storage's."""
    storage = MemoryStorage()
    saver, threads, runs, events = (
        InMemorySaver(),
        MemoryThreadStore(),
        MemoryRunStore(),
        MemoryEventLog(),
    )
    server = AgentServer(
        {"agent": counter_graph()},
        storage=storage,
        checkpointer=saver,
        threads=threads,
        runs=runs,
        events=events,
    )
    assert (server.checkpointer, server.threads, server.runs, server.events) == (
        saver,
        threads,
        runs,
        events,
    )
    alone = AgentServer({"agent": counter_graph()}, runs=runs)
    assert alone.runs is runs
    assert isinstance(alone.storage, MemoryStorage)
    assert alone.threads is alone.storage.threads


def test_storage_that_is_not_one_is_refused() -> None:
    """A storage= that is not a ServerStorage is refused with the type named."""
    with pytest.raises(
        ArgumentTypeError,
        match=r"^storage is a str, not a ServerStorage "
        r"\(MemoryStorage, SqliteStorage or IndexedDBStorage\)$",
    ):
        AgentServer({"agent": counter_graph()}, storage="app.db")  # type: ignore[arg-type]
