"""Breakpoints concept guide: ``interrupt_after=["a"]`` with ``interrupt_before=["b"]``.

Follows the "Breakpoints" guide's compile-time breakpoints
(``compile(interrupt_before=[...], interrupt_after=[...], checkpointer=...)``,
resumed by ``invoke(None, config)``). When ``a`` is followed by ``b``, the two
breakpoints fall on the same step boundary and the run pauses there once.
"""

import operator
from typing import Annotated

from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    visited: Annotated[list, operator.add]


def a(state: State):
    print("a runs")
    return {"visited": ["a"]}


def b(state: State):
    print("b runs")
    return {"visited": ["b"]}


def c(state: State):
    print("c runs")
    return {"visited": ["c"]}


builder = StateGraph(State)
builder.add_node(a)
builder.add_node(b)
builder.add_node(c)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
builder.add_edge("b", "c")
builder.add_edge("c", END)

graph = builder.compile(
    checkpointer=MemorySaver(),
    interrupt_after=["a"],
    interrupt_before=["b"],
)
config = {"configurable": {"thread_id": "1"}}

print(graph.invoke({"visited": []}, config))
print(graph.get_state(config).next)
print(graph.invoke(None, config))
print(graph.get_state(config).next)

config = {"configurable": {"thread_id": "2"}}
for chunk in graph.stream({"visited": []}, config, stream_mode="updates"):
    print(chunk)
for chunk in graph.stream(None, config, stream_mode="updates"):
    print(chunk)

for snapshot in graph.get_state_history(config):
    print(snapshot.values, snapshot.next, snapshot.metadata["source"], snapshot.metadata["step"])
