"""The agent server's IndexedDB storage in Chromium: the store contract, held and lost runs,
and a real page reload that keeps threads, runs and events and settles the run it cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide

CONTRACT = (Path(__file__).parents[1] / "unit" / "server" / "store_contract.py").read_text()


def _chromium(selenium: Any) -> None:
    if selenium.browser == "node":
        pytest.skip("Node has no IndexedDB")


@run_in_pyodide
async def _contract(selenium: Any, contract: str, database: str) -> str:
    from pyctx_web.server.store_indexeddb import IndexedDBStorage

    checks: dict[str, Any] = {"__name__": "store_contract"}
    exec(contract, checks)
    storage = IndexedDBStorage(database)
    try:
        await checks["check_threads"](storage.threads)
        await checks["check_runs"](storage.runs)
    finally:
        storage.close()
    storage = IndexedDBStorage(f"{database}-claims")
    try:
        await checks["check_claims"](storage.threads)
        await checks["check_events"](storage.events)
    finally:
        storage.close()
    return "kept"


@run_in_pyodide
async def _drop(selenium: Any, database: str) -> None:
    from pyodide.code import run_js

    for name in (database, f"{database}:server"):
        await run_js(
            "(name) => new Promise((ok, fail) => {"
            " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail; })"
        )(name)


def test_indexeddb_stores_keep_the_store_contract(pyctx: Any) -> None:
    """IndexedDB thread, run and event stores give copies, keep first-stored order, claim only
    a thread not busy and replay events after an id (none after an unknown one), as the memory
    stores do."""
    _chromium(pyctx)
    assert _contract(pyctx, CONTRACT, "pyctx_server_contract") == "kept"
    _drop(pyctx, "pyctx_server_contract")
    _drop(pyctx, "pyctx_server_contract-claims")


@run_in_pyodide
async def _held_then_lost(selenium: Any, contract: str, database: str) -> list[Any]:
    from pyctx_web.server.store_indexeddb import IndexedDBStorage

    records: dict[str, Any] = {"__name__": "store_contract"}
    exec(contract, records)
    run, thread = records["run"], records["thread"]
    owner, other = IndexedDBStorage(database), IndexedDBStorage(database)
    seen: list[Any] = []
    try:
        await owner.runs.put(run("r1", "t1", status="pending"))
        await owner.threads.put(thread("t1", status="busy"))
        await owner.runs.put(run("r2", "t2", status="running"))
        await owner.threads.put(thread("t2", status="busy"))
        await owner.runs.put(run("r2", "t2", status="success"))
        seen.append([(await other.threads.get(t) or {})["status"] for t in ("t1", "t2")])
        await owner.threads.put(thread("t2", status="idle"))
        owner.close()  # its lock freed, as when its tab goes away
        lost = await other.threads.get("t1") or {}
        seen += [lost["status"], lost["error"], (await other.runs.get("r1") or {})["status"]]
        seen.append(
            [
                (await other.runs.get("r2") or {})["status"],
                (await other.threads.get("t2") or {})["status"],
            ]
        )
    finally:
        owner.close()
        other.close()
    return seen


def test_a_run_is_held_by_its_storage_and_lost_once_closed(pyctx: Any) -> None:
    """Another storage reads a thread busy while the run's storage holds its Web Lock, and
    the run and thread as error once it is closed; an ended run is not lost."""
    _chromium(pyctx)
    seen = _held_then_lost(pyctx, CONTRACT, "pyctx_server_lost")
    _drop(pyctx, "pyctx_server_lost")
    lost_error = {
        "error": "RunLost",
        "message": "the run's page or process went away before the run ended",
    }
    assert seen == [["busy", "busy"], "error", lost_error, "error", ["success", "idle"]]


_GRAPH = """
import asyncio
from typing import TypedDict
from pyctx_web.graph import START, StateGraph

class Counter(TypedDict):
    count: int

def add(state: Counter) -> dict:
    return {"count": state["count"] + 1}

async def stall(state: Counter) -> dict:
    if state["count"] >= 10:
        await asyncio.Event().wait()  # a run that never ends: the reload cuts it
    return {"count": state["count"] + 1}

