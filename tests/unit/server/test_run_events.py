"""run_events: a pyctx_web graph's run as the LangGraph Server's SSE events."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph import END, START, MessagesState, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, Send, interrupt
from pyctx_web.server.run_events import (
    RunOutcome,
    as_returned,
    command_from_json,
    graph_modes,
    run_events,
)


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def _step(name: str) -> Any:
    def node(state: State) -> dict[str, Any]:
        get_stream_writer()({"at": name})
        return {"steps": [name]}

    return node


def _ask(state: State) -> dict[str, Any]:
    return {"steps": [f"answer:{interrupt({'question': 'ok?'})}"]}


def _graph(*nodes: tuple[str, Any]) -> CompiledStateGraph:
    builder = StateGraph(State)
    previous = START
    for name, node in nodes:
        builder.add_node(name, node)
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile(checkpointer=InMemorySaver())


def _events(
    graph: CompiledStateGraph, input: Any, modes: list[str], tid: str = "t", **kw: Any
) -> list[tuple[str, Any]]:
    async def main() -> list[tuple[str, Any]]:
        config = {"configurable": {"thread_id": tid}}
        return [
            e async for e in run_events(graph, input, config, run_id="r1", stream_modes=modes, **kw)
        ]

    return asyncio.run(main())


def test_metadata_first_then_values_and_updates() -> None:
    """A run streams metadata {run_id, attempt}, then values and updates as the graph makes them."""
    graph = _graph(("a", _step("a")), ("b", _step("b")))
    outcome = RunOutcome()
    events = _events(graph, {"steps": []}, ["values", "updates"], outcome=outcome)
    assert events == [
        ("metadata", {"run_id": "r1", "attempt": 1}),
        ("values", {"steps": []}),
        ("updates", {"a": {"steps": ["a"]}}),
        ("values", {"steps": ["a"]}),
        ("updates", {"b": {"steps": ["b"]}}),
        ("values", {"steps": ["a", "b"]}),
    ]
    assert (outcome.status, outcome.values) == ("success", {"steps": ["a", "b"]})


def test_custom_mode_alone_sends_only_custom() -> None:
    """With only custom asked, the values and updates the server runs for itself are not sent."""
    graph = _graph(("a", _step("a")))
    assert _events(graph, {"steps": []}, ["custom"]) == [
        ("metadata", {"run_id": "r1", "attempt": 1}),
        ("custom", {"at": "a"}),
    ]


def test_interrupt_arrives_as_values_without_updates() -> None:
    """Without updates asked, an interrupt reaches the client as the state plus __interrupt__."""
    graph = _graph(("a", _step("a")), ("ask", _ask))
    outcome = RunOutcome()
    events = _events(graph, {"steps": []}, ["values"], outcome=outcome)
    name, data = events[-1]
    assert name == "values"
    assert data["steps"] == ["a"]
    [pending] = data["__interrupt__"]
    assert pending["value"] == {"question": "ok?"}
    assert len(pending["id"]) == 32
    assert outcome.status == "success"
    resumed = _events(graph, Command(resume="yes"), ["updates"])
    assert resumed[1:] == [("updates", {"ask": {"steps": ["answer:yes"]}})]


def test_interrupt_is_not_sent_to_a_client_asking_neither_values_nor_updates() -> None:
    """With only custom asked, an interrupt sends no event (LangGraph 1.x's server adds none)."""
    graph = _graph(("ask", _ask))
    assert [n for n, _ in _events(graph, {"steps": []}, ["custom"])] == ["metadata"]


def test_tools_mode_is_refused_as_the_server_refuses_it() -> None:
    """The tools mode, only served by the v2 event streams, is refused with the server's words."""
    message = (
        r"^stream_mode entries \['tools'\] are only supported"
        r" on the v2 event streaming endpoints\.$"
    )
    with pytest.raises(ArgumentValueError, match=message):
        graph_modes(["values", "tools"])


def test_debug_checkpoints_are_named_as_the_api_names_them() -> None:
    """A debug checkpoint event carries checkpoint and parent_checkpoint {thread_id, ns, id}."""
    graph = _graph(("a", _step("a")))
    events = _events(graph, {"steps": []}, ["debug"])
    checkpoints = [d["payload"] for n, d in events if n == "debug" and d["type"] == "checkpoint"]
    first, second = checkpoints[0], checkpoints[1]
    assert first["parent_checkpoint"] is None
    assert first["checkpoint"] == {**first["config"]["configurable"]}
    assert set(first["checkpoint"]) == {"thread_id", "checkpoint_ns", "checkpoint_id"}
    assert second["parent_checkpoint"] == first["checkpoint"]


def test_interrupt_is_an_update_when_updates_are_asked() -> None:
    """With updates asked, the interrupt is an updates event, then the values event holding it."""
    graph = _graph(("ask", _ask))
    events = _events(graph, {"steps": []}, ["values", "updates"])
    assert [n for n, _ in events] == ["metadata", "values", "updates", "values"]
    assert list(events[2][1]) == ["__interrupt__"]
    assert events[2][1]["__interrupt__"] == events[3][1]["__interrupt__"]


def test_subgraph_events_are_named_by_namespace() -> None:
    """With subgraphs, a subgraph's chunks are MODE|node:task_id events after the parent's."""
    inner = _graph(("x", _step("x")))
    outer = _graph(("sub", inner), ("b", _step("b")))
    events = _events(outer, {"steps": []}, ["updates"], subgraphs=True)
    names = [n for n, _ in events]
    assert names[0] == "metadata"
    assert names[-2:] == ["updates", "updates"]
    sub = [n for n in names if n.startswith("updates|")]
    assert len(sub) == 1
    assert sub[0].startswith("updates|sub:")
    assert events[names.index(sub[0])][1] == {"x": {"steps": ["x"]}}
    assert _events(outer, {"steps": []}, ["updates"], tid="t2")[1:] == [
        ("updates", {"sub": {"steps": ["x"]}}),
        ("updates", {"b": {"steps": ["b"]}}),
    ]


def test_a_graph_that_raises_ends_with_an_error_event() -> None:
    """A node's exception becomes a last error event {error: class name, message}."""

    def broken(state: State) -> dict[str, Any]:
        raise ValueError("broken here")

    graph = _graph(("a", _step("a")), ("broken", broken))
    outcome = RunOutcome()
    events = _events(graph, {"steps": []}, ["updates"], outcome=outcome)
    assert events[-1] == ("error", {"error": "ValueError", "message": "broken here"})
    assert events[-2] == ("updates", {"a": {"steps": ["a"]}})
    assert outcome.status == "error"
    assert isinstance(outcome.error, ValueError)


def _chat_graph() -> CompiledStateGraph:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    model = GenericFakeChatModel(messages=iter([AIMessage(content="hello there", id="m1")]))

    async def call(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState).add_node("call", call).add_edge(START, "call")
    return builder.compile(checkpointer=InMemorySaver())


def test_messages_tuple_streams_chunks_with_metadata() -> None:
    """messages-tuple sends messages events [chunk, metadata] for a chat model's tokens."""
    events = _events(_chat_graph(), {"messages": [("user", "hi")]}, ["messages-tuple"])
    chunks = [data for name, data in events if name == "messages"]
    assert "".join(c[0]["content"] for c in chunks) == "hello there"
    assert {c[0]["type"] for c in chunks} == {"AIMessageChunk"}
    assert all(c[1]["langgraph_node"] == "call" for c in chunks)


def test_legacy_messages_mode_accumulates() -> None:
    """The legacy messages mode sends messages/metadata once, then partials of the whole so far."""
    events = _events(_chat_graph(), {"messages": [("user", "hi")]}, ["messages"])
    names = [n for n, _ in events]
    assert names[:2] == ["metadata", "messages/metadata"]
    assert set(names[2:]) == {"messages/partial"}
    [last] = events[-1][1]
    assert last["content"] == "hello there"
    assert last["type"] == "ai"


def test_legacy_messages_of_a_subgraph_name_no_namespace() -> None:
    """A subgraph's messages reach the legacy messages mode without a |namespace suffix, their
    metadata naming the thread and the subgraph's checkpoint_ns, as the server sends them."""
    from langchain_core.messages import AIMessage

    def note(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content="noted", id="m-note")]}

    inner = StateGraph(MessagesState).add_node("note", note).add_edge(START, "note").compile()
    builder = StateGraph(MessagesState).add_node("sub", inner).add_edge(START, "sub")
    graph = builder.compile(checkpointer=InMemorySaver())
    events = _events(graph, {"messages": []}, ["messages"], subgraphs=True)
    assert [n for n, _ in events] == ["metadata", "messages/metadata", "messages/complete"]
    meta = events[1][1]["m-note"]["metadata"]
    assert meta["thread_id"] == "t"
    assert meta["checkpoint_ns"].startswith("sub:")
    assert meta["langgraph_checkpoint_ns"].startswith(meta["checkpoint_ns"] + "|note:")


