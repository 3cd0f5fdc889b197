"""Acceptance items 1, 2, 4, 7, 12 and 13 of the graph runtime, as scenarios for any checkpointer.

Each ``scenario_<behaviour>(make_checkpointer)`` is an async function with
plain asserts; ``make_checkpointer()`` gives a checkpointer over one fresh
storage (a new object over the same storage each call when the storage is
persistent; see tests/scenarios/checkpointer_contract.py). Scenarios run
their nodes both as plain functions and as coroutine functions.

In Pyodide, the concurrency scenario also waits on JavaScript timers set
through :func:`pyctx_web.jsbridge.set_timeout`.

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import asyncio
import inspect
import operator
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypedDict

from pyctx_web._env import IN_PYODIDE
from pyctx_web.errors import ContextMissingError, PyctxError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.errors import ResumeError
from pyctx_web.graph.runtime import Runtime, get_runtime
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, Interrupt, StateSnapshot, interrupt
from tests.scenarios.common import CheckpointerFactory, requires

MODES = ("sync", "async")
"""Nodes as plain functions, then as coroutine functions."""


class State(TypedDict, total=False):
    """The state of the scenario graphs."""

    topic: str
    log: Annotated[list[str], operator.add]
    answers: Annotated[list[Any], operator.add]
    answer: Any


def node(fn: Callable[..., Any], mode: str) -> Callable[..., Any]:
    """``fn`` itself (mode "sync") or an async node that awaits once, then calls it."""
    if mode == "sync":
        return fn
    if "runtime" in inspect.signature(fn).parameters:

        async def anode_with_runtime(state: Any, runtime: Runtime[Any]) -> Any:
            await asyncio.sleep(0)
            return fn(state, runtime=runtime)

        return anode_with_runtime

    async def anode(state: Any) -> Any:
        await asyncio.sleep(0)
        return fn(state)

    return anode


def counting(counts: Counter[str], name: str, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Wrap ``fn`` so that each call first counts one run of ``name`` (its first line)."""

    def counted(state: Any) -> Any:
        counts[name] += 1
        return fn(state)

    return counted


async def history(graph: CompiledStateGraph, thread_id: str) -> list[StateSnapshot]:
    """All snapshots of the thread, newest first."""
    return [s async for s in graph.aget_state_history(thread_id)]


async def refused(awaitable: Awaitable[Any]) -> ResumeError:
    """Await ``awaitable`` and return the ResumeError it must raise."""
    try:
        await awaitable
    except ResumeError as exc:
        return exc
    raise AssertionError("expected a ResumeError")


# --- item 1 --------------------------------------------------------------------------------


def _parallel_graph(saver: Checkpointer, mode: str, counts: Counter[str]) -> CompiledStateGraph:
    """START -> a (writes) and START -> b (asks), then both -> c."""
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
        .compile(checkpointer=saver)
    )


