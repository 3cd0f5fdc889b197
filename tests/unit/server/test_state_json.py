"""pyctx_web.server.state_json: state values and snapshots as the LangGraph Server sends them."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import enum
import itertools
import uuid
from collections import namedtuple
from typing import Any

import pydantic
from langchain_core.messages import AIMessage

from pyctx_web.graph import START, MessagesState, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.errors import InvalidUpdateError
from pyctx_web.graph.types import Interrupt, Send, interrupt
from pyctx_web.server._messages import message_json
from pyctx_web.server.state_json import dumps, interrupt_json, thread_state, to_jsonable

CONFIG: dict[str, Any] = {"configurable": {"thread_id": "t1"}}


def _asking_graph() -> Any:
    """model (an AI message with a tool call) -> ask (an interrupt, then the answer)."""

    def model(state: MessagesState) -> dict[str, Any]:
        call = {"name": "f", "args": {"a": 1}, "id": "c1"}
        return {"messages": [AIMessage("calling", id="ai1", tool_calls=[call])]}

    def ask(state: MessagesState) -> dict[str, Any]:
        answer = interrupt({"question": "ok?"})
        return {"messages": [{"role": "user", "content": answer, "id": "h2"}]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", model)
    builder.add_node("ask", ask)
    builder.add_edge(START, "model")
    builder.add_edge("model", "ask")
    return builder.compile(checkpointer=InMemorySaver())


def _paused_state() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ThreadState and history of the asking graph paused on its question."""

    async def run() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        graph = _asking_graph()
        await graph.ainvoke({"messages": [{"role": "user", "content": "hi", "id": "h1"}]}, CONFIG)
        state = thread_state(await graph.aget_state(CONFIG))
        history = [thread_state(s) async for s in graph.aget_state_history(CONFIG)]
        return state, history

    return asyncio.run(run())


HUMAN_HI: dict[str, Any] = {
    "content": "hi",
    "additional_kwargs": {},
    "response_metadata": {},
    "type": "human",
    "name": None,
    "id": "h1",
}
AI_CALLING: dict[str, Any] = {
    "content": "calling",
    "additional_kwargs": {},
    "response_metadata": {},
    "type": "ai",
    "name": None,
    "id": "ai1",
    "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}],
    "invalid_tool_calls": [],
    "usage_metadata": None,
}


def test_paused_thread_state_matches_the_servers_shape() -> None:
    """A thread paused on an interrupt gives the server's ThreadState: keys, messages, task, ids."""
    state, _ = _paused_state()
    assert list(state) == [
        "values",
        "next",
        "tasks",
        "metadata",
        "created_at",
        "checkpoint",
        "parent_checkpoint",
        "interrupts",
        "checkpoint_id",
        "parent_checkpoint_id",
    ]
    assert state["values"] == {"messages": [HUMAN_HI, AI_CALLING]}
    assert state["next"] == ["ask"]
    assert state["metadata"] == {"source": "loop", "step": 1, "parents": {}}
    assert state["checkpoint"] == {
        "checkpoint_id": state["checkpoint_id"],
        "thread_id": "t1",
        "checkpoint_ns": "",
    }
    assert state["parent_checkpoint"]["checkpoint_id"] == state["parent_checkpoint_id"]
    [question] = state["interrupts"]
    assert question == {"id": question["id"], "value": {"question": "ok?"}}
    [task] = state["tasks"]
    assert task == {
        "id": task["id"],
        "name": "ask",
        "path": ["__pregel_pull", "ask"],
        "error": None,
        "interrupts": [question],
        "checkpoint": None,
        "state": None,
        "result": None,
    }
    assert isinstance(state["created_at"], str)


def test_history_is_newest_first_and_chained_by_parent() -> None:
    """The history's states are newest first, each naming the next one's checkpoint as parent."""
    state, history = _paused_state()
    assert history[0] == state
    assert [h["metadata"]["source"] for h in history] == ["loop", "loop", "input"]
    for newer, older in itertools.pairwise(history):
        assert newer["parent_checkpoint"] == older["checkpoint"]
    assert history[-1]["parent_checkpoint"] is None
    assert history[-1]["parent_checkpoint_id"] is None


class Color(enum.Enum):
    RED = "red"


class Model(pydantic.BaseModel):
    when: datetime.date
    tags: set[str]


Point = namedtuple("Point", ["x", "y"])


def test_to_jsonable_encodes_objects_as_the_servers_encoder() -> None:
    """Dataclasses, models, named tuples, errors, enums, ids, sets, times and bytes become JSON."""
    uid = uuid.UUID(int=1)
    value = {
        "interrupt": Interrupt(value={"q": 1}, id="abc"),
        "model": Model(when=datetime.date(2024, 5, 1), tags={"a"}),
        "point": Point(1, 2),
        "error": ValueError("boom"),
        "color": Color.RED,
        "uid": uid,
        "set": frozenset([3]),
        "tuple": (1, "a"),
        "at": datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.UTC),
        "span": datetime.timedelta(seconds=90),
        "bytes": b"\x00\x01",
        "money": decimal.Decimal("1.50"),
        "count": decimal.Decimal("3"),
        "nan": float("nan"),
        1: "int key",
        None: "none key",
        "opaque": object(),
    }
    assert to_jsonable(value) == {
        "interrupt": {"value": {"q": 1}, "id": "abc", "response_schema": None},
        "model": {"when": "2024-05-01", "tags": ["a"]},
        "point": {"x": 1, "y": 2},
        "error": {"error": "ValueError", "message": "boom"},
        "color": "red",
        "uid": str(uid),
        "set": [3],
        "tuple": [1, "a"],
        "at": "2024-05-01T12:00:00+00:00",
        "span": 90.0,
        "bytes": "AAE=",
        "money": 1.5,
        "count": 3,
        "nan": None,
        "1": "int key",
        "null": "none key",
        "opaque": None,
    }


