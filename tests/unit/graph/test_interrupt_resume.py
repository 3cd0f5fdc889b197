"""Interrupt and resume beyond the graph scenarios: ids per call, Send fan-out, misuse errors.

Pausing, resuming and refused resumes are the scenarios of tests/scenarios/graph_scenarios.py.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from pyctx_web.errors import ContextMissingError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph._engine.interrupts import interrupt_id
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.errors import GraphConfigError
from pyctx_web.graph.types import Command, Interrupt, Send, interrupt

from .helpers import State, counting, history, node


@pytest.mark.asyncio
async def test_several_interrupts_in_one_node_match_answers_by_order(
    checkpointer: Checkpointer, mode: str
) -> None:
    """Each interrupt() call of a node has its own stable id and gets the answers in order."""

    def ask(state: State) -> dict[str, Any]:
        first = interrupt("first?")
        second = interrupt("second?")
        return {"answers": [first, second]}

    graph = (
        StateGraph(State)
        .add_node("ask", node(ask, mode))
        .add_edge(START, "ask")
        .compile(checkpointer=checkpointer)
    )
    out1 = await graph.ainvoke({"answers": []}, thread_id="t")
    [q1] = out1["__interrupt__"]
    task_id = (await graph.aget_state("t")).tasks[0].id
    assert q1 == Interrupt("first?", interrupt_id(task_id, 0))
    out2 = await graph.ainvoke(Command(resume="A"), thread_id="t")
    [q2] = out2["__interrupt__"]
    assert q2 == Interrupt("second?", interrupt_id(task_id, 1))
    assert q2.id != q1.id
    again = await graph.ainvoke(None, thread_id="t")
    assert again["__interrupt__"] == [q2]
    out3 = await graph.ainvoke(Command(resume={q2.id: "B"}), thread_id="t")
    assert out3["answers"] == ["A", "B"]
    assert "__interrupt__" not in out3


@pytest.mark.asyncio
async def test_send_fan_out_answers_keep_prompt_order(
    checkpointer: Checkpointer, mode: str
) -> None:
    """Five Send children each ask; one map answers all; results follow the prompts' order."""
    delays = [0.02, 0.0, 0.015, 0.005, 0.01]

    def child(arg: dict[str, int]) -> dict[str, Any]:
        i = arg["i"]
        return {"results": [f"{i}:{interrupt(f'q{i}')}"]}

    async def async_child(arg: dict[str, int]) -> dict[str, Any]:
        # Children finish out of order; the results must not.
        await asyncio.sleep(delays[arg["i"]])
        return child(arg)

    graph = (
        StateGraph(State)
        .add_node("child", child if mode == "sync" else async_child)
        .add_conditional_edges(START, lambda s: [Send("child", {"i": i}) for i in range(5)])
        .compile(checkpointer=checkpointer)
    )
    out = await graph.ainvoke({"results": []}, thread_id="t")
    prompts = out["__interrupt__"]
    assert [p.value for p in prompts] == ["q0", "q1", "q2", "q3", "q4"]
    assert len({p.id for p in prompts}) == 5
    answers = {p.id: f"a{p.value[1]}" for p in reversed(prompts)}
    final = await graph.ainvoke(Command(resume=answers), thread_id="t")
    assert final["results"] == ["0:a0", "1:a1", "2:a2", "3:a3", "4:a4"]


@pytest.mark.asyncio
async def test_invoke_none_with_pending_interrupt_changes_nothing(
    checkpointer: Checkpointer, mode: str
) -> None:
    """ainvoke(None) returns the same pending question, runs nothing and writes nothing."""
    counts: Counter[str] = Counter()

    def ask(state: State) -> dict[str, Any]:
        return {"answers": [interrupt("first?"), interrupt("second?")]}

    graph = (
        StateGraph(State)
        .add_node("ask", node(counting(counts, "ask", ask), mode))
        .add_edge(START, "ask")
        .compile(checkpointer=checkpointer)
    )
    await graph.ainvoke({"answers": []}, thread_id="t")
    second = await graph.ainvoke(Command(resume="A"), thread_id="t")
    before_state, before_history = await graph.aget_state("t"), await history(graph, "t")
    repeated = await graph.ainvoke(None, thread_id="t")
    assert repeated["__interrupt__"] == second["__interrupt__"]
    assert await graph.aget_state("t") == before_state
    assert await history(graph, "t") == before_history
    assert counts["ask"] == 2
    final = await graph.ainvoke(Command(resume="B"), thread_id="t")
    assert final["answers"] == ["A", "B"]


