"""Persistence guide, "Durability modes": ``durability="sync" | "async" | "exit"``.

The same three-node graph whose last node asks with ``interrupt()`` runs with
each mode on its own thread; the history then shows which checkpoints were
written: every step with ``"sync"`` and ``"async"``, only the one the run
stopped at with ``"exit"``. Resumed with the same mode.
"""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict):
    x: int


def a(state: State):
    return {"x": state["x"] + 1}


def b(state: State):
    return {"x": state["x"] + 1}


def c(state: State):
    return {"x": state["x"] + interrupt("how much more?")}


graph = StateGraph(State).add_sequence([a, b, c]).add_edge(START, "a")
graph = graph.compile(checkpointer=InMemorySaver())

for durability in ("sync", "async", "exit"):
    config = {"configurable": {"thread_id": durability}}
    print(durability, graph.invoke({"x": 1}, config, durability=durability)["x"])
    history = list(graph.get_state_history(config))
    print([(s.metadata["source"], s.metadata["step"], s.next) for s in history])
    print(graph.invoke(Command(resume=10), config, durability=durability))
    history = list(graph.get_state_history(config))
    print([(s.metadata["step"], s.next, s.parent_config is None) for s in history])
