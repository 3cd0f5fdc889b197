"""The sync forms on CPython where an event loop already runs, and sync nodes under them."""

from __future__ import annotations

import asyncio
import threading
from contextvars import ContextVar
from types import GeneratorType
from typing import Any, TypedDict

import pytest

import pyctx_web.graph._sync as sync_module
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.errors import SyncUnavailableError
from pyctx_web.graph.state import CompiledStateGraph

CALLER: ContextVar[str] = ContextVar("caller", default="unset")


class Log(TypedDict, total=False):
    """What the nodes saw."""

    seen: str
    thread: int


def _one_node(fn: Any) -> CompiledStateGraph:
    return StateGraph(Log).add_node("a", fn).add_edge(START, "a").compile()


def _loop_state() -> str:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return "no loop"
    return "a loop runs"


async def _answer() -> str:
    await asyncio.sleep(0)
    return "ran"


@pytest.mark.asyncio
async def test_invoke_and_stream_run_inside_a_running_loop() -> None:
    """invoke() and stream() run the graph where an event loop runs, in the caller's context."""
    CALLER.set("the test")

    async def a(state: Log) -> Log:
        await asyncio.sleep(0)
        CALLER.set("the node")
        return {"seen": CALLER.get()}

    graph = _one_node(a)
    before = asyncio.current_task()
    assert graph.invoke({}) == {"seen": "the node"}
    assert list(graph.stream({})) == [{"a": {"seen": "the node"}}]
    assert CALLER.get() == "the test"
    assert asyncio.current_task() is before
    await asyncio.sleep(0)  # the caller's loop goes on


@pytest.mark.asyncio
async def test_invoke_runs_in_an_event_loop_callback() -> None:
    """invoke() called in a callback of a running loop, where no task is current, runs the graph."""
    graph = _one_node(lambda state: {"seen": _loop_state()})
    done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def callback() -> None:
        try:
            done.set_result(graph.invoke({}))
        except BaseException as error:  # handed to the test, which awaits the future
            done.set_exception(error)

    asyncio.get_running_loop().call_soon(callback)
    assert await done == {"seen": "no loop"}


@pytest.mark.asyncio
async def test_nested_invoke_errors_propagate_and_the_loop_comes_back() -> None:
    """An error or a KeyboardInterrupt raised by a node comes out of a nested invoke()."""

    def fails(state: Log) -> Log:
        raise ValueError("no good")

    def interrupted(state: Log) -> Log:
        raise KeyboardInterrupt

    loop = asyncio.get_running_loop()
    with pytest.raises(ValueError, match=r"^no good$"):
        _one_node(fails).invoke({})
    with pytest.raises(KeyboardInterrupt):
        _one_node(interrupted).invoke({})
    assert asyncio.get_running_loop() is loop
    await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_a_stream_closed_early_closes_its_loop_and_starts_no_thread() -> None:
    """Closing a nested stream() before its end closes the loop it ran on; no thread is started."""
    loops: list[asyncio.AbstractEventLoop] = []

    async def a(state: Log) -> Log:
        loops.append(asyncio.get_running_loop())
        return {"seen": "a"}

    graph = StateGraph(Log).add_node("a", a).add_node("b", a).add_edge(START, "a")
    graph.add_edge("a", "b")
    threads = threading.active_count()
    chunks = graph.compile().stream({})
    assert isinstance(chunks, GeneratorType)
    assert next(chunks) == {"a": {"seen": "a"}}
    chunks.close()
    assert len(loops) == 1
    assert loops[0].is_closed()
    assert loops[0] is not asyncio.get_running_loop()
    assert threading.active_count() == threads


@pytest.mark.parametrize("asks_config", [False, True])
def test_a_sync_node_under_a_sync_form_sees_no_event_loop(asks_config: bool) -> None:
    """Under invoke(), a sync node runs with no event loop visible and may call asyncio.run."""

    def plain(state: Log) -> Log:
        return {"seen": f"{_loop_state()}, {asyncio.run(_answer())}"}

    def with_config(state: Log, config: Any) -> Log:
        return plain(state)

    graph = _one_node(with_config if asks_config else plain)
    assert graph.invoke({}) == {"seen": "no loop, ran"}
    assert list(graph.stream({})) == [{"a": {"seen": "no loop, ran"}}]


def test_a_sync_node_calling_a_subgraph_invoke_runs_it_in_its_own_thread() -> None:
    """A subgraph's invoke() from a sync node runs in the node's thread, not a worker thread."""

    def inner_node(state: Log) -> Log:
        return {"thread": threading.get_ident()}

    inner = _one_node(inner_node)

    def outer_node(state: Log) -> Log:
        return {"seen": str(inner.invoke({})["thread"] == threading.get_ident())}

    assert _one_node(outer_node).invoke({}) == {"seen": "True"}


@pytest.mark.asyncio
async def test_in_pyodide_the_sync_forms_still_refuse_without_jspi(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In Pyodide, where JSPI cannot run, stream() inside a running loop names the async form."""
    monkeypatch.setattr(sync_module, "IN_PYODIDE", True)
    with pytest.raises(
        SyncUnavailableError,
        match=(
            r"^stream\(\) is not available in Pyodide here: this JavaScript runtime "
            r"has no JavaScript Promise Integration \(JSPI\), which "
            r"pyodide\.ffi\.run_sync needs; use `await graph\.astream\(\.\.\.\)`$"
        ),
    ):
        _one_node(lambda state: None).stream({})
