"""Streaming guide, "Supported stream modes": ``checkpoints``, ``tasks`` and ``debug``.

A two-node graph with an in-memory checkpointer whose second node asks with
``interrupt()``; streamed with ``stream_mode=["tasks", "checkpoints"]``, then
with ``stream_mode="debug"`` on another thread, then a node that fails, seen
through the ``tasks`` mode, and a graph without a checkpointer, which streams
no checkpoints.
"""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send, interrupt
from typing_extensions import TypedDict


class State(TypedDict):
    topic: str
    joke: str


def refine_topic(state: State):
    return {"topic": state["topic"] + " and cats"}


def generate_joke(state: State):
    answer = interrupt(f"A joke about {state['topic']}?")
    return {"joke": f"This is a joke about {state['topic']} ({answer})"}


graph = (
    StateGraph(State)
    .add_node(refine_topic)
    .add_node(generate_joke)
    .add_edge(START, "refine_topic")
    .add_edge("refine_topic", "generate_joke")
    .compile(checkpointer=InMemorySaver())
)

config = {"configurable": {"thread_id": "1"}}
for mode, chunk in graph.stream(
    {"topic": "ice cream"}, config, stream_mode=["tasks", "checkpoints"]
):
    print(mode, chunk)

for chunk in graph.stream(
    {"topic": "dogs"}, {"configurable": {"thread_id": "2"}}, stream_mode="debug"
):
    print(chunk["step"], chunk["type"], chunk["payload"])


def fan_out(state: State):
    return [Send("shout", {"topic": state["topic"]})]


def shout(arg: dict):
    return {"joke": arg["topic"].upper()}


pushed = StateGraph(State).add_node(shout).add_conditional_edges(START, fan_out).compile()
for chunk in pushed.stream({"topic": "sends"}, stream_mode="tasks"):
    print(chunk)

for mode, chunk in pushed.stream(
    {"topic": "unsaved"}, stream_mode=["checkpoints", "debug", "values"]
):
    print(mode, chunk if mode != "debug" else (chunk["step"], chunk["type"]))
