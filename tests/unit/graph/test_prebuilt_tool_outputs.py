"""What ToolNode makes of tools returning Commands and lists, and how it orders its update."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, tool

from pyctx_web.graph.prebuilt import ToolNode
from pyctx_web.graph.types import Command, Send


class Returning(BaseTool):
    """A tool that returns its configured value as is."""

    name: str = "returning"
    description: str = "Returns a configured value"
    value: Any = None

    def _run(self, **kwargs: Any) -> Any:
        return self.value


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _calls(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    tool_calls = [{"name": n, "id": i, "args": a, "type": "tool_call"} for n, i, a in calls]
    return {"messages": [AIMessage("", tool_calls=tool_calls)]}


def _handoff(call_id: str) -> Command[Any]:
    answer = ToolMessage("Transferred", tool_call_id=call_id)
    return Command(graph=Command.PARENT, goto="bob", update={"messages": [answer]})


def test_a_copied_or_pickled_command_equals_the_original() -> None:
    """deepcopy and pickle keep a Command's unset fields unset, so the copy equals it."""
    command: Command[Any] = Command(goto="bob", update={"a": 1})
    assert copy.deepcopy(command) == command
    assert pickle.loads(pickle.dumps(command)) == command


def test_plain_answers_come_first_each_in_its_own_update_then_commands() -> None:
    """A plain tool's answer and a Command keep the tools' order, each an update of its own."""
    node = ToolNode([add, Returning(value=_handoff("2"))])
    out = node.invoke(_calls(("add", "1", {"a": 1, "b": 2}), ("returning", "2", {})))
    assert out == [
        {"messages": [ToolMessage("3", name="add", tool_call_id="1")]},
        Command(
            graph=Command.PARENT,
            goto="bob",
            update={"messages": [ToolMessage("Transferred", name="returning", tool_call_id="2")]},
        ),
    ]


def test_a_tool_may_return_a_list_of_commands_and_its_answer() -> None:
    """A list with one ToolMessage answering the call gives its Command and answer."""
    answer = ToolMessage("done", tool_call_id="1")
    node = ToolNode([Returning(value=[Command(update={"foo": "bar"}), answer])])
    assert node.invoke(_calls(("returning", "1", {}))) == [
        Command(update={"foo": "bar"}),
        {"messages": [answer]},
    ]


def test_parent_sends_join_into_one_command_last() -> None:
    """Commands sending to the parent graph join into one parent Command after the rest."""
    first = [
        Command(graph=Command.PARENT, goto=[Send("a", 1)]),
        ToolMessage("ok", tool_call_id="1"),
    ]
    second = [
        Command(graph=Command.PARENT, goto=[Send("b", 2)]),
        ToolMessage("ok", tool_call_id="2"),
    ]
    node = ToolNode([Returning(name="one", value=first), Returning(name="two", value=second)])
    out = node.invoke(_calls(("one", "1", {}), ("two", "2", {})))
    assert out[-1] == Command(graph=Command.PARENT, goto=[Send("a", 1), Send("b", 2)])
    assert [type(part) for part in out] == [dict, dict, Command]


@pytest.mark.parametrize("count", [0, 2])
def test_a_list_must_answer_the_call_exactly_once(count: int) -> None:
    """A returned list without exactly one ToolMessage for the call is refused."""
    value: list[Any] = [Command(update={"foo": "bar"})]
    value += [ToolMessage("a", tool_call_id="1") for _ in range(count)]
    node = ToolNode([Returning(value=value)], handle_tool_errors=False)
    message = (
        f"^Tool returning returned a list with {count} messages bound to tool_call_id '1'; "
        r"expected exactly one terminating ToolMessage\.$"
    )
    with pytest.raises(ValueError, match=message):
        node.invoke(_calls(("returning", "1", {})))


def test_a_command_for_this_graph_must_answer_the_call() -> None:
    """A Command updating the current graph without the call's ToolMessage is refused."""
    node = ToolNode([Returning(value=Command(update={"messages": []}))], handle_tool_errors=False)
    with pytest.raises(ValueError, match=r"^Expected to have a matching ToolMessage"):
        node.invoke(_calls(("returning", "1", {})))
