"""A chat model's streamed reply, custom events and a subgraph: every stream mode has events.

The model is LangChain's scripted chat model (``GenericFakeChatModel``), made in the node so
that each run streams the same tokens.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages


class State(TypedDict):
    messages: Annotated[list[Any], add_messages]


def reply(state: State) -> dict[str, Any]:
    """Stream a scripted reply token by token, telling the custom stream before and after."""
    writer = get_stream_writer()
    writer({"progress": "thinking"})
    model = GenericFakeChatModel(
        messages=iter([AIMessage(content="hello from the model", id="m-reply")])
    )
    message = model.invoke(state["messages"])
    writer({"progress": "done"})
    return {"messages": [message]}


def note(state: State) -> dict[str, Any]:
    """Inside the subgraph: a custom event and a whole message (no model)."""
    get_stream_writer()({"progress": "noted"})
    return {"messages": [AIMessage(content=f"noted {len(state['messages'])}", id="m-note")]}


inner = StateGraph(State)
inner.add_node("note", note)
inner.add_edge(START, "note")
inner.add_edge("note", END)

builder = StateGraph(State)
builder.add_node("reply", reply)
builder.add_node("notes", inner.compile())
builder.add_edge(START, "reply")
builder.add_edge("reply", "notes")
builder.add_edge("notes", END)
graph = builder.compile()
