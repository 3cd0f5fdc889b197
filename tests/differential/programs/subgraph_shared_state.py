"""Subgraphs guide: a compiled graph added as a node, sharing the parent's state keys.

Follows "Use subgraphs", shared state schemas: ``subgraph_builder.compile()``
is passed to ``builder.add_node("node_1", subgraph)``; the parent streams with
``subgraphs=True`` to show the subgraph's updates with their namespace.
"""

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    foo: str


def subgraph_node_1(state: State):
    return {"foo": state["foo"] + "bar"}


subgraph_builder = StateGraph(State)
subgraph_builder.add_node(subgraph_node_1)
subgraph_builder.add_edge(START, "subgraph_node_1")
subgraph = subgraph_builder.compile()

builder = StateGraph(State)
builder.add_node("node_1", subgraph)
builder.add_edge(START, "node_1")
graph = builder.compile()

print(graph.invoke({"foo": "foo"}))
for namespace, chunk in graph.stream({"foo": "foo"}, subgraphs=True):
    print(len(namespace), chunk)
