"""Subgraphs guide, "Invoke a graph from a node": different state schemas, sync and async.

Follows the guide: a subgraph on ``SubgraphState`` (``bar``) is invoked from a
node of a parent on ``State`` (``foo``), which maps the state in and out;
then the same with ``await subgraph.ainvoke(...)`` in an async node, streamed
with ``subgraphs=True``; then a subgraph with an interrupt invoked from a
node, paused and resumed through the parent.
"""

import asyncio

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class SubgraphState(TypedDict):
    bar: str


# Subgraph


def subgraph_node_1(state: SubgraphState):
    return {"bar": "hi! " + state["bar"]}


subgraph_builder = StateGraph(SubgraphState)
subgraph_builder.add_node(subgraph_node_1)
subgraph_builder.add_edge(START, "subgraph_node_1")
subgraph = subgraph_builder.compile()

# Parent graph


class State(TypedDict):
    foo: str


def call_subgraph(state: State):
    # Transform the state to the subgraph state
    subgraph_output = subgraph.invoke({"bar": state["foo"]})
    # Transform response back to the parent state
    return {"foo": subgraph_output["bar"]}


builder = StateGraph(State)
builder.add_node("node_1", call_subgraph)
builder.add_edge(START, "node_1")
graph = builder.compile()
print(graph.invoke({"foo": "foo"}))


async def acall_subgraph(state: State):
    subgraph_output = await subgraph.ainvoke({"bar": state["foo"]})
    return {"foo": subgraph_output["bar"]}


agraph = StateGraph(State).add_node("node_1", acall_subgraph).add_edge(START, "node_1").compile()


def ask(state: SubgraphState):
    return {"bar": state["bar"] + " " + interrupt("more?")}


asking = StateGraph(SubgraphState).add_node(ask).add_edge(START, "ask").compile()


def call_asking(state: State):
    print("call_asking runs")
    return {"foo": asking.invoke({"bar": state["foo"]})["bar"]}


parent = StateGraph(State).add_node(call_asking).add_edge(START, "call_asking")
parent = parent.compile(checkpointer=InMemorySaver())


async def main() -> None:
    async for namespace, chunk in agraph.astream({"foo": "foo"}, subgraphs=True):
        print([part.split(":")[0] for part in namespace], chunk)


asyncio.run(main())

config = {"configurable": {"thread_id": "1"}}
print(parent.invoke({"foo": "tell me"}, config))
print(parent.get_state(config).next)
print(parent.invoke(Command(resume="please"), config))
