"""Functional API guide, "Streaming" LLM tokens: a model called in ``@task`` functions.

Follows the functional API guide's streaming section: an ``@entrypoint`` calls
``@task`` functions that call a LangChain chat model (the fake chat model of
``langchain_core``, which streams its answer word by word as the guide's model
does), and ``stream_mode="messages"`` yields each token with the metadata of the
task that called the model. A task that returns a message of its own streams it
whole, a task called in a task nests its namespace, and a ``StateGraph`` node
calling a task streams the task's tokens under the task's name too.
"""

import asyncio

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, MessagesState, StateGraph

model = GenericFakeChatModel(
    messages=iter(
        [
            AIMessage(content=text)
            for text in ("a short joke", "nested words", "a dog joke", "more words", "in a node")
        ]
    )
)


@task
async def call_model(topic: str):
    return await model.ainvoke(f"Tell me a joke about {topic}")


@task
async def sign(text: str):
    return AIMessage(content=f"{text} -- signed", id="signed-1")


@task
async def outer(topic: str):
    inner = await call_model(topic)
    return inner.content


@entrypoint(checkpointer=InMemorySaver())
async def workflow(topic: str):
    joke = await call_model(topic)
    signed = await sign(joke.content)
    nested = await outer(topic)
    return {"joke": joke.content, "signed": signed.content, "nested": nested}


KEYS = ("langgraph_node", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns")


async def node(state: MessagesState):
    reply = await call_model("nodes")
    return {"messages": [reply]}


graph = StateGraph(MessagesState).add_node(node).add_edge(START, "node").compile()


async def main():
    config = {"configurable": {"thread_id": "1"}}
    seen = []
    async for msg, metadata in workflow.astream("cats", config, stream_mode="messages"):
        if msg.id not in seen:
            seen.append(msg.id)
            print("message", len(seen), {key: metadata.get(key) for key in KEYS})
            print("   checkpoint_ns", metadata.get("checkpoint_ns"))
        print("  ", type(msg).__name__, repr(msg.content))
    print(await workflow.ainvoke("dogs", {"configurable": {"thread_id": "2"}}))

    inputs = {"messages": [{"role": "user", "content": "hi"}]}
    async for msg, metadata in graph.astream(inputs, stream_mode="messages"):
        print(metadata["langgraph_node"], type(msg).__name__, repr(msg.content))
        print("  ", metadata["langgraph_path"], metadata.get("checkpoint_ns"))


if __name__ == "__main__":
    asyncio.run(main())
