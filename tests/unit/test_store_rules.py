"""The stores' rules on CPython: bad input refused before any write, TTL, SQLite sharing."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph.store import _rowstore
from pyctx_web.graph.store.base import InvalidNamespaceError, PutOp, ensure_embeddings
from pyctx_web.graph.store.memory import InMemoryStore
from pyctx_web.graph.store.sqlite import SqliteStore


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Any:
    with SqliteStore.from_conn_string(str(tmp_path / "store.db")) as store:
        yield store


@pytest.fixture(params=["memory", "sqlite"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        yield InMemoryStore()
        return
    with SqliteStore.from_conn_string(str(tmp_path / "any.db")) as store:
        yield store


def test_a_value_that_is_not_json_fails_its_whole_batch(sqlite_store: SqliteStore) -> None:
    """SqliteStore refuses a batch holding a non-JSON value, and stores none of its puts."""
    with pytest.raises(
        ArgumentValueError,
        match=r"^the value put at \('s',\)/'bad' is not JSON data: "
        r"Object of type set is not JSON serializable$",
    ):
        sqlite_store.batch([PutOp(("s",), "good", {"ok": 1}), PutOp(("s",), "bad", {"x": {1}})])
    assert sqlite_store.search(("s",)) == []


def test_a_value_that_is_not_a_dict_is_refused(any_store: Any) -> None:
    """put() of something else than a dict names the key and the type it got."""
    store = any_store
    with pytest.raises(
        ArgumentTypeError, match=r"^the value put at \('s',\)/'k' must be a dict, not list$"
    ):
        store.put(("s",), "k", [1, 2])
    assert store.get(("s",), "k") is None


def test_an_unknown_filter_operator_is_refused() -> None:
    """search(filter=...) with an operator it does not know lists the ones it does."""
    store = InMemoryStore()
    with pytest.raises(
        ArgumentValueError,
        match=r"^search filter operator '\$in' is unknown; "
        r"the operators are \$eq, \$ne, \$gt, \$gte, \$lt, \$lte$",
    ):
        store.search(("s",), filter={"n": {"$in": [1]}})


def test_a_model_name_as_embed_is_refused() -> None:
    """index={"embed": "provider:model"} is refused: no model is fetched."""
    with pytest.raises(
        ArgumentValueError,
        match=r"^index embed 'openai:text-embedding-3-small' names a model; pyctx_web fetches "
        r"no model: give a function from a list of texts to a list of vectors, "
        r"or an Embeddings object$",
    ):
        InMemoryStore(index={"dims": 3, "embed": "openai:text-embedding-3-small"})


def test_vectors_of_the_wrong_length_store_nothing() -> None:
    """An embed function that returns vectors of another length than dims fails the put."""
    store = InMemoryStore(index={"dims": 3, "embed": lambda texts: [[1.0, 0.0] for _ in texts]})
    with pytest.raises(
        ArgumentValueError,
        match=r"^the store's embed returned a vector of 2 numbers; "
        r"the index was configured with dims=3$",
    ):
        store.put(("s",), "k", {"text": "hello"})
    assert store.get(("s",), "k") is None


def test_the_langgraph_root_is_reserved_for_put() -> None:
    """put() under a namespace starting with "langgraph" is refused."""
    with pytest.raises(
        InvalidNamespaceError,
        match=r"^namespace \('langgraph', 'x'\) starts with \"langgraph\", which is reserved$",
    ):
        InMemoryStore().put(("langgraph", "x"), "k", {})


def test_items_expire_after_their_ttl(any_store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An item put with ttl (minutes) is gone once that time has passed; a read refreshes it."""
    now = [1_000_000.0]
    monkeypatch.setattr(_rowstore, "clock", lambda: now[0])
    store = any_store
    store.put(("s",), "short", {"v": 1}, ttl=1)
    store.put(("s",), "kept", {"v": 2})
    now[0] += 50
    assert store.get(("s",), "short") is not None  # refreshed: another minute from now
    now[0] += 50
    assert [i.key for i in store.search(("s",))] == ["kept", "short"]
    now[0] += 61
    assert store.get(("s",), "short") is None
    assert store.list_namespaces() == [("s",)]
    assert [i.key for i in store.search(("s",))] == ["kept"]


def test_two_sqlite_connections_writing_one_key_leave_one_value(tmp_path: Path) -> None:
    """Two connections writing one key from two threads leave one of the two values, whole."""
    path = tmp_path / "shared.db"
    values = [{"by": w, "text": w * 100_000} for w in ("a", "b")]

    def write(value: dict[str, Any]) -> None:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30)
        store = SqliteStore(conn)
        for _ in range(20):
            store.put(("t",), "k", value)
        conn.close()

    with SqliteStore.from_conn_string(str(path)) as first:
        first.setup()
    threads = [threading.Thread(target=write, args=(v,)) for v in values]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with SqliteStore.from_conn_string(str(path)) as store:
        item = store.get(("t",), "k")
        assert item is not None
        assert item.value in values


def test_a_replaced_item_keeps_its_created_at(sqlite_store: SqliteStore) -> None:
    """Putting a key again changes updated_at and value, not created_at."""
    sqlite_store.put(("s",), "k", {"v": 1})
    first = sqlite_store.get(("s",), "k")
    sqlite_store.put(("s",), "k", {"v": 2})
    second = sqlite_store.get(("s",), "k")
    assert first is not None
    assert second is not None
    assert (second.value, second.created_at) == ({"v": 2}, first.created_at)
    assert second.updated_at >= first.updated_at


def test_ensure_embeddings_gives_a_function_langchains_method_names() -> None:
    """ensure_embeddings(fn), without dims as LangGraph calls it, embeds like an Embeddings."""
    embeddings = ensure_embeddings(lambda texts: [[float(len(t)), 1.0] for t in texts])
    assert embeddings.embed_documents(["ab", "abc"]) == [[2.0, 1.0], [3.0, 1.0]]
    assert embeddings.embed_query("a") == [1.0, 1.0]
