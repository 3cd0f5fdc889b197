"""Cancelling a run: from a tool with ctx.cancel(), with CompiledGraph.cancel, with a run handle.

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
from pyctx_web.graph.events import RunEvent
from pyctx_web.graph.middleware import Middleware, MiddlewareContext
from pyctx_web.graph.runtime import Hooks, RunContext, RunOutcome
from pyctx_web.graph.state import CompiledStateGraph as CompiledGraph
from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import Command, StateSnapshot, interrupt


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str
    prepared: bool
    answer: Any


class Recorder:
    """What the hooks, middleware and listeners of a graph saw."""

    def __init__(self) -> None:
        self.outcomes: list[RunOutcome] = []
        self.step_status: list[list[tuple[str, str]]] = []
        self.after_errors: list[BaseException | None] = []
        self.events: list[RunEvent] = []
        self.reached: list[str] = []
        self.snapshots: list[StateSnapshot] = []

    def hooks(self) -> Hooks[Any]:
        def on_end(ctx: RunContext[Any], outcome: RunOutcome) -> None:
            self.outcomes.append(outcome)
            self.step_status.append([(s.node, s.status) for s in ctx.state.steps])

        return Hooks(on_end=on_end)

    def middleware(self) -> Middleware[Any]:
        async def after(mctx: MiddlewareContext[Any], next_: Any) -> None:
            self.after_errors.append(mctx.error)
            await next_()

        return Middleware("after", "run:after", after)

    def watch(self, app: CompiledGraph) -> CompiledGraph:
        app.on("run:end", self.events.append)
        return app


@tool(
    parameters={
        "type": "object",
        "properties": {"confirm": {"type": "boolean"}},
        "required": ["confirm"],
    }
)
def dangerous_action(args: dict[str, Any], ctx: RunContext[Any]) -> str:
    """Do something irreversible, or cancel the run when not confirmed."""
    if not args["confirm"]:
        ctx.cancel("not confirmed")
        return "cancelling"
    return "done"


def _dangerous_graph(rec: Recorder) -> CompiledGraph:
    app: CompiledGraph

    def prepare(state: State) -> dict[str, Any]:
        return {"prepared": True}

    async def act(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        rec.snapshots.append(await app.aget_state(ctx.thread_id))
        result = await ctx.call_tool("dangerous_action", {"confirm": ctx.data["confirm"]})
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
            data={"confirm": False},
            hooks=rec.hooks(),
            middleware=[rec.middleware()],
            tools=[dangerous_action],
        )
    )
    return rec.watch(app)


@pytest.mark.asyncio
async def test_tool_cancel_is_reported_to_hooks_middleware_and_listeners() -> None:
    """A cancel from a tool reaches on_end, run:after middleware and run:end with step statuses."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    with pytest.raises(RunCancelledError, match="not confirmed") as caught:
        await app.ainvoke({"text": "go"}, thread_id="t1")
    assert caught.value.thread_id == "t1"
    assert rec.reached == ["tool returned cancelling"]
    assert [e.payload["status"] for e in rec.events] == ["cancelled"]
    assert rec.outcomes == [RunOutcome("cancelled", reason="not confirmed")]
    assert rec.step_status == [[("prepare", "done"), ("act", "cancelled")]]
    assert isinstance(rec.after_errors[0], RunCancelledError)


@pytest.mark.asyncio
async def test_confirmed_dangerous_action_runs_to_the_end() -> None:
    """With confirm true the tool does its work and the run succeeds."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    result = await app.ainvoke({"text": "go"}, thread_id="t1", data={"confirm": True})
    assert result["answer"] == "done"
    assert rec.reached == ["tool returned done", "after the next await"]
    assert [o.status for o in rec.outcomes] == ["success"]


def _blocking_graph(rec: Recorder, started: asyncio.Event) -> CompiledGraph:
    """A graph whose second node signals ``started`` and then waits forever."""

    def prepare(state: State) -> dict[str, Any]:
        return {"prepared": True}

    async def wait(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        get_stream_writer()("waiting")
        started.set()
        await asyncio.Event().wait()
        rec.reached.append("woke up")
        return {}

    app = (
        StateGraph(State)
        .add_node("prepare", prepare)
        .add_node("wait", wait)
        .add_edge(START, "prepare")
        .add_edge("prepare", "wait")
        .compile(InMemoryCheckpointer(), hooks=rec.hooks(), middleware=[rec.middleware()])
    )
    return rec.watch(app)


@pytest.mark.asyncio
async def test_compiled_graph_cancel_stops_the_threads_run() -> None:
    """await app.cancel(thread_id) stops the running run like ctx.cancel(), checkpoint intact."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    running = asyncio.create_task(app.ainvoke({"text": "go"}, thread_id="t1"))
    await started.wait()
    before = await app.aget_state("t1")
    assert await app.cancel("other-thread") == 0
    assert await app.cancel("t1", reason="shutting down") == 1
    assert running.done()
    with pytest.raises(RunCancelledError, match="shutting down"):
        await running
    assert await app.aget_state("t1") == before
    assert before.next == ("wait",)
    assert rec.reached == []
    assert rec.outcomes == [RunOutcome("cancelled", reason="shutting down")]
    assert [e.payload["status"] for e in rec.events] == ["cancelled"]
    assert rec.step_status == [[("prepare", "done"), ("wait", "cancelled")]]


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
    before = await app.aget_state("t1")
    handle.cancel("user left")
    with pytest.raises(RunCancelledError) as caught:
        await handle
    assert caught.value.run_id == handle.run_id
    assert handle.done()
    assert await app.aget_state("t1") == before
    assert rec.outcomes == [RunOutcome("cancelled", reason="user left")]


