"""Acceptance items 1-8 of the graph runtime: interrupt, resume, refusals."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from pyctx_web.errors import ContextMissingError, PyctxError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph._engine.interrupts import interrupt_id
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.errors import GraphConfigError, ResumeError
from pyctx_web.graph.types import Command, Interrupt, Send, interrupt

from .helpers import State, counting, history, node


def _parallel_graph(checkpointer: Checkpointer, mode: str, counts: Counter[str]) -> Any:
    """START -> a (writes), START -> b (asks), then both -> c."""
    b = counting(counts, "b", lambda s: {"log": [f"b:{interrupt('q-b')}"]})
    return (
        StateGraph(State)
        .add_node("a", node(counting(counts, "a", lambda s: {"log": ["a"]}), mode))
        .add_node("b", node(b, mode))
        .add_node("c", node(counting(counts, "c", lambda s: {"log": ["c"]}), mode))
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_edge("a", "c")
        .add_edge("b", "c")
        .add_edge("c", END)
        .compile(checkpointer=checkpointer)
    )


@pytest.mark.asyncio
async def test_interrupt_pauses_and_keeps_finished_sibling_writes(
    checkpointer: Checkpointer, mode: str
) -> None:
    """interrupt() pauses the run with its value and an id; a finished sibling's writes apply."""
    counts: Counter[str] = Counter()
    graph = _parallel_graph(checkpointer, mode, counts)
    out = await graph.ainvoke({"log": []}, thread_id="t1")
    [pending] = out["__interrupt__"]
    assert isinstance(pending, Interrupt)
    assert pending.value == "q-b"
    assert pending.id
    assert out["log"] == ["a"]
    state = await graph.aget_state("t1")
    assert state.values["log"] == ["a"]
    assert state.next == ("b",)
    assert state.interrupts == (pending,)
    assert {t.name: t.result for t in state.tasks} == {"a": {"log": ["a"]}, "b": None}


@pytest.mark.asyncio
async def test_resume_reruns_node_from_first_line_not_upstream(
    checkpointer: Checkpointer, mode: str
) -> None:
    """Command(resume=x) re-runs the node from its first line; interrupt() returns x once there."""
    counts: Counter[str] = Counter()
    graph = (
        StateGraph(State)
        .add_node("a", node(counting(counts, "a", lambda s: {"log": ["a"]}), mode))
        .add_node("b", node(counting(counts, "b", lambda s: {"answer": interrupt("name?")}), mode))
        .add_node("c", node(counting(counts, "c", lambda s: {"log": [f"c:{s['answer']}"]}), mode))
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .compile(checkpointer=checkpointer)
    )
    await graph.ainvoke({"log": []}, thread_id="t")
    out = await graph.ainvoke(Command(resume="Ada"), thread_id="t")
    assert out == {"log": ["a", "c:Ada"], "answer": "Ada"}
    assert counts == Counter({"a": 1, "b": 2, "c": 1})


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
async def test_parallel_branches_run_concurrently(checkpointer: Checkpointer) -> None:
    """Two async branches of one step are in flight at the same time."""
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    def branch(me: str, other: str) -> Any:
        async def run(state: State) -> dict[str, Any]:
            started[me].set()
            # Finishing requires the sibling to have started: only true concurrency gets here.
            await asyncio.wait_for(started[other].wait(), 10)
            return {"log": [me]}

        return run

    graph = (
        StateGraph(State)
        .add_node("a", branch("a", "b"))
        .add_node("b", branch("b", "a"))
        .add_edge(START, "a")
        .add_edge(START, "b")
        .compile(checkpointer=checkpointer)
    )
    out = await graph.ainvoke({"log": []}, thread_id="t")
    assert out["log"] == ["a", "b"]


