"""LangGraph's README quickstart: a two-node StateGraph on a typing_extensions TypedDict.

Follows the "Quickstart" of the langgraph README (``from typing_extensions import
TypedDict``, ``graph.compile().invoke({"text": ""})``), then invokes the same
builder again with a config as the second positional argument.
"""

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    text: str


def node_a(state: State) -> dict:
    return {"text": state["text"] + "a"}


def node_b(state: State) -> dict:
    return {"text": state["text"] + "b"}


graph = StateGraph(State)
graph.add_node("node_a", node_a)
graph.add_node("node_b", node_b)
graph.add_edge(START, "node_a")
graph.add_edge("node_a", "node_b")

print(graph.compile().invoke({"text": ""}))
# {'text': 'ab'}

print(graph.compile().invoke({"text": "x"}, {"recursion_limit": 5}))
