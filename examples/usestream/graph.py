"""An assistant that asks before it acts: the graph of the ``useStream`` example page.

Written against LangGraph's and LangChain's public names only, so the same file runs on
real LangGraph (``langgraph dev`` with ``langgraph.json`` beside it) and on pyctx_web in the
page's worker (with pyctx_web registered under LangGraph's names). Its chat model is
scripted: no network, no key; its reply follows from the conversation so far.

A turn: the model asks who should receive the report (the ``ask_user`` tool, answered by
the person through an interrupt), then wants to send it (the ``send_email`` tool, a side
effect the person approves or rejects through an interrupt), then streams a last answer.
Both interrupts carry LangChain's human-in-the-loop request
(``{"action_requests": [...], "review_configs": [...]}``) and are resumed with
``{"decisions": [{"type": ...}]}``, as LangChain's ``HumanInTheLoopMiddleware`` asks.
"""

from __future__ import annotations

import asyncio
import json
import operator
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import interrupt

QUESTION = "Who should receive the report?"
SUBJECT = "The weekly report"


class State(TypedDict):
    messages: Annotated[list[BaseMessage], add_messages]
    outbox: Annotated[list[dict[str, str]], operator.add]
    """The emails sent: the side effect the person approved."""


def _last_tool_result(messages: list[BaseMessage]) -> ToolMessage | None:
    last = messages[-1] if messages else None
    return last if isinstance(last, ToolMessage) else None


def script(messages: list[BaseMessage]) -> AIMessage:
    """The scripted model's reply to ``messages``: ask, then send, then say what happened."""
    result = _last_tool_result(messages)
    turn = len(messages)
    if result is None:
        call = {"name": "ask_user", "args": {"question": QUESTION}, "id": f"ask_{turn}"}
        return AIMessage(content="", tool_calls=[call])
    if result.name == "ask_user":
        args = {"to": str(result.content), "subject": SUBJECT}
        return AIMessage(
            content="", tool_calls=[{"name": "send_email", "args": args, "id": f"send_{turn}"}]
        )
    if result.status == "error":
        return AIMessage(content="All right, I did not send the report.")
    return AIMessage(content=f"Done: {result.content}.")


def _tokens(text: str) -> Iterator[str]:
    words = text.split(" ")
    for index, word in enumerate(words):
        yield word if index == len(words) - 1 else word + " "


class ScriptedChatModel(BaseChatModel):
    """A chat model without network: :func:`script` says what it replies; the reply's text
    streams a word at a time, ``token_delay`` seconds apart."""

    token_delay: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=script(messages))])

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        reply = script(messages)
        if reply.tool_calls:
            chunks = [
                {
                    "name": call["name"],
                    "args": json.dumps(call["args"]),
                    "id": call["id"],
                    "index": 0,
                }
                for call in reply.tool_calls
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))
            return
        for token in _tokens(str(reply.content)):
            yield ChatGenerationChunk(message=AIMessageChunk(content=token))
            await asyncio.sleep(self.token_delay)


model = ScriptedChatModel(token_delay=0.05)


async def agent(state: State) -> dict[str, Any]:
    """The model's turn: a reply that may call a tool."""
    return {"messages": [await model.ainvoke(state["messages"])]}


def _request(call: dict[str, Any]) -> dict[str, Any]:
    """The human-in-the-loop request for one tool call."""
    if call["name"] == "ask_user":
        description, allowed = "The assistant needs your answer to go on.", ["respond"]
    else:
        description, allowed = (
            "An email cannot be called back once it is sent.",
            ["approve", "reject"],
        )
    return {
        "action_requests": [
            {"name": call["name"], "args": call["args"], "description": description}
        ],
        "review_configs": [{"action_name": call["name"], "allowed_decisions": allowed}],
    }


def _decision(answer: Any, allowed: list[str]) -> dict[str, Any]:
    decisions = answer.get("decisions") if isinstance(answer, dict) else None
    if not isinstance(decisions, list) or len(decisions) != 1 or not isinstance(decisions[0], dict):
        raise ValueError(f"resume with {{'decisions': [one decision]}}, not {answer!r}")
    decision: dict[str, Any] = decisions[0]
    if decision.get("type") not in allowed:
        raise ValueError(
            f"the decision's type must be one of {allowed}, not {decision.get('type')!r}"
        )
    return decision


def review(state: State) -> dict[str, Any]:
    """Each tool call of the model's last message: the person answers or decides, then it runs."""
    last = state["messages"][-1]
    assert isinstance(last, AIMessage)
    messages: list[ToolMessage] = []
    outbox: list[dict[str, str]] = []
    for call in last.tool_calls:
        request = _request(dict(call))
        allowed = request["review_configs"][0]["allowed_decisions"]
        decision = _decision(interrupt(request), allowed)
        name, call_id = call["name"], str(call["id"])
        if decision["type"] == "respond":
            content, status = str(decision.get("message", "")), "success"
        elif decision["type"] == "approve":
            outbox.append({"to": call["args"]["to"], "subject": call["args"]["subject"]})
            content, status = (
                f"sent {call['args']['subject'].lower()} to {call['args']['to']}",
                "success",
            )
        else:
            content, status = str(decision.get("message") or "The person rejected it."), "error"
        messages.append(
            ToolMessage(content=content, tool_call_id=call_id, name=name, status=status)
        )
    return {"messages": messages, "outbox": outbox}


def route(state: State) -> str:
    """Review the model's tool calls, or end the turn when it made none."""
    last = state["messages"][-1]
    return "review" if isinstance(last, AIMessage) and last.tool_calls else END


builder = StateGraph(State)
builder.add_node("agent", agent)
builder.add_node("review", review)
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", route, ["review", END])
builder.add_edge("review", "agent")
graph = builder.compile()
