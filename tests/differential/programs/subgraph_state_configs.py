"""Subgraphs guide, "View subgraph state": the configs a paused subgraph's state gives.

A parent graph with a subgraph node that holds another subgraph node, whose
node asks with ``interrupt()``. ``get_state`` without ``subgraphs=True`` and
the history give each subgraph task's ``state`` as the config naming the
subgraph's place (``checkpoint_ns``); with ``subgraphs=True`` each nested
state's config carries its ``checkpoint_map`` and its metadata the ids of the
checkpoints it runs under (``parents``).
"""

from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict, total=False):
    text: str


def deep(state: State) -> dict[str, Any]:
    return {"text": state["text"] + interrupt("deeper?")}


inner = StateGraph(State)
inner.add_node("deep", deep)
inner.add_edge(START, "deep")

middle = StateGraph(State)
middle.add_node("inner", inner.compile())
middle.add_edge(START, "inner")

outer = StateGraph(State)
outer.add_node("middle", middle.compile())
outer.add_edge(START, "middle")
graph = outer.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "1"}}
graph.invoke({"text": "a"}, config)
state = graph.get_state(config)
print(state.config)
print([(t.name, t.state) for t in state.tasks])
for snapshot in graph.get_state_history(config):
    print(snapshot.metadata, [(t.name, t.state) for t in snapshot.tasks])


def show(state: Any, depth: int = 0) -> None:
    print("  " * depth, state.config, state.metadata, state.parent_config, state.next)
    for task in state.tasks:
        print("  " * depth, task.name, [i.value for i in task.interrupts])
        if task.state is not None:
            show(task.state, depth + 1)


show(graph.get_state(config, subgraphs=True))
print(graph.invoke(Command(resume="b"), config))
print([(t.name, t.state) for t in graph.get_state(config).tasks])
