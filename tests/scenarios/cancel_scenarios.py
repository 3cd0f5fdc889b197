"""Cancelling a run, as scenarios shared by CPython and Pyodide.

A run ends cancelled when a tool calls ``runtime.cancel()``, when
``CompiledStateGraph.cancel(thread_id)`` or ``RunHandle.cancel()`` is called, when
the caller of ``ainvoke`` is cancelled, or when a consumer stops reading
``astream``. Every case checks what is left: the node's status in the run's log,
``RunHandle.outcome``, that ``after_agent`` is not called, and the thread's last
checkpoint. Scenarios taking ``make_checkpointer`` run on every storage.

What only Pyodide has (JavaScript timers and fetches cancelled at the boundary)
is tested in tests/pyodide (test_jsbridge_api.py, test_openai_model_errors.py).

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import operator
import re
from typing import Annotated, Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.errors import GraphError, RunCancelledError
from pyctx_web.graph.middleware import AgentMiddleware
from pyctx_web.graph.runtime import RunLog, RunOutcome, Runtime
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, StateSnapshot, interrupt
from tests.scenarios.common import CheckpointerFactory, dangerous_action, raised, until


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str
    prepared: bool
    answer: Any


class LogState(TypedDict, total=False):
    """A log of what ran."""

    log: Annotated[list[str], operator.add]


class Recorder(AgentMiddleware[Any]):
    """Keeps each run's log (from before_agent) and notes each after_agent; records nodes."""

    def __init__(self) -> None:
        self.logs: list[RunLog] = []
        self.after: list[Any] = []
        self.reached: list[str] = []
        self.snapshots: list[StateSnapshot] = []

    def before_agent(self, state: Any, runtime: Runtime[Any]) -> None:
        self.logs.append(runtime.log)

    def after_agent(self, state: Any, runtime: Runtime[Any]) -> None:
        self.after.append(state)

    def steps(self) -> list[list[tuple[str, str]]]:
        """Each run's node executions with their status."""
        return [[(s.node, s.status) for s in log.steps] for log in self.logs]


