"""The graph and tools the HumanInTheLoopMiddleware tests share."""

from __future__ import annotations

from typing import Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.tools import Tool, tool

PREFIX = "Tool execution requires approval"
EMAIL_SCHEMA = {
    "type": "object",
    "properties": {"to": {"type": "string", "pattern": "@"}, "body": {"type": "string"}},
    "required": ["to"],
    "additionalProperties": False,
}


class State(TypedDict, total=False):
    """The graph's state: the calls the node makes and what became of them."""

    calls: list[Any]
    results: list[dict[str, Any]]


def make_tools(ran: list[tuple[str, dict[str, Any]]]) -> list[Tool]:
    """The four tools of the graph; each call they run is appended to ``ran``."""

    def make(name: str, schema: dict[str, Any]) -> Tool:
        def fn(args: dict[str, Any], runtime: Runtime[Any]) -> str:
            ran.append((name, dict(args)))
            return f"{name} done"

        return tool(name=name, description=f"The {name} tool.", parameters=schema)(fn)

    when = {"type": "object", "properties": {"when": {"type": "string"}}, "required": ["when"]}
    return [
        make("send_email", EMAIL_SCHEMA),
        make("schedule_meeting", when),
        make("read_data", {"type": "object"}),
        make("lookup", {"type": "object"}),
    ]


def review_graph(
    checkpointer: Checkpointer,
    ran: list[tuple[str, dict[str, Any]]],
    middleware: HumanInTheLoopMiddleware | None = None,
    extra: list[AgentMiddleware[Any]] | None = None,
) -> CompiledStateGraph:
    """A graph whose node ``act`` runs ``state["calls"]`` with ``runtime.call_tools``."""

    async def act(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        done = await runtime.call_tools(state["calls"])
        return {"results": [{**vars_of(r)} for r in done]}

    hitl = middleware or HumanInTheLoopMiddleware(
        interrupt_on={
            "send_email": True,
            "schedule_meeting": {"allowed_decisions": ["approve", "reject"]},
            "read_data": False,
        },
        description_prefix=PREFIX,
    )
    return (
        StateGraph(State)
        .add_node("act", act)
        .add_edge(START, "act")
        .compile(checkpointer, middleware=[*(extra or []), hitl], tools=make_tools(ran))
    )


def vars_of(result: Any) -> dict[str, Any]:
    """A ToolResult as a dict, for the state."""
    fields = ("name", "arguments", "result", "status", "id")
    return {f: dict(getattr(result, f)) if f == "arguments" else getattr(result, f) for f in fields}


EMAIL = {"name": "send_email", "arguments": {"to": "ann@example.com"}, "id": "call_1"}
MEETING = {"name": "schedule_meeting", "arguments": {"when": "friday"}, "id": "call_2"}


async def thread_records(saver: Checkpointer, thread_id: str) -> list[Any]:
    """Every stored checkpoint of the thread with its pending writes, newest first."""
    return [(r.checkpoint, r.writes) async for r in saver.alist(thread_id)]


def refusal(interrupt_id: str, problems: list[str]) -> str:
    """The whole message of the ResumeError refusing decisions for ``problems``."""
    return (
        f"the decisions on the tool calls under review were refused; nothing was stored and "
        f"interrupt {interrupt_id!r} still waits for them:\n  " + "\n  ".join(problems)
    )
