"""What AgentMiddleware hooks may do: fail or wrap a node, and return nothing from before/after."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from pyctx_web.errors import UsageError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.middleware import AgentMiddleware, NodeCallRequest
from pyctx_web.graph.runtime import RunHandle, Runtime
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, interrupt


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str


def _graph(middleware: AgentMiddleware[Any], fail: bool = False) -> CompiledStateGraph:
    def node(state: State) -> dict[str, Any]:
        if fail:
            raise ValueError("node failed")
        return {"text": "ran"}

    return (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(InMemorySaver(), middleware=[middleware])
    )


async def _failed(handle: RunHandle, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        await handle
    assert handle.outcome is not None
    assert handle.outcome.status == "error"
    assert isinstance(handle.outcome.error, error)


@pytest.mark.asyncio
async def test_awrap_node_call_that_skips_the_handler_fails_the_node() -> None:
    """A node whose awrap_node_call returns without calling handler fails with UsageError."""

    class Skip(AgentMiddleware[Any]):
        async def awrap_node_call(self, request: NodeCallRequest, handler: Any) -> Any:
            return {"text": "instead"}

    app = _graph(Skip())
    handle = app.start({}, thread_id="t")
    await _failed(
        handle,
        UsageError,
        r"^a middleware's awrap_node_call returned without calling handler, so node 'node' did "
        r"not run; to stop a node, raise$",
    )
    assert [(s.node, s.status) for s in handle.log.steps] == [("node", "error")]
    assert (await app.aget_state("t")).values == {}


@pytest.mark.asyncio
async def test_awrap_node_call_sees_the_update_and_raising_fails_the_node() -> None:
    """handler returns the node's update; raising after it fails the node and stores nothing."""
    updates: list[Any] = []

    class Veto(AgentMiddleware[Any]):
        async def awrap_node_call(self, request: NodeCallRequest, handler: Any) -> Any:
            updates.append((request.node, await handler(request)))
            raise PermissionError("vetoed")

    app = _graph(Veto())
    handle = app.start({}, thread_id="t")
    await _failed(handle, PermissionError, r"^vetoed$")
    assert updates == [("node", {"text": "ran"})]
    assert (await app.aget_state("t")).values == {}


@pytest.mark.asyncio
async def test_the_nodes_error_is_raised_from_handler() -> None:
    """What the node raises is raised from handler, and the run fails with it."""
    seen: list[BaseException] = []

    class Watch(AgentMiddleware[Any]):
        async def awrap_node_call(self, request: NodeCallRequest, handler: Any) -> Any:
            try:
                return await handler(request)
            except ValueError as error:
                seen.append(error)
                raise

    handle = _graph(Watch(), fail=True).start({}, thread_id="t")
    await _failed(handle, ValueError, r"^node failed$")
    assert handle.outcome is not None
    assert seen == [handle.outcome.error]


class Returns(AgentMiddleware[Any]):
    """A middleware whose before or after hook returns a state update."""

    def __init__(self, hook: str) -> None:
        self.hook = hook

    def before_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return {"text": "x"} if self.hook == "before_agent" else None

    def after_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return {"text": "x"} if self.hook == "after_agent" else None


class ReturnsAsync(AgentMiddleware[Any]):
    """A middleware whose async before or after hook returns a state update."""

    def __init__(self, hook: str) -> None:
        self.hook = hook

    async def abefore_agent(self, state: Any, runtime: Runtime[Any]) -> Any:
        return {"text": "x"} if self.hook == "abefore_agent" else None

    async def aafter_agent(self, state: Any, runtime: Runtime[Any]) -> Any:
        return {"text": "x"} if self.hook == "aafter_agent" else None


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("middleware", "hook"),
    [
        (Returns("before_agent"), "before_agent"),
        (Returns("after_agent"), "after_agent"),
        (ReturnsAsync("abefore_agent"), "abefore_agent"),
        (ReturnsAsync("aafter_agent"), "aafter_agent"),
    ],
    ids=["before_agent", "after_agent", "abefore_agent", "aafter_agent"],
)
async def test_before_and_after_hooks_returning_an_update_are_refused(
    middleware: AgentMiddleware[Any], hook: str
) -> None:
    """A before/after hook that returns a state update (sync or async) fails the run."""
    name = type(middleware).__name__
    handle = _graph(middleware).start({}, thread_id="t")
    await _failed(
        handle,
        UsageError,
        rf"^middleware '{name}': {hook}\(\) returned 'dict'; a compiled graph's {hook} hooks "
        rf"return None \(state updates from them belong to create_agent\): update the state "
        rf"in a node$",
    )


@pytest.mark.asyncio
async def test_after_agent_runs_only_when_the_run_reaches_its_end() -> None:
    """after_agent is skipped when the run pauses or fails, and called once a resume ends it."""
    ended: list[Any] = []

    class End(AgentMiddleware[Any]):
        def after_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            ended.append(state)

    def ask(state: State) -> dict[str, Any]:
        answer = interrupt("text?")
        if answer == "fail":
            raise ValueError("refused answer")
        return {"text": answer}

    app = (
        StateGraph(State)
        .add_node("ask", ask)
        .add_edge(START, "ask")
        .compile(InMemorySaver(), middleware=[End()])
    )
    for thread in ("fails", "ends"):
        paused = await app.ainvoke({}, thread_id=thread)
        assert [i.value for i in paused["__interrupt__"]] == ["text?"]
    with pytest.raises(ValueError, match=r"^refused answer$"):
        await app.ainvoke(Command(resume="fail"), thread_id="fails")
    assert ended == []
    assert await app.ainvoke(Command(resume="hi"), thread_id="ends") == {"text": "hi"}
    assert ended == [{"text": "hi"}]