@pytest.mark.asyncio
async def test_run_cancelled_before_it_begins_still_runs_on_end() -> None:
    """A handle cancelled before its first step runs no node, but on_end hears the cancel."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    handle = app.start({"text": "go"}, thread_id="t1")
    handle.cancel("too early")
    with pytest.raises(RunCancelledError, match="too early"):
        await handle.result()
    assert not started.is_set()
    assert rec.outcomes == [RunOutcome("cancelled", reason="too early")]
    assert rec.step_status == [[]]
    assert (await app.aget_state("t1")).values == {}


@pytest.mark.asyncio
async def test_run_handle_result_gives_the_values() -> None:
    """Awaiting handle.result() of a run that is not cancelled gives what ainvoke returns."""
    rec = Recorder()
    app = _dangerous_graph(rec)
    handle = app.start({"text": "go"}, thread_id="t1", data={"confirm": True})
    assert await handle.result() == {"text": "go", "prepared": True, "answer": "done"}
    handle.cancel("too late")
    assert rec.outcomes[0].status == "success"


@pytest.mark.asyncio
async def test_caller_cancelling_ainvoke_ends_the_run_as_cancelled() -> None:
    """When the task awaiting ainvoke is cancelled, on_end and run:end report a cancelled run."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    caller = asyncio.create_task(app.ainvoke({"text": "go"}, thread_id="t1"))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert [o.status for o in rec.outcomes] == ["cancelled"]
    assert [e.payload["status"] for e in rec.events] == ["cancelled"]
    assert rec.step_status == [[("prepare", "done"), ("wait", "cancelled")]]


@pytest.mark.asyncio
async def test_stream_consumer_that_stops_early_ends_the_run_as_cancelled() -> None:
    """A consumer that stops reading astream ends the run, and on_end reports it cancelled."""
    rec = Recorder()
    started = asyncio.Event()
    app = _blocking_graph(rec, started)
    async with contextlib.aclosing(
        app.astream({"text": "go"}, thread_id="t1", stream_mode="custom")
    ) as stream:
        async for chunk in stream:
            assert chunk == "waiting"
            break
    assert [o.status for o in rec.outcomes] == ["cancelled"]
    assert rec.reached == []


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
    rec = Recorder()

    async def ask(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        confirm = interrupt("really?")
        return {"answer": await ctx.call_tool("dangerous_action", {"confirm": confirm})}

    async def after(state: State) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {}

    app = (
        StateGraph(State)
        .add_node("ask", ask)
        .add_node("after", after)
        .add_edge(START, "ask")
        .add_edge("ask", "after")
        .compile(checkpointer, hooks=rec.hooks(), tools=[dangerous_action])
    )
    paused = await app.ainvoke({"text": "go"}, thread_id="t1")
    [question] = paused["__interrupt__"]
    before = await app.aget_state("t1")
    with pytest.raises(RunCancelledError):
        await app.ainvoke(Command(resume=False), thread_id="t1")
    after_cancel = await app.aget_state("t1")
    assert after_cancel.interrupts == (question,)
    assert after_cancel == before
    result = await app.ainvoke(Command(resume=True), thread_id="t1")
    assert result["answer"] == "done"
    assert [o.status for o in rec.outcomes] == ["interrupt", "cancelled", "success"]


@pytest.mark.asyncio
async def test_node_cancelled_by_its_tool_commits_nothing_even_without_a_later_await() -> None:
    """A node returning right after its tool cancels saves no result, and no later node runs."""
    rec = Recorder()

    async def act(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        return {"answer": await ctx.call_tool("dangerous_action", {"confirm": False})}

    def later(state: State) -> dict[str, Any]:
        rec.reached.append("later")
        return {}

    app = (
        StateGraph(State)
        .add_node("act", act)
        .add_node("later", later)
        .add_edge(START, "act")
        .add_edge("act", "later")
        .compile(InMemoryCheckpointer(), hooks=rec.hooks(), tools=[dangerous_action])
    )
    with pytest.raises(RunCancelledError):
        await app.ainvoke({"text": "go"}, thread_id="t1")
    after = await app.aget_state("t1")
    assert after.values == {"text": "go"}
    assert after.next == ("act",)
    assert rec.reached == []
    assert rec.outcomes == [RunOutcome("cancelled", reason="not confirmed")]
