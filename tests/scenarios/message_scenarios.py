"""Chat messages as dicts: ``add_messages``, ``RemoveMessage``, ``MessagesState``, no LangChain.

The reducer scenarios take no argument; the graph scenario that pauses takes
``make_checkpointer`` (see tests/scenarios/checkpointer_contract.py). They
check the dict form of messages, which is what a program gets where
``langchain_core`` is not importable: in Pyodide, and on CPython in the unit
runner, which hides ``langchain_core`` from :mod:`pyctx_web.graph.message`.
``RemoveMessage`` is looked up on the module when used, for the same reason.

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph import END, START, MessagesState, StateGraph, add_messages
from pyctx_web.graph import message as messages_module
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.message import REMOVE_ALL_MESSAGES, DictRemoveMessage
from pyctx_web.graph.types import Command, interrupt
from tests.scenarios.common import CheckpointerFactory

DICT_MESSAGES = True
"""The CPython runner runs this module as where ``langchain_core`` is not importable."""


def remove(message_id: str) -> Any:
    """``RemoveMessage(id=message_id)``, as the module offers it here."""
    return messages_module.RemoveMessage(id=message_id)


def raises(error: type[Exception], fn: Callable[[], object], *parts: str) -> None:
    """Call ``fn``: it must raise ``error`` with a message containing every one of ``parts``."""
    try:
        fn()
    except error as exc:
        text = str(exc)
        assert all(part in text for part in parts), (text, parts)
        return
    raise AssertionError(f"expected {error.__name__}")


async def refused(error: type[Exception], awaitable: Awaitable[Any]) -> Exception:
    """Await ``awaitable`` and return the ``error`` it must raise."""
    try:
        await awaitable
    except error as exc:
        return exc
    raise AssertionError(f"expected {error.__name__}")


def is_uuid4(text: object) -> bool:
    """Whether ``text`` is the string of a version-4 UUID."""
    return isinstance(text, str) and uuid.UUID(text).version == 4 and str(uuid.UUID(text)) == text


def roles_and_contents(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The ``(role, content)`` of each message."""
    return [(m["role"], m["content"]) for m in messages]


def scenario_new_messages_are_appended_as_dicts_with_uuid_ids() -> None:
    """New messages are appended as dicts, given a uuid4 id if they have none; the input is kept."""
    given = {"role": "user", "content": "Hi"}
    left = [{"role": "system", "content": "Be brief.", "id": "sys"}]
    merged = add_messages(left, [given, "How are you?", ("assistant", "Fine.")])
    assert roles_and_contents(merged) == [
        ("system", "Be brief."),
        ("user", "Hi"),
        ("user", "How are you?"),
        ("assistant", "Fine."),
    ]
    assert all(type(m) is dict for m in merged)
    assert merged[0] is left[0]
    assert all(is_uuid4(m["id"]) for m in merged[1:])
    assert len({m["id"] for m in merged}) == 4
    assert given == {"role": "user", "content": "Hi"}
    assert len(left) == 1


def scenario_either_side_may_be_a_single_message() -> None:
    """A single message on either side is taken as a list of one."""
    one = {"role": "user", "content": "a", "id": "1"}
    merged = add_messages(one, {"role": "assistant", "content": "b", "id": "2"})
    assert merged == [one, {"role": "assistant", "content": "b", "id": "2"}]
    assert roles_and_contents(add_messages([], "c")) == [("user", "c")]


def scenario_a_known_id_replaces_the_message_in_place() -> None:
    """A message whose id is already present replaces that message where it stands."""
    left = [
        {"role": "user", "content": "Helo", "id": "1"},
        {"role": "assistant", "content": "Hi!", "id": "2"},
    ]
    merged = add_messages(left, [{"role": "user", "content": "Hello", "id": "1"}, "Next"])
    assert roles_and_contents(merged) == [
        ("user", "Hello"),
        ("assistant", "Hi!"),
        ("user", "Next"),
    ]
    assert [m["id"] for m in merged[:2]] == ["1", "2"]
    assert left[0]["content"] == "Helo"
    twice = add_messages([], [{"role": "user", "content": "x", "id": "9"}, ("ai", "y")])
    again = add_messages(twice, {"role": "user", "content": "z", "id": "9"})
    assert roles_and_contents(again) == [("user", "z"), ("assistant", "y")]