def _two_questions_graph(checkpointer: Checkpointer, mode: str, counts: Counter[str]) -> Any:
    """x and y ask, z finishes, all in the same step."""
    return (
        StateGraph(State)
        .add_node(
            "x", node(counting(counts, "x", lambda s: {"log": [f"x:{interrupt('qx')}"]}), mode)
        )
        .add_node(
            "y", node(counting(counts, "y", lambda s: {"log": [f"y:{interrupt('qy')}"]}), mode)
        )
        .add_node("z", node(counting(counts, "z", lambda s: {"log": ["z"]}), mode))
        .add_edge(START, "x")
        .add_edge(START, "y")
        .add_edge(START, "z")
        .compile(checkpointer=checkpointer)
    )


@pytest.mark.asyncio
async def test_several_pending_answered_all_at_once(checkpointer: Checkpointer, mode: str) -> None:
    """A map {id: value} answers every pending question; the finished sibling never reruns."""
    counts: Counter[str] = Counter()
    graph = _two_questions_graph(checkpointer, mode, counts)
    out = await graph.ainvoke({"log": []}, thread_id="t")
    qx, qy = out["__interrupt__"]
    assert (qx.value, qy.value) == ("qx", "qy")
    assert out["log"] == ["z"]
    final = await graph.ainvoke(Command(resume={qy.id: "Y", qx.id: "X"}), thread_id="t")
    assert final["log"] == ["x:X", "y:Y", "z"]
    assert counts == Counter({"x": 2, "y": 2, "z": 1})


@pytest.mark.asyncio
async def test_several_pending_answered_some_at_a_time(
    checkpointer: Checkpointer, mode: str
) -> None:
    """Answering one of two questions runs that branch only; the other stays pending."""
    counts: Counter[str] = Counter()
    graph = _two_questions_graph(checkpointer, mode, counts)
    qx, qy = (await graph.ainvoke({"log": []}, thread_id="t"))["__interrupt__"]
    partial = await graph.ainvoke(Command(resume={qx.id: "X"}), thread_id="t")
    assert partial["__interrupt__"] == [qy]
    assert partial["log"] == ["x:X", "z"]
    assert counts == Counter({"x": 2, "y": 1, "z": 1})
    final = await graph.ainvoke(Command(resume={qy.id: "Y"}), thread_id="t")
    assert final["log"] == ["x:X", "y:Y", "z"]
    assert counts == Counter({"x": 2, "y": 2, "z": 1})


@pytest.mark.asyncio
async def test_single_value_refused_while_several_pending(
    checkpointer: Checkpointer, mode: str
) -> None:
    """A bare resume value while two questions wait is refused with both ids, nothing changed."""
    counts: Counter[str] = Counter()
    graph = _two_questions_graph(checkpointer, mode, counts)
    qx, qy = (await graph.ainvoke({"log": []}, thread_id="t"))["__interrupt__"]
    before = await graph.aget_state("t")
    with pytest.raises(ResumeError) as info:
        await graph.ainvoke(Command(resume="both?"), thread_id="t")
    assert info.value.pending_ids == (qx.id, qy.id)
    assert qx.id in str(info.value)
    assert qy.id in str(info.value)
    assert await graph.aget_state("t") == before
    assert counts == Counter({"x": 1, "y": 1, "z": 1})


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


