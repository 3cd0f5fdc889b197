"""Streaming guide, "LLM tokens" in async nodes: filter by tags and by node, "nostream", subgraphs.

Follows the guide's async tabs: nodes ``await`` LangChain chat models (the fake
chat models of ``langchain_core``, which stream their answer word by word as the
guide's models do) and ``astream(..., stream_mode="messages")`` yields each token
with its metadata. "Filter by LLM invocation": models tagged ``joke`` and ``poem``
(``tags=`` and ``with_config``), a model tagged ``nostream`` whose tokens stay out
of the stream, one read with ``astream`` in the node. "Filter by node": the
metadata's ``langgraph_node``. Then the messages a node returns itself (the ones
it was given are not streamed again, a ``Command``'s are), and tokens of a model
in a subgraph, with and without ``subgraphs=True``; last, a model in a node a
``Send`` started.
"""

import asyncio
from typing import TypedDict

from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Command, Send


def fake_model(*answers, **kwargs):
    return GenericFakeChatModel(
        messages=iter([AIMessage(content=answer) for answer in answers]), **kwargs
    )


joke_model = fake_model("why did the cat sit", tags=["joke"])
poem_model = fake_model("roses are red").with_config(tags=["poem"])
hidden_model = fake_model("private notes", tags=["nostream"])
list_model = FakeListChatModel(responses=["on the mat"])


class State(TypedDict):
    topic: str
    joke: str
    poem: str


async def write_joke(state: State):
    prompt = [{"role": "user", "content": f"Write a joke about {state['topic']}"}]
    joke = await joke_model.ainvoke(prompt)
    notes = await hidden_model.ainvoke(prompt)
    ending = "".join([chunk.content async for chunk in list_model.astream(prompt)])
    return {"joke": f"{joke.content} {ending} ({len(notes.content)} chars of notes)"}


async def write_poem(state: State):
    poem = await poem_model.ainvoke(f"Write a poem about {state['topic']}")
    return {"poem": poem.content}


graph = (
    StateGraph(State)
    .add_node(write_joke)
    .add_node(write_poem)
    .add_edge(START, "write_joke")
    .add_edge("write_joke", "write_poem")
    .compile(checkpointer=InMemorySaver())
)

KEYS = (
    "checkpoint_ns",
    "langgraph_checkpoint_ns",
    "langgraph_node",
    "langgraph_step",
    "langgraph_triggers",
    "langgraph_path",
    "ls_provider",
    "ls_model_type",
    "tags",
    "thread_id",
    "user",
)


# Messages a node returns, and a subgraph's model


async def echo(state: MessagesState):
    return {"messages": [*state["messages"], AIMessage(content="echoed", id="echo-1")]}


async def hand_over(state: MessagesState):
    return Command(update={"messages": [AIMessage(content="over to the expert", id="c-1")]})


expert_model = fake_model("the expert says hi", "the expert says bye")


async def expert(state: MessagesState):
    return {"messages": [await expert_model.ainvoke(state["messages"])]}


expert_graph = StateGraph(MessagesState).add_node(expert).add_edge(START, "expert").compile()

chat = (
    StateGraph(MessagesState)
    .add_node(echo)
    .add_node(hand_over)
    .add_node("expert_graph", expert_graph)
    .add_edge(START, "echo")
    .add_edge("echo", "hand_over")
    .add_edge("hand_over", "expert_graph")
    .compile()
)


# A model called in a task that a Send started ("map-reduce" guide)

draft_model = fake_model("a draft")


async def draft(task: dict):
    return {"messages": [await draft_model.ainvoke(task["prompt"])]}


def plan(state: MessagesState):
    return [Send("draft", {"prompt": "write"})]


drafts = (
    StateGraph(MessagesState)
    .add_node(draft)
    .add_conditional_edges(START, plan, ["draft"])
    .compile()
)


async def main():
    config = {"configurable": {"thread_id": "1"}, "metadata": {"user": "ada"}, "tags": ["demo"]}
    jokes, models = [], []
    async for msg, metadata in graph.astream({"topic": "cats"}, config, stream_mode="messages"):
        if msg.id not in models:
            models.append(msg.id)
            print("model", len(models), {key: metadata[key] for key in KEYS if key in metadata})
        print(" ", type(msg).__name__, repr(msg.content), "from model", models.index(msg.id) + 1)
        if "joke" in metadata.get("tags", []):
            jokes.append(msg.content)
        if metadata["langgraph_node"] == "write_poem":
            print("  poem token", repr(msg.content))
    print("joke tokens:", "".join(jokes))
    print((await graph.aget_state(config)).values)

    # The whole messages nodes return: those given to the node are not streamed again.
    inputs = {"messages": [HumanMessage(content="hello", id="h-1")]}
    async for msg, metadata in chat.astream(inputs, stream_mode="messages"):
        print(metadata["langgraph_node"], type(msg).__name__, repr(msg.content), msg.id[:7])

    # With subgraphs=True, the subgraph's tokens come with its namespace.
    async for namespace, (msg, metadata) in chat.astream(
        inputs, {"metadata": {"user": "bob"}}, stream_mode="messages", subgraphs=True
    ):
        print(namespace, metadata["langgraph_node"], type(msg).__name__, repr(msg.content))
        print("  ", metadata.get("checkpoint_ns"), metadata["langgraph_checkpoint_ns"], end=" ")
        print(metadata.get("user"))

    async for msg, metadata in drafts.astream(inputs, stream_mode="messages"):
        print(metadata["langgraph_node"], metadata["langgraph_triggers"], end=" ")
        print(metadata["langgraph_path"], type(msg).__name__, repr(msg.content))


if __name__ == "__main__":
    asyncio.run(main())