def test_nul_and_lone_surrogates_are_replaced() -> None:
    """NUL becomes U+FFFD and a lone surrogate "?", so the JSON always encodes."""
    assert to_jsonable({"a\x00b": ["x\ud800y", "é\x00"]}) == {"a\ufffdb": ["x?y", "é\ufffd"]}
    assert dumps({"k": "\udfff", "n": [1, 2.5]}) == b'{"k":"?","n":[1,2.5]}'


def test_dict_messages_are_sent_as_langchain_messages() -> None:
    """pyctx_web's dict messages take the model_dump() shape LangChain gives the same dicts."""
    user = {"role": "user", "content": "hi", "id": "1", "name": "bob", "foo": 3}
    assert to_jsonable([user]) == [
        {
            "content": "hi",
            "additional_kwargs": {"foo": 3},
            "response_metadata": {},
            "type": "human",
            "name": "bob",
            "id": "1",
        }
    ]
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
    assistant = {"role": "assistant", "content": "", "id": "2", "tool_calls": [call]}
    assert message_json(assistant) == {
        "content": "",
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "ai",
        "name": None,
        "id": "2",
        "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c", "type": "tool_call"}],
        "invalid_tool_calls": [],
        "usage_metadata": None,
    }
    developer = {"role": "developer", "content": "d", "id": "3"}
    assert message_json(developer)["additional_kwargs"] == {"__openai_role__": "developer"}
    assert message_json(developer)["type"] == "system"
    tool = {"role": "tool", "content": "r", "tool_call_id": "c", "id": "4", "artifact": [1]}
    assert message_json(tool) == {
        "content": "r",
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "tool",
        "name": None,
        "id": "4",
        "tool_call_id": "c",
        "artifact": [1],
        "status": "success",
    }


def test_a_tool_call_with_unreadable_arguments_is_an_invalid_tool_call() -> None:
    """Arguments that are not a JSON object put the call under invalid_tool_calls, text kept."""
    call = {"id": "c", "function": {"name": "f", "arguments": "not json"}}
    out = message_json({"role": "assistant", "content": "", "id": "2", "tool_calls": [call]})
    assert out["tool_calls"] == []
    [invalid] = out["invalid_tool_calls"]
    assert invalid["args"] == "not json"
    assert (invalid["name"], invalid["id"], invalid["type"]) == ("f", "c", "invalid_tool_call")


class Leaky(Exception):
    """An error of the graph's code, whose message may hold secrets."""


def test_errors_send_their_message_only_when_the_server_would() -> None:
    """Python's and the graph's errors carry their message; others have it withheld."""
    assert to_jsonable([KeyError("k"), InvalidUpdateError("bad"), Leaky("token=1")]) == [
        {"error": "KeyError", "message": "'k'"},
        {"error": "InvalidUpdateError", "message": "bad"},
        {"error": "Leaky", "message": "An internal error occurred"},
    ]


def test_a_send_is_its_node_and_args() -> None:
    """A Send is sent as {"node", "args"}, as the server sends one."""
    assert to_jsonable(Send("n", {"x": (1,)})) == {"node": "n", "args": {"x": [1]}}


def test_dicts_that_are_not_messages_are_kept_as_they_are() -> None:
    """A dict without a known role, or without an id, is plain data, not a message."""
    data = [{"role": "admin", "content": "x", "id": "1"}, {"role": "user", "content": "x"}]
    assert to_jsonable(data) == data


def test_state_interrupts_carry_a_response_schema_only_when_given() -> None:
    """An interrupt is listed as {id, value}, with its response_schema only when it has one."""
    schema = {"type": "string"}
    asked = Interrupt(value="name?", id="i1", response_schema=schema)
    assert interrupt_json(asked) == {"id": "i1", "value": "name?", "response_schema": schema}
    assert interrupt_json(Interrupt(value=1, id="i2")) == {"id": "i2", "value": 1}
    assert interrupt_json({"id": "i3", "value": [1]}) == {"id": "i3", "value": [1]}


def test_a_task_result_holds_what_the_node_returned() -> None:
    """A finished task's ``result`` keeps a returned message dict as it was returned, as the
    server's does, while the state values show it as a LangChain message."""
    reply = {"role": "assistant", "content": "hi", "id": "r1"}
    graph = (
        StateGraph(MessagesState)
        .add_node("answer", lambda state: {"messages": [reply]})
        .add_edge(START, "answer")
        .compile(checkpointer=InMemorySaver())
    )

    async def history() -> list[Any]:
        await graph.ainvoke({"messages": []}, CONFIG)
        return [thread_state(s) async for s in graph.aget_state_history(CONFIG)]

    newest, answered, _ = asyncio.run(history())
    assert answered["tasks"][0]["result"] == {"messages": [reply]}
    assert newest["values"]["messages"][0]["type"] == "ai"


def test_metadata_lists_the_config_entries_before_the_graphs_own() -> None:
    """A state's metadata lists the run config's entries first and ``source``, ``step`` and
    ``parents`` last, in the order the server's checkpointer writes them."""
    graph = (
        StateGraph(MessagesState)
        .add_node("answer", lambda state: {"messages": []})
        .add_edge(START, "answer")
        .compile(checkpointer=InMemorySaver())
    )
    config = {**CONFIG, "metadata": {"run_id": "r1", "graph_id": "g"}}

    async def state() -> dict[str, Any]:
        await graph.ainvoke({"messages": []}, config)
        return thread_state(await graph.aget_state(CONFIG))

    assert list(asyncio.run(state())["metadata"]) == [
        "run_id",
        "graph_id",
        "source",
        "step",
        "parents",
    ]