def _dangerous_graph(rec: Recorder) -> CompiledStateGraph:
    """START -> prepare -> act, where act calls dangerous_action with the context's confirm."""
    app: CompiledStateGraph

    def prepare(state: State) -> dict[str, Any]:
        return {"prepared": True}

    async def act(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        assert runtime.execution_info is not None
        rec.snapshots.append(await app.aget_state(runtime.execution_info.thread_id))
        result = await runtime.call_tool(
            "dangerous_action", {"confirm": runtime.context["confirm"]}
        )
        rec.reached.append(f"tool returned {result}")
        await asyncio.sleep(0)
        rec.reached.append("after the next await")
        return {"answer": result}

    app = (
        StateGraph(State)
        .add_node("prepare", prepare)
        .add_node("act", act)
        .add_edge(START, "prepare")
        .add_edge("prepare", "act")
        .compile(
            InMemorySaver(),
            context={"confirm": False},
            middleware=[rec],
            tools=[dangerous_action],
        )
    )
    return app


def _blocking_graph(
    rec: Recorder,
    started: asyncio.Event,
    saver: Checkpointer | None = None,
    gate: asyncio.Event | None = None,
) -> CompiledStateGraph:
    """START -> prepare -> wait: wait streams "waiting", sets ``started``, waits for ``gate``.

    Without ``gate``, wait never ends.
    """

    def prepare(state: State) -> dict[str, Any]:
        return {"prepared": True}

    async def wait(state: State) -> dict[str, Any]:
        get_stream_writer()("waiting")
        started.set()
        await (gate or asyncio.Event()).wait()
        rec.reached.append("woke up")
        return {}

    return (
        StateGraph(State)
        .add_node("prepare", prepare)
        .add_node("wait", wait)
        .add_edge(START, "prepare")
        .add_edge("prepare", "wait")
        .compile(saver or InMemorySaver(), middleware=[rec])
    )


def _message_is(error: BaseException, pattern: str) -> None:
    """The whole message of ``error`` matches ``pattern``."""
    assert re.fullmatch(pattern, str(error)), str(error)


async def scenario_tool_cancel_ends_the_run_and_keeps_the_last_checkpoint() -> None:
    """A tool's runtime.cancel() ends run and node cancelled, no after_agent, checkpoint kept."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    handle = app.start({"text": "go"}, thread_id="t1")
    error = await raised(RunCancelledError, handle)
    assert str(error) == f"run {handle.run_id} of thread 't1' was cancelled: not confirmed"
    assert (error.thread_id, error.reason) == ("t1", "not confirmed")
    assert rec.reached == ["tool returned cancelling"]
    assert handle.outcome == RunOutcome("cancelled", reason="not confirmed")
    assert rec.steps() == [[("prepare", "done"), ("act", "cancelled")]]
    assert [(s.node, s.status) for s in handle.log.steps] == rec.steps()[0]
    assert handle.log.finished_at is not None
    assert rec.after == []
    snapshot = await app.aget_state("t1")
    assert (snapshot.values, snapshot.next) == ({"text": "go", "prepared": True}, ("act",))
    assert [snapshot] == rec.snapshots
    done = await app.ainvoke(None, thread_id="t1", context={"confirm": True})
    assert done == {"text": "go", "prepared": True, "answer": "done"}


async def scenario_confirmed_dangerous_action_runs_to_the_end() -> None:
    """With confirm true the tool does its work, the run succeeds, after_agent sees its values."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    handle = app.start({"text": "go"}, thread_id="t1", context={"confirm": True})
    result = await handle
    assert result["answer"] == "done"
    assert rec.reached == ["tool returned done", "after the next await"]
    assert handle.outcome == RunOutcome("success", values=result)
    assert rec.after == [result]


async def scenario_compiled_graph_cancel_stops_the_threads_run() -> None:
    """await app.cancel(thread_id) stops the thread's run like runtime.cancel(); checkpoint kept."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    running = asyncio.ensure_future(app.ainvoke({"text": "go"}, thread_id="t1"))
    await started.wait()
    before = await app.aget_state("t1")
    assert await app.cancel("other-thread") == 0
    assert await app.cancel("t1", reason="shutting down") == 1
    assert running.done()
    error = await raised(RunCancelledError, running)
    _message_is(error, r"run \S+ of thread 't1' was cancelled: shutting down")
    assert await app.aget_state("t1") == before
    assert before.next == ("wait",)
    assert rec.reached == []
    assert rec.after == []
    assert rec.steps() == [[("prepare", "done"), ("wait", "cancelled")]]


async def scenario_run_handle_cancel_stops_the_run() -> None:
    """handle.cancel() of app.start(...) stops the run; awaiting the handle raises the error."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    handle = app.start({"text": "go"}, thread_id="t1")
    assert handle.thread_id == "t1"
    await started.wait()
    assert not handle.done()
    assert handle.outcome is None
    before = await app.aget_state("t1")
    handle.cancel("user left")
    error = await raised(RunCancelledError, handle)
    assert error.run_id == handle.run_id
    assert handle.done()
    assert await app.aget_state("t1") == before
    assert handle.outcome == RunOutcome("cancelled", reason="user left")


async def scenario_run_cancelled_before_it_begins_still_reports_its_end() -> None:
    """A handle cancelled before its first step runs no node nor middleware, yet ends cancelled."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    handle = app.start({"text": "go"}, thread_id="t1")
    handle.cancel("too early")
    error = await raised(RunCancelledError, handle.result())
    _message_is(error, r"run \S+ of thread 't1' was cancelled: too early")
    assert not started.is_set()
    assert handle.outcome == RunOutcome("cancelled", reason="too early")
    assert handle.log.steps == ()
    assert handle.log.finished_at is not None
    assert rec.logs == []
    assert (await app.aget_state("t1")).values == {}


async def scenario_cancel_right_after_start_stops_the_run_before_its_first_step(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """graph.cancel(thread) right after start() ends the run cancelled; the thread goes on."""
    rec, started, gate = Recorder(), asyncio.Event(), asyncio.Event()
    gate.set()
    graph = _blocking_graph(rec, started, make_checkpointer(), gate)
    handle = graph.start({"text": "x"}, thread_id="t")
    assert await graph.cancel("t", "changed my mind") == 1
    cancelled = await raised(RunCancelledError, handle)
    assert cancelled.reason == "changed my mind"
    assert not started.is_set()
    assert (await graph.ainvoke({"text": "y"}, thread_id="t"))["text"] == "y"
    assert rec.reached == ["woke up"]


async def scenario_run_handle_result_gives_the_values() -> None:
    """Awaiting handle.result() of a run that is not cancelled gives what ainvoke returns."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    handle = app.start({"text": "go"}, thread_id="t1", context={"confirm": True})
    assert await handle.result() == {"text": "go", "prepared": True, "answer": "done"}
    handle.cancel("too late")
    assert handle.outcome is not None
    assert handle.outcome.status == "success"


async def scenario_caller_cancelling_ainvoke_ends_the_run_as_cancelled() -> None:
    """A cancelled caller of ainvoke ends the run: its node is cancelled, after_agent not called."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    caller = asyncio.ensure_future(app.ainvoke({"text": "go"}, thread_id="t1"))
    await started.wait()
    caller.cancel()
    await raised(asyncio.CancelledError, caller)
    assert rec.steps() == [[("prepare", "done"), ("wait", "cancelled")]]
    assert rec.logs[0].finished_at is not None
    assert rec.after == []


async def scenario_stream_consumer_that_stops_early_ends_the_run_as_cancelled(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A consumer that stops reading astream ends the run, its node cancelled."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started, make_checkpointer())
    async with contextlib.aclosing(
        app.astream({"text": "go"}, thread_id="t1", stream_mode="custom")
    ) as stream:
        async for chunk in stream:
            assert chunk == "waiting"
            break
    assert rec.steps() == [[("prepare", "done"), ("wait", "cancelled")]]
    assert rec.logs[0].finished_at is not None
    assert rec.reached == []
    assert rec.after == []


async def scenario_cancelled_resume_leaves_the_question_pending(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A resumed run that cancels leaves its question waiting, ready for a new answer."""

    async def ask(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        confirm = interrupt("really?")
        return {"answer": await runtime.call_tool("dangerous_action", {"confirm": confirm})}

    async def after(state: State) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {}

    app = (
        StateGraph(State)
        .add_node("ask", ask)
        .add_node("after", after)
        .add_edge(START, "ask")
        .add_edge("ask", "after")
        .compile(make_checkpointer(), tools=[dangerous_action])
    )
    first = app.start({"text": "go"}, thread_id="t1")
    [question] = (await first)["__interrupt__"]
    before = await app.aget_state("t1")
    cancelled = app.start(Command(resume=False), thread_id="t1")
    await raised(RunCancelledError, cancelled)
    after_cancel = await app.aget_state("t1")
    assert after_cancel.interrupts == (question,)
    assert after_cancel == before
    last = app.start(Command(resume=True), thread_id="t1")
    assert (await last)["answer"] == "done"
    assert first.outcome is not None
    assert first.outcome.interrupts == (question,)
    outcomes = [h.outcome.status if h.outcome else None for h in (first, cancelled, last)]
    assert outcomes == ["interrupt", "cancelled", "success"]


async def scenario_a_resume_cancelled_before_its_node_finishes_leaves_the_question_waiting(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Cancelled after the answer, before the node's result, the question waits for an answer."""
    gate, answered = asyncio.Event(), []

    async def ask(state: LogState) -> dict[str, list[str]]:
        answer = interrupt("which one?")
        answered.append(answer)
        await gate.wait()
        return {"log": [answer]}

    def build() -> CompiledStateGraph:
        builder = StateGraph(LogState).add_node(ask).add_edge(START, "ask")
        return builder.compile(checkpointer=make_checkpointer())

    graph = build()
    config = {"configurable": {"thread_id": "t"}}
    await graph.ainvoke({"log": []}, config)
    handle = graph.start(Command(resume="first"), config)
    await until(lambda: answered == ["first"])
    handle.cancel("not that one")
    await raised(RunCancelledError, handle)
    reread = build()  # another object over the same storage, as after a reload
    state = await reread.aget_state(config)
    assert [q.value for q in state.interrupts] == ["which one?"]
    gate.set()
    assert (await reread.ainvoke(Command(resume="second"), config))["log"] == ["second"]


async def scenario_node_cancelled_by_its_tool_commits_nothing_even_without_a_later_await() -> None:
    """A node returning right after its tool cancels saves no result, and no later node runs."""
    rec = Recorder()

    async def act(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        return {"answer": await runtime.call_tool("dangerous_action", {"confirm": False})}

    def later(state: State) -> dict[str, Any]:
        rec.reached.append("later")
        return {}

    app = (
        StateGraph(State)
        .add_node("act", act)
        .add_node("later", later)
        .add_edge(START, "act")
        .add_edge("act", "later")
        .compile(InMemorySaver(), tools=[dangerous_action])
    )
    handle = app.start({"text": "go"}, thread_id="t1")
    await raised(RunCancelledError, handle)
    after = await app.aget_state("t1")
    assert after.values == {"text": "go"}
    assert after.next == ("act",)
    assert rec.reached == []
    assert handle.outcome == RunOutcome("cancelled", reason="not confirmed")


async def scenario_a_cancelled_future_inside_a_node_is_that_nodes_error(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A node awaiting a future someone else cancels fails with an error: no cancelled run."""
    loop = asyncio.get_running_loop()

    async def waits(state: LogState) -> dict[str, list[str]]:
        future = loop.create_future()
        loop.call_soon(future.cancel)
        await future
        return {"log": ["unreachable"]}

    builder = StateGraph(LogState).add_node(waits).add_edge(START, "waits")
    graph = builder.compile(checkpointer=make_checkpointer())
    config = {"configurable": {"thread_id": "t"}}
    error = await raised(GraphError, graph.ainvoke({"log": ["in"]}, config))
    assert not isinstance(error, RunCancelledError)
    assert str(error) == "node 'waits' failed: something it awaited was cancelled"
    assert isinstance(error.__cause__, asyncio.CancelledError)
    state = await graph.aget_state(config)
    assert state.next == ("waits",)
    assert state.values == {"log": ["in"]}
