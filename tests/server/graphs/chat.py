"""A chat-like graph that asks the user a question (an interrupt) before it answers."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import interrupt


class State(TypedDict):
    messages: Annotated[list[Any], add_messages]
    topic: str


def ask(state: State) -> dict[str, Any]:
    """Ask which topic the answer should be about; the resume value is the topic."""
    topic = interrupt({"question": "Which topic?", "asked_after": len(state["messages"])})
    return {"topic": str(topic)}


def answer(state: State) -> dict[str, Any]:
    """Answer the last message on the chosen topic."""
    last = state["messages"][-1].content
    reply = {"role": "assistant", "content": f"About {state['topic']}: {last}", "id": "reply"}
    return {"messages": [reply]}


builder = StateGraph(State)
builder.add_node("ask", ask)
builder.add_node("answer", answer)
builder.add_edge(START, "ask")
builder.add_edge("ask", "answer")
builder.add_edge("answer", END)
graph = builder.compile()
