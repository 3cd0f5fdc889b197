"""A ``Command`` as a run's input: what pyctx_web refuses, and what a stored thread keeps of it.

How such a run goes is pinned against real LangGraph by the differential
program ``command_input_goto``; these are pyctx_web's own choices and its
storage.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.errors import InvalidUpdateError, ResumeError
from pyctx_web.graph.types import Command, Send, interrupt


class State(TypedDict, total=False):
    steps: Annotated[list[str], operator.add]
    topic: str


def _ask(state: State) -> dict[str, Any]:
    return {"topic": interrupt("Which topic?"), "steps": ["ask"]}


def _builder() -> StateGraph:
    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"steps": ["a"]})
    builder.add_node("ask", _ask)
    builder.add_node("c", lambda state: {"steps": [f"c:{state.get('topic')}"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", END)
    return builder


def _config(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


def test_goto_an_unknown_node_is_refused() -> None:
    """A goto naming no node of the graph is refused with the graph's nodes, on any thread."""
    graph = _builder().compile(checkpointer=InMemorySaver())
    message = (
        r"^the input Command\(goto=\.\.\.\) names 'nowhere', which is not a node "
        r"\(known nodes: 'a', 'ask', 'c'\)$"
    )
    with pytest.raises(InvalidUpdateError, match=message):
        graph.invoke(Command(goto="nowhere"), _config("new"))
    graph.invoke({"steps": []}, _config("done"))
    with pytest.raises(InvalidUpdateError, match=message):
        graph.invoke(Command(goto=["c", Send("nowhere", {})]), _config("done"))
    assert graph.get_state(_config("done")).values == {"steps": ["a"]}


def test_goto_of_something_else_is_refused() -> None:
    """A goto item that is neither a node name nor a Send is refused naming its type."""
    graph = _builder().compile()
    message = r"^Command\(goto=\.\.\.\) takes node names and Send objects, not 'int'$"
    with pytest.raises(InvalidUpdateError, match=message):
        graph.invoke(Command(goto=["c", 3]))  # type: ignore[list-item]


def test_command_for_a_parent_graph_is_refused() -> None:
    """``Command(graph=Command.PARENT)`` as a run's input is refused: the run has no parent."""
    graph = _builder().compile()
    message = (
        r"^Command\(graph=Command\.PARENT\) cannot be the input of a run: the graph it runs "
        r"has no parent graph$"
    )
    with pytest.raises(InvalidUpdateError, match=message):
        graph.invoke(Command(graph=Command.PARENT, goto="c"))


@pytest.mark.parametrize("command", [Command(), Command(update={}), Command(goto=[])])
def test_a_command_that_gives_nothing_is_refused(command: Command[Any]) -> None:
    """A Command without resume, update or goto is refused, saying what it could give."""
    graph = _builder().compile(checkpointer=InMemorySaver())
    graph.invoke({"steps": []}, _config("1"))
    message = (
        r"^Command\(\) passed as input gives nothing to do: pass resume=<answer>, "
        r"update=\{\.\.\.\} or goto=<node>$"
    )
    with pytest.raises(ResumeError, match=message):
        graph.invoke(command, _config("1"))


def test_a_stored_thread_keeps_the_goto_task_that_asked(tmp_path: Path) -> None:
    """A goto'd node that asks a question waits in SQLite, and another graph answers it."""
    path = tmp_path / "threads.db"
    with SqliteSaver(path) as saver:
        first = _builder().compile(checkpointer=saver)
        first.invoke({"steps": []}, _config("1"))
        paused = first.invoke(Command(update={"topic": "old"}, goto="ask"), _config("1"))
    assert [i.value for i in paused["__interrupt__"]] == ["Which topic?"]
    with SqliteSaver(path) as saver:
        second = _builder().compile(checkpointer=saver)
        resume: Command[Any] = Command(resume="rain", goto=Send("c", {"topic": "sent"}))
        done = second.invoke(resume, _config("1"))
    assert done == {"steps": ["a", "ask", "c:sent"], "topic": "rain"}


def test_a_command_for_an_earlier_checkpoint_is_refused() -> None:
    """A goto addressed to a checkpoint the thread has moved past is refused: fork it first."""
    graph = _builder().compile(checkpointer=InMemorySaver())
    graph.invoke({"steps": []}, _config("1"))
    first = list(graph.get_state_history(_config("1")))[-1].config
    checkpoint = first["configurable"]["checkpoint_id"]
    message = (
        rf"^checkpoint '{checkpoint}' is not the latest of thread '1'; run invoke\(None, "
        r"config\) with it first to fork, then give the Command to the fork$"
    )
    with pytest.raises(ResumeError, match=message):
        graph.invoke(Command(goto="c"), first)
    assert graph.get_state(_config("1")).values == {"steps": ["a"]}
