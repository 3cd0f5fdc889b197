"""Graph API guide, "Visualize your graph": ``get_graph().to_json()``, as the server gives it.

A parent with a conditional edge and a compiled subgraph added as a node,
itself holding a subgraph. ``to_json()`` with and without ``xray`` lists the
nodes (the start node takes the input; nodes of an expanded subgraph are
named by their full id) and the edges; each node's ``data.id`` (the import
path of its function) is left out, as the server leaves it out.
"""

import json
from typing import Literal

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    foo: str


def step(name: str):
    def node(state: State):
        return {"foo": state["foo"] + name}

    node.__name__ = name
    return node


def route(state: State) -> Literal["middle", "__end__"]:
    return "middle" if state["foo"] else END


inner = StateGraph(State).add_sequence([step("inner_a"), step("inner_b")])
inner = inner.add_edge(START, "inner_a").compile()

middle = StateGraph(State)
middle.add_node(step("middle_a"))
middle.add_node("inner", inner)
middle.add_edge(START, "middle_a")
middle.add_edge("middle_a", "inner")
middle = middle.compile()

builder = StateGraph(State)
builder.add_node(step("first"))
builder.add_node("middle", middle)
builder.add_edge(START, "first")
builder.add_conditional_edges("first", route)
builder.add_edge("middle", END)
graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["middle"])

for xray in (False, True, 1, 2):
    drawing = graph.get_graph(xray=xray).to_json()
    for node in drawing["nodes"]:
        if isinstance(node.get("data"), dict):
            node["data"].pop("id", None)
    print(xray, json.dumps(drawing, indent=1))
