"""A thread's history as the record of each step, as stored by any checkpointer.

Each ``scenario_<behaviour>(make_checkpointer)`` runs a graph whose first step
has two tasks (``draft`` finishes, ``ask`` asks a question), answers it with a
``Command(update=...)``, and reads the thread back through a new checkpointer
object over the same storage where the storage is persistent (SQLite,
IndexedDB), else through the same one: what is read comes from what was stored.

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, Send, StateSnapshot, interrupt
from tests.scenarios.common import PERSISTENT, CheckpointerFactory


class State(TypedDict, total=False):
    """The state of the scenario graph."""

    log: Annotated[list[str], operator.add]
    topic: str


def _draft(state: State) -> Command[Any]:
    return Command(update={"log": ["draft"]}, goto=[Send("review", {"log": ["sent"]})])


async def _ask(state: State) -> dict[str, Any]:
    return {"log": [f"ask:{interrupt('which topic?')}"]}


def _review(state: State) -> dict[str, Any]:
    return {"log": [f"review:{len(state['log'])}"]}


def _polish(state: State) -> dict[str, Any]:
    return {"log": ["polish"]}


def _build(checkpointer: Checkpointer) -> CompiledStateGraph:
    builder = StateGraph(State)
    builder.add_node("draft", _draft)
    builder.add_node("ask", _ask)
    builder.add_node("review", _review)
    builder.add_node("polish", _polish)
    builder.add_edge(START, "ask").add_edge(START, "draft").add_edge("draft", "polish")
    return builder.add_edge("polish", END).compile(checkpointer=checkpointer)


async def _paused(make: CheckpointerFactory) -> tuple[CompiledStateGraph, CompiledStateGraph]:
    """The graph that ran the thread to its question, and one that reads it back."""
    saver = make()
    graph = _build(saver)
    await graph.ainvoke({"log": []}, thread_id="t")
    return graph, _build(make() if PERSISTENT in make.capabilities else saver)


def _tasks(state: StateSnapshot) -> list[tuple[str, Any, list[Any], Any]]:
    return [(t.name, t.path, [i.value for i in t.interrupts], t.result) for t in state.tasks]


async def scenario_history_shows_each_step_as_it_started(make: CheckpointerFactory) -> None:
    """A history checkpoint shows its step as it started, with each task's result and question."""
    graph, reader = await _paused(make)
    answer: Command[str] = Command(resume="owls", update={"topic": "given"})
    out = await graph.ainvoke(answer, thread_id="t")
    assert out == {"log": ["ask:owls", "draft", "polish", "review:1"], "topic": "given"}
    end, second, first, _ = [s async for s in reader.aget_state_history("t")]
    assert (end.next, end.tasks) == ((), ())
    assert second.values == {"log": ["ask:owls", "draft"], "topic": "given"}
    assert second.next == ("review", "polish")
    assert _tasks(second) == [
        ("review", ("__pregel_push", 0, False), [], {"log": ["review:1"]}),
        ("polish", ("__pregel_pull", "polish"), [], {"log": ["polish"]}),
    ]
    assert first.values == {"log": [], "topic": "given"}
    assert first.next == ("draft", "ask")
    assert _tasks(first) == [
        ("draft", ("__pregel_pull", "draft"), [], {"log": ["draft"]}),
        ("ask", ("__pregel_pull", "ask"), ["which topic?"], {"log": ["ask:owls"]}),
    ]
    assert [i.value for i in first.interrupts] == ["which topic?"]
    assert await reader.aget_state(first.config) == first


async def scenario_latest_state_shows_the_paused_step_as_it_stands(
    make: CheckpointerFactory,
) -> None:
    """The latest state shows a paused step as it stands; named by id, as it started."""
    _, reader = await _paused(make)
    live = await reader.aget_state("t")
    assert (live.values, live.next) == ({"log": ["draft"]}, ("ask",))
    assert [i.value for i in live.interrupts] == ["which topic?"]
    record = await reader.aget_state(live.config)
    assert (record.values, record.next) == ({"log": []}, ("draft", "ask"))
    assert _tasks(record) == _tasks(live)
    latest, _ = [s async for s in reader.aget_state_history("t")]
    assert latest == record
