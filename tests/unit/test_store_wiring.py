"""A graph's store: compile(store=...), Runtime.store, get_store(), ``store``, entrypoint."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from pyctx_web.errors import ArgumentTypeError, ContextMissingError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.config import get_store
from pyctx_web.graph.func import entrypoint
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.store.base import BaseStore
from pyctx_web.graph.store.memory import InMemoryStore


class State(TypedDict):
    seen: list[str]


def _graph(node: Any) -> StateGraph:
    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    return builder


@pytest.mark.asyncio
async def test_a_node_reaches_the_compiled_store_three_ways() -> None:
    """runtime.store, an injected ``store`` parameter and get_store() are compile()'s store."""
    store = InMemoryStore()

    def node(state: State, runtime: Runtime[None], store: BaseStore) -> dict[str, Any]:
        store.put(("users", "u1"), "name", {"name": "Ada"})
        same = runtime.store is store and get_store() is store
        return {"seen": [str(same)]}

    out = await _graph(node).compile(store=store).ainvoke({"seen": []})
    assert out == {"seen": ["True"]}
    item = store.get(("users", "u1"), "name")
    assert item is not None
    assert item.value == {"name": "Ada"}


@pytest.mark.asyncio
async def test_without_a_store_a_node_gets_none() -> None:
    """A graph compiled without a store gives None to runtime.store, ``store`` and get_store()."""

    def node(state: State, runtime: Runtime[None], store: Any) -> dict[str, Any]:
        return {"seen": [repr((runtime.store, store, get_store()))]}

    assert await _graph(node).compile().ainvoke({"seen": []}) == {"seen": ["(None, None, None)"]}


@pytest.mark.asyncio
async def test_a_subgraph_without_a_store_uses_its_parents() -> None:
    """A subgraph compiled without a store sees the store of the graph that runs it."""
    store = InMemoryStore()
    store.put(("shared",), "k", {"v": "from parent"})

    def inner(state: State) -> dict[str, Any]:
        item = get_store().get(("shared",), "k")
        return {"seen": [item.value["v"]]}

    child = _graph(inner).compile()
    out = await _graph(child).compile(store=store).ainvoke({"seen": []})
    assert out == {"seen": ["from parent"]}


@pytest.mark.asyncio
async def test_an_entrypoint_gets_its_store() -> None:
    """@entrypoint(store=...) injects the store into a ``store`` parameter."""
    store = InMemoryStore()

    @entrypoint(store=store)
    async def remember(text: str, *, store: BaseStore) -> int:
        await store.aput(("notes",), text, {"text": text})
        return len(await store.asearch(("notes",)))

    counts: list[Any] = [await remember.ainvoke("a"), await remember.ainvoke("b")]
    assert counts == [1, 2]


def test_compile_refuses_what_is_not_a_store() -> None:
    """compile(store=...) with something else than a BaseStore names what it got."""
    with pytest.raises(
        ArgumentTypeError,
        match=r"^store must be a BaseStore \(InMemoryStore, SqliteStore, IndexedDBStore\.\.\.\),"
        r" not 'dict'$",
    ):
        _graph(lambda state: {}).compile(store={})


def test_get_store_outside_a_run_raises() -> None:
    """get_store() outside a graph run says so."""
    with pytest.raises(ContextMissingError, match=r"^get_store\(\) was called outside a graph run"):
        get_store()
