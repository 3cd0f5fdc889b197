"""The IndexedDB store in Pyodide: LangGraph's store API on IndexedDB (Chromium), refused in Node.

Each batch's writes are one transaction; two connections writing one key
leave one of the two values whole; a bad value stores nothing.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide


@run_in_pyodide
async def _store_api(selenium: Any, database: str) -> dict[str, Any]:
    from pyctx_web.graph.store.indexeddb import IndexedDBStore

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(t.count("a")), float(t.count("b")), 1.0] for t in texts]

    store = IndexedDBStore(database, index={"dims": 3, "embed": embed, "fields": ["text"]})
    try:
        await store.aput(("users", "u1"), "a", {"text": "aaaa", "color": "red", "n": 1})
        await store.aput(("users", "u1"), "b", {"text": "bbbb", "color": "red", "n": 5})
        await store.aput(("users", "u2"), "c", {"text": "ab", "color": "blue", "n": 3})
        await store.aput(("usersx",), "d", {"text": "a", "color": "red", "n": 9})
        first = await store.aget(("users", "u1"), "a")
        await store.aput(("users", "u1"), "a", {"text": "aaaa", "color": "red", "n": 2})
        again = await store.aget(("users", "u1"), "a")
        red = await store.asearch(("users",), filter={"color": "red"})
        big = await store.asearch(("users",), filter={"n": {"$gte": 3}})
        ranked = await store.asearch(("users",), query="bbb", limit=2)
        spaces = await store.alist_namespaces(prefix=("users",))
        await store.adelete(("users", "u2"), "c")
        gone = await store.aget(("users", "u2"), "c")
        return {
            "value": again.value if again else None,
            "created_kept": first is not None
            and again is not None
            and first.created_at == again.created_at,
            "red": [i.key for i in red],
            "big": [i.key for i in big],
            "ranked": [i.key for i in ranked],
            "scored": all(i.score is not None for i in ranked),
            "spaces": spaces,
            "gone": gone,
        }
    finally:
        store.close()


@run_in_pyodide
async def _refusals(selenium: Any, database: str) -> dict[str, Any]:
    from pyctx_web.errors import UsageError
    from pyctx_web.graph.store.base import PutOp
    from pyctx_web.graph.store.indexeddb import IndexedDBStore

    store = IndexedDBStore(database)
    out: dict[str, Any] = {}
    try:
        try:
            await store.abatch([
                PutOp(("s",), "good", {"ok": 1}),
                PutOp(("s",), "bad", {"when": object()}),
            ])  # fmt: skip
        except ValueError as error:
            out["bad"] = str(error)
        try:
            store.put(("s",), "sync", {"ok": 1})
        except UsageError as error:
            out["sync"] = str(error)
        out["stored"] = [i.key for i in await store.asearch(("s",))]
        return out
    finally:
        store.close()


@run_in_pyodide
async def _two_writers(selenium: Any, database: str) -> dict[str, Any]:
    import asyncio

    from pyctx_web.graph.store.base import PutOp
    from pyctx_web.graph.store.indexeddb import IndexedDBStore

    one, two = IndexedDBStore(database), IndexedDBStore(database)
    try:
        await one.aput(("t",), "warm", {"x": 0})
        await two.aput(("t",), "warm", {"x": 0})
        keys = [f"k{i}" for i in range(50)]
        big_a = {"by": "a", "text": "a" * 200_000, "list": list(range(2000))}
        big_b = {"by": "b", "text": "b" * 200_000, "list": list(range(2000, 4000))}
        await asyncio.gather(
            one.abatch([PutOp(("t",), k, big_a) for k in keys]),
            two.abatch([PutOp(("t",), k, big_b) for k in keys]),
        )
        found = await one.asearch(("t",), filter={"by": {"$ne": None}}, limit=100)
        values = [i.value for i in found if i.key != "warm"]
        return {
            "count": len(values),
            "whole": all(v in (big_a, big_b) for v in values),
            "writers": sorted({v["by"] for v in values}),
        }
    finally:
        one.close()
        two.close()


@run_in_pyodide
async def _in_node(selenium: Any) -> str:
    from pyctx_web.errors import JsUnavailableError
    from pyctx_web.graph.store.indexeddb import IndexedDBStore

    try:
        IndexedDBStore("x")
    except JsUnavailableError as error:
        return str(error)
    return "constructed"


@run_in_pyodide
async def _drop_database(selenium: Any, database: str) -> None:
    from pyodide.code import run_js

    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail; })"
    )(database)


@run_in_pyodide
async def _survive_deletion(selenium: Any, database: str) -> dict[str, Any]:
    from pyctx_web.graph.store.indexeddb import IndexedDBStore
    from pyodide.code import run_js

    store = IndexedDBStore(database)
    try:
        await store.aput(("s",), "k", {"v": "before"})
        # Another connection deletes the database: the store must let it, then reopen.
        await run_js(
            "(name) => new Promise((ok, fail) => {"
            " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail;"
            " r.onblocked = () => fail(new Error('blocked')); })"
        )(database)
        gone = await store.aget(("s",), "k")
        await store.aput(("s",), "k", {"v": "after"})
        item = await store.aget(("s",), "k")
        assert item is not None
        return {"gone": gone, "after": item.value}
    finally:
        store.close()


@run_in_pyodide
async def _newer_database(selenium: Any, database: str) -> str:
    from pyctx_web.graph.store.indexeddb import IndexedDBStore, StoreStorageError
    from pyodide.code import run_js

    await run_js(
        "(name) => new Promise((ok, fail) => {"
        " const r = indexedDB.open(name, 7);"
        " r.onsuccess = () => { r.result.close(); ok(); }; r.onerror = fail; })"
    )(database)
    store = IndexedDBStore(database)
    try:
        await store.aget(("s",), "k")
    except StoreStorageError as error:
        return str(error)
    finally:
        store.close()
    return "opened"


def _chromium(pyctx_module: Any) -> None:
    if pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")


def test_the_store_api_on_indexeddb(pyctx_module: Any) -> None:
    """put/get/search (filter, vector query)/list_namespaces/delete work on IndexedDB."""
    _chromium(pyctx_module)
    out = _store_api(pyctx_module, "pyctx_store_api")
    _drop_database(pyctx_module, "pyctx_store_api")
    assert out["value"] == {"text": "aaaa", "color": "red", "n": 2}
    assert out["created_kept"] is True
    assert out["red"] == ["a", "b"]
    assert out["big"] == ["b", "c"]
    assert out["ranked"] == ["b", "c"]
    assert out["scored"] is True
    assert out["spaces"] == [("users", "u1"), ("users", "u2")]
    assert out["gone"] is None


def test_a_bad_value_stores_nothing_of_its_batch(pyctx_module: Any) -> None:
    """A batch with one value that is not JSON data is refused whole; sync calls are refused."""
    _chromium(pyctx_module)
    out = _refusals(pyctx_module, "pyctx_store_refusals")
    _drop_database(pyctx_module, "pyctx_store_refusals")
    assert out["bad"].startswith("the value put at ('s',)/'bad' is not JSON data: ")
    assert out["sync"] == (
        "IndexedDBStore is async only: use await store.aput/aget/asearch/adelete/"
        "alist_namespaces or abatch"
    )
    assert out["stored"] == []


def test_two_connections_writing_one_key_leave_one_value_whole(pyctx_module: Any) -> None:
    """Two connections writing the same keys at once leave, for every key, one writer's value
    whole, and the same writer for all keys of a batch (a batch is one transaction)."""
    _chromium(pyctx_module)
    out = _two_writers(pyctx_module, "pyctx_store_two")
    _drop_database(pyctx_module, "pyctx_store_two")
    assert out["count"] == 50
    assert out["whole"] is True
    assert len(out["writers"]) == 1


def test_outside_a_browser_the_store_says_what_to_use(pyctx_module: Any) -> None:
    """In Node, constructing the store raises JsUnavailableError naming the alternatives."""
    if pyctx_module.browser != "node":
        pytest.skip("the browser has IndexedDB")
    assert _in_node(pyctx_module) == (
        "IndexedDBStore needs Pyodide in a browser with IndexedDB; this is Pyodide in Node,"
        " which has no IndexedDB. Use SqliteStore or InMemoryStore elsewhere."
    )


def test_the_store_lets_another_connection_delete_its_database_and_reopens(
    pyctx_module: Any,
) -> None:
    """An open store does not block deleting its database: its next call reopens an empty
    database, and a put then stores as before."""
    _chromium(pyctx_module)
    out = _survive_deletion(pyctx_module, "pyctx_store_deleted")
    _drop_database(pyctx_module, "pyctx_store_deleted")
    assert out == {"gone": None, "after": {"v": "after"}}


def test_a_database_at_a_later_version_is_a_storage_error_naming_it(pyctx_module: Any) -> None:
    """A database another program created at a later version cannot be opened: the call
    raises StoreStorageError naming the database and IndexedDB's VersionError."""
    _chromium(pyctx_module)
    message = _newer_database(pyctx_module, "pyctx_store_newer")
    _drop_database(pyctx_module, "pyctx_store_newer")
    assert re.match(
        r"^cannot open the IndexedDB database 'pyctx_store_newer': VersionError: .+$", message
    )
