"""How many IndexedDB transactions the IndexedDB checkpointer and a run over it take (Chromium).

A checkpoint with the writes it is made with is one transaction, stored whole or
not at all; a run's first turn is one read of the thread and one write per step.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide

# Wraps IDBDatabase.prototype.transaction to list each transaction's mode and stores.
COUNT = """() => {
  const native = IDBDatabase.prototype.transaction;
  const seen = [];
  IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
    seen.push([mode || "readonly", [].concat(stores).join(",")]);
    return native.call(this, stores, mode, ...rest);
  };
  return {
    take: () => JSON.stringify(seen.splice(0)),
    stop: () => { IDBDatabase.prototype.transaction = native; },
  };
}"""


@run_in_pyodide
async def _put_with_writes(selenium: Any, database: str, count: str) -> dict[str, Any]:
    import json

    from pyctx_web.graph.checkpoint.base import StoredCheckpoint, StoredWrite
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver
    from pyctx_web.graph.errors import CheckpointExistsError, ThreadBusyError
    from pyodide.code import run_js

    saver = IndexedDBSaver(database)
    await saver.setup()
    counter = run_js(count)()
    try:
        first = StoredCheckpoint("t", "c1", None, "now", "d1")
        writes = [StoredWrite("a", "result", "x"), StoredWrite("b", "result", "y"),
                  StoredWrite("a", "result", "z")]  # fmt: skip
        await saver.aput_with_writes(first, writes)
        one = json.loads(counter.take())
        refused: list[str] = []
        stale = StoredCheckpoint("t", "c2", "c0", "now", "d2")
        try:
            await saver.aput_with_writes(stale, [StoredWrite("a", "result", "lost")])
        except ThreadBusyError:
            refused.append("busy")
        try:
            await saver.aput_with_writes(first, [StoredWrite("c", "result", "lost")], latest="c1")
        except CheckpointExistsError:
            refused.append("duplicate")
        counter.take()
        record = await saver.aget("t")
        assert record is not None
        return {
            "transactions": one,
            "refused": refused,
            "latest": record.checkpoint.checkpoint_id,
            "writes": [(w.task_id, w.kind, w.data) for w in record.writes],
            "count": len([r async for r in saver.alist("t")]),
        }
    finally:
        counter.stop()
        saver.close()


@run_in_pyodide
async def _drop_database(selenium: Any, database: str) -> None:
    from pyodide.code import run_js

    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail; })"
    )(database)


def test_a_checkpoint_with_its_writes_is_one_transaction_stored_whole_or_not_at_all(
    pyctx_module: Any,
) -> None:
    """aput_with_writes stores the checkpoint and its writes in one readwrite transaction; a
    refused one (a stale head, an id already stored) stores neither."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    out = _put_with_writes(pyctx_module, "pyctx_put_with_writes", COUNT)
    _drop_database(pyctx_module, "pyctx_put_with_writes")
    assert out["transactions"] == [["readwrite", "checkpoints,writes"]]
    assert out["refused"] == ["busy", "duplicate"]
    assert out["latest"] == "c1"
    assert out["count"] == 1
    # A later write of the same (task, kind) replaces the earlier one in its place.
    assert out["writes"] == [("a", "result", "z"), ("b", "result", "y")]


@run_in_pyodide
async def _first_turn(selenium: Any, database: str, count: str) -> dict[str, Any]:
    import json
    from typing import TypedDict

    from pyctx_web.graph import END, START, StateGraph
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver
    from pyctx_web.graph.types import Command, interrupt
    from pyodide.code import run_js

    class Ask(TypedDict, total=False):
        topic: str
        answer: str

    def ask(state: Ask) -> dict[str, Any]:
        return {"answer": interrupt(f"what about {state['topic']}?")}

    saver = IndexedDBSaver(database)
    await saver.setup()
    graph = (
        StateGraph(Ask).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
        .compile(checkpointer=saver)
    )  # fmt: skip
    config = {"configurable": {"thread_id": "t"}}
    counter = run_js(count)()
    try:
        asked = await graph.ainvoke({"topic": "tea"}, config)
        first = json.loads(counter.take())
        done = await graph.ainvoke(Command(resume="green"), config)
        second = json.loads(counter.take())
        return {
            "first": first,
            "second": second,
            "asked": asked["__interrupt__"][0].value,
            "done": done,
        }
    finally:
        counter.stop()
        saver.close()


def test_a_run_reads_its_thread_once_and_writes_once_per_step(pyctx_module: Any) -> None:
    """A first run up to its question: one read, then one transaction per step (the input
    with its writes, the step that applies it, the question); its resume likewise."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    out = _first_turn(pyctx_module, "pyctx_first_turn", COUNT)
    _drop_database(pyctx_module, "pyctx_first_turn")
    read, write = "readonly", "readwrite"
    assert [mode for mode, _ in out["first"]] == [read, write, write, write]
    assert out["asked"] == "what about tea?"
    # The resume: one read, then the checkpoint of the step the answer finished.
    assert [mode for mode, _ in out["second"]] == [read, write]
    assert out["done"] == {"topic": "tea", "answer": "green"}