graph = StateGraph(Counter).add_node("add", add).add_node("stall", stall)
graph = graph.add_edge(START, "add").add_edge("add", "stall").compile()
"""


@run_in_pyodide
async def _before_reload(selenium: Any, source: str, database: str) -> dict[str, Any]:
    import json

    from pyctx_web.server import AgentServer, Request
    from pyctx_web.server.store_indexeddb import IndexedDBStorage

    space: dict[str, Any] = {}
    exec(source, space)
    storage = IndexedDBStorage(database)
    server = AgentServer({"agent": space["graph"]}, storage=storage)

    async def call(method: str, path: str, body: Any = None) -> Any:
        data = b"" if body is None else json.dumps(body).encode()
        response = await server.handle(Request(method, path, {}, {}, data))
        assert isinstance(response.body, bytes), path
        return response.status, json.loads(response.body)

    _, done = await call("POST", "/threads", {"metadata": {"name": "done"}})
    _, cut = await call("POST", "/threads", {"metadata": {"name": "cut"}})
    ended = await call(
        "POST",
        f"/threads/{done['thread_id']}/runs/wait",
        {"assistant_id": "agent", "input": {"count": 0}},
    )
    _, started = await call(
        "POST",
        f"/threads/{cut['thread_id']}/runs",
        {"assistant_id": "agent", "input": {"count": 10}},
    )
    await storage.events.append(started["run_id"], ("1-0", "metadata", b'{"run_id": "x"}'))
    await storage.events.after(started["run_id"], None)  # written before the reload
    _, busy = await call("GET", f"/threads/{cut['thread_id']}")
    return {
        "done": done["thread_id"],
        "cut": cut["thread_id"],
        "run": started["run_id"],
        "ended": ended,
        "busy": busy["status"],
    }


@run_in_pyodide
async def _after_reload(
    selenium: Any, source: str, database: str, ids: dict[str, Any]
) -> dict[str, Any]:
    import json

    from pyctx_web.server import AgentServer, Request
    from pyctx_web.server.store_indexeddb import IndexedDBStorage

    space: dict[str, Any] = {}
    exec(source, space)
    storage = IndexedDBStorage(database)
    server = AgentServer({"agent": space["graph"]}, storage=storage)

    async def call(method: str, path: str, body: Any = None) -> Any:
        data = b"" if body is None else json.dumps(body).encode()
        response = await server.handle(Request(method, path, {}, {}, data))
        assert isinstance(response.body, bytes), path
        return json.loads(response.body)

    try:
        done = await call("GET", f"/threads/{ids['done']}")
        cut = await call("GET", f"/threads/{ids['cut']}")
        state = await call("GET", f"/threads/{ids['done']}/state")
        run = await storage.runs.get(ids["run"]) or {}
        events = await storage.events.after(ids["run"], None)
        again = await call(
            "POST",
            f"/threads/{ids['cut']}/runs/wait",
            {"assistant_id": "agent", "input": {"count": 0}},
        )
    finally:
        storage.close()
    return {
        "done": [done["status"], done["metadata"]["name"], done["values"], state["values"]],
        "cut": [cut["status"], cut["error"]["error"], run["status"]],
        "events": [(i, n, d.decode()) for i, n, d in events],
        "again": again,
    }


def test_a_reloaded_page_sees_threads_runs_and_events_and_the_cut_run_lost(pyctx: Any) -> None:
    """After a real reload, a new server on the same IndexedDB storage answers the threads,
    state and stored events; the run the reload cut reads as error, its thread as error (not
    busy) and the thread takes a new run."""
    _chromium(pyctx)
    database = "pyctx_server_reload"
    ids = _before_reload(pyctx, _GRAPH, database)
    assert ids["ended"] == (200, {"count": 2})
    assert ids["busy"] == "busy"
    pyctx.refresh()
    pyctx.load_pyodide()
    pyctx.initialize_pyodide()
    pyctx.save_state()
    pyctx.load_package(["micropip", "pyctx-web"])
    after = _after_reload(pyctx, _GRAPH, database, ids)
    _drop(pyctx, database)
    assert after["done"] == ["idle", "done", {"count": 2}, {"count": 2}]
    assert after["cut"] == ["error", "RunLost", "error"]
    assert after["events"] == [("1-0", "metadata", '{"run_id": "x"}')]
    assert after["again"] == {"count": 2}


@run_in_pyodide
async def _in_node(selenium: Any) -> str:
    from pyctx_web.errors import JsUnavailableError
    from pyctx_web.server.store_indexeddb import IndexedDBStorage

    try:
        IndexedDBStorage("x")
    except JsUnavailableError as error:
        return str(error)
    return "constructed"


def test_node_refuses_the_indexeddb_storage(pyctx: Any) -> None:
    """In Node, IndexedDBStorage names what is missing and what to use instead."""
    if pyctx.browser != "node":
        pytest.skip("the browser has IndexedDB")
    assert _in_node(pyctx) == (
        "IndexedDBSaver needs Pyodide in a browser (a page or a Web Worker) with IndexedDB; "
        "this is Pyodide in Node, which has no IndexedDB. Use SqliteSaver elsewhere."
    )


_OTHER_TAB = """
import json
from pyctx_web.server import AgentServer, Request
from pyctx_web.server.store_indexeddb import IndexedDBStorage

