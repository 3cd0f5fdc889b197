"""One run per thread, as scenarios for any checkpointer: refused, queued, cancelled early.

Each ``scenario_<behaviour>(make_checkpointer)`` is an async function with
plain asserts; ``make_checkpointer()`` gives a checkpointer over one fresh
storage (see tests/scenarios/graph_scenarios.py).

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Protocol, TypedDict, TypeVar

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.errors import (
    CheckpointError,
    GraphError,
    GraphVersionError,
    RunCancelledError,
    ThreadBusyError,
)
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, interrupt


class CheckpointerFactory(Protocol):
    """One fresh storage: each call gives a checkpointer over it."""

    capabilities: frozenset[str]

    def __call__(self) -> Checkpointer: ...


class State(TypedDict, total=False):
    """A log of what ran."""

    log: Annotated[list[str], operator.add]


def _graph(
    make: CheckpointerFactory, gate: asyncio.Event, started: list[str], **compile: Any
) -> CompiledStateGraph:
    async def slow(state: State) -> dict[str, list[str]]:
        started.append("slow")
        await gate.wait()
        return {"log": ["slow"]}

    def after(state: State) -> dict[str, list[str]]:
        return {"log": ["after"]}

    builder = StateGraph(State).add_sequence([slow, after]).add_edge(START, "slow")
    return builder.add_edge("after", END).compile(checkpointer=make(), **compile)


E = TypeVar("E", bound=BaseException)


async def _raised(kind: type[E], awaitable: Awaitable[Any]) -> E:
    """The ``kind`` error awaiting ``awaitable`` raises; AssertionError when it raises none."""
    try:
        await awaitable
    except kind as error:
        return error
    raise AssertionError(f"{kind.__name__} was not raised")


async def _until(check: Callable[[], bool]) -> None:
    """Return once ``check()`` holds; AssertionError when it still does not after 50,000 turns
    of the event loop."""
    # Real storage (IndexedDB) answers in its own time: on a loaded machine 1,000 turns
    # passed before a run had started. Bare turns, not timed sleeps: in Chromium a loop of
    # 1 ms sleeps never let the run start.
    for _ in range(50_000):
        if check():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def scenario_second_run_of_a_busy_thread_is_refused_and_changes_nothing(
    make: CheckpointerFactory,
) -> None:
    """A second run on a thread whose run is still going fails at once and writes nothing."""
    gate, started = asyncio.Event(), []
    graph = _graph(make, gate, started)
    config = {"configurable": {"thread_id": "t"}}
    first = graph.start({"log": []}, config)
    await _until(lambda: started == ["slow"])
    history = [s.config async for s in graph.aget_state_history(config)]
    error = await _raised(ThreadBusyError, graph.ainvoke({"log": ["second"]}, config))
    assert error.thread_id == "t"
    assert "another run" in str(error)
    assert [s.config async for s in graph.aget_state_history(config)] == history
    gate.set()
    assert (await first)["log"] == ["slow", "after"]
    assert (await graph.ainvoke(None, config))["log"] == ["slow", "after"]


async def scenario_enqueued_runs_wait_in_arrival_order(make: CheckpointerFactory) -> None:
    """With multitask="enqueue", runs of one thread go one after the other, in arrival order."""
    gate, started = asyncio.Event(), []
    graph = _graph(make, gate, started, multitask="enqueue")
    config = {"configurable": {"thread_id": "t"}}
    runs = [graph.start({"log": [f"r{i}"]}, config) for i in range(3)]
    await _until(lambda: len(started) == 1)
    await asyncio.sleep(0)
    assert started == ["slow"]  # the others wait for their turn
    gate.set()
    results = [await run for run in runs]
    assert [r["log"][-3:] for r in results] == [[f"r{i}", "slow", "after"] for i in range(3)]
    assert [r["log"][0] for r in results] == ["r0", "r0", "r0"]


async def scenario_different_threads_never_wait_for_each_other(make: CheckpointerFactory) -> None:
    """A run of one thread does not wait for a run of another thread."""
    gate, started = asyncio.Event(), []
    graph = _graph(make, gate, started, multitask="enqueue")
    first = graph.start({"log": []}, {"configurable": {"thread_id": "a"}})
    second = graph.start({"log": []}, {"configurable": {"thread_id": "b"}})
    await _until(lambda: started == ["slow", "slow"])
    gate.set()
    assert (await first)["log"] == (await second)["log"] == ["slow", "after"]


async def scenario_cancel_right_after_start_stops_the_run_before_its_first_step(
    make: CheckpointerFactory,
) -> None:
    """graph.cancel(thread) right after start() ends the run cancelled; the thread goes on."""
    gate, started = asyncio.Event(), []
    gate.set()
    graph = _graph(make, gate, started)
    config = {"configurable": {"thread_id": "t"}}
    handle = graph.start({"log": ["x"]}, config)
    assert await graph.cancel("t", "changed my mind") == 1
    cancelled = await _raised(RunCancelledError, handle)
    assert cancelled.reason == "changed my mind"
    assert started == []
    assert (await graph.ainvoke({"log": ["y"]}, config))["log"] == ["y", "slow", "after"]


async def scenario_a_cancelled_future_inside_a_node_is_that_nodes_error(
    make: CheckpointerFactory,
) -> None:
    """A node awaiting a future someone else cancels fails with an error: no cancelled run."""
    loop = asyncio.get_running_loop()

    async def waits(state: State) -> dict[str, list[str]]:
        future = loop.create_future()
        loop.call_soon(future.cancel)
        await future
        return {"log": ["unreachable"]}

    builder = StateGraph(State).add_node(waits).add_edge(START, "waits")
    graph = builder.compile(checkpointer=make())
    config = {"configurable": {"thread_id": "t"}}
    error = await _raised(GraphError, graph.ainvoke({"log": ["in"]}, config))
    assert not isinstance(error, RunCancelledError)
    assert "'waits'" in str(error)
    assert isinstance(error.__cause__, asyncio.CancelledError)
    state = await graph.aget_state(config)
    assert state.next == ("waits",)
    assert state.values == {"log": ["in"]}


async def scenario_a_resume_cancelled_before_its_node_finishes_leaves_the_question_waiting(
    make: CheckpointerFactory,
) -> None:
    """Cancelled after the answer, before the node's result, the question waits for an answer."""
    gate, answered = asyncio.Event(), []

    async def ask(state: State) -> dict[str, list[str]]:
        answer = interrupt("which one?")
        answered.append(answer)
        await gate.wait()
        return {"log": [answer]}

    def build() -> CompiledStateGraph:
        builder = StateGraph(State).add_node(ask).add_edge(START, "ask")
        return builder.compile(checkpointer=make())

    graph = build()
    config = {"configurable": {"thread_id": "t"}}
    await graph.ainvoke({"log": []}, config)
    handle = graph.start(Command(resume="first"), config)
    await _until(lambda: answered == ["first"])
    handle.cancel("not that one")
    await _raised(RunCancelledError, handle)
    reread = build()  # another object over the same storage, as after a reload
    state = await reread.aget_state(config)
    assert [q.value for q in state.interrupts] == ["which one?"]
    gate.set()
    assert (await reread.ainvoke(Command(resume="second"), config))["log"] == ["second"]


