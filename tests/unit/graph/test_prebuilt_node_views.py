"""graph.nodes: a compiled graph's nodes by name, each run on its own as LangGraph's are."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

from pyctx_web.graph import START, MessagesState, StateGraph
from pyctx_web.graph.prebuilt import ToolNode


@tool
def double(x: int) -> int:
    """Double x."""
    return 2 * x


def _graph() -> Any:
    def agent(state: MessagesState, config: Any) -> dict[str, Any]:
        tag = config["configurable"]["tag"]
        call = {"name": "double", "args": {"x": 2}, "id": tag}
        return {"messages": [AIMessage("", tool_calls=[call])]}

    async def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("done")]}

    builder = StateGraph(MessagesState).add_node("agent", agent)
    builder.add_node("tools", ToolNode([double])).add_node("answer", answer)
    return builder.add_edge(START, "agent").compile()


def test_a_node_runs_on_its_own() -> None:
    """nodes[name].invoke runs a ToolNode, a function given its config, and an async node."""
    graph = _graph()
    assert list(graph.nodes) == ["agent", "tools", "answer"]  # the order they were added
    asked = graph.nodes["agent"].invoke({"messages": []}, {"configurable": {"tag": "c1"}})
    [message] = asked["messages"]
    out = graph.nodes["tools"].invoke({"messages": [message]})
    assert out == {"messages": [ToolMessage("4", name="double", tool_call_id="c1")]}
    assert graph.nodes["answer"].invoke({"messages": []})["messages"][0].content == "done"
    done = asyncio.run(graph.nodes["answer"].ainvoke({"messages": []}))
    assert done["messages"][0].content == "done"
