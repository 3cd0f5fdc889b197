"""ToolNode, tools_condition and ValidationNode (pyctx_web.graph.prebuilt) with LangChain tools."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolArg, tool
from pydantic import BaseModel, ValidationError

from pyctx_web.graph import END, START, MessagesState, StateGraph
from pyctx_web.graph.prebuilt import (
    InjectedState,
    InjectedStore,
    ToolNode,
    ToolRuntime,
    ValidationNode,
    tools_condition,
)
from pyctx_web.graph.prebuilt.tool_node import ToolCallRequest, ToolInvocationError
from pyctx_web.graph.store.memory import InMemoryStore
from pyctx_web.graph.types import Send


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


@tool
def peek(question: str, state: Annotated[dict[str, Any], InjectedState]) -> str:
    """Answer with the number of messages."""
    return f"{question}: {len(state['messages'])}"


@tool
def first_word(field: Annotated[list[Any], InjectedState("messages")]) -> str:
    """The first word of the conversation."""
    return str(field[0].content).split()[0]


@tool
def recall(key: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Read a note from the store."""
    return str(store.get(("notes",), key).value["text"])


@tool
def who(runtime: ToolRuntime[Any, Any]) -> str:
    """The id of this call, the size of the state and the node's tools."""
    names = ",".join(tool.name for tool in runtime.tools)
    return f"{runtime.tool_call_id} {len(runtime.state['messages'])} {names}"


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id}


def _graph(node: ToolNode, calls: list[dict[str, Any]], store: Any = None) -> Any:
    def model(state: MessagesState) -> dict[str, Any]:
        if isinstance(state["messages"][-1], HumanMessage):
            return {"messages": [AIMessage("", tool_calls=calls)]}
        return {"messages": [AIMessage("done")]}

    builder = StateGraph(MessagesState).add_node("model", model).add_node("tools", node)
    builder.add_edge(START, "model").add_conditional_edges("model", tools_condition, ["tools", END])
    return builder.add_edge("tools", "model").compile(store=store)


def _tool_messages(out: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(m.tool_call_id, m.status, m.content) for m in out["messages"] if m.type == "tool"]


def test_tool_node_answers_each_call_of_the_last_ai_message_in_order() -> None:
    """Two calls in one AI message give two ToolMessages, in the calls' order, with their ids."""
    calls = [_call("divide", {"a": 6, "b": 3}, "c1"), _call("divide", {"a": 1, "b": 4}, "c2")]
    out = _graph(ToolNode([divide]), calls).invoke({"messages": [HumanMessage("go")]})
    assert _tool_messages(out) == [("c1", "success", "2.0"), ("c2", "success", "0.25")]
    assert out["messages"][-1].content == "done"


def test_tool_node_injects_state_a_state_field_the_store_and_the_runtime() -> None:
    """InjectedState, InjectedState("messages"), InjectedStore and ToolRuntime reach the tools."""
    store = InMemoryStore()
    store.put(("notes",), "k", {"text": "remembered"})
    calls = [
        _call("peek", {"question": "how many"}, "c1"),
        _call("first_word", {}, "c2"),
        _call("recall", {"key": "k"}, "c3"),
        _call("who", {}, "c4"),
    ]
    node = ToolNode([peek, first_word, recall, who])
    out = _graph(node, calls, store).invoke({"messages": [HumanMessage("hello there")]})
    assert [content for _, _, content in _tool_messages(out)] == [
        "how many: 2",
        "hello",
        "remembered",
        "c4 2 peek,first_word,recall,who",
    ]


@pytest.mark.parametrize(
    ("handle", "content"),
    [
        (True, "Error: ZeroDivisionError('division by zero')\n Please fix your mistakes."),
        ("it failed", "it failed"),
        (
            (ZeroDivisionError,),
            "Error: ZeroDivisionError('division by zero')\n Please fix your mistakes.",
        ),
    ],
)
def test_handled_tool_errors_become_error_tool_messages(handle: Any, content: str) -> None:
    """An exception handle_tool_errors covers becomes a ToolMessage with status "error"."""
    out = _graph(
        ToolNode([divide], handle_tool_errors=handle), [_call("divide", {"a": 1, "b": 0}, "c")]
    )
    assert _tool_messages(out.invoke({"messages": [HumanMessage("go")]})) == [
        ("c", "error", content)
    ]


