"""A reduced key declared as an abstract collection (AgentState's Sequence) starts empty.

Its first write then goes through the reducer, as in LangGraph: the input's
``("user", "q")`` becomes a HumanMessage before anything reads or streams it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypedDict

from langchain_core.messages import HumanMessage

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.prebuilt import AgentState


def _recording(seen: list[Any]) -> Any:
    def reduce(current: Any, update: Any) -> Any:
        seen.append(current)
        return update

    return reduce


SEEN: list[Any] = []


class State(TypedDict):
    items: Annotated[Sequence[int], _recording(SEEN)]
    table: Annotated[Mapping[str, int], _recording(SEEN)]


def test_an_abstract_collection_key_starts_as_its_concrete_empty_value() -> None:
    """Sequence starts as [] and Mapping as {}: the reducer sees them on the first write."""
    SEEN.clear()
    graph = StateGraph(State).add_node("n", lambda s: None).add_edge(START, "n").compile()
    assert graph.invoke({"items": (1,), "table": {"a": 1}}) == {"items": (1,), "table": {"a": 1}}
    assert SEEN == [[], {}]


def test_the_agent_states_input_messages_are_messages_in_the_first_values() -> None:
    """create_react_agent's state streams its input as messages, not as the tuples given."""
    graph = StateGraph(AgentState).add_node("n", lambda s: None).add_edge(START, "n").compile()
    first = next(iter(graph.stream({"messages": [("user", "q")]}, stream_mode="values")))
    [message] = first["messages"]
    assert isinstance(message, HumanMessage)
    assert message.content == "q"
