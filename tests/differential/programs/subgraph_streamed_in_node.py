"""Subgraphs guide, "Stream subgraph outputs", with the subgraph streamed from inside a node.

A node (sync, then async) streams a two-step graph and keeps what it gets; the
parent is streamed with and without ``subgraphs=True`` in the ``updates`` and
``tasks`` modes, and in the ``messages`` mode with a LangChain chat model in
the inner graph; ``invoke(..., subgraphs=True)``, and ``invoke(debug=True)``
printing each step's updates and values; then a streamed subgraph that asks a
question pauses the parent, and the parent's answer resumes it.
"""

import asyncio
import operator
from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
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


def outer_sync(state: Trail):
    seen = [chunk for chunk in inner.stream({"steps": []})]
    print("the node's stream:", seen)
    return {"steps": ["outer"]}


async def outer_async(state: Trail):
    seen = [chunk async for chunk in inner.astream({"steps": []}, stream_mode="values")]
    print("the node's async stream:", seen)
    return {"steps": ["outer"]}


def shown(namespace):
    return [part.split(":")[0] for part in namespace]


sync_graph = StateGraph(Trail).add_node("outer", outer_sync).add_edge(START, "outer").compile()
for namespace, chunk in sync_graph.stream({"steps": []}, subgraphs=True):
    print(shown(namespace), chunk)
print(list(sync_graph.stream({"steps": []})))
print(sync_graph.invoke({"steps": []}, subgraphs=True))

tasks = list(sync_graph.stream({"steps": []}, stream_mode="tasks", subgraphs=True))
outer_ids = {chunk["id"] for ns, chunk in tasks if ns == () and "input" in chunk}
inner_namespaces = {ns for ns, chunk in tasks if ns != ()}
print("namespace is node:task_id:", inner_namespaces == {(f"outer:{i}",) for i in outer_ids})

async_graph = StateGraph(Trail).add_node("outer", outer_async).add_edge(START, "outer").compile()


async def main() -> None:
    async for namespace, mode, chunk in async_graph.astream(
        {"steps": []}, stream_mode=["updates", "values"], subgraphs=True
    ):
        print(shown(namespace), mode, chunk)


asyncio.run(main())

model = GenericFakeChatModel(messages=iter([AIMessage("hello there", id="ai-1")]))
chat = (
    StateGraph(MessagesState)
    .add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    .add_edge(START, "model")
    .compile()
)


def talk(state: MessagesState, config):
    text = "".join(c.content for c, _ in chat.stream(state, config, stream_mode="messages"))
    return {"messages": [AIMessage(text, id="outer-1")]}


talker = StateGraph(MessagesState).add_node("talk", talk).add_edge(START, "talk").compile()
for namespace, (message, metadata) in talker.stream(
    {"messages": [("user", "hi")]}, stream_mode="messages", subgraphs=True
):
    print(
        shown(namespace), type(message).__name__, repr(message.content), metadata["langgraph_node"]
    )

print(sync_graph.invoke({"steps": []}, debug=True))


def ask(state: Trail):
    return {"steps": [interrupt("more?")]}


asking = StateGraph(Trail).add_node(ask).add_edge(START, "ask").compile()


async def call_asking(state: Trail):
    print("call_asking runs")
    last = None
    async for chunk in asking.astream({"steps": ["asked"]}, stream_mode="values"):
        print("inner chunk", chunk)
        last = chunk
    return {"steps": last["steps"]}


parent = StateGraph(Trail).add_node(call_asking).add_edge(START, "call_asking")
parent = parent.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
print(asyncio.run(parent.ainvoke({"steps": []}, config)))
print(parent.get_state(config).next)
print(asyncio.run(parent.ainvoke(Command(resume="please"), config)))
