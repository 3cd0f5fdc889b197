"""Subgraphs guide, "Stream subgraph outputs", in every mode at once: a subgraph's checkpoints.

A parent graph whose second node is a compiled subgraph, with an in-memory
checkpointer and a config of the caller's own (``user``), streamed with
``subgraphs=True`` in the ``values``, ``updates``, ``checkpoints``, ``tasks`` and
``debug`` modes: the order of each step's chunks (an update before its task's
result, the values before the checkpoint they make), each subgraph checkpoint's
config (the thread, the subgraph's ``checkpoint_ns``, the caller's entries and
the ``checkpoint_map``), and a subgraph task's ``state`` in its parent's
checkpoints. The subgraph's node reads the thread and the caller's entry from
its config; a second subgraph asks a question, and the paused thread's state
with ``subgraphs=True`` shows the metadata of the subgraph's checkpoint.
"""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def first(state: State) -> dict[str, Any]:
    return {"steps": ["first"]}


seen: list[tuple[str, str]] = []


def inner_step(state: State) -> dict[str, Any]:
    conf = get_config()["configurable"]
    seen.append((conf["thread_id"], conf.get("user")))
    return {"steps": ["inner"]}


inner = StateGraph(State).add_node(inner_step).add_edge(START, "inner_step").compile()
graph = (
    StateGraph(State)
    .add_node(first)
    .add_node("sub", inner)
    .add_edge(START, "first")
    .add_edge("first", "sub")
    .compile(checkpointer=InMemorySaver())
)

config = {"configurable": {"thread_id": "1", "user": "bob"}}
modes = ["values", "updates", "checkpoints", "tasks", "debug"]
for namespace, mode, chunk in graph.stream(
    {"steps": ["in"]}, config, stream_mode=modes, subgraphs=True
):
    if mode == "debug":
        print(namespace, mode, chunk["step"], chunk["type"], chunk["payload"])
    else:
        print(namespace, mode, chunk)
print("the subgraph's node saw", seen)


def ask(state: State) -> dict[str, Any]:
    return {"steps": [interrupt("go on?")]}


asking = StateGraph(State).add_node(ask).add_edge(START, "ask").compile()
paused = (
    StateGraph(State)
    .add_node("sub", asking)
    .add_edge(START, "sub")
    .compile(checkpointer=InMemorySaver())
)
config = {"configurable": {"thread_id": "2", "user": "ann"}}
for namespace, mode, chunk in paused.stream(
    {"steps": []}, config, stream_mode=["checkpoints", "updates"], subgraphs=True
):
    print(namespace, mode, chunk)
state = paused.get_state(config, subgraphs=True)
sub = state.tasks[0].state
print(sub.config)
print(sub.metadata)
print(sub.parent_config)