space = {}
exec(GRAPH, space)
storage = IndexedDBStorage(DATABASE)
server = AgentServer({"agent": space["graph"]}, storage=storage)

async def call(method, path, body=None):
    data = b"" if body is None else json.dumps(body).encode()
    response = await server.handle(Request(method, path, {}, {}, data))
    return json.loads(response.body)

created = await call("POST", "/threads", {})
path = f"/threads/{created['thread_id']}/runs"
started = await call("POST", path, {"assistant_id": "agent", "input": {"count": 10}})
json.dumps([created["thread_id"], started["run_id"]])
"""


@run_in_pyodide
async def _this_tab(selenium: Any, source: str, database: str, thread_id: str) -> list[Any]:
    import json

    from pyctx_web.server import AgentServer, Request
    from pyctx_web.server.store_indexeddb import IndexedDBStorage

    space: dict[str, Any] = {}
    exec(source, space)
    storage = IndexedDBStorage(database)
    server = AgentServer({"agent": space["graph"]}, storage=storage)
    body = {"assistant_id": "agent", "input": {"count": 0}, "multitask_strategy": "reject"}
    try:
        seen: list[Any] = []
        for path, payload in [
            (f"/threads/{thread_id}", None),
            (f"/threads/{thread_id}/runs/wait", body),
        ]:
            data = b"" if payload is None else json.dumps(payload).encode()
            response = await server.handle(
                Request("GET" if payload is None else "POST", path, {}, {}, data)
            )
            assert isinstance(response.body, bytes)
            seen.append([response.status, json.loads(response.body)])
        return seen
    finally:
        storage.close()


_WORKER = """
self.onmessage = async (event) => {
  try {
    if (!self.py) {
      const { loadPyodide } = await import(event.data.base + "pyodide.mjs");
      self.py = await loadPyodide({ indexURL: event.data.base, fullStdLib: false });
      await self.py.loadPackage(["micropip", "pyctx-web"]);
    }
    postMessage({ ok: String(await self.py.runPythonAsync(event.data.code)) });
  } catch (error) {
    postMessage({ error: String(error) });
  }
};
"""


def _open_other_tab(pyctx: Any, database: str) -> list[str]:
    """A Web Worker of the test page (its own agent, as another tab is: the same IndexedDB,
    its own Web Locks, freed when it ends) running Pyodide and pyctx_web, that starts a run
    that never ends; [thread id, run id]."""
    code = f"GRAPH = {_GRAPH!r}\nDATABASE = {database!r}\n{_OTHER_TAB}"
    answer = pyctx.run_js(
        f"""
        const url = URL.createObjectURL(
          new Blob([{json.dumps(_WORKER)}], {{ type: "text/javascript" }})
        );
        globalThis.otherTab = new Worker(url, {{ type: "module" }});
        const base = new URL(".", location.href).href;
        const reply = await new Promise((resolve) => {{
          otherTab.onmessage = (event) => resolve(event.data);
          otherTab.onerror = (event) => resolve({{ error: event.message || "the worker failed" }});
          otherTab.postMessage({{ base, code: {json.dumps(code)} }});
        }});
        if (reply.error) throw new Error(reply.error);
        return reply.ok;
        """
    )
    ids: list[str] = json.loads(answer)
    return ids


def test_a_thread_running_in_another_agent_is_busy_here_and_lost_once_it_ends(pyctx: Any) -> None:
    """While another agent of the origin (a worker, as a tab) runs a thread, this page reads
    it busy and refuses a second run (409); once it has ended, the thread reads as error and
    takes a run here."""
    _chromium(pyctx)
    database = "pyctx_server_tabs"
    thread_id, _ = _open_other_tab(pyctx, database)
    try:
        busy, refused = _this_tab(pyctx, _GRAPH, database, thread_id)
    finally:
        pyctx.run_js("otherTab.terminate();")
    lost, taken = _this_tab(pyctx, _GRAPH, database, thread_id)
    _drop(pyctx, database)
    assert (busy[0], busy[1]["status"]) == (200, "busy")
    assert refused == [
        409,
        {
            "detail": "Thread is already running a task. Wait for it to finish or choose a "
            "different multitask strategy."
        },
    ]
    assert (lost[0], lost[1]["status"], lost[1]["error"]["error"]) == (200, "error", "RunLost")
    assert taken == [200, {"count": 2}]