def scenario_roles_are_normalized_and_fields_kept() -> None:
    """LangChain's role aliases and ``type`` key become OpenAI roles; other fields are kept."""
    merged = add_messages(
        [],
        [
            {"type": "human", "content": "q", "id": "1"},
            {"role": "ai", "content": None, "id": "2", "tool_calls": [{"id": "c1"}]},
            {"role": "tool", "content": "42", "tool_call_id": "c1", "name": "calc", "id": "3"},
            {"role": "developer", "content": [{"type": "text", "text": "d"}], "id": "4"},
        ],
    )
    assert merged == [
        {"role": "user", "content": "q", "id": "1"},
        {"role": "assistant", "content": "", "id": "2", "tool_calls": [{"id": "c1"}]},
        {"role": "tool", "content": "42", "tool_call_id": "c1", "name": "calc", "id": "3"},
        {"role": "developer", "content": [{"type": "text", "text": "d"}], "id": "4"},
    ]


def scenario_remove_message_deletes_by_id() -> None:
    """``RemoveMessage(id=...)`` deletes that message; a later message with the id restores it."""
    left = add_messages([], ["a", "b", "c"])
    a, b, c = (m["id"] for m in left)
    merged = add_messages(left, [remove(a), remove(c)])
    assert [m["id"] for m in merged] == [b]
    assert repr(remove(a)) == f"RemoveMessage(id={a!r})"
    assert remove(a).id == a
    back = add_messages(left, [remove(b), {"role": "user", "content": "B", "id": b}])
    assert roles_and_contents(back) == [("user", "a"), ("user", "B"), ("user", "c")]
    as_dicts = add_messages(left, [{"role": "remove", "id": a}, {"type": "remove", "id": b}])
    assert [m["id"] for m in as_dicts] == [c]


def scenario_removing_an_unknown_id_raises_langgraph_value_error() -> None:
    """Deleting an id that is not in the list raises ValueError with LangGraph's message."""
    raises(
        ValueError,
        lambda: add_messages(add_messages([], "a"), remove("missing")),
        "Attempting to delete a message with an ID that doesn't exist ('missing')",
    )


def scenario_remove_all_keeps_only_what_follows_it() -> None:
    """``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` drops every earlier message, old and new."""
    left = add_messages([], ["a", "b"])
    assert add_messages(left, remove(REMOVE_ALL_MESSAGES)) == []
    merged = add_messages(left, ["c", remove(REMOVE_ALL_MESSAGES), left[1], "d"])
    assert roles_and_contents(merged) == [("user", "b"), ("user", "d")]
    assert merged[0] is left[1]


def scenario_malformed_messages_are_refused_naming_the_problem() -> None:
    """A message that is not a well-formed dict, str or (role, content) is refused, saying why."""
    raises(ArgumentTypeError, lambda: add_messages([], 42), "a message must be a dict", "'int'")
    raises(ArgumentValueError, lambda: add_messages([], {"content": "x"}), "'role' and 'content'")
    raises(ArgumentValueError, lambda: add_messages([], {"role": "user"}), "'role' and 'content'")
    raises(ArgumentValueError, lambda: add_messages([], {"role": "robot", "content": "x"}), "robot")
    raises(
        ArgumentTypeError,
        lambda: add_messages([], {"role": "user", "content": 5}),
        "content",
        "int",
    )
    raises(
        ArgumentTypeError,
        lambda: add_messages([], {"role": "user", "content": "x", "id": 7}),
        "id must be a str",
    )
    raises(
        ArgumentValueError,
        lambda: add_messages([], {"role": "tool", "content": "x"}),
        "tool_call_id",
    )
    raises(
        ArgumentTypeError,
        lambda: add_messages([], {"role": "assistant", "content": "", "tool_calls": "f()"}),
        "tool_calls",
    )
    raises(ArgumentValueError, lambda: add_messages([], [("a", "b", "c")]), "(role, content)")
    raises(ArgumentValueError, lambda: add_messages([], {"role": "remove"}), "'id'")
    # An int id is the bad input under test.
    raises(ArgumentTypeError, lambda: DictRemoveMessage(3), "id must be a str")  # type: ignore[arg-type]


def scenario_add_messages_without_both_sides_is_a_reducer_factory() -> None:
    """With no side, add_messages returns a reducer for its format; with one side, ValueError."""
    reducer = add_messages(format="langchain-openai")
    assert roles_and_contents(reducer([], ["x"])) == [("user", "x")]
    raises(ValueError, lambda: add_messages(["x"], None), "Only received: 'left'.")
    raises(ValueError, lambda: add_messages(None, ["x"]), "Only received: 'right'.")
    # An unknown format is the bad input under test.
    raises(ValueError, lambda: add_messages([], [], format="html"), "Unrecognized format='html'")  # type: ignore[call-overload]


