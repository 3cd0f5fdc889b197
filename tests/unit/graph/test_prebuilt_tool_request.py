"""ToolCallRequest as a tool-call wrapper sees it: its ToolRuntime, override(), setting fields."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from pyctx_web.graph.prebuilt import InjectedState, ToolNode, ToolRuntime
from pyctx_web.graph.prebuilt.tool_node import ToolCallRequest


@tool
def read_note(note: Annotated[str, InjectedState("note")], runtime: ToolRuntime) -> str:
    """Return the note from injected state and from the tool runtime."""
    return f"{note}/{runtime.state['note']}/{runtime.tool_call_id}"


def _state() -> dict[str, Any]:
    call = {"name": "read_note", "args": {}, "id": "c1", "type": "tool_call"}
    return {"messages": [AIMessage("", tool_calls=[call])], "note": "old"}


def _new_state(request: ToolCallRequest) -> ToolCallRequest:
    return request.override(state={**request.state, "note": "new"})


def _new_state_stale_runtime(request: ToolCallRequest) -> ToolCallRequest:
    stale = dataclasses.replace(request.runtime, state={**request.state, "note": "stale"})
    return request.override(state={**request.state, "note": "new"}, runtime=stale)


def test_a_wrapper_sees_the_calls_tool_runtime() -> None:
    """request.runtime is the call's ToolRuntime: its id, the state and the node's tools."""
    seen: list[ToolCallRequest] = []

    def wrap(request: ToolCallRequest, execute: Callable[[ToolCallRequest], Any]) -> Any:
        seen.append(request)
        return execute(request)

    ToolNode([read_note], wrap_tool_call=wrap).invoke(_state())
    [request] = seen
    assert isinstance(request.runtime, ToolRuntime)
    assert request.runtime.tool_call_id == "c1"
    assert request.runtime.state["note"] == "old"
    assert request.runtime.tools == [read_note]


@pytest.mark.parametrize("override", [_new_state, _new_state_stale_runtime])
def test_a_state_override_reaches_the_tools_runtime(
    override: Callable[[ToolCallRequest], ToolCallRequest],
) -> None:
    """override(state=...) is the state InjectedState and the tool's ToolRuntime read."""

    def wrap(request: ToolCallRequest, execute: Callable[[ToolCallRequest], Any]) -> Any:
        return execute(override(request))

    out = ToolNode([read_note], wrap_tool_call=wrap).invoke(_state())
    assert out["messages"][0].content == "new/new/c1"


def test_setting_a_field_works_and_warns() -> None:
    """Setting a request's field changes it with a DeprecationWarning naming override()."""
    request = ToolCallRequest({"name": "a", "args": {}, "id": "1"}, None, {}, None)
    message = (
        r"^Setting attribute 'state' on ToolCallRequest is deprecated\. Use the override\(\) "
        r"method instead to create a new instance with modified values\.$"
    )
    with pytest.warns(DeprecationWarning, match=message):
        request.state = {"a": 1}
    assert request.state == {"a": 1}


def test_sync_tools_of_an_async_run_run_side_by_side() -> None:
    """Under ainvoke, plain function tools run in worker threads (CPython), not on the loop."""
    import asyncio
    import threading

    ready = threading.Event()

    @tool
    def wait() -> str:
        """Wait for the other tool."""
        return "seen" if ready.wait(timeout=10) else "alone"

    @tool
    def signal() -> str:
        """Signal the other tool."""
        ready.set()
        return "set"

    calls = [
        {"name": "wait", "args": {}, "id": "1", "type": "tool_call"},
        {"name": "signal", "args": {}, "id": "2", "type": "tool_call"},
    ]
    state = {"messages": [AIMessage("", tool_calls=calls)]}
    out = asyncio.run(ToolNode([wait, signal]).ainvoke(state))
    assert [m.content for m in out["messages"]] == ["seen", "set"]
