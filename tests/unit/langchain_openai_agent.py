"""A tool-calling agent on ``ChatOpenAI``, streamed with ``stream_mode="messages"``.

``python langchain_openai_agent.py BASE_URL`` runs it against the OpenAI-compatible
server at ``BASE_URL`` and prints what the stream yields, one line per item: the
message's type, content, tool call chunks and finish reason, and the metadata.
It is written against LangGraph's module names, so it runs on real LangGraph
(``.venv-langgraph``) and on pyctx_web through ``tests/differential/launcher.py``;
``tests/unit/test_langchain_openai_graph.py`` compares the two. In Pyodide,
``tests/pyodide/test_langchain_models.py`` imports it and awaits :func:`main` with
``pyctx_web.http.chat_openai`` as the model's maker.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, MessagesState, StateGraph
from pydantic import SecretStr


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def build(base_url: str, make_model: Callable[..., Any] = ChatOpenAI) -> Any:
    """The agent graph: ``agent`` calls the model, ``tools`` runs the calls it asks for."""
    model = make_model(
        model="scripted", base_url=base_url, api_key=SecretStr("sk-test"), max_retries=0
    )
    with_tools = model.bind_tools([multiply])

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await with_tools.ainvoke(state["messages"])]}

    async def tools(state: MessagesState) -> dict[str, Any]:
        calls = state["messages"][-1].tool_calls
        return {
            "messages": [
                ToolMessage(str(multiply.invoke(c["args"])), tool_call_id=c["id"]) for c in calls
            ]
        }

    def route(state: MessagesState) -> Literal["tools", "__end__"]:
        return "tools" if state["messages"][-1].tool_calls else END

    return (
        StateGraph(MessagesState)
        .add_node(agent)
        .add_node(tools)
        .add_edge(START, "agent")
        .add_conditional_edges("agent", route)
        .add_edge("tools", "agent")
        .compile()
    )


def describe(message: Any, metadata: dict[str, Any]) -> str:
    """One line for a ``(message, metadata)`` item of the stream."""
    calls = [
        (c.get("name"), c.get("args"), c.get("id"))
        for c in getattr(message, "tool_call_chunks", None) or []
    ]
    finish = message.response_metadata.get("finish_reason")
    return (
        f"{type(message).__name__} {message.content!r} {calls} {finish} {sorted(metadata.items())}"
    )


async def main(base_url: str, make_model: Callable[..., Any] = ChatOpenAI) -> None:
    """Stream the agent's answer to one question, printing each item, then its messages."""
    graph = build(base_url, make_model)
    inputs = {"messages": [{"role": "user", "content": "What is 6 times 7?"}]}
    final: dict[str, Any] = {}
    async for mode, chunk in graph.astream(inputs, stream_mode=["messages", "values"]):
        if mode == "messages":
            print(describe(*chunk))
        else:
            final = chunk
    print([(type(m).__name__, m.content, getattr(m, "tool_calls", [])) for m in final["messages"]])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
