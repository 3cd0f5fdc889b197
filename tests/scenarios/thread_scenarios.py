"""One run per thread, as scenarios for any checkpointer: refused, queued, another version.

Each ``scenario_<behaviour>(make_checkpointer)`` is an async function with
plain asserts; ``make_checkpointer()`` gives a checkpointer over one fresh
storage (see tests/scenarios/graph_scenarios.py).

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.errors import (
    CheckpointError,
    GraphVersionError,
    ThreadBusyError,
)
from pyctx_web.graph.state import CompiledStateGraph
from tests.scenarios.common import CheckpointerFactory, raised, until


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


async def scenario_second_run_of_a_busy_thread_is_refused_and_changes_nothing(
    make: CheckpointerFactory,
) -> None:
    """A second run on a thread whose run is still going fails at once and writes nothing."""
    gate = asyncio.Event()
    started: list[str] = []
    graph = _graph(make, gate, started)
    config = {"configurable": {"thread_id": "t"}}
    first = graph.start({"log": []}, config)
    await until(lambda: started == ["slow"])
    history = [s.config async for s in graph.aget_state_history(config)]
    error = await raised(ThreadBusyError, graph.ainvoke({"log": ["second"]}, config))
    assert error.thread_id == "t"
    assert "another run" in str(error)
    assert [s.config async for s in graph.aget_state_history(config)] == history
    gate.set()
    assert (await first)["log"] == ["slow", "after"]
    assert (await graph.ainvoke(None, config))["log"] == ["slow", "after"]


async def scenario_enqueued_runs_wait_in_arrival_order(make: CheckpointerFactory) -> None:
    """With multitask="enqueue", runs of one thread go one after the other, in arrival order."""
    gate = asyncio.Event()
    started: list[str] = []
    graph = _graph(make, gate, started, multitask="enqueue")
    config = {"configurable": {"thread_id": "t"}}
    runs = [graph.start({"log": [f"r{i}"]}, config) for i in range(3)]
    await until(lambda: len(started) == 1)
    await asyncio.sleep(0)
    assert started == ["slow"]  # the others wait for their turn
    gate.set()
    results = [await run for run in runs]
    assert [r["log"][-3:] for r in results] == [[f"r{i}", "slow", "after"] for i in range(3)]
    assert [r["log"][0] for r in results] == ["r0", "r0", "r0"]


async def scenario_different_threads_never_wait_for_each_other(make: CheckpointerFactory) -> None:
    """A run of one thread does not wait for a run of another thread."""
    gate = asyncio.Event()
    started: list[str] = []
    graph = _graph(make, gate, started, multitask="enqueue")
    first = graph.start({"log": []}, {"configurable": {"thread_id": "a"}})
    second = graph.start({"log": []}, {"configurable": {"thread_id": "b"}})
    await until(lambda: started == ["slow", "slow"])
    gate.set()
    assert (await first)["log"] == (await second)["log"] == ["slow", "after"]


class _OldState(TypedDict, total=False):
    """The state of an earlier version of a graph: it had a key the new one dropped."""

    log: Annotated[list[str], operator.add]
    draft: str


async def scenario_a_thread_of_another_graph_version_reads_and_moves_on(
    make: CheckpointerFactory,
) -> None:
    """A thread naming a node and a key the graph lost hides that key, refuses to run, moves on."""
    saver = make()

    def step(name: str) -> Callable[[Any], dict[str, Any]]:
        def node(state: Any) -> dict[str, Any]:
            return {"log": [name]}

        node.__name__ = name
        return node

    def draft(state: _OldState) -> dict[str, Any]:
        return {"log": ["draft"], "draft": "v1"}

    old_builder = StateGraph(_OldState).add_sequence([step("start"), draft, step("review")])
    old = old_builder.add_edge(START, "start").compile(
        checkpointer=saver, interrupt_before=["review"]
    )
    config = {"configurable": {"thread_id": "t"}}
    await old.ainvoke({"log": []}, config)
    new_builder = StateGraph(State).add_sequence([step("start"), step("publish")])
    new = new_builder.add_edge(START, "start").compile(checkpointer=saver)
    state = await new.aget_state(config)
    assert state.values == {"log": ["start", "draft"]}
    assert state.next == ("review",)
    assert len([s async for s in new.aget_state_history(config)]) == 4
    error = await raised(GraphVersionError, new.ainvoke(None, config))
    assert isinstance(error, CheckpointError)
    assert (error.nodes, error.keys, error.thread_id) == (("review",), ("draft",), "t")
    assert "node(s) 'review' and state key(s) 'draft'" in str(error)
    await new.aupdate_state(config, {"log": ["fixed"]}, as_node="start")
    assert (await new.ainvoke(None, config))["log"] == ["start", "draft", "fixed", "publish"]