def test_by_default_only_refused_arguments_go_back_to_the_model() -> None:
    """Without handle_tool_errors, bad arguments answer the model and a tool's exception raises."""
    bad = _graph(ToolNode([divide]), [_call("divide", {"a": "x", "b": 2}, "c")])
    [(_, status, content)] = _tool_messages(bad.invoke({"messages": [HumanMessage("go")]}))
    assert status == "error"
    assert content.startswith(
        "Error invoking tool 'divide' with kwargs {'a': 'x', 'b': 2} with error:\n a: "
    )
    raising = _graph(ToolNode([divide]), [_call("divide", {"a": 1, "b": 0}, "c")])
    with pytest.raises(ZeroDivisionError):
        raising.invoke({"messages": [HumanMessage("go")]})


def test_an_unknown_tool_is_named_with_the_known_ones() -> None:
    """A call to a tool the node lacks answers with the names it has."""
    out = ToolNode([divide, peek]).invoke([AIMessage("", tool_calls=[_call("nope", {}, "c")])])
    assert [(m.status, m.content) for m in out] == [
        ("error", "Error: nope is not a valid tool, try one of [divide, peek].")
    ]


def test_ainvoke_runs_the_calls_concurrently() -> None:
    """The async form starts every call before any finishes."""
    started: list[str] = []
    release = asyncio.Event()

    @tool
    async def wait(name: str) -> str:
        """Wait for the others."""
        started.append(name)
        if len(started) == 2:
            release.set()
        await asyncio.wait_for(release.wait(), 5)
        return name

    calls = [_call("wait", {"name": "a"}, "c1"), _call("wait", {"name": "b"}, "c2")]
    out = asyncio.run(ToolNode([wait]).ainvoke({"messages": [AIMessage("", tool_calls=calls)]}))
    assert [m.content for m in out["messages"]] == ["a", "b"]


def test_messages_key_and_a_wrapper_that_edits_the_call() -> None:
    """messages_key names the state's list; wrap_tool_call may change a call before it runs."""

    def double_b(request: ToolCallRequest, execute: Any) -> ToolMessage:
        call = {**request.tool_call, "args": {**request.tool_call["args"], "b": 2}}
        return execute(request.override(tool_call=call))  # type: ignore[no-any-return]

    node = ToolNode([divide], messages_key="chat", wrap_tool_call=double_b)
    out = node.invoke(
        {"chat": [AIMessage("", tool_calls=[_call("divide", {"a": 1, "b": 0}, "c")])]}
    )
    assert [m.content for m in out["chat"]] == ["0.5"]


def test_tools_condition_routes_on_the_last_message() -> None:
    """tools_condition says "tools" for tool calls, END otherwise, and refuses no messages."""
    assert (
        tools_condition({"messages": [AIMessage("", tool_calls=[_call("x", {}, "c")])]}) == "tools"
    )
    assert tools_condition([AIMessage("hi")]) == END
    with pytest.raises(
        ValueError, match=r"^No messages found in input state to tool_edge: \{'messages': \[\]\}$"
    ):
        tools_condition({"messages": []})


class Point(BaseModel):
    x: int
    y: int


def test_validation_node_answers_valid_json_or_the_error() -> None:
    """ValidationNode answers each call with its validated JSON or an error marked is_error."""
    calls = [_call("Point", {"x": 1, "y": 2}, "c1"), _call("Point", {"x": "no", "y": 2}, "c2")]
    out = ValidationNode([Point]).invoke([AIMessage("", tool_calls=calls)])
    assert out[0].content == '{"x":1,"y":2}'
    assert not out[0].additional_kwargs.get("is_error")
    assert out[1].additional_kwargs["is_error"] is True
    assert out[1].content.endswith("\n\nRespond after fixing all validation errors.")


def test_tool_invocation_error_keeps_the_call() -> None:
    """ToolInvocationError names the tool and keeps its source error and arguments."""
    error = ToolInvocationError("t", ValueError("bad"), {"a": 1})
    assert (error.tool_name, error.tool_kwargs, str(error)) == (
        "t",
        {"a": 1},
        "Error invoking tool 't' with kwargs {'a': 1} with error:\n bad\n"
        " Please fix the error and try again.",
    )


