"""Persistence concept guide, "Checkpoints": ``get_state`` and ``get_state_history``.

Follows the guide's example: ``foo`` plus ``bar: Annotated[list[str], add]``,
``node_a`` then ``node_b``, ``MemorySaver``, ``config = {"configurable":
{"thread_id": "1"}}`` and ``graph.invoke({"foo": ""}, config)``. Prints, for
each snapshot newest first, its values, next, metadata source and step (the
first checkpoint is the input, at step -1, with ``bar`` already ``[]``), then
"Update state": ``update_state(config, {"foo": 2, "bar": ["b"]})`` goes
through the reducer.
"""

from operator import add
from typing import Annotated

from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    foo: int
    bar: Annotated[list[str], add]


def node_a(state: State):
    return {"foo": "a", "bar": ["a"]}


def node_b(state: State):
    return {"foo": "b", "bar": ["b"]}


workflow = StateGraph(State)
workflow.add_node(node_a)
workflow.add_node(node_b)
workflow.add_edge(START, "node_a")
workflow.add_edge("node_a", "node_b")
workflow.add_edge("node_b", END)

checkpointer = MemorySaver()
graph = workflow.compile(checkpointer=checkpointer)

config = {"configurable": {"thread_id": "1"}}
print(graph.invoke({"foo": ""}, config))

# get the latest state snapshot
snapshot = graph.get_state(config)
print(snapshot.values, snapshot.next, snapshot.metadata["source"], snapshot.metadata["step"])
print(snapshot.config["configurable"]["thread_id"], snapshot.tasks)

history = list(graph.get_state_history(config))
print(len(history))
for state in history:
    names = [task.name for task in state.tasks]
    print(state.values, state.next, state.metadata["source"], state.metadata["step"], names)

# get a state snapshot for a specific checkpoint_id
past = graph.get_state(history[2].config)
print(past.values, past.next)

graph.update_state(config, {"foo": 2, "bar": ["b"]})
snapshot = graph.get_state(config)
print(snapshot.values, snapshot.next, snapshot.metadata["source"], snapshot.metadata["step"])
print(len(list(graph.get_state_history(config))))
