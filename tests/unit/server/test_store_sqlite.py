"""The agent server's SQLite storage: the store contract, reloads, lost runs, two processes."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.server import AgentServer
from pyctx_web.server._core import ServerStorageError, StoredEvent
from pyctx_web.server.store_lost import LOST_ERROR
from pyctx_web.server.store_sqlite import SqliteStorage
from tests.unit.server.server_support import call_json, counter_graph
from tests.unit.server.store_contract import (
    check_claims,
    check_events,
    check_runs,
    check_threads,
    run,
    thread,
)

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def path(tmp_path: Path) -> str:
    return str(tmp_path / "server.db")


def test_thread_store_contract(path: str) -> None:
    """SqliteThreadStore gives and keeps copies, in the order threads were first stored."""
    with SqliteStorage(path) as storage:
        asyncio.run(check_threads(storage.threads))


def test_thread_store_claims_only_a_thread_not_busy(path: str) -> None:
    """SqliteThreadStore.claim() stores over no record or one not busy, never over a busy one."""
    with SqliteStorage(path) as storage:
        asyncio.run(check_claims(storage.threads))


def test_run_store_contract(path: str) -> None:
    """SqliteRunStore gives and keeps copies and lists a thread's runs in first-stored order."""
    with SqliteStorage(path) as storage:
        asyncio.run(check_runs(storage.runs))


def test_event_log_contract() -> None:
    """SqliteEventLog replays after an id as the memory log does (a private database too)."""
    with SqliteStorage(":memory:") as storage:
        asyncio.run(check_events(storage.events))


def test_a_new_storage_on_the_file_sees_threads_runs_and_events(path: str) -> None:
    """Threads, runs and events stored by one storage are there for the next on the file."""

    async def store() -> None:
        with SqliteStorage(path) as storage:
            await storage.threads.put(thread("t1", status="interrupted"))
            await storage.runs.put(run("r1", "t1"))
            await storage.events.append("r1", ("1-0", "metadata", b'{"run_id": "r1"}'))

    async def read() -> tuple[object, ...]:
        with SqliteStorage(path) as storage:
            return (
                await storage.threads.all(),
                await storage.runs.of_thread("t1"),
                await storage.events.after("r1", None),
            )

    asyncio.run(store())
    assert asyncio.run(read()) == (
        [thread("t1", status="interrupted")],
        [run("r1", "t1")],
        [("1-0", "metadata", b'{"run_id": "r1"}')],
    )


def test_a_restarted_server_sees_its_threads_and_their_state(path: str) -> None:
    """A server on a new SqliteStorage of the same file answers the threads and checkpoints
    of the one before, which share the file with the storage's SqliteSaver."""
    first = SqliteStorage(path)
    assert isinstance(first.checkpointer, SqliteSaver)
    server = AgentServer({"agent": counter_graph()}, storage=first)
    _, created = call_json(server, "POST", "/threads", {"metadata": {"user": "ann"}})
    thread_id = created["thread_id"]
    status, _ = call_json(
        server,
        "POST",
        f"/threads/{thread_id}/runs/wait",
        {"assistant_id": "agent", "input": {"count": 1}},
    )
    assert status == 200
    first.close()
    with SqliteStorage(path) as second:
        again = AgentServer({"agent": counter_graph()}, storage=second)
        status, got = call_json(again, "GET", f"/threads/{thread_id}")
        assert (status, got["metadata"]["user"], got["status"]) == (200, "ann", "idle")
        assert got["values"] == {"count": 2}
        _, state = call_json(again, "GET", f"/threads/{thread_id}/state")
        assert state["values"] == {"count": 2}
    with closing(sqlite3.connect(path)) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"pyctx_checkpoints", "pyctx_server_threads", "pyctx_server_runs"} <= tables


async def _start_run(storage: SqliteStorage, thread_id: str, run_id: str) -> None:
    """Store a run as the server starts one: the run pending, then its thread busy."""
    await storage.runs.put(run(run_id, thread_id, status="pending"))
    await storage.threads.put(thread(thread_id, status="busy"))


def test_a_run_of_a_closed_storage_is_lost(path: str) -> None:
    """While the storage that stored a run is open its thread stays busy for others; once
    it is closed, the run reads as error and its thread as error with the lost-run error."""

    async def scenario() -> list[object]:
        owner, other = SqliteStorage(path), SqliteStorage(path)
        await _start_run(owner, "t1", "r1")
        seen: list[object] = [
            (await other.threads.get("t1") or {})["status"],
            (await other.runs.get("r1") or {})["status"],
        ]
        owner.close()
        lost = await other.threads.get("t1") or {}
        seen += [lost["status"], lost["error"], (await other.runs.get("r1") or {})["status"]]
        seen.append([r["status"] for r in await other.runs.of_thread("t1")])
        other.close()
        return seen

    assert asyncio.run(scenario()) == ["busy", "pending", "error", LOST_ERROR, "error", ["error"]]