async def scenario_interrupt_pauses_and_keeps_finished_sibling_writes(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """interrupt(v) pauses with v and an id; the asking node's writes wait, a sibling's apply."""
    saver = make_checkpointer()
    for mode in MODES:
        counts: Counter[str] = Counter()
        graph = _parallel_graph(saver, mode, counts)
        out = await graph.ainvoke({"log": []}, thread_id=f"item1-{mode}")
        [pending] = out["__interrupt__"]
        assert isinstance(pending, Interrupt)
        assert pending.value == "q-b"
        assert isinstance(pending.id, str)
        assert pending.id
        assert out["log"] == ["a"]
        state = await graph.aget_state(f"item1-{mode}")
        assert state.values == {"log": ["a"], "answers": []}
        assert state.next == ("b",)
        assert state.interrupts == (pending,)
        assert {t.name: t.result for t in state.tasks} == {"a": {"log": ["a"]}, "b": None}
        assert counts == Counter({"a": 1, "b": 1})
        final = await graph.ainvoke(Command(resume="B"), thread_id=f"item1-{mode}")
        assert final == {"log": ["a", "b:B", "c"], "answers": []}
        assert counts == Counter({"a": 1, "b": 2, "c": 1})


# --- item 2 --------------------------------------------------------------------------------


def _asker(seen: list[Any]) -> Callable[[State], dict[str, Any]]:
    """A node that asks "name?" and records each answer it gets back."""

    def ask(state: State) -> dict[str, Any]:
        answer = interrupt("name?")
        seen.append(answer)
        return {"answer": answer}

    return ask


async def scenario_resume_reruns_node_from_first_line_not_upstream(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Command(resume=x) re-runs the asking node from its first line, interrupt() returns x."""
    saver = make_checkpointer()
    for mode in MODES:
        counts: Counter[str] = Counter()
        seen: list[Any] = []
        ask = _asker(seen)
        graph = (
            StateGraph(State)
            .add_node("a", node(counting(counts, "a", lambda s: {"log": ["a"]}), mode))
            .add_node("b", node(counting(counts, "b", ask), mode))
            .add_node(
                "c", node(counting(counts, "c", lambda s: {"log": [f"c:{s['answer']}"]}), mode)
            )
            .add_edge(START, "a")
            .add_edge("a", "b")
            .add_edge("b", "c")
            .compile(checkpointer=saver)
        )
        paused = await graph.ainvoke({"log": []}, thread_id=f"item2-{mode}")
        assert [i.value for i in paused["__interrupt__"]] == ["name?"]
        assert counts == Counter({"a": 1, "b": 1})
        out = await graph.ainvoke(Command(resume="Ada"), thread_id=f"item2-{mode}")
        assert out == {"log": ["a", "c:Ada"], "answers": [], "answer": "Ada"}
        assert seen == ["Ada"]
        assert counts == Counter({"a": 1, "b": 2, "c": 1})
        assert (await graph.aget_state(f"item2-{mode}")).next == ()


# --- item 4 --------------------------------------------------------------------------------


async def scenario_parallel_branches_run_concurrently(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Two async branches of one step are in flight at the same time."""
    saver = make_checkpointer()
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    def branch(me: str, other: str) -> Callable[[State], Awaitable[dict[str, Any]]]:
        async def run(state: State) -> dict[str, Any]:
            started[me].set()
            # Only a branch whose sibling has started gets past this line; the timeout
            # turns a sequential run into a failure instead of a hang.
            await asyncio.wait_for(started[other].wait(), 30)
            return {"log": [me]}

        return run

    graph = (
        StateGraph(State)
        .add_node("a", branch("a", "b"))
        .add_node("b", branch("b", "a"))
        .add_edge(START, "a")
        .add_edge(START, "b")
        .compile(checkpointer=saver)
    )
    out = await graph.ainvoke({"log": []}, thread_id="item4-concurrent")
    assert out == {"log": ["a", "b"], "answers": []}


def _two_questions_graph(
    saver: Checkpointer, mode: str, counts: Counter[str]
) -> CompiledStateGraph:
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
        .compile(checkpointer=saver)
    )


async def scenario_several_pending_answered_all_at_once(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A map {id: value} answers every pending question; the finished sibling never re-runs."""
    saver = make_checkpointer()
    for mode in MODES:
        counts: Counter[str] = Counter()
        graph = _two_questions_graph(saver, mode, counts)
        tid = f"item4-all-{mode}"
        out = await graph.ainvoke({"log": []}, thread_id=tid)
        qx, qy = out["__interrupt__"]
        assert (qx.value, qy.value) == ("qx", "qy")
        assert qx.id != qy.id
        assert out["log"] == ["z"]
        assert (await graph.aget_state(tid)).values == {"log": ["z"], "answers": []}
        final = await graph.ainvoke(Command(resume={qy.id: "Y", qx.id: "X"}), thread_id=tid)
        assert final == {"log": ["x:X", "y:Y", "z"], "answers": []}
        assert counts == Counter({"x": 2, "y": 2, "z": 1})


async def scenario_several_pending_answered_some_at_a_time(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Answering one of two questions runs that branch only; the other stays pending."""
    saver = make_checkpointer()
    for mode in MODES:
        counts: Counter[str] = Counter()
        graph = _two_questions_graph(saver, mode, counts)
        tid = f"item4-some-{mode}"
        qx, qy = (await graph.ainvoke({"log": []}, thread_id=tid))["__interrupt__"]
        partial = await graph.ainvoke(Command(resume={qx.id: "X"}), thread_id=tid)
        assert partial["__interrupt__"] == [qy]
        assert partial["log"] == ["x:X", "z"]
        assert (await graph.aget_state(tid)).interrupts == (qy,)
        assert counts == Counter({"x": 2, "y": 1, "z": 1})
        final = await graph.ainvoke(Command(resume={qy.id: "Y"}), thread_id=tid)
        assert final == {"log": ["x:X", "y:Y", "z"], "answers": []}
        assert counts == Counter({"x": 2, "y": 2, "z": 1})


async def scenario_single_value_refused_while_several_pending(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A bare resume value while two questions wait is refused with both ids, nothing changed."""
    saver = make_checkpointer()
    for mode in MODES:
        counts: Counter[str] = Counter()
        graph = _two_questions_graph(saver, mode, counts)
        tid = f"item4-single-{mode}"
        qx, qy = (await graph.ainvoke({"log": []}, thread_id=tid))["__interrupt__"]
        before, before_history = await graph.aget_state(tid), await history(graph, tid)
        err = await refused(graph.ainvoke(Command(resume="both?"), thread_id=tid))
        assert err.pending_ids == (qx.id, qy.id)
        assert qx.id in str(err)
        assert qy.id in str(err)
        assert await graph.aget_state(tid) == before
        assert await history(graph, tid) == before_history
        assert counts == Counter({"x": 1, "y": 1, "z": 1})
        final = await graph.ainvoke(Command(resume={qx.id: "X", qy.id: "Y"}), thread_id=tid)
        assert final == {"log": ["x:X", "y:Y", "z"], "answers": []}


# --- item 7 --------------------------------------------------------------------------------


async def _paused_two_questions(saver: Checkpointer, mode: str, tid: str) -> tuple[Any, Interrupt]:
    def ask(state: State) -> dict[str, Any]:
        return {"answers": [interrupt("first?"), interrupt("second?")]}

    graph = (
        StateGraph(State)
        .add_node("ask", node(ask, mode))
        .add_edge(START, "ask")
        .compile(checkpointer=saver)
    )
    [q1] = (await graph.ainvoke({"answers": []}, thread_id=tid))["__interrupt__"]
    return graph, q1


async def _refusal_keeps_question_open(
    saver: Checkpointer, mode: str, tid: str, resume: Any, phrase: str
) -> None:
    graph, q1 = await _paused_two_questions(saver, mode, tid)
    before, before_history = await graph.aget_state(tid), await history(graph, tid)
    err = await refused(graph.ainvoke(Command(resume=resume), thread_id=tid))
    assert isinstance(err, PyctxError)
    assert phrase in str(err), str(err)
    assert err.pending_ids == (q1.id,)
    assert q1.id in str(err)
    assert await graph.aget_state(tid) == before
    assert await history(graph, tid) == before_history
    out = await graph.ainvoke(Command(resume={q1.id: "A"}), thread_id=tid)
    assert [i.value for i in out["__interrupt__"]] == ["second?"]


async def scenario_resume_with_unknown_id_is_refused(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A resume map naming an unknown id is refused listing the pending ids; the question stays."""
    saver = make_checkpointer()
    for mode in MODES:
        await _refusal_keeps_question_open(
            saver, mode, f"item7-unknown-{mode}", {"0" * 32: "x"}, "unknown interrupt id"
        )


async def scenario_resume_none_is_refused(make_checkpointer: CheckpointerFactory) -> None:
    """Command(resume=None) is refused listing the pending ids; the question stays answerable."""
    saver = make_checkpointer()
    for mode in MODES:
        await _refusal_keeps_question_open(
            saver, mode, f"item7-none-{mode}", None, "Command(resume=None)"
        )


async def scenario_answer_resent_for_answered_question_is_refused(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Re-sending an answer to an answered question is refused; the next question still waits."""
    saver = make_checkpointer()
    for mode in MODES:
        tid = f"item7-resent-{mode}"
        graph, q1 = await _paused_two_questions(saver, mode, tid)
        [q2] = (await graph.ainvoke(Command(resume={q1.id: "A"}), thread_id=tid))["__interrupt__"]
        before, before_history = await graph.aget_state(tid), await history(graph, tid)
        err = await refused(graph.ainvoke(Command(resume={q1.id: "again"}), thread_id=tid))
        assert "already answered" in str(err)
        assert err.pending_ids == (q2.id,)
        assert err.rejected_ids == (q1.id,)
        assert q2.id in str(err)
        assert await graph.aget_state(tid) == before
        assert await history(graph, tid) == before_history
        final = await graph.ainvoke(Command(resume={q2.id: "B"}), thread_id=tid)
        assert final["answers"] == ["A", "B"]


async def scenario_resume_when_nothing_pending_is_refused(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A resume of a finished thread gives its values, of a new one is refused: no writes."""
    saver = make_checkpointer()
    for mode in MODES:
        tid = f"item7-done-{mode}"
        graph, _ = await _paused_two_questions(saver, mode, tid)
        await graph.ainvoke(Command(resume="A"), thread_id=tid)
        done = await graph.ainvoke(Command(resume="B"), thread_id=tid)
        assert done == {"log": [], "answers": ["A", "B"]}
        before, before_history = await graph.aget_state(tid), await history(graph, tid)
        assert await graph.ainvoke(Command(resume="C"), thread_id=tid) == done
        assert await graph.aget_state(tid) == before
        assert await history(graph, tid) == before_history
        err = await refused(graph.ainvoke(Command(resume="C"), thread_id=f"never-{mode}"))
        assert "nothing to resume" in str(err)
        assert await history(graph, f"never-{mode}") == []


# --- item 12 -------------------------------------------------------------------------------


def _thread_of_current_run() -> str | None:
    try:
        info = get_runtime().execution_info
    except ContextMissingError:
        return None
    return None if info is None else info.thread_id


def _thread(runtime: Runtime[Any]) -> str | None:
    return None if runtime.execution_info is None else runtime.execution_info.thread_id


async def scenario_fifty_threads_keep_their_interrupts_and_resumes(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Fifty runs of one graph started together, through sleeps and timers, see only their own."""
    saver = make_checkpointer()
    rng = random.Random(12)
    tids = [f"item12-{i}" for i in range(50)]
    delays = {t: [rng.uniform(0, 0.02) for _ in range(3)] for t in tids}
    mismatches: list[tuple[str, str, Any]] = []
    timer_kinds = ["call_later", "js_timer"] if IN_PYODIDE else ["call_later"]

    async def timer_sees(kind: str, delay: float) -> str | None:
        """Wait for a timer of ``kind``; return the thread its callback found in its context."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[str | None] = loop.create_future()

        def fired() -> None:
            seen = _thread_of_current_run()
            fut.set_result(seen)
            if seen is not None:
                get_stream_writer()({"thread": seen, "timer": kind})

        if kind == "js_timer":
            from pyctx_web.jsbridge import set_timeout

            set_timeout(fired, delay * 1000)
        else:
            loop.call_later(delay, fired)
        return await fut

    async def prepare(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        tid = state["topic"]
        await asyncio.sleep(delays[tid][0])
        for kind, delay in zip(timer_kinds, delays[tid][1:], strict=False):
            seen = await timer_sees(kind, delay)
            if seen != tid or _thread(runtime) != tid:
                mismatches.append((tid, kind, seen))
        return {"answers": [interrupt({"tid": tid, "round": 1})]}

    def confirm(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        if _thread(runtime) != state["topic"] or _thread_of_current_run() != state["topic"]:
            mismatches.append((state["topic"], "confirm", _thread(runtime)))
        return {"answer": interrupt({"tid": state["topic"], "round": 2})}

    graph = (
        StateGraph(State)
        .add_node("prepare", prepare)
        .add_node("confirm", confirm)
        .add_edge(START, "prepare")
        .add_edge("prepare", "confirm")
        .compile(checkpointer=saver)
    )

    async def start(tid: str) -> list[tuple[str, Any]]:
        return [
            chunk
            async for chunk in graph.astream(
                {"topic": tid, "answers": []}, thread_id=tid, stream_mode=["custom", "updates"]
            )
        ]

    streams = await asyncio.gather(*(start(t) for t in tids))
    for tid, chunks in zip(tids, streams, strict=True):
        custom = [c for m, c in chunks if m == "custom"]
        assert custom == [{"thread": tid, "timer": kind} for kind in timer_kinds], custom
        [last] = [c for m, c in chunks if m == "updates" and "__interrupt__" in c]
        assert [i.value for i in last["__interrupt__"]] == [{"tid": tid, "round": 1}]

    async def answer(tid: str, text: str) -> dict[str, Any]:
        await asyncio.sleep(rng.uniform(0, 0.01))
        return await graph.ainvoke(Command(resume=f"{text}-{tid}"), thread_id=tid)

    round2 = await asyncio.gather(*(answer(t, "one") for t in tids))
    for tid, out in zip(tids, round2, strict=True):
        assert [i.value for i in out["__interrupt__"]] == [{"tid": tid, "round": 2}]
        assert out["answers"] == [f"one-{tid}"]
    finals = await asyncio.gather(*(answer(t, "two") for t in tids))
    for tid, out in zip(tids, finals, strict=True):
        assert out == {
            "topic": tid,
            "log": [],
            "answers": [f"one-{tid}"],
            "answer": f"two-{tid}",
        }
        state = await graph.aget_state(tid)
        assert (state.next, state.interrupts) == ((), ())
    assert mismatches == []


# --- item 13 -------------------------------------------------------------------------------


def _durable_graph(saver: Checkpointer, counts: Counter[str], mode: str) -> CompiledStateGraph:
    """a -> ask -> c, counting each node run in ``counts``."""

    def ask(state: State) -> dict[str, Any]:
        return {"answer": interrupt({"question": "name?", "after": state["log"]})}

    return (
        StateGraph(State)
        .add_node("a", node(counting(counts, "a", lambda s: {"log": ["a"]}), mode))
        .add_node("ask", node(counting(counts, "ask", ask), mode))
        .add_node(
            "c", node(counting(counts, "c", lambda s: {"log": [f"hello {s['answer']}"]}), mode)
        )
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .add_edge("ask", "c")
        .compile(checkpointer=saver)
    )


@requires("persistent")
async def scenario_new_graph_and_checkpointer_show_pending_and_resume(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """New graph and checkpointer objects over the same storage show the question and resume it."""
    for mode in MODES:
        tid = f"item13-{mode}"
        counts: Counter[str] = Counter()
        started = await _durable_graph(make_checkpointer(), counts, mode).ainvoke(
            {"log": []}, thread_id=tid
        )
        [pending] = started["__interrupt__"]
        assert pending.value == {"question": "name?", "after": ["a"]}
        assert counts == Counter({"a": 1, "ask": 1})

        reopened = _durable_graph(make_checkpointer(), counts, mode)
        state = await reopened.aget_state(tid)
        assert state.interrupts == (pending,)
        assert state.next == ("ask",)
        assert state.values == {"log": ["a"], "answers": []}
        assert counts == Counter({"a": 1, "ask": 1})

        resumed = await _durable_graph(make_checkpointer(), counts, mode).ainvoke(
            Command(resume="Ada"), thread_id=tid
        )
        assert resumed == {"log": ["a", "hello Ada"], "answers": [], "answer": "Ada"}
        assert counts == Counter({"a": 1, "ask": 2, "c": 1})

        reference_counts: Counter[str] = Counter()
        reference = _durable_graph(InMemorySaver(), reference_counts, mode)
        await reference.ainvoke({"log": []}, thread_id="reference")
        assert await reference.ainvoke(Command(resume="Ada"), thread_id="reference") == resumed
        assert reference_counts == counts
        final = await _durable_graph(make_checkpointer(), counts, mode).aget_state(tid)
        assert (final.values, final.next, final.interrupts) == (resumed, (), ())
