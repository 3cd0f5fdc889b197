"""Hooks, user_context and per-operation resources; run identity, input and read-only state."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, ClassVar, TypedDict

import pytest

from pyctx_web.errors import ContextMissingError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver as InMemoryCheckpointer
from pyctx_web.graph.errors import RunCancelledError
from pyctx_web.graph.runtime import (
    Hooks,
    RunContext,
    RunOutcome,
    get_run_context,
    require_run_context,
)
from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import Command, interrupt


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str
    seen: Any
    answer: Any


# --- hooks, user_context and per-operation resources ----------------------------------------------


@tool
def read_request_id(args: dict[str, Any], ctx: RunContext[Any]) -> str:
    """Return the request id the run's on_start set."""
    return str(ctx.user_context["request_id"])


@pytest.mark.asyncio
async def test_request_id_from_on_start_is_read_by_a_tool_and_by_on_end() -> None:
    """A request id that on_start puts in user_context is read by a tool and by on_end."""
    ended: list[tuple[str, str]] = []

    def on_start(ctx: RunContext[Any]) -> None:
        ctx.user_context["request_id"] = f"req-{ctx.input['text']}"

    async def on_end(ctx: RunContext[Any], outcome: RunOutcome) -> None:
        await asyncio.sleep(0)
        ended.append((ctx.user_context["request_id"], outcome.status))

    async def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        return {"answer": await ctx.call_tool("read_request_id", {})}

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(hooks=Hooks(on_start=on_start, on_end=on_end), tools=[read_request_id])
    )
    results = await asyncio.gather(*(app.ainvoke({"text": str(i)}) for i in range(3)))
    assert [r["answer"] for r in results] == ["req-0", "req-1", "req-2"]
    assert sorted(ended) == [("req-0", "success"), ("req-1", "success"), ("req-2", "success")]


class Resource:
    """Something opened per operation that must be closed."""

    opened: ClassVar[list[Resource]] = []

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.closed_with: str | None = None
        Resource.opened.append(self)


