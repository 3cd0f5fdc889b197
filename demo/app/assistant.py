"""The demo assistant: a graph ``intake -> enrich -> plan -> respond`` that asks when in doubt.

``enrich`` calls ``interrupt({question, reason, choices})`` for a vague request
("help me with email") and goes on with the answer; ``plan`` calls a tool;
``respond`` streams its answer token by token, each token delivered by a
JavaScript timer bound with :mod:`pyctx_web.jsbridge` (a ``loop.call_later``
outside Pyodide). Every node, the tool and the timer callbacks report what the
context store shows them (run id, thread id, correlation id) as ``inspect``
events; nodes also keep those records in the ``trace`` state key.
"""

from __future__ import annotations

import asyncio
import operator
from dataclasses import dataclass, field
from typing import Annotated, Any

from models import OfflineModel, OpenAICompatibleModel, assess, make_plan

from pyctx_web import IN_PYODIDE, current_execution_context
from pyctx_web.chat import plain_message
from pyctx_web.graph import END, START, MessagesState, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.runtime import RunContext, require_run_context
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import interrupt

__all__ = ["AssistantData", "ChatState", "build_assistant", "observe"]


class ChatState(MessagesState, total=False):
    """The checkpointed state of a chat thread: ``MessagesState`` and the turn's work."""

    request: str
    clarification: str
    plan: list[str]
    trace: Annotated[list[dict[str, Any]], operator.add]


@dataclass
class AssistantData:
    """Per-run data: the model to answer with; never checkpointed, so no API key is stored."""

    model: OfflineModel | OpenAICompatibleModel = field(default_factory=OfflineModel)
    """The model chosen in the settings panel."""


def observe(kind: str, name: str) -> dict[str, Any]:
    """What the context store shows the calling code, sent to the inspector and returned."""
    ctx = require_run_context()
    execution = current_execution_context()
    record = {
        "kind": kind,
        "name": name,
        "run_id": ctx.run_id,
        "thread_id": ctx.thread_id,
        "correlation_id": execution.correlation_id if execution is not None else None,
        "step": ctx.step,
    }
    ctx.emit("inspect", record)
    return record


async def intake(state: ChatState, ctx: RunContext[AssistantData]) -> dict[str, Any]:
    """Take the newest user message as the request of this turn."""
    messages = [plain_message(m) for m in state.get("messages", [])]
    request = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    return {
        "request": request,
        "clarification": "",
        "plan": [],
        "trace": [observe("node", "intake")],
    }


async def enrich(state: ChatState, ctx: RunContext[AssistantData]) -> dict[str, Any]:
    """Ask what the user means when the request is too vague to plan."""
    question = assess(state.get("request", ""))
    seen = observe("node", "enrich")
    if question is None:
        return {"trace": [seen]}
    answer = str(interrupt(question)).strip()
    return {
        "clarification": answer,
        "messages": [
            {"role": "assistant", "content": question["question"]},
            {"role": "user", "content": answer},
        ],
        "trace": [seen],
    }


@tool(
    name="make_plan",
    description="Three steps that carry out the request as the clarification narrows it.",
    parameters={
        "type": "object",
        "properties": {"request": {"type": "string"}, "clarification": {"type": "string"}},
        "required": ["request", "clarification"],
        "additionalProperties": False,
    },
)
def make_plan_tool(args: dict[str, Any], ctx: RunContext[AssistantData]) -> dict[str, Any]:
    return {
        "steps": make_plan(args["request"], args["clarification"]),
        "seen": observe("tool", "make_plan"),
    }


async def plan(state: ChatState, ctx: RunContext[AssistantData]) -> dict[str, Any]:
    """Plan the answer with the make_plan tool."""
    seen = observe("node", "plan")
    result = await ctx.call_tool(
        "make_plan",
        {"request": state.get("request", ""), "clarification": state.get("clarification", "")},
    )
    return {"plan": result["steps"], "trace": [seen, result["seen"]]}


async def _deliver(token: str, delay_ms: float, seen: list[dict[str, Any]]) -> None:
    """Write ``token`` to the stream from a timer callback, and wait until it is written."""
    loop = asyncio.get_running_loop()
    written: asyncio.Future[None] = loop.create_future()

    def fire() -> None:
        # Runs when the timer fires, in the context captured when it was set: the
        # run context and the execution context are this run's, whatever ran in between.
        record = observe("timer", "token") if not seen else None
        ctx = require_run_context()
        if seen and (ctx.thread_id != seen[0]["thread_id"] or ctx.run_id != seen[0]["run_id"]):
            record = observe("timer", "token (crossed)")
        if record is not None:
            seen.append(record)
        ctx.write({"token": token})
        if not written.done():
            written.set_result(None)

    if IN_PYODIDE:
        from pyctx_web.jsbridge import set_timeout

        handle = set_timeout(fire, delay_ms)
        cancel = handle.cancel
    else:
        timer = loop.call_later(delay_ms / 1000, fire)
        cancel = timer.cancel
    try:
        await written
    finally:
        cancel()


async def respond(state: ChatState, ctx: RunContext[AssistantData]) -> dict[str, Any]:
    """Stream the answer, each token delivered by a timer callback."""
    seen_by_node = observe("node", "respond")
    model = ctx.data.model
    request, clarification = state.get("request", ""), state.get("clarification", "")
    steps = state.get("plan", [])
    tokens: list[str] = []
    timers: list[dict[str, Any]] = []
    async for token in model.stream_answer(request, clarification, steps):
        await _deliver(token, model.token_delay_ms, timers)
        tokens.append(token)
    text = "".join(tokens).strip()
    ctx.add_usage(
        prompt_tokens=len(f"{request} {clarification}".split()), completion_tokens=len(tokens)
    )
    return {
        "messages": [{"role": "assistant", "content": text}],
        "trace": [seen_by_node, *timers[:1]],
    }


def build_assistant(checkpointer: Checkpointer) -> CompiledStateGraph:
    """Compile the demo assistant over ``checkpointer``."""
    builder = StateGraph(ChatState)
    builder.add_node("intake", intake)
    builder.add_node("enrich", enrich)
    builder.add_node("plan", plan)
    builder.add_node("respond", respond)
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "enrich")
    builder.add_edge("enrich", "plan")
    builder.add_edge("plan", "respond")
    builder.add_edge("respond", END)
    return builder.compile(
        checkpointer=checkpointer,
        name="demo-assistant",
        tools=[make_plan_tool],
        data=AssistantData(),
    )