def test_a_run_that_ended_is_not_lost(path: str) -> None:
    """A run that ended keeps its thread busy until the thread is written idle, and neither
    is settled as lost once its storage is closed."""

    async def scenario() -> list[object]:
        owner, other = SqliteStorage(path), SqliteStorage(path)
        await _start_run(owner, "t1", "r1")
        await owner.runs.put(run("r1", "t1", status="success"))
        seen: list[object] = [(await other.threads.get("t1") or {})["status"]]
        await owner.threads.put(thread("t1", status="idle"))
        owner.close()
        seen += [
            (await other.threads.get("t1") or {})["status"],
            (await other.runs.get("r1") or {})["status"],
        ]
        other.close()
        return seen

    assert asyncio.run(scenario()) == ["busy", "idle", "success"]


def test_thread_search_sees_lost_runs_settled(path: str) -> None:
    """POST /threads/search by status finds a thread whose run was lost as error, not busy."""

    async def lose() -> None:
        with SqliteStorage(path) as owner:
            await _start_run(owner, "6b0fa6d2-52c2-4a6e-a3e5-6a1b1f3c2d10", "r1")

    asyncio.run(lose())
    with SqliteStorage(path) as storage:
        server = AgentServer({"agent": counter_graph()}, storage=storage)
        _, busy = call_json(server, "POST", "/threads/search", {"status": "busy"})
        _, error = call_json(server, "POST", "/threads/search", {"status": "error"})
    assert busy == []
    assert [t["thread_id"] for t in error] == ["6b0fa6d2-52c2-4a6e-a3e5-6a1b1f3c2d10"]


_HOLDER = """
import asyncio, sys
from pyctx_web.server.store_sqlite import SqliteStorage
from tests.unit.server.store_contract import run, thread

async def main() -> None:
    storage = SqliteStorage(sys.argv[1])
    await storage.runs.put(run("r1", sys.argv[2], status="running"))
    await storage.threads.put(thread(sys.argv[2], status="busy"))
    print("ready", flush=True)
    sys.stdin.readline()

asyncio.run(main())
"""


def test_a_thread_busy_in_another_process_is_refused_until_it_dies(path: str) -> None:
    """A run held by a live process makes its thread refuse a second run (409) here; once
    that process is killed, the thread reads as error and takes a new run."""
    thread_id = "0c9c5d4e-1f3a-4b7e-9d2a-5e6f7a8b9c0d"
    with subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_HOLDER), path, thread_id],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            _refused_then_taken(holder, path, thread_id)
        finally:
            if holder.poll() is None:
                holder.kill()


def _refused_then_taken(holder: subprocess.Popen[str], path: str, thread_id: str) -> None:
    assert holder.stdout is not None
    assert holder.stdout.readline() == "ready\n"
    with SqliteStorage(path) as storage:
        server = AgentServer({"agent": counter_graph()}, storage=storage)
        body = {"assistant_id": "agent", "input": {"count": 0}, "multitask_strategy": "reject"}
        refused = call_json(server, "POST", f"/threads/{thread_id}/runs/wait", body)
        assert refused == (
            409,
            {
                "detail": "Thread is already running a task. Wait for it to finish or choose a "
                "different multitask strategy."
            },
        )
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        _, lost = call_json(server, "GET", f"/threads/{thread_id}")
        assert (lost["status"], lost["error"]) == ("error", LOST_ERROR)
        lost_run = asyncio.run(storage.runs.get("r1")) or {}
        assert lost_run == {
            **run("r1", thread_id, status="error"),
            "updated_at": lost["updated_at"],
        }
        status, values = call_json(server, "POST", f"/threads/{thread_id}/runs/wait", body)
        assert (status, values) == (200, {"count": 1})