def test_interrupt_outside_a_run_raises_context_missing() -> None:
    """interrupt() outside a graph run raises ContextMissingError saying so."""
    with pytest.raises(
        ContextMissingError,
        match=(
            r"^interrupt\(\) was called outside a graph run; call it from a node "
            r"while the graph runs$"
        ),
    ):
        interrupt("hello?")


@pytest.mark.asyncio
async def test_interrupt_in_a_router_raises_context_missing(checkpointer: Checkpointer) -> None:
    """interrupt() in a router (inside the run, outside any node) raises ContextMissingError."""

    def router(state: State) -> str:
        interrupt("route?")
        return END

    graph = (
        StateGraph(State)
        .add_node("a", lambda s: None)
        .add_edge(START, "a")
        .add_conditional_edges("a", router)
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(
        ContextMissingError,
        match=(
            r"^interrupt\(\) was called outside a node of the graph run \(in a "
            r"router\?\); only nodes can be paused$"
        ),
    ):
        await graph.ainvoke({"log": []}, thread_id="t")


@pytest.mark.asyncio
async def test_resume_without_checkpointer_says_so(mode: str) -> None:
    """Command(resume=...) on a graph without a checkpointer raises an error saying so."""
    graph = (
        StateGraph(State).add_node("a", node(lambda s: None, mode)).add_edge(START, "a").compile()
    )
    with pytest.raises(
        GraphConfigError,
        match=(
            r"^Command\(resume=\.\.\.\) needs a checkpointer that saved the run: "
            r"compile\(checkpointer=InMemorySaver\(\)\) and pass a thread_id$"
        ),
    ):
        await graph.ainvoke(Command(resume="x"))
    with pytest.raises(
        GraphConfigError,
        match=(
            r"^invoke\(None\) needs a checkpointer that saved the run: "
            r"compile\(checkpointer=InMemorySaver\(\)\) and pass a thread_id$"
        ),
    ):
        await graph.ainvoke(None)


@pytest.mark.asyncio
async def test_checkpointer_without_thread_id_says_so(checkpointer: Checkpointer) -> None:
    """A graph with a checkpointer called without a thread_id raises an error naming thread_id."""
    graph = (
        StateGraph(State)
        .add_node("a", lambda s: None)
        .add_edge(START, "a")
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(
        GraphConfigError,
        match=(
            r"^a graph run needs a thread_id because the graph has a checkpointer: "
            r"pass config=\{'configurable': \{'thread_id': '\.\.\.'\}\} \(or "
            r"thread_id='\.\.\.'\)$"
        ),
    ):
        await graph.ainvoke({"log": []})
    with pytest.raises(
        GraphConfigError,
        match=(
            r"^Command\(resume=\.\.\.\) needs a thread_id because the graph has a "
            r"checkpointer: pass config=\{'configurable': \{'thread_id': "
            r"'\.\.\.'\}\} \(or thread_id='\.\.\.'\)$"
        ),
    ):
        await graph.ainvoke(Command(resume="x"))
    with pytest.raises(
        GraphConfigError,
        match=(
            r"^get_state\(\) needs a thread_id because the graph has a "
            r"checkpointer: pass config=\{'configurable': \{'thread_id': "
            r"'\.\.\.'\}\} \(or thread_id='\.\.\.'\)$"
        ),
    ):
        await graph.aget_state(None)


@pytest.mark.asyncio
async def test_interrupt_without_checkpointer_says_so(mode: str) -> None:
    """A node calling interrupt() in a graph without a checkpointer fails saying so."""
    graph = (
        StateGraph(State)
        .add_node("a", node(lambda s: {"answer": interrupt("q")}, mode))
        .add_edge(START, "a")
        .compile()
    )
    with pytest.raises(
        GraphConfigError,
        match=(
            r"^interrupt\(\) needs a checkpointer to save the paused run: "
            r"compile\(checkpointer=InMemorySaver\(\)\) and pass a thread_id$"
        ),
    ):
        await graph.ainvoke({"log": []})


@pytest.mark.asyncio
async def test_except_exception_in_node_cannot_swallow_interrupt(
    checkpointer: Checkpointer,
) -> None:
    """A node's `except Exception` does not catch the interrupt: the run still pauses."""

    def careless(state: State) -> dict[str, Any]:
        try:
            return {"answer": interrupt("q")}
        except Exception:  # the point of the test: this must not catch the interrupt
            return {"answer": "swallowed"}

    graph = (
        StateGraph(State)
        .add_node("a", careless)
        .add_edge(START, "a")
        .compile(checkpointer=checkpointer)
    )
    out = await graph.ainvoke({"log": []}, thread_id="t")
    assert [i.value for i in out["__interrupt__"]] == ["q"]
    assert "answer" not in out
