"""Cancelling a run: from a tool (runtime.cancel()), with CompiledGraph.cancel, with a run handle.

What CPython and Pyodide share is in tests/scenarios/run_context_scenarios.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver as InMemoryCheckpointer
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver as SQLiteCheckpointer
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.errors import RunCancelledError
from pyctx_web.graph.middleware import AgentMiddleware
from pyctx_web.graph.runtime import RunHandle, RunLog, RunOutcome, Runtime
from pyctx_web.graph.state import CompiledStateGraph as CompiledGraph
from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import Command, StateSnapshot, interrupt


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str
    prepared: bool
    answer: Any


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


@tool(
    parameters={
        "type": "object",
        "properties": {"confirm": {"type": "boolean"}},
        "required": ["confirm"],
    }
)
def dangerous_action(args: dict[str, Any], runtime: Runtime[Any]) -> str:
    """Do something irreversible, or cancel the run when not confirmed."""
    if not args["confirm"]:
        runtime.cancel("not confirmed")
        return "cancelling"
    return "done"


def _dangerous_graph(rec: Recorder) -> CompiledGraph:
    app: CompiledGraph

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
            InMemoryCheckpointer(),
            context={"confirm": False},
            middleware=[rec],
            tools=[dangerous_action],
        )
    )
    return app


async def _cancelled(handle: RunHandle) -> RunCancelledError:
    with pytest.raises(RunCancelledError) as caught:
        await handle
    return caught.value


@pytest.mark.asyncio
async def test_tool_cancel_ends_the_run_cancelled_without_after_agent() -> None:
    """A cancel from a tool ends the run and its node cancelled; after_agent is not called."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    handle = app.start({"text": "go"}, thread_id="t1")
    error = await _cancelled(handle)
    assert str(error) == f"run {handle.run_id} of thread 't1' was cancelled: not confirmed"
    assert (error.thread_id, error.reason) == ("t1", "not confirmed")
    assert rec.reached == ["tool returned cancelling"]
    assert handle.outcome == RunOutcome("cancelled", reason="not confirmed")
    assert rec.steps() == [[("prepare", "done"), ("act", "cancelled")]]
    assert [(s.node, s.status) for s in handle.log.steps] == rec.steps()[0]
    assert handle.log.finished_at is not None
    assert rec.after == []


@pytest.mark.asyncio
async def test_confirmed_dangerous_action_runs_to_the_end() -> None:
    """With confirm true the tool does its work, the run succeeds, after_agent sees its values."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    handle = app.start({"text": "go"}, thread_id="t1", context={"confirm": True})
    result = await handle
    assert result["answer"] == "done"
    assert rec.reached == ["tool returned done", "after the next await"]
    assert handle.outcome == RunOutcome("success", values=result)
    assert rec.after == [result]


def _blocking_graph(rec: Recorder, started: asyncio.Event) -> CompiledGraph:
    """A graph whose second node signals ``started`` and then waits forever."""

    def prepare(state: State) -> dict[str, Any]:
        return {"prepared": True}

    async def wait(state: State) -> dict[str, Any]:
        get_stream_writer()("waiting")
        started.set()
        await asyncio.Event().wait()
        rec.reached.append("woke up")
        return {}

    return (
        StateGraph(State)
        .add_node("prepare", prepare)
        .add_node("wait", wait)
        .add_edge(START, "prepare")
        .add_edge("prepare", "wait")
        .compile(InMemoryCheckpointer(), middleware=[rec])
    )


@pytest.mark.asyncio
async def test_compiled_graph_cancel_stops_the_threads_run() -> None:
    """await app.cancel(thread_id) stops the thread's run like runtime.cancel(); checkpoint kept."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    running = asyncio.create_task(app.ainvoke({"text": "go"}, thread_id="t1"))
    await started.wait()
    before = await app.aget_state("t1")
    assert await app.cancel("other-thread") == 0
    assert await app.cancel("t1", reason="shutting down") == 1
    assert running.done()
    with pytest.raises(
        RunCancelledError, match=r"^run \S+ of thread 't1' was cancelled: shutting down$"
    ):
        await running
    assert await app.aget_state("t1") == before
    assert before.next == ("wait",)
    assert rec.reached == []
    assert rec.after == []
    assert rec.steps() == [[("prepare", "done"), ("wait", "cancelled")]]