def _resource_graph(closed: list[tuple[str, str]]) -> Any:
    Resource.opened = []

    def on_start(ctx: RunContext[Any]) -> None:
        ctx.user_context["resource"] = Resource(ctx.data["owner"])

    def on_end(ctx: RunContext[Any], outcome: RunOutcome) -> None:
        resource: Resource = ctx.user_context["resource"]
        resource.closed_with = outcome.status
        closed.append((resource.owner, outcome.status))

    @tool
    async def use_resource(args: dict[str, Any], ctx: RunContext[Any]) -> str:
        """Use the operation's resource."""
        resource: Resource = ctx.user_context["resource"]
        await asyncio.sleep(0)
        assert resource.closed_with is None
        return resource.owner

    async def work(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        owner = await ctx.call_tool("use_resource", {})
        assert owner == ctx.data["owner"]
        mode = ctx.data["mode"]
        if mode == "error":
            raise RuntimeError("boom")
        if mode == "interrupt":
            interrupt("more?")
        if mode == "cancel":
            ctx.cancel("stop")
            await asyncio.sleep(0)
        return {"answer": owner}

    return (
        StateGraph(State)
        .add_node("work", work)
        .add_edge(START, "work")
        .compile(
            InMemoryCheckpointer(),
            data={"owner": "", "mode": "success"},
            hooks=Hooks(on_start=on_start, on_end=on_end),
            tools=[use_resource],
        )
    )


@pytest.mark.asyncio
async def test_resource_is_closed_on_success_error_interrupt_and_cancel() -> None:
    """on_end closes the operation's resource whichever way the run ends."""
    closed: list[tuple[str, str]] = []
    app = _resource_graph(closed)
    await app.ainvoke({}, thread_id="a", data={"owner": "a", "mode": "success"})
    with pytest.raises(RuntimeError, match="boom"):
        await app.ainvoke({}, thread_id="b", data={"owner": "b", "mode": "error"})
    paused = await app.ainvoke({}, thread_id="c", data={"owner": "c", "mode": "interrupt"})
    assert "__interrupt__" in paused
    with pytest.raises(RunCancelledError):
        await app.ainvoke({}, thread_id="d", data={"owner": "d", "mode": "cancel"})
    assert closed == [("a", "success"), ("b", "error"), ("c", "interrupt"), ("d", "cancelled")]
    assert [r.closed_with for r in Resource.opened] == [
        "success",
        "error",
        "interrupt",
        "cancelled",
    ]


@pytest.mark.asyncio
async def test_twenty_concurrent_operations_each_get_their_own_resource() -> None:
    """20 concurrent runs each open, use and close a resource of their own."""
    closed: list[tuple[str, str]] = []
    app = _resource_graph(closed)
    modes = ["success", "error", "interrupt", "cancel"]
    results = await asyncio.gather(
        *(
            app.ainvoke({}, thread_id=f"t{i}", data={"owner": f"o{i}", "mode": modes[i % 4]})
            for i in range(20)
        ),
        return_exceptions=True,
    )
    expected_status = {"success": "success", "error": "error", "interrupt": "interrupt"}
    expected_status["cancel"] = "cancelled"
    assert sorted(closed) == sorted((f"o{i}", expected_status[modes[i % 4]]) for i in range(20))
    assert len(Resource.opened) == 20
    assert len({id(r) for r in Resource.opened}) == 20
    assert all(r.closed_with is not None for r in Resource.opened)
    assert [r["answer"] for i, r in enumerate(results) if i % 4 == 0] == [
        f"o{i}" for i in range(0, 20, 4)
    ]


# --- identity, input, read-only state -------------------------------------------------------------


def test_no_run_context_outside_a_run() -> None:
    """Outside a run get_run_context() is None; require_run_context() raises ContextMissingError."""
    assert get_run_context() is None
    with pytest.raises(ContextMissingError, match="outside a graph run"):
        require_run_context()


@pytest.mark.asyncio
async def test_run_context_is_found_in_helpers_tasks_and_listeners_of_the_run() -> None:
    """get_run_context() gives the node's ctx in a helper, a task the node starts and a listener."""
    found: dict[str, Any] = {}

    def helper() -> RunContext[Any]:
        return require_run_context()

    async def in_task() -> RunContext[Any]:
        await asyncio.sleep(0)
        return helper()

    async def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        found["ctx"] = ctx
        found["helper"] = helper()
        found["task"] = await asyncio.create_task(in_task())
        ctx.emit("ping")
        return {}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    app.on("ping", lambda e: found.setdefault("listener", get_run_context()))
    await app.ainvoke({})
    assert found["helper"] is found["ctx"]
    assert found["task"] is found["ctx"]
    assert found["listener"] is found["ctx"]
    assert get_run_context() is None


@pytest.mark.asyncio
async def test_run_state_cannot_be_changed() -> None:
    """Assigning or deleting a RunState attribute raises TypeError; its records are tuples."""
    caught: list[str] = []

    def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        for attempt in (
            lambda: setattr(ctx.state, "steps", ()),
            lambda: setattr(ctx.state, "anything", 1),
            lambda: delattr(ctx.state, "usage"),
        ):
            with pytest.raises(TypeError, match="read-only"):
                attempt()
            caught.append("TypeError")
        assert isinstance(ctx.state.steps, tuple)
        assert ctx.state.finished_at is None
        assert ctx.state.duration_ms is None
        return {}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    await app.ainvoke({})
    assert caught == ["TypeError"] * 3


@pytest.mark.asyncio
async def test_input_is_the_resume_value_on_resume() -> None:
    """ctx.input is the input of a new run and the resume value of a resumed one."""
    inputs: list[Any] = []

    def ask(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        inputs.append(ctx.input)
        return {"answer": interrupt("name?")}

    app = (
        StateGraph(State)
        .add_node("ask", ask)
        .add_edge(START, "ask")
        .compile(InMemoryCheckpointer(), hooks=Hooks(on_start=lambda ctx: inputs.append(ctx.input)))
    )
    await app.ainvoke({"text": "hi"}, thread_id="t")
    result = await app.ainvoke(Command(resume="Ada"), thread_id="t")
    assert result["answer"] == "Ada"
    assert inputs == [{"text": "hi"}, {"text": "hi"}, "Ada", "Ada"]


@pytest.mark.asyncio
async def test_thread_id_is_a_new_uuid_without_checkpointer_and_thread() -> None:
    """Without a checkpointer or thread_id each run gets a new uuid thread; a given one is kept."""
    contexts: list[RunContext[Any]] = []

    def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        contexts.append(ctx)
        return {}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile(name="g")
    await app.ainvoke({})
    await app.ainvoke({})
    await app.ainvoke({}, thread_id="mine")
    first, second, third = contexts
    assert uuid.UUID(first.thread_id) != uuid.UUID(second.thread_id)
    assert first.session_id == first.thread_id
    assert third.thread_id == "mine"
    assert len({uuid.UUID(c.run_id) for c in contexts}) == 3
    assert {c.graph_id for c in contexts} == {"g"}
