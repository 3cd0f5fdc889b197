"""Per-run values from before_agent, per-operation resources; run identity, input, read-only log."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, ClassVar, TypedDict

import pytest

from pyctx_web.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    ContextMissingError,
    ImmutableError,
)
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.errors import RunCancelledError
from pyctx_web.graph.middleware import AgentMiddleware
from pyctx_web.graph.runtime import Runtime, get_runtime
from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import Command, interrupt


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str
    seen: Any
    answer: Any


# --- per-run values and per-operation resources ---------------------------------------------------


@tool
def read_request_id(args: dict[str, Any], runtime: Runtime[Any]) -> str:
    """Return the request id the run's before_agent set."""
    return str(runtime.context["request_id"])


@pytest.mark.asyncio
async def test_request_id_from_before_agent_is_read_by_a_tool_and_by_after_agent() -> None:
    """A request id that before_agent puts in the run's context reaches a tool and after_agent."""
    ended: list[str] = []

    class RequestId(AgentMiddleware[Any]):
        def before_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            runtime.context["request_id"] = f"req-{state['text']}"

        async def aafter_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            await asyncio.sleep(0)
            ended.append(runtime.context["request_id"])

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        return {"answer": await runtime.call_tool("read_request_id", {})}

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(context={}, middleware=[RequestId()], tools=[read_request_id])
    )
    results = await asyncio.gather(*(app.ainvoke({"text": str(i)}) for i in range(3)))
    assert [r["answer"] for r in results] == ["req-0", "req-1", "req-2"]
    assert sorted(ended) == ["req-0", "req-1", "req-2"]


class Resource:
    """Something opened per operation that must be closed."""

    opened: ClassVar[list[Resource]] = []

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.closed_with: str | None = None
        Resource.opened.append(self)


