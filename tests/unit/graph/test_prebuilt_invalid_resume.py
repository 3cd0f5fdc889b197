"""An answer that interrupt(response_schema=...) rejects fails the run and saves nothing.

The question then still waits and can be answered again; ToolNode lets the error
through whatever its ``handle_tool_errors``, since the model did nothing wrong.
"""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, ToolCall
from langchain_core.tools import tool
from pydantic import BaseModel, ValidationError

from pyctx_web.graph import START, MessagesState, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.errors import is_invalid_resume
from pyctx_web.graph.prebuilt import ToolNode
from pyctx_web.graph.types import Command, interrupt


class Approval(BaseModel):
    approved: bool


class Answer(TypedDict, total=False):
    answer: str


@tool
def ask_human() -> str:
    """Ask a human for approval."""
    approval = interrupt("Approve?", response_schema=Approval)
    return f"approved={approval.approved}"


def _ask(state: Answer) -> Answer:
    approval = interrupt("Approve?", response_schema=Approval)
    return {"answer": f"approved={approval.approved}"}


def _call() -> dict[str, Any]:
    return {"messages": [AIMessage("", tool_calls=[ToolCall(name="ask_human", args={}, id="c1")])]}


def test_a_rejected_answer_leaves_the_question_waiting() -> None:
    """A node's rejected answer raises a marked ValidationError; the question still waits."""
    graph = StateGraph(Answer).add_node("ask", _ask).add_edge(START, "ask")
    app = graph.compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    [pending] = app.invoke({}, config)["__interrupt__"]
    with pytest.raises(ValidationError, match="approved") as raised:
        app.invoke(Command(resume={pending.id: {"approved": "maybe"}}), config)
    assert is_invalid_resume(raised.value)
    assert [i.id for i in app.get_state(config).interrupts] == [pending.id]
    done = app.invoke(Command(resume={pending.id: {"approved": True}}), config)
    assert done == {"answer": "approved=True"}


@pytest.mark.parametrize("handle", [True, (ValueError,), "handled"])
def test_tool_node_lets_a_rejected_answer_through(handle: Any) -> None:
    """ToolNode does not turn a rejected answer into a message, whatever handle_tool_errors is."""
    node = ToolNode([ask_human], handle_tool_errors=handle)
    graph = StateGraph(MessagesState).add_node("tools", node).add_edge(START, "tools")
    app = graph.compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    [pending] = app.invoke(_call(), config)["__interrupt__"]
    with pytest.raises(ValidationError, match="approved"):
        app.invoke(Command(resume={pending.id: {"approved": "maybe"}}), config)
    assert [i.id for i in app.get_state(config).interrupts] == [pending.id]
    done = app.invoke(Command(resume={pending.id: {"approved": True}}), config)
    assert done["messages"][-1].content == "approved=True"