@tool
def city_of(city: Annotated[str | None, InjectedState("city")] = None) -> str:
    """The state's city, if any."""
    return f"city={city}"


@tool
def city_needed(city: Annotated[str, InjectedState("city")]) -> str:
    """The state's city."""
    return f"city={city}"


def test_a_missing_state_field_leaves_the_parameters_default() -> None:
    """InjectedState("city") leaves the default when the state has no city (NotRequired)."""
    out = ToolNode([city_of]).invoke(
        {"messages": [AIMessage("", tool_calls=[_call("city_of", {}, "c")])]}
    )
    assert [m.content for m in out["messages"]] == ["city=None"]


def test_a_missing_state_field_without_default_raises_key_error() -> None:
    """A required parameter's state field the state lacks raises KeyError, never a message."""
    node = ToolNode([city_needed], handle_tool_errors=True)
    with pytest.raises(KeyError, match="city"):
        node.invoke({"messages": [AIMessage("", tool_calls=[_call("city_needed", {}, "c")])]})


def test_a_field_of_a_list_state_is_refused() -> None:
    """A tool injecting a field other than messages cannot run on a list of messages."""
    node = ToolNode([city_needed])
    with pytest.raises(ValueError, match=r"^Invalid input to ToolNode\. Tool city_needed requires"):
        node.invoke([AIMessage("", tool_calls=[_call("city_needed", {}, "c")])])


@tool
def validates_inside(x: int) -> str:
    """Validates a value of its own."""
    Point.model_validate({"x": "no", "y": 0})
    return "unreached"


def test_a_validation_error_inside_a_tool_is_not_an_argument_error() -> None:
    """A ValidationError the tool body raises propagates; only the schema's refusals go back."""
    node = ToolNode([validates_inside])
    with pytest.raises(ValidationError, match="1 validation error for Point"):
        node.invoke([AIMessage("", tool_calls=[_call("validates_inside", {"x": 1}, "c")])])


def test_a_sent_call_carries_the_graph_state_to_wrappers_and_tools() -> None:
    """Given one call by Send (v2), the wrapper and the tool see the state the Send carried."""
    seen: list[Any] = []

    def record(request: ToolCallRequest, execute: Any) -> Any:
        seen.append(request.state)
        return execute(request)

    call = _call("peek", {"question": "n"}, "c")
    state = {"messages": [HumanMessage("a"), AIMessage("", tool_calls=[call])]}
    sent = {"__type": "tool_call_with_context", "tool_call": call, "state": state}
    out = ToolNode([peek], wrap_tool_call=record).invoke(sent)
    assert seen == [state]
    assert [m.content for m in out["messages"]] == ["n: 2"]


@tool
def role_of(role: Annotated[str, InjectedToolArg] = "guest") -> str:
    """The caller's role, never the model's to choose."""
    return role


def test_injected_arguments_the_model_sends_are_dropped() -> None:
    """An InjectedToolArg argument sent by the model is dropped before the tool runs."""
    call = _call("role_of", {"role": "admin"}, "c")
    out = ToolNode([role_of]).invoke([AIMessage("", tool_calls=[call])])
    assert [m.content for m in out] == ["guest"]


def test_tools_sent_bare_calls_see_the_graph_state_an_edge_gives() -> None:
    """Send("tools", [call]) gives the tools the graph's state, as an edge to the node would."""
    seen: list[Any] = []

    @tool
    def record(state: Annotated[Any, InjectedState], runtime: ToolRuntime) -> str:
        """Record the state the tool gets."""
        seen.append((state, runtime.state))
        return "ok"

    call = {**_call("record", {}, "c1"), "type": "tool_call"}

    def agent(state: Any) -> dict[str, Any]:
        return {"messages": [AIMessage("", tool_calls=[call])]}

    graph = (
        StateGraph(MessagesState)
        .add_node("agent", agent)
        .add_node("tools", ToolNode([record]))
        .add_edge(START, "agent")
        .add_conditional_edges("agent", lambda _: [Send("tools", [call])], ["tools"])
        .compile()
    )
    graph.invoke({"messages": []})
    [(state, runtime_state)] = seen
    assert state == runtime_state
    assert [m.tool_calls for m in state["messages"]] == [[call]]