async def _paused_two_question_graph(
    checkpointer: Checkpointer, mode: str
) -> tuple[Any, Interrupt]:
    def ask(state: State) -> dict[str, Any]:
        return {"answers": [interrupt("first?"), interrupt("second?")]}

    graph = (
        StateGraph(State)
        .add_node("ask", node(ask, mode))
        .add_edge(START, "ask")
        .compile(checkpointer=checkpointer)
    )
    [q1] = (await graph.ainvoke({"answers": []}, thread_id="t"))["__interrupt__"]
    return graph, q1


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("resume", "message"),
    [
        ({"0" * 32: "x"}, "unknown interrupt id"),
        (None, r"Command\(resume=None\)"),
    ],
)
async def test_refused_resume_lists_pending_and_leaves_checkpoint(
    checkpointer: Checkpointer, mode: str, resume: Any, message: str
) -> None:
    """An unknown id or resume=None is refused listing the pending ids; the question stays open."""
    graph, q1 = await _paused_two_question_graph(checkpointer, mode)
    before_state, before_history = await graph.aget_state("t"), await history(graph, "t")
    with pytest.raises(ResumeError, match=message) as info:
        await graph.ainvoke(Command(resume=resume), thread_id="t")
    assert isinstance(info.value, PyctxError)
    assert info.value.pending_ids == (q1.id,)
    assert q1.id in str(info.value)
    assert await graph.aget_state("t") == before_state
    assert await history(graph, "t") == before_history
    out = await graph.ainvoke(Command(resume={q1.id: "A"}), thread_id="t")
    assert out["__interrupt__"][0].value == "second?"


@pytest.mark.asyncio
async def test_answer_resent_for_answered_question_is_refused(
    checkpointer: Checkpointer, mode: str
) -> None:
    """Re-sending an answer to an already answered question is refused; the next one still waits."""
    graph, q1 = await _paused_two_question_graph(checkpointer, mode)
    [q2] = (await graph.ainvoke(Command(resume={q1.id: "A"}), thread_id="t"))["__interrupt__"]
    before_state = await graph.aget_state("t")
    with pytest.raises(ResumeError, match="already answered") as info:
        await graph.ainvoke(Command(resume={q1.id: "again"}), thread_id="t")
    assert info.value.pending_ids == (q2.id,)
    assert info.value.rejected_ids == (q1.id,)
    assert await graph.aget_state("t") == before_state
    final = await graph.ainvoke(Command(resume={q2.id: "B"}), thread_id="t")
    assert final["answers"] == ["A", "B"]


@pytest.mark.asyncio
async def test_resume_when_nothing_pending_is_refused(
    checkpointer: Checkpointer, mode: str
) -> None:
    """Resuming a finished thread, or one never started, is refused and writes nothing."""
    graph, _ = await _paused_two_question_graph(checkpointer, mode)
    await graph.ainvoke(Command(resume="A"), thread_id="t")
    await graph.ainvoke(Command(resume="B"), thread_id="t")
    before = await history(graph, "t")
    with pytest.raises(ResumeError, match="nothing to resume") as info:
        await graph.ainvoke(Command(resume="C"), thread_id="t")
    assert info.value.pending_ids == ()
    assert await history(graph, "t") == before
    with pytest.raises(ResumeError, match="nothing to resume"):
        await graph.ainvoke(Command(resume="C"), thread_id="never-started")


def test_interrupt_outside_a_run_raises_context_missing() -> None:
    """interrupt() outside a graph run raises ContextMissingError saying so."""
    with pytest.raises(ContextMissingError, match="outside a graph run"):
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
    with pytest.raises(ContextMissingError, match="outside a node"):
        await graph.ainvoke({"log": []}, thread_id="t")


@pytest.mark.asyncio
async def test_resume_without_checkpointer_says_so(mode: str) -> None:
    """Command(resume=...) on a graph without a checkpointer raises an error saying so."""
    graph = (
        StateGraph(State).add_node("a", node(lambda s: None, mode)).add_edge(START, "a").compile()
    )
    with pytest.raises(GraphConfigError, match="needs a checkpointer"):
        await graph.ainvoke(Command(resume="x"))
    with pytest.raises(GraphConfigError, match="needs a checkpointer"):
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
    with pytest.raises(GraphConfigError, match="needs a thread_id"):
        await graph.ainvoke({"log": []})
    with pytest.raises(GraphConfigError, match="needs a thread_id"):
        await graph.ainvoke(Command(resume="x"))
    with pytest.raises(GraphConfigError, match="needs a thread_id"):
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
    with pytest.raises(GraphConfigError, match="needs a checkpointer"):
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