def test_a_thread_taken_by_another_process_after_it_was_read_refuses_the_run(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose idle thread another process makes busy between reading it and storing it
    busy is refused (409) and its record removed; the other process's run keeps the thread."""
    thread_id = "5d2a7c1e-3b4f-4a6d-8e9f-0a1b2c3d4e5f"
    with SqliteStorage(path) as other, SqliteStorage(path) as storage:
        server = AgentServer({"agent": counter_graph()}, storage=storage)
        read = storage.threads.get

        async def read_then_lose_the_thread(key: str) -> dict[str, Any] | None:
            found = await read(key)
            if found is not None and found["status"] == "idle":
                await _start_run(other, thread_id, "r-other")
            return found

        asyncio.run(other.threads.put(thread(thread_id)))
        monkeypatch.setattr(storage.threads, "get", read_then_lose_the_thread)
        body = {"assistant_id": "agent", "input": {"count": 0}, "multitask_strategy": "reject"}
        refused = call_json(server, "POST", f"/threads/{thread_id}/runs/wait", body)
        monkeypatch.undo()
        runs = asyncio.run(storage.runs.of_thread(thread_id))
        kept = asyncio.run(storage.threads.get(thread_id)) or {}
    assert refused == (
        409,
        {
            "detail": "Thread is already running a task. Wait for it to finish or choose a "
            "different multitask strategy."
        },
    )
    assert [r["run_id"] for r in runs] == ["r-other"]
    assert kept == thread(thread_id, status="busy")


def test_a_queued_run_of_a_thread_busy_in_another_process_is_refused(path: str) -> None:
    """A run with multitask_strategy enqueue on a thread that another process's run holds is
    refused (409), saying this server cannot queue behind that run."""
    thread_id = "7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
    with SqliteStorage(path) as other, SqliteStorage(path) as storage:
        asyncio.run(_start_run(other, thread_id, "r-other"))
        server = AgentServer({"agent": counter_graph()}, storage=storage)
        body = {"assistant_id": "agent", "input": {"count": 0}, "multitask_strategy": "enqueue"}
        refused = call_json(server, "POST", f"/threads/{thread_id}/runs", body)
        runs = asyncio.run(storage.runs.of_thread(thread_id))
    assert refused == (
        409,
        {
            "detail": "Thread is already running a task in another tab or process, which this "
            "server can neither queue behind nor cancel. Wait for it to finish."
        },
    )
    assert [r["run_id"] for r in runs] == ["r-other"]


def test_storage_of_something_else_is_refused() -> None:
    """SqliteStorage() of neither a connection nor a path names what it was given."""
    with pytest.raises(
        ArgumentTypeError,
        match=r"^SqliteStorage\(\) takes an sqlite3.Connection or a database path, not 'int'$",
    ):
        SqliteStorage(42)  # type: ignore[arg-type]


def test_events_queued_when_the_storage_closes_are_written(path: str) -> None:
    """Events appended behind the stream and not yet written when the storage closes are
    written by close(), for the next storage on the file."""

    async def append() -> None:
        storage = SqliteStorage(path)
        for i in range(3):
            await storage.events.append("r1", (f"{i}-0", "values", b"{}"))
        storage.close()

    async def read() -> list[StoredEvent]:
        with SqliteStorage(path) as storage:
            return await storage.events.after("r1", None)

    asyncio.run(append())
    assert asyncio.run(read()) == [(f"{i}-0", "values", b"{}") for i in range(3)]


def test_a_failed_event_write_is_raised_by_the_next_call(path: str) -> None:
    """An event write that fails behind the stream is raised by the log's next call."""

    async def scenario() -> None:
        with SqliteStorage(path) as storage:
            await storage.events.append("r1", ("1-0", "values", b"{}"))
            with closing(sqlite3.connect(path)) as other:
                other.execute("DROP TABLE pyctx_server_events")
            await storage.events.after("r1", None)

    with pytest.raises(
        ServerStorageError,
        match=rf"^cannot store events in {re.escape(repr(path))}: no such table: "
        r"pyctx_server_events$",
    ):
        asyncio.run(scenario())


def test_events_appended_while_a_batch_is_written_keep_each_run_in_order(path: str) -> None:
    """Events of two runs appended turn by turn, while earlier batches are being written, come
    back in each run's order."""

    async def scenario() -> tuple[list[StoredEvent], list[StoredEvent]]:
        with SqliteStorage(path) as storage:
            for i in range(40):
                await storage.events.append(f"r{i % 2}", (f"{i}-0", "values", b"%d" % i))
                await asyncio.sleep(0)
            return await storage.events.after("r0", None), await storage.events.after("r1", "1-0")

    first, second = asyncio.run(scenario())
    assert first == [(f"{i}-0", "values", b"%d" % i) for i in range(0, 40, 2)]
    assert second == [(f"{i}-0", "values", b"%d" % i) for i in range(3, 40, 2)]