def test_unknown_stream_mode_is_refused() -> None:
    """An unknown stream mode is refused, naming it and the known ones."""
    with pytest.raises(ArgumentValueError, match=r"^unknown stream_mode 'nope'; expected one of "):
        graph_modes(["values", "nope"])


def test_command_from_json() -> None:
    """The API's command becomes a Command: resume, update pairs, goto names and sends."""
    command = command_from_json(
        {"resume": 1, "update": [["k", 2]], "goto": [{"node": "n", "input": 3}, "m"]}
    )
    assert command.resume == 1
    assert command.update == {"k": 2}
    assert command.goto == [Send("n", 3), "m"]
    with pytest.raises(
        ArgumentValueError, match=r"^unknown command field 'x'; expected resume, update, goto$"
    ):
        command_from_json({"x": 1})


def test_updates_carry_dict_messages_as_the_node_returned_them() -> None:
    """A node's dict message is sent as written in updates, as a LangChain message in values."""

    def reply(state: MessagesState) -> dict[str, Any]:
        return {"messages": [{"role": "assistant", "content": "hi", "id": "r"}]}

    builder = StateGraph(MessagesState).add_node("reply", reply).add_edge(START, "reply")
    graph = builder.compile(checkpointer=InMemorySaver())
    events = _events(graph, {"messages": []}, ["updates", "values"])
    update = {"role": "assistant", "content": "hi", "id": "r"}
    assert events[2] == ("updates", {"reply": {"messages": [update]}})
    [message] = events[3][1]["messages"]
    assert (message["type"], message["content"], message["id"]) == ("ai", "hi", "r")


def test_as_returned_writes_keys_as_json_does() -> None:
    """Non-str keys of a node's update become their JSON text, as json.dumps writes them."""
    assert as_returned({1: (True,), None: {False: 2.5}}) == {"1": [True], "null": {"false": 2.5}}
