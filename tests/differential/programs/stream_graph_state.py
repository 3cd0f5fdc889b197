"""Streaming guide, "Stream graph state": ``stream_mode="updates"`` and ``"values"``, sync.

Follows the "Stream outputs" guide's workflow example (``from typing import
TypedDict``, ``refine_topic`` then ``generate_joke``), with a ``print()`` in each
node so that the output shows each chunk is yielded as the run reaches it.
"""

from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    topic: str
    joke: str


def refine_topic(state: State):
    print("refine_topic runs")
    return {"topic": state["topic"] + " and cats"}


def generate_joke(state: State):
    print("generate_joke runs")
    return {"joke": f"This is a joke about {state['topic']}"}


graph = (
    StateGraph(State)
    .add_node(refine_topic)
    .add_node(generate_joke)
    .add_edge(START, "refine_topic")
    .add_edge("refine_topic", "generate_joke")
    .add_edge("generate_joke", END)
    .compile()
)

print("--- updates")
for chunk in graph.stream({"topic": "ice cream"}, stream_mode="updates"):
    print(chunk)

print("--- values")
for chunk in graph.stream({"topic": "ice cream"}, stream_mode="values"):
    print(chunk)

print("--- default mode")
for chunk in graph.stream({"topic": "ice cream"}):
    print(chunk)

print("--- two modes")
for mode, chunk in graph.stream({"topic": "ice cream"}, stream_mode=["updates", "values"]):
    print(mode, chunk)
