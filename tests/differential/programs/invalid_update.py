"""Troubleshooting page INVALID_CONCURRENT_GRAPH_UPDATE: two parallel writes to one plain key.

Follows the error's page: ``node`` and ``other_node`` both start from
``START`` and return ``{"some_key": ...}`` for a key without a reducer, so the
step raises ``InvalidUpdateError``; with ``Annotated[list, operator.add]``, as
the page advises, the same fan-out succeeds.
"""

import operator
from typing import Annotated

from langgraph.errors import InvalidUpdateError
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    some_key: str


def node(state: State):
    return {"some_key": "some_string_value"}


def other_node(state: State):
    return {"some_key": "some_string_value"}


builder = StateGraph(State)
builder.add_node(node)
builder.add_node(other_node)
builder.add_edge(START, "node")
builder.add_edge(START, "other_node")
graph = builder.compile()

try:
    graph.invoke({"some_key": ""})
except InvalidUpdateError as error:
    print(type(error).__name__)
    print(str(error).splitlines()[0])


class FixedState(TypedDict):
    # The operator.add reducer fn makes this append-only
    some_key: Annotated[list, operator.add]


def fixed_node(state: FixedState):
    return {"some_key": ["some_string_value"]}


def fixed_other_node(state: FixedState):
    return {"some_key": ["other_string_value"]}


builder = StateGraph(FixedState)
builder.add_node("node", fixed_node)
builder.add_node("other_node", fixed_other_node)
builder.add_edge(START, "node")
builder.add_edge(START, "other_node")
print(builder.compile().invoke({"some_key": []}))
