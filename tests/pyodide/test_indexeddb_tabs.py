"""IndexedDB threads across tabs: the Web Lock a run holds, and the BroadcastChannel news."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide  # type: ignore[import-untyped]


@run_in_pyodide  # type: ignore[untyped-decorator]
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


@run_in_pyodide  # type: ignore[untyped-decorator]
async def _drop_database(selenium: Any, database: str) -> None:
    from pyodide.code import run_js

    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail; })"
    )(database)


def test_a_second_holder_of_a_thread_is_refused_before_running(pyctx_module: Any) -> None:
    """A run of a thread another holder runs is refused before any node runs, or queued."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    out = _two_holders(pyctx_module, "pyctx_tabs")
    _drop_database(pyctx_module, "pyctx_tabs")
    assert "a run in another tab or worker is running it" in out["refused"]
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
