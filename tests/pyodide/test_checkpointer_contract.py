"""The checkpointer contract inside Pyodide: SQLite in Node and Chromium, IndexedDB in Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide  # type: ignore[import-untyped]

from tests.pyodide.scenario_runner import run_scenario, scenario_names

MODULE = "checkpointer_contract"
SCENARIOS = scenario_names(MODULE)
BACKENDS = ("sqlite", "indexeddb")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", SCENARIOS)
def test_contract(pyctx_module: Any, backend: str, name: str) -> None:
    """Each contract scenario holds for SQLite in both runtimes and for IndexedDB in Chromium."""
    if backend == "indexeddb" and pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    run_scenario(pyctx_module, MODULE, name, backend=backend)


@run_in_pyodide  # type: ignore[untyped-decorator]
async def _construct_in_node(selenium: Any) -> str:
    from pyctx_web.errors import JsUnavailableError
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver as IndexedDBCheckpointer

    try:
        IndexedDBCheckpointer("x")
    except JsUnavailableError as exc:
        return str(exc)
    raise AssertionError("IndexedDBCheckpointer was built in Node")


def test_indexeddb_in_node_says_it_needs_a_browser(pyctx_module: Any) -> None:
    """In Node, building an IndexedDBCheckpointer raises JsUnavailableError asking for a browser."""
    if pyctx_module.browser != "node":
        pytest.skip("this runtime has IndexedDB")
    message = _construct_in_node(pyctx_module)
    assert "needs Pyodide in a browser" in message
    assert "Node" in message


@run_in_pyodide  # type: ignore[untyped-decorator]
async def _exercise_indexeddb(selenium: Any, database: str, rounds: int) -> None:
    import gc

    from pyctx_web.graph.checkpoint.base import StoredCheckpoint, StoredWrite
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver as IndexedDBCheckpointer

    saver = IndexedDBCheckpointer(database)
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


@run_in_pyodide  # type: ignore[untyped-decorator]
async def _drop_database(selenium: Any, database: str) -> None:
    from pyodide.code import run_js

    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail; })"
    )(database)


def test_indexeddb_operations_leave_no_javascript_references(pyctx_module: Any) -> None:
    """Reading and writing through IndexedDBCheckpointer leaves no proxy or JS reference behind."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    _exercise_indexeddb(pyctx_module, "pyctx_leaks", 3)
    before = pyctx_module.get_num_hiwire_keys()
    _exercise_indexeddb(pyctx_module, "pyctx_leaks", 20)
    after = pyctx_module.get_num_hiwire_keys()
    _drop_database(pyctx_module, "pyctx_leaks")
    assert after <= before


@run_in_pyodide  # type: ignore[untyped-decorator]
async def _survive_deletion(selenium: Any, database: str) -> list[str | None]:
    from pyctx_web.graph.checkpoint.base import StoredCheckpoint
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver as IndexedDBCheckpointer
    from pyodide.code import run_js

    saver = IndexedDBCheckpointer(database)
    await saver.aput(StoredCheckpoint("t", "before", None, "now", "d"))
    # Another connection deletes the database: this one must let it, then reopen.
    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail;"
        " r.onblocked = () => fail(new Error('blocked')); })"
    )(database)
    seen = [None if (r := await saver.aget("t")) is None else r.checkpoint.checkpoint_id]
    await saver.aput(StoredCheckpoint("t", "after", None, "now", "d"))
    seen.append((await saver.aget("t")).checkpoint.checkpoint_id)  # type: ignore[union-attr]
    saver.close()
    return seen


def test_indexeddb_lets_another_connection_delete_the_database(pyctx_module: Any) -> None:
    """An open IndexedDBCheckpointer does not block deleting its database and reopens afterwards."""
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    assert _survive_deletion(pyctx_module, "pyctx_versionchange") == [None, "after"]
    _drop_database(pyctx_module, "pyctx_versionchange")
