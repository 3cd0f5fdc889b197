"""Persistence guide, "Get state": a thread's values read and run on by another graph.

Two graphs share a checkpointer and a thread: the first has a ``delay`` key the
second has no channel for. The second graph's ``values`` stream, its state, its
history and its result show only its own channels; the thread's checkpoint keeps
``delay``, and the first graph, running on again, still sees it.
"""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class First(TypedDict):
    steps: Annotated[list[str], operator.add]
    delay: int


class Second(TypedDict):
    steps: Annotated[list[str], operator.add]
    note: str


def wait(state: First) -> dict[str, Any]:
    return {"steps": ["waited"], "delay": 5}


def finish(state: Second) -> dict[str, Any]:
    return {"steps": ["finished"], "note": "done"}


saver = InMemorySaver()
first = StateGraph(First).add_node(wait).add_edge(START, "wait").compile(checkpointer=saver)
second = StateGraph(Second).add_node(finish).add_edge(START, "finish").compile(checkpointer=saver)
config: Any = {"configurable": {"thread_id": "shared"}}

print("first", first.invoke({"steps": ["x"]}, config))
for chunk in second.stream({"steps": ["y"]}, config, stream_mode="values"):
    print("second values", chunk)
print("second state", second.get_state(config).values)
print("second history", [snapshot.values for snapshot in second.get_state_history(config)])
print("stored", saver.get_tuple(config).checkpoint["channel_values"])
print("first state", first.get_state(config).values)
print("first again", first.invoke({"steps": ["z"]}, config))
print("second result", second.invoke({"steps": ["w"]}, config))
