"""How-to "Use Pydantic model as graph state": validation of the inputs into nodes.

Follows the guide: ``class OverallState(BaseModel): a: str``, one node that
returns ``{"a": "goodbye"}``, ``graph.invoke({"a": "hello"})``; then an input of
the wrong type, which fails validation when the node's state is built (printed
as the error's type and its error count), and a model with a default and a
reducer key.
"""

from operator import add
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ValidationError


class OverallState(BaseModel):
    a: str


def node(state: OverallState):
    return {"a": "goodbye"}


# Build the state graph
builder = StateGraph(OverallState)
builder.add_node(node)  # node_1 is the first node
builder.add_edge(START, "node")  # Start the graph with node_1
builder.add_edge("node", END)  # End the graph after node_1
graph = builder.compile()

# Test the graph with a valid input
print(graph.invoke({"a": "hello"}))

try:
    graph.invoke({"a": 123})  # Should be a string
except ValidationError as error:
    print("An exception was raised because `a` is an integer rather than a string.")
    print(type(error).__name__, error.error_count())


class Counted(BaseModel):
    name: str = "anon"
    seen: Annotated[list[str], add] = []


def greet(state: Counted):
    print(f"greet sees {state.name!r} {state.seen}")
    return {"seen": [f"hello {state.name}"]}


counted = StateGraph(Counted).add_node(greet).add_edge(START, "greet").compile()
print(counted.invoke({}))
print(counted.invoke({"name": "Ada", "seen": ["before"]}))
