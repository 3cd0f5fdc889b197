"""Subgraphs guide, "Stream subgraph outputs", with the subgraph streamed from a sync node.

Sync throughout (it runs in Pyodide too): a node streams a two-step graph; the
parent is streamed with ``subgraphs=True`` and without, invoked with
``debug=True``; then a streamed subgraph that asks a question pauses the parent
and the parent's answer resumes it.
"""

import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class Trail(TypedDict):
    steps: Annotated[list, operator.add]


inner = (
    StateGraph(Trail)
    .add_node("a", lambda state: {"steps": ["a"]})
    .add_node("b", lambda state: {"steps": ["b"]})
    .add_edge(START, "a")
    .add_edge("a", "b")
    .compile()
)


node_streams = []


def outer(state: Trail):
    # Kept, not printed here: when the node prints against the parent's chunks
    # depends on how a sync node waits (a thread, or JSPI in the browser).
    node_streams.append(list(inner.stream({"steps": []})))
    return {"steps": ["outer"]}


graph = StateGraph(Trail).add_node("outer", outer).add_edge(START, "outer").compile()
for namespace, mode, chunk in graph.stream(
    {"steps": []}, stream_mode=["updates", "values"], subgraphs=True
):
    print([part.split(":")[0] for part in namespace], mode, chunk)
print(list(graph.stream({"steps": []})))
print(graph.invoke({"steps": []}, debug=True))
print("the node's streams:", node_streams)


def ask(state: Trail):
    return {"steps": [interrupt("more?")]}


asking = StateGraph(Trail).add_node(ask).add_edge(START, "ask").compile()


def call_asking(state: Trail):
    print("call_asking runs")
    last = None
    for chunk in asking.stream({"steps": ["asked"]}, stream_mode="values"):
        print("inner chunk", chunk)
        last = chunk
    return {"steps": last["steps"]}


parent = StateGraph(Trail).add_node(call_asking).add_edge(START, "call_asking")
parent = parent.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
print(parent.invoke({"steps": []}, config))
print(parent.get_state(config).next)
print(parent.invoke(Command(resume="please"), config))
