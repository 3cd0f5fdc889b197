"""LangGraph's tool calling guide (ToolNode), the error handling section, called directly and
awaited: the whole error message each form of ``handle_tool_errors`` sends back.

A StateGraph whose model node asks for the calls and whose ``ToolNode`` answers
them, awaited with ``ainvoke``; then a ToolNode reading a custom ``messages_key``. Calls: an
invalid tool name, arguments the schema refuses, a tool raising ``ValueError``,
a tool raising ``ToolException`` (handled by the tool itself), and a good call
beside a failing one. Handling: the default, True, a message, a handler
function, a handler taking a union of errors, and False.
"""

import asyncio

from langchain_core.messages import AIMessage
from langchain_core.tools import ToolException, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict


@tool
async def divide(a: int, b: int) -> float:
    """Divide a by b."""
    if b < 0:
        raise ValueError(f"negative divisor {b}")
    return a / b


def refuse(error: ToolException) -> str:
    return f"refused: {error}"


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    raise ToolException(f"{url} is offline")


fetch.handle_tool_error = refuse


def on_value(error: ValueError) -> str:
    return f"value handler: {error}"


def on_either(error: ValueError | TypeError) -> str:
    return f"union handler: {type(error).__name__}"


CASES = {
    "invalid_name": [{"name": "multiply", "args": {"a": 1}, "id": "c1"}],
    "bad_args": [{"name": "divide", "args": {"a": "x"}, "id": "c2"}],
    "raises": [{"name": "divide", "args": {"a": 1, "b": -2}, "id": "c3"}],
    "tool_exception": [{"name": "fetch", "args": {"url": "a.example"}, "id": "c4"}],
    "good_and_bad": [
        {"name": "divide", "args": {"a": 6, "b": 3}, "id": "c5"},
        {"name": "divide", "args": {"a": 1, "b": -1}, "id": "c6"},
    ],
}


def build(node, calls, key="messages", schema=MessagesState):
    def model(state):
        return {key: [AIMessage("", tool_calls=calls)]}

    return (
        StateGraph(schema)
        .add_node("model", model)
        .add_node("tools", node)
        .add_edge(START, "model")
        .add_edge("model", "tools")
        .add_edge("tools", END)
        .compile()
    )


class History(TypedDict):
    history: list


async def main():
    for handle in ("default", True, "it failed", on_value, on_either, False):
        label = getattr(handle, "__name__", repr(handle))
        kwargs = {} if handle == "default" else {"handle_tool_errors": handle}
        node = ToolNode([divide, fetch], **kwargs)
        for case, calls in CASES.items():
            try:
                out = await build(node, calls).ainvoke({"messages": [("user", "go")]})
            except Exception as error:
                print(label, case, "raises", type(error).__name__, str(error).splitlines()[0])
                continue
            for reply in out["messages"][2:]:
                print(label, case, reply.tool_call_id, reply.name, reply.status)
                for line in str(reply.content).splitlines():
                    print("   |", line)

    node = ToolNode([divide], messages_key="history", handle_tool_errors="no")
    graph = build(node, CASES["good_and_bad"], "history", History)
    out = await graph.ainvoke({"history": []})
    print("messages_key:", sorted(out), [(m.type, m.content) for m in out["history"]])


if __name__ == "__main__":
    asyncio.run(main())