def _resource_graph() -> Any:
    Resource.opened = []

    @tool
    async def use_resource(args: dict[str, Any], runtime: Runtime[Any]) -> str:
        """Use the operation's resource."""
        resource: Resource = runtime.context["resource"]
        await asyncio.sleep(0)
        assert resource.closed_with is None
        return resource.owner

    async def work(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        owner = await runtime.call_tool("use_resource", {})
        mode = runtime.context["mode"]
        if mode == "error":
            raise RuntimeError("boom")
        if mode == "interrupt":
            interrupt("more?")
        if mode == "cancel":
            runtime.cancel("stop")
            await asyncio.sleep(0)
        return {"answer": owner}

    return (
        StateGraph(State)
        .add_node("work", work)
        .add_edge(START, "work")
        .compile(InMemorySaver(), tools=[use_resource])
    )


async def _operation(app: Any, thread_id: str, owner: str, mode: str) -> tuple[str, str]:
    """Open a resource, run the graph with it, close it with how the run ended."""
    resource = Resource(owner)
    handle = app.start({}, thread_id=thread_id, context={"resource": resource, "mode": mode})
    ended: object
    (ended,) = await asyncio.gather(handle, return_exceptions=True)
    assert handle.outcome is not None
    resource.closed_with = handle.outcome.status
    if isinstance(ended, BaseException):
        assert isinstance(ended, (RuntimeError, RunCancelledError))
    return owner, resource.closed_with


@pytest.mark.asyncio
async def test_resource_is_closed_on_success_error_interrupt_and_cancel() -> None:
    """RunHandle.outcome tells how each run ended, so its resource is closed whichever way."""
    app = _resource_graph()
    closed = [
        await _operation(app, "a", "a", "success"),
        await _operation(app, "b", "b", "error"),
        await _operation(app, "c", "c", "interrupt"),
        await _operation(app, "d", "d", "cancel"),
    ]
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
    app = _resource_graph()
    modes = ["success", "error", "interrupt", "cancel"]
    closed = await asyncio.gather(
        *(_operation(app, f"t{i}", f"o{i}", modes[i % 4]) for i in range(20))
    )
    expected_status = {"success": "success", "error": "error", "interrupt": "interrupt"}
    expected_status["cancel"] = "cancelled"
    assert closed == [(f"o{i}", expected_status[modes[i % 4]]) for i in range(20)]
    assert len(Resource.opened) == 20
    assert len({id(r) for r in Resource.opened}) == 20


# --- identity, input, read-only log ---------------------------------------------------------------


def test_no_runtime_outside_a_run() -> None:
    """Outside a run get_runtime() raises ContextMissingError."""
    with pytest.raises(
        ContextMissingError, match=r"^get_runtime\(\) was called outside a graph run$"
    ):
        get_runtime()


@pytest.mark.asyncio
async def test_runtime_is_found_in_helpers_and_tasks_of_the_run() -> None:
    """get_runtime() gives the node's run, task and context in a helper and a task it starts."""
    found: dict[str, Runtime[Any]] = {}

    async def in_task() -> Runtime[Any]:
        await asyncio.sleep(0)
        return get_runtime()

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        found["node"] = runtime
        found["helper"] = get_runtime()
        found["task"] = await asyncio.create_task(in_task())
        return {}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    await app.ainvoke({}, context={"who": "me"})
    node_runtime = found["node"]
    assert node_runtime.execution_info is not None
    for where in ("helper", "task"):
        assert found[where].execution_info == node_runtime.execution_info
        assert found[where].context is node_runtime.context
    with pytest.raises(ContextMissingError):
        get_runtime()


@pytest.mark.asyncio
async def test_run_log_cannot_be_changed() -> None:
    """Assigning or deleting a RunLog attribute raises ImmutableError; its records are tuples."""
    caught: list[str] = []
    message = r"^RunLog is read-only; the runtime records steps, messages and tool calls$"

    def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        log = runtime.log
        attempts: tuple[Callable[[], None], ...] = (
            lambda: setattr(log, "steps", ()),
            lambda: setattr(log, "anything", 1),
            lambda: delattr(log, "usage"),
        )
        for attempt in attempts:
            with pytest.raises(ImmutableError, match=message):
                attempt()
            caught.append("ImmutableError")
        assert isinstance(log.steps, tuple)
        assert log.finished_at is None
        assert log.duration_ms is None
        return {}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    await app.ainvoke({})
    assert caught == ["ImmutableError"] * 3


@pytest.mark.asyncio
async def test_before_agent_gets_the_input_or_the_resuming_command() -> None:
    """before_agent's state is the input of a new run and the Command of a resumed one."""
    inputs: list[Any] = []

    class Inputs(AgentMiddleware[Any]):
        def before_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            inputs.append(state)

    def ask(state: State) -> dict[str, Any]:
        return {"answer": interrupt("name?")}

    app = (
        StateGraph(State)
        .add_node("ask", ask)
        .add_edge(START, "ask")
        .compile(InMemorySaver(), middleware=[Inputs()])
    )
    await app.ainvoke({"text": "hi"}, thread_id="t")
    resume: Command[Any] = Command(resume="Ada")
    result = await app.ainvoke(resume, thread_id="t")
    assert result["answer"] == "Ada"
    assert inputs == [{"text": "hi"}, resume]


@pytest.mark.asyncio
async def test_thread_id_is_none_without_a_thread_and_each_run_has_its_own_id() -> None:
    """Without a thread_id the runtime's thread is None; a given one is kept; run ids are uuids."""
    infos: list[Any] = []

    def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        infos.append(runtime.execution_info)
        return {}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile(name="g")
    await app.ainvoke({})
    await app.ainvoke({})
    await app.ainvoke({}, thread_id="mine")
    assert [i.thread_id for i in infos] == [None, None, "mine"]
    assert len({uuid.UUID(i.run_id) for i in infos}) == 3


@pytest.mark.asyncio
async def test_log_additions_are_checked_and_a_hand_made_runtime_has_no_run() -> None:
    """add_message and add_usage refuse bad values; a Runtime made by hand refuses run methods."""

    def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        with pytest.raises(
            ArgumentTypeError, match=r"^add_message\(\) takes a role and content of type str$"
        ):
            runtime.add_message("user", 3)  # type: ignore[arg-type]  # refusing it is under test
        with pytest.raises(
            ArgumentValueError, match=r"^completion_tokens must be an int >= 0, not -1$"
        ):
            runtime.add_usage(1, -1)
        with pytest.raises(
            ArgumentValueError, match=r"^prompt_tokens must be an int >= 0, not True$"
        ):
            runtime.add_usage(True)
        return {"seen": runtime.log.usage.total_tokens}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    assert (await app.ainvoke({}))["seen"] == 0
    by_hand: Runtime[Any] = Runtime(context="c")
    assert by_hand.memory is None
    with pytest.raises(
        ContextMissingError,
        match=r"^runtime\.cancel\(\) needs a graph run; this Runtime does not belong to one$",
    ):
        by_hand.cancel()