class _OldState(TypedDict, total=False):
    """The state of an earlier version of a graph: it had a key the new one dropped."""

    log: Annotated[list[str], operator.add]
    draft: str


async def scenario_a_thread_of_another_graph_version_reads_and_moves_on(
    make: CheckpointerFactory,
) -> None:
    """A thread naming a node and a key the graph lost is readable, refuses to run, moves on."""
    saver = make()

    def step(name: str) -> Callable[[Any], dict[str, Any]]:
        def node(state: Any) -> dict[str, Any]:
            return {"log": [name]}

        node.__name__ = name
        return node

    def draft(state: _OldState) -> dict[str, Any]:
        return {"log": ["draft"], "draft": "v1"}

    old = StateGraph(_OldState).add_sequence([step("start"), draft, step("review")])
    old = old.add_edge(START, "start").compile(checkpointer=saver, interrupt_before=["review"])
    config = {"configurable": {"thread_id": "t"}}
    await old.ainvoke({"log": []}, config)
    new = StateGraph(State).add_sequence([step("start"), step("publish")])
    new = new.add_edge(START, "start").compile(checkpointer=saver)
    state = await new.aget_state(config)
    assert state.values == {"log": ["start", "draft"], "draft": "v1"}
    assert state.next == ("review",)
    assert len([s async for s in new.aget_state_history(config)]) == 4
    error = await _raised(GraphVersionError, new.ainvoke(None, config))
    assert isinstance(error, CheckpointError)
    assert (error.nodes, error.keys, error.thread_id) == (("review",), ("draft",), "t")
    assert "node(s) 'review' and state key(s) 'draft'" in str(error)
    await new.aupdate_state(config, {"log": ["fixed"]}, as_node="start")
    assert (await new.ainvoke(None, config))["log"] == ["start", "draft", "fixed", "publish"]