@pytest.mark.asyncio
async def test_run_handle_cancel_stops_the_run() -> None:
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
    error = await _cancelled(handle)
    assert error.run_id == handle.run_id
    assert handle.done()
    assert await app.aget_state("t1") == before
    assert handle.outcome == RunOutcome("cancelled", reason="user left")


@pytest.mark.asyncio
async def test_run_cancelled_before_it_begins_still_reports_its_end() -> None:
    """A handle cancelled before its first step runs no node nor middleware, yet ends cancelled."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    handle = app.start({"text": "go"}, thread_id="t1")
    handle.cancel("too early")
    with pytest.raises(
        RunCancelledError, match=r"^run \S+ of thread 't1' was cancelled: too early$"
    ):
        await handle.result()
    assert not started.is_set()
    assert handle.outcome == RunOutcome("cancelled", reason="too early")
    assert handle.log.steps == ()
    assert handle.log.finished_at is not None
    assert rec.logs == []
    assert (await app.aget_state("t1")).values == {}


@pytest.mark.asyncio
async def test_run_handle_result_gives_the_values() -> None:
    """Awaiting handle.result() of a run that is not cancelled gives what ainvoke returns."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    handle = app.start({"text": "go"}, thread_id="t1", context={"confirm": True})
    assert await handle.result() == {"text": "go", "prepared": True, "answer": "done"}
    handle.cancel("too late")
    assert handle.outcome is not None
    assert handle.outcome.status == "success"


@pytest.mark.asyncio
async def test_caller_cancelling_ainvoke_ends_the_run_as_cancelled() -> None:
    """A cancelled caller of ainvoke ends the run: its node is cancelled, after_agent not called."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    caller = asyncio.create_task(app.ainvoke({"text": "go"}, thread_id="t1"))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert rec.steps() == [[("prepare", "done"), ("wait", "cancelled")]]
    assert rec.logs[0].finished_at is not None
    assert rec.after == []


@pytest.mark.asyncio
async def test_stream_consumer_that_stops_early_ends_the_run_as_cancelled() -> None:
    """A consumer that stops reading astream ends the run, its node cancelled."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
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


@pytest.fixture(params=["memory", "sqlite"])
def checkpointer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Checkpointer]:
    """An InMemoryCheckpointer, or an SQLiteCheckpointer on a fresh file."""
    if request.param == "memory":
        yield InMemoryCheckpointer()
        return
    saver = SQLiteCheckpointer(tmp_path / "checkpoints.db")
    yield saver
    saver.close()


@pytest.mark.asyncio
async def test_cancelled_resume_leaves_the_question_pending(checkpointer: Checkpointer) -> None:
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
        .compile(checkpointer, tools=[dangerous_action])
    )
    first = app.start({"text": "go"}, thread_id="t1")
    [question] = (await first)["__interrupt__"]
    before = await app.aget_state("t1")
    cancelled = app.start(Command(resume=False), thread_id="t1")
    await _cancelled(cancelled)
    after_cancel = await app.aget_state("t1")
    assert after_cancel.interrupts == (question,)
    assert after_cancel == before
    last = app.start(Command(resume=True), thread_id="t1")
    assert (await last)["answer"] == "done"
    assert first.outcome is not None
    assert first.outcome.interrupts == (question,)
    outcomes = [h.outcome.status if h.outcome else None for h in (first, cancelled, last)]
    assert outcomes == ["interrupt", "cancelled", "success"]


@pytest.mark.asyncio
async def test_node_cancelled_by_its_tool_commits_nothing_even_without_a_later_await() -> None:
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
        .compile(InMemoryCheckpointer(), tools=[dangerous_action])
    )
    handle = app.start({"text": "go"}, thread_id="t1")
    await _cancelled(handle)
    after = await app.aget_state("t1")
    assert after.values == {"text": "go"}
    assert after.next == ("act",)
    assert rec.reached == []
    assert handle.outcome == RunOutcome("cancelled", reason="not confirmed")
