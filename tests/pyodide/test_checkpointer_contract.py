"""What only the IndexedDB checkpointer does, inside Pyodide (Chromium; Node has no IndexedDB).

The checkpointer contract itself (tests/scenarios/checkpointer_contract.py) runs on
SQLite and IndexedDB in tests/pyodide/test_scenarios.py. Here: IndexedDB refused in
Node, no JavaScript references left behind, a database deleted by another
connection, a thread held for a run across tabs (a Web Lock) with its changes posted
on a BroadcastChannel, and setup().
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide


@run_in_pyodide
async def _construct_in_node(selenium: Any) -> str:
    from pyctx_web.errors import JsUnavailableError
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver

    try:
        IndexedDBSaver("x")
    except JsUnavailableError as exc:
        return str(exc)
    raise AssertionError("IndexedDBSaver was built in Node")


def test_indexeddb_in_node_says_it_needs_a_browser(pyctx_module: Any) -> None:
    """In Node, building an IndexedDBSaver raises JsUnavailableError asking for a browser."""
    if pyctx_module.browser != "node":
        pytest.skip("this runtime has IndexedDB")
    assert _construct_in_node(pyctx_module) == (
        "IndexedDBSaver needs Pyodide in a browser (a page or a Web Worker) with IndexedDB; "
        "this is Pyodide in Node, which has no IndexedDB. Use SqliteSaver elsewhere."
    )


@run_in_pyodide
async def _exercise_indexeddb(selenium: Any, database: str, rounds: int) -> None:
    import gc

    from pyctx_web.graph.checkpoint.base import StoredCheckpoint, StoredWrite
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver

    saver = IndexedDBSaver(database)
    start = await saver.aget("t")
    count = 0 if start is None else int(start.checkpoint.checkpoint_id)
    for i in range(count, count + rounds):
        parent = str(i) if i else None
        await saver.aput(StoredCheckpoint("t", str(i + 1), parent, "now", f"d{i}"))
        await saver.aput_writes("t", str(i + 1), [StoredWrite("a", "result", "x")])
        assert (await saver.aget("t")) is not None
        assert [r async for r in saver.alist("t", limit=3)]
    saver.close()
    del saver
    gc.collect()


@run_in_pyodide
async def _drop_database(selenium: Any, database: str) -> None:
    from pyodide.code import run_js

    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail; })"
    )(database)


def test_indexeddb_operations_leave_no_javascript_references(pyctx_module: Any) -> None:
    """Reading and writing through IndexedDBSaver leaves no proxy or JS reference behind."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    _exercise_indexeddb(pyctx_module, "pyctx_leaks", 3)
    before = pyctx_module.get_num_hiwire_keys()
    _exercise_indexeddb(pyctx_module, "pyctx_leaks", 20)
    after = pyctx_module.get_num_hiwire_keys()
    _drop_database(pyctx_module, "pyctx_leaks")
    assert after <= before


@run_in_pyodide
async def _survive_deletion(selenium: Any, database: str) -> list[str | None]:
    from pyctx_web.graph.checkpoint.base import StoredCheckpoint
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver
    from pyodide.code import run_js

    saver = IndexedDBSaver(database)
    await saver.aput(StoredCheckpoint("t", "before", None, "now", "d"))
    # Another connection deletes the database: this one must let it, then reopen.
    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail;"
        " r.onblocked = () => fail(new Error('blocked')); })"
    )(database)
    seen = [None if (r := await saver.aget("t")) is None else r.checkpoint.checkpoint_id]
    await saver.aput(StoredCheckpoint("t", "after", None, "now", "d"))
    reopened = await saver.aget("t")
    assert reopened is not None
    seen.append(reopened.checkpoint.checkpoint_id)
    saver.close()
    return seen


def test_indexeddb_lets_another_connection_delete_the_database(pyctx_module: Any) -> None:
    """An open IndexedDBSaver does not block deleting its database and reopens afterwards."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    assert _survive_deletion(pyctx_module, "pyctx_versionchange") == [None, "after"]
    _drop_database(pyctx_module, "pyctx_versionchange")


@run_in_pyodide
async def _newer_database(selenium: Any, database: str) -> str:
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver
    from pyctx_web.graph.errors import CheckpointStorageError
    from pyodide.code import run_js

    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.open(name, 7);"
        " r.onsuccess = () => { r.result.close(); ok(); }; r.onerror = fail; })"
    )(database)
    saver = IndexedDBSaver(database)
    try:
        await saver.setup()
    except CheckpointStorageError as error:
        return str(error)
    finally:
        saver.close()
    return "opened"


def test_indexeddb_at_a_later_version_is_a_storage_error_naming_the_database(
    pyctx_module: Any,
) -> None:
    """A database another program created at a later version cannot be opened: setup raises
    CheckpointStorageError naming the database and IndexedDB's VersionError."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    message = _newer_database(pyctx_module, "pyctx_saver_newer")
    _drop_database(pyctx_module, "pyctx_saver_newer")
    assert re.match(
        r"^cannot open the IndexedDB database 'pyctx_saver_newer': VersionError: .+$", message
    )