def scenario_remove_message_survives_a_deep_copy_and_json_shape() -> None:
    """A RemoveMessage is a dict: copied, or turned back into a plain dict, it still removes."""
    left = add_messages([], ["a", "b"])
    removal = remove(left[0]["id"])
    for form in (copy.deepcopy(removal), dict(removal)):
        assert roles_and_contents(add_messages(left, [form])) == [("user", "b")]


class Chat(MessagesState):
    """A conversation, and the name its user gave."""

    name: str


async def scenario_messages_state_graph_merges_node_updates() -> None:
    """In a MessagesState graph, input and node messages are merged by id into dicts."""

    def reply(state: Chat) -> dict[str, Any]:
        return {
            "messages": {
                "role": "assistant",
                "content": f"Echo: {state['messages'][-1]['content']}",
            }
        }

    def fix_typo(state: Chat) -> dict[str, Any]:
        first = state["messages"][0]
        return {"messages": [{**first, "content": "hello"}], "name": "Ada"}

    graph = (
        StateGraph(Chat)
        .add_sequence([reply, fix_typo])
        .add_edge(START, "reply")
        .add_edge("fix_typo", END)
        .compile()
    )
    result = await graph.ainvoke({"messages": "helo"})
    assert roles_and_contents(result["messages"]) == [
        ("user", "hello"),
        ("assistant", "Echo: helo"),
    ]
    assert result["name"] == "Ada"
    assert all(type(m) is dict and is_uuid4(m["id"]) for m in result["messages"])

    def bad(state: Chat) -> dict[str, Any]:
        return {"messages": [{"role": "robot", "content": "beep"}]}

    broken = StateGraph(Chat).add_node(bad).add_edge(START, "bad").compile()
    error = await refused(ArgumentValueError, broken.ainvoke({"messages": []}))
    assert "'robot'" in str(error)


def _pausing_chat(saver: Checkpointer) -> Any:
    """greet -> (ask: interrupts for the name, forget: removes the system message) -> answer."""

    def greet(state: Chat) -> dict[str, Any]:
        return {"messages": [{"role": "assistant", "content": "Hi! What is your name?"}]}

    def ask(state: Chat) -> dict[str, Any]:
        name = interrupt(state["messages"][-1]["content"])
        return {"messages": [{"role": "user", "content": name}], "name": name}

    async def forget(state: Chat) -> dict[str, Any]:
        return {"messages": [remove("sys")]}

    def answer(state: Chat) -> dict[str, Any]:
        return {"messages": [("ai", f"Nice to meet you, {state['name']}!")]}

    builder = StateGraph(Chat).add_node(greet).add_node(ask).add_node(forget).add_node(answer)
    builder.add_edge(START, "greet").add_edge("greet", "ask").add_edge("greet", "forget")
    return builder.add_edge(["ask", "forget"], "answer").compile(checkpointer=saver)


async def scenario_messages_survive_a_checkpointed_interrupt_and_resume(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A MessagesState graph pauses on interrupt and resumes from its checkpoint, messages whole."""
    config = {"configurable": {"thread_id": "chat"}}
    given = [{"role": "system", "content": "Be brief.", "id": "sys"}, "hello"]
    paused = await _pausing_chat(make_checkpointer()).ainvoke({"messages": given}, config)
    assert [i.value for i in paused["__interrupt__"]] == ["Hi! What is your name?"]
    # As in LangGraph, the paused state shows the writes of the step's finished nodes.
    before = paused["messages"]
    assert roles_and_contents(before) == [
        ("user", "hello"),
        ("assistant", "Hi! What is your name?"),
    ]

    graph = _pausing_chat(make_checkpointer())
    snapshot = await graph.aget_state(config)
    assert snapshot.values["messages"] == before
    assert snapshot.next == ("ask",)
    done = await graph.ainvoke(Command(resume="Ada"), config)
    assert roles_and_contents(done["messages"]) == [
        ("user", "hello"),
        ("assistant", "Hi! What is your name?"),
        ("user", "Ada"),
        ("assistant", "Nice to meet you, Ada!"),
    ]
    assert done["messages"][:2] == before
    assert all(type(m) is dict and is_uuid4(m["id"]) for m in done["messages"])
    assert (await graph.aget_state(config)).values == done
    async for past in graph.aget_state_history(config):
        assert all(type(m) is dict for m in past.values.get("messages", []))
