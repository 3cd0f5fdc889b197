"""The agent server's SQLite storage in Pyodide (Node and Chromium): the store contract, a
server restarted on the same file, and a run whose storage was closed read as lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_pyodide import run_in_pyodide

CONTRACT = (Path(__file__).parents[1] / "unit" / "server" / "store_contract.py").read_text()


@run_in_pyodide
async def _contract(selenium: Any, contract: str) -> str:
    from pyctx_web.server.store_sqlite import SqliteStorage

    checks: dict[str, Any] = {"__name__": "store_contract"}
    exec(contract, checks)
    checked = [("threads", "check_threads"), ("threads", "check_claims"), ("runs", "check_runs")]
    for name, check in checked:
        with SqliteStorage(f"/tmp/contract-{check}.db") as storage:
            await checks[check](getattr(storage, name))
    with SqliteStorage(":memory:") as storage:
        await checks["check_events"](storage.events)
    return "kept"


def test_sqlite_stores_keep_the_store_contract(pyctx_module: Any) -> None:
    """In Pyodide, SQLite thread, run and event stores keep the contract the memory ones do."""
    assert _contract(pyctx_module, CONTRACT) == "kept"


@run_in_pyodide
async def _restart(selenium: Any, contract: str) -> list[Any]:
    import json
    from typing import TypedDict

    from pyctx_web.graph import START, StateGraph
    from pyctx_web.server import AgentServer, Request
    from pyctx_web.server.store_sqlite import SqliteStorage

    records: dict[str, Any] = {"__name__": "store_contract"}
    exec(contract, records)

    class Counter(TypedDict):
        count: int

    def add(state: Counter) -> dict[str, Any]:
        return {"count": state["count"] + 1}

    def server_on(storage: SqliteStorage) -> AgentServer:
        graph = StateGraph(Counter).add_node("add", add).add_edge(START, "add").compile()
        return AgentServer({"agent": graph}, storage=storage)

    async def call(server: AgentServer, method: str, path: str, body: Any = None) -> Any:
        data = b"" if body is None else json.dumps(body).encode()
        response = await server.handle(Request(method, path, {}, {}, data))
        assert isinstance(response.body, bytes), path
        return json.loads(response.body)

    path = "/tmp/restart.db"
    first = SqliteStorage(path)
    server = server_on(first)
    created = await call(server, "POST", "/threads", {})
    tid = created["thread_id"]
    await call(
        server,
        "POST",
        f"/threads/{tid}/runs/wait",
        {"assistant_id": "agent", "input": {"count": 1}},
    )
    await first.runs.put(records["run"]("r-cut", tid, status="running"))
    await first.threads.put({**(await first.threads.get(tid) or {}), "status": "busy"})
    first.close()
    with SqliteStorage(path) as second:
        again = server_on(second)
        thread = await call(again, "GET", f"/threads/{tid}")
        state = await call(again, "GET", f"/threads/{tid}/state")
        cut = await second.runs.get("r-cut") or {}
        return [thread["status"], thread["error"]["error"], state["values"], cut["status"]]


def test_a_restarted_server_sees_the_file_and_settles_the_cut_run(pyctx_module: Any) -> None:
    """A server on a new SqliteStorage of the same file answers the thread and its state; a run
    left running by the closed storage reads as error and its thread as error, not busy."""
    assert _restart(pyctx_module, CONTRACT) == ["error", "RunLost", {"count": 2}, "error"]