@run_in_pyodide
async def _two_holders(selenium: Any, database: str) -> dict[str, Any]:
    import asyncio
    import json
    from typing import Annotated, TypedDict

    from pyctx_web.graph import START, StateGraph
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver
    from pyctx_web.graph.errors import ThreadBusyError
    from pyodide.code import run_js
    from pyodide.ffi import create_proxy

    class S(TypedDict):
        log: Annotated[list[str], lambda a, b: a + b]

    news: list[dict[str, Any]] = []
    listener = create_proxy(lambda event: news.append(json.loads(event)))
    channel = run_js(
        "(name, f) => { const c = new BroadcastChannel(name);"
        " c.onmessage = (e) => f(JSON.stringify(e.data)); return c; }"
    )(f"pyctx_web:{database}", listener)
    entered, leave = asyncio.Event(), asyncio.Event()
    ran: list[str] = []

    async def slow(state: S) -> dict[str, list[str]]:
        ran.append("slow")
        entered.set()
        await leave.wait()
        return {"log": ["slow"]}

    builder = StateGraph(S).add_node("slow", slow).add_edge(START, "slow")
    # Two compiled graphs share nothing in-process but the database, like two tabs do.
    first = builder.compile(checkpointer=IndexedDBSaver(database))
    second = builder.compile(checkpointer=IndexedDBSaver(database))
    running = asyncio.ensure_future(first.ainvoke({"log": []}, thread_id="t"))
    await entered.wait()
    try:
        await second.ainvoke({"log": ["second"]}, thread_id="t")
        refused = ""
    except ThreadBusyError as exc:
        refused = str(exc)
    queued = asyncio.ensure_future(
        second.ainvoke({"log": ["queued"]}, thread_id="t", multitask="enqueue")
    )
    await asyncio.sleep(0.05)
    queued_waited = not queued.done() and ran == ["slow"]
    leave.set()
    result = await running
    await queued
    await asyncio.sleep(0.05)  # BroadcastChannel messages arrive as tasks
    channel.close()
    listener.destroy()
    state = await first.aget_state({"configurable": {"thread_id": "t"}})
    return {
        "refused": refused,
        "queued_waited": queued_waited,
        "ran": ran,
        "result": result,
        "log": state.values["log"],
        "news": [(n["thread_id"], n["event"]) for n in news],
    }


def test_a_second_holder_of_a_thread_is_refused_before_running(pyctx_module: Any) -> None:
    """A run of a thread another holder runs is refused before any node runs, or queued."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    out = _two_holders(pyctx_module, "pyctx_tabs")
    _drop_database(pyctx_module, "pyctx_tabs")
    assert out["refused"] == (
        "thread 't' is busy: a run in another tab or worker is running it; nothing was "
        "written, try again once the thread is free"
    )
    assert out["queued_waited"] is True
    assert out["ran"] == ["slow", "slow"]
    assert out["result"] == {"log": ["slow"]}
    assert out["log"] == ["slow", "queued", "slow"]
    events = [event for _, event in out["news"]]
    assert {thread for thread, _ in out["news"]} == {"t"}
    # Each run: its checkpoints, then its release; the refused run posted nothing.
    assert events.count("released") == 2
    assert events[-1] == "released"
    assert events.count("checkpoint") >= 4


@run_in_pyodide
async def _set_up(selenium: Any, database: str) -> list[Any]:
    import asyncio
    import json

    from pyctx_web.graph.checkpoint.indexeddb import SCHEMA_VERSION, IndexedDBSaver
    from pyodide.code import run_js

    listed = run_js("async () => JSON.stringify((await indexedDB.databases()).map(d => d.name))")
    saver = IndexedDBSaver(database)
    before = json.loads(await listed())
    await asyncio.gather(saver.setup(), saver.setup())
    await saver.setup()
    after = json.loads(await listed())
    empty = await saver.aget("t")
    saver.close()
    return [database in before, database in after, empty, SCHEMA_VERSION]


def test_indexeddb_setup_creates_the_database_before_any_call(pyctx_module: Any) -> None:
    """setup() opens and creates the database before any call; again or twice at once is fine."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    database = "setup-test"
    try:
        assert _set_up(pyctx_module, database) == [False, True, None, 1]
    finally:
        _drop_database(pyctx_module, database)
