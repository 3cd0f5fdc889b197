"""Subgraphs guide and "Visualize your graph": a subgraph drawn with and without ``xray``.

A parent with a compiled subgraph added as a node, itself holding a
subgraph; ``get_graph().draw_mermaid()``, then ``get_graph(xray=True)`` and
``get_graph(xray=1)`` expand the subgraphs as LangGraph draws them.
"""

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    foo: str


def step(name: str):
    def node(state: State):
        return {"foo": state["foo"] + name}

    node.__name__ = name
    return node


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
builder.add_edge("first", "middle")
builder.add_edge("middle", END)
graph = builder.compile()

print(graph.invoke({"foo": ""}))
print(graph.get_graph().draw_mermaid())
print(graph.get_graph(xray=True).draw_mermaid())
print(graph.get_graph(xray=1).draw_mermaid())
