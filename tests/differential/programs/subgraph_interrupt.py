"""Subgraphs guide: interrupts inside a subgraph, its state, and streaming with namespaces.

Follows "Use subgraphs": a subgraph added as a node of a parent compiled with
``InMemorySaver``; ``interrupt()`` inside the subgraph pauses the parent;
``graph.get_state(config, subgraphs=True).tasks[0].state`` shows the
subgraph's state; ``Command(resume=...)`` resumes into the subgraph, re-running
only its interrupted node; ``stream(..., subgraphs=True)`` yields
``(namespace, chunk)``.
"""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict):
    state_value: str


def subgraph_prepare(state: State):
    print("subgraph_prepare runs")
    return {"state_value": state["state_value"] + "!"}


def subgraph_node_1(state: State):
    value = interrupt("Provide value:")
    return {"state_value": state["state_value"] + value}


subgraph_builder = StateGraph(State)
subgraph_builder.add_node(subgraph_prepare)
subgraph_builder.add_node(subgraph_node_1)
subgraph_builder.add_edge(START, "subgraph_prepare")
subgraph_builder.add_edge("subgraph_prepare", "subgraph_node_1")
subgraph = subgraph_builder.compile()


def parent_node(state: State):
    print("parent_node runs")
    return {"state_value": "parent says " + state["state_value"]}


builder = StateGraph(State)
builder.add_node(parent_node)
builder.add_node("node_1", subgraph)
builder.add_edge(START, "parent_node")
builder.add_edge("parent_node", "node_1")

checkpointer = InMemorySaver()
graph = builder.compile(checkpointer=checkpointer)

config = {"configurable": {"thread_id": "1"}}

print(graph.invoke({"state_value": "hi"}, config))

parent_state = graph.get_state(config)
print(parent_state.next, [task.name for task in parent_state.tasks])
print([len(task.interrupts) for task in parent_state.tasks])

# Get the subgraph state
subgraph_state = graph.get_state(config, subgraphs=True).tasks[0].state
print(subgraph_state.values, subgraph_state.next)
print(subgraph_state.config["configurable"]["checkpoint_ns"].split(":")[0])

# resume the subgraph graph
print(graph.invoke(Command(resume="world"), config))

config = {"configurable": {"thread_id": "2"}}
for namespace, chunk in graph.stream({"state_value": "yo"}, config, subgraphs=True):
    print([part.split(":")[0] for part in namespace], chunk)
for namespace, chunk in graph.stream(Command(resume="there"), config, subgraphs=True):
    print([part.split(":")[0] for part in namespace], chunk)
