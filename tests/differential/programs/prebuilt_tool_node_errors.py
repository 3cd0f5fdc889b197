"""LangGraph's tool calling guide (ToolNode): which tool errors go back to the model.

A StateGraph with ToolNode and tools_condition: a call to an unknown tool, a call
whose arguments the schema refuses, and a tool that raises, under the default
handling, handle_tool_errors=True, a message, an exception type and a handler.
"""

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


def ask(calls):
    def model(state: MessagesState):
        if isinstance(state["messages"][-1], HumanMessage):
            return {"messages": [AIMessage("", tool_calls=calls)]}
        return {"messages": [AIMessage("done")]}

    return model


def build(handle, calls):
    kwargs = {} if handle == "default" else {"handle_tool_errors": handle}
    return (
        StateGraph(MessagesState)
        .add_node("model", ask(calls))
        .add_node("tools", ToolNode([divide], **kwargs))
        .add_edge(START, "model")
        .add_conditional_edges("model", tools_condition, ["tools", END])
        .add_edge("tools", "model")
        .compile()
    )


def on_zero(error: ZeroDivisionError) -> str:
    return f"cannot divide: {error}"


CASES = {
    "unknown": [{"name": "multiply", "args": {"a": 1, "b": 2}, "id": "c1"}],
    "bad_args": [{"name": "divide", "args": {"a": "x", "b": 2}, "id": "c2"}],
    "raises": [{"name": "divide", "args": {"a": 1, "b": 0}, "id": "c3"}],
    "two_calls": [
        {"name": "divide", "args": {"a": 6, "b": 3}, "id": "c4"},
        {"name": "divide", "args": {"a": 1, "b": 0}, "id": "c5"},
    ],
}

for handle in ("default", True, "it failed", (ZeroDivisionError,), on_zero, False):
    label = getattr(handle, "__name__", repr(handle))
    for case, calls in CASES.items():
        try:
            out = build(handle, calls).invoke({"messages": [HumanMessage("go")]})
        except Exception as error:
            print(label, case, "raises", type(error).__name__)
            continue
        for message in out["messages"]:
            if message.type == "tool":
                content = message.content.splitlines()[0]
                print(label, case, message.tool_call_id, message.status, repr(content))
