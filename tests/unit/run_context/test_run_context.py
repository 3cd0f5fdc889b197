"""The run context of nodes and tools: typed data, memory, run state, middleware and events.

What CPython and Pyodide share is in tests/scenarios/run_context_scenarios.py.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver as InMemoryCheckpointer
from pyctx_web.graph.events import RunEvent
from pyctx_web.graph.memory import InMemoryMemory, MemoryEntry
from pyctx_web.graph.middleware import Middleware, MiddlewareContext
from pyctx_web.graph.runtime import Hooks, RunContext
from pyctx_web.graph.tools import tool


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str
    seen: Any
    answer: Any


@dataclass
class SessionData:
    """The typed data of the session graphs."""

    user: str = "anonymous"
    session_count: int = 0


@tool(
    parameters={
        "type": "object",
        "properties": {"by": {"type": "integer", "minimum": 1}},
        "required": ["by"],
    }
)
def increment_session(args: dict[str, Any], ctx: RunContext[SessionData]) -> int:
    """Add ``by`` to the session count of the run's data."""
    ctx.data.session_count += args["by"]
    return ctx.data.session_count


# --- typed data -----------------------------------------------------------------------------------


def _session_graph(seen: list[tuple[str, str, int]]) -> Any:
    async def bump(state: State, ctx: RunContext[SessionData]) -> dict[str, Any]:
        await ctx.call_tool("increment_session", {"by": 2})
        await asyncio.sleep(0)
        return {}

    def report(state: State, ctx: RunContext[SessionData]) -> dict[str, Any]:
        seen.append((ctx.run_id, ctx.data.user, ctx.data.session_count))
        return {"seen": ctx.data.session_count}

    return (
        StateGraph(State)
        .add_node("bump", bump)
        .add_node("report", report)
        .add_edge(START, "bump")
        .add_edge("bump", "report")
        .compile(data=SessionData(), tools=[increment_session])
    )


@pytest.mark.asyncio
async def test_data_with_an_unknown_field_is_refused() -> None:
    """Data naming a field the dataclass does not have is refused before the run."""
    app = _session_graph([])
    with pytest.raises(TypeError, match="data has no field"):
        await app.ainvoke({}, data={"colour": "red"})


# --- memory ---------------------------------------------------------------------------------------


@tool(
    parameters={
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "minimum": 0},
            "query": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    }
)
async def get_history(args: dict[str, Any], ctx: RunContext[Any]) -> list[str]:
    """Read back the session's remembered messages."""
    assert ctx.memory is not None
    entries = await ctx.memory.read(
        session_id=ctx.session_id,
        limit=args.get("limit"),
        query=args.get("query"),
        tags=args.get("tags"),
    )
    return [f"{e.role}:{e.content}" for e in entries]


def _chat_graph(memory: InMemoryMemory) -> Any:
    async def chat(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        assert ctx.memory is not None
        history = await ctx.call_tool("get_history", {"limit": 10})
        lines = state["text"].split("|")
        await ctx.memory.write(
            [
                MemoryEntry(
                    line,
                    role="user" if i % 2 == 0 else "assistant",
                    session_id=ctx.session_id,
                    tags=("order",) if "order" in line else ("chat",),
                )
                for i, line in enumerate(lines)
            ]
        )
        return {"seen": history}

    return (
        StateGraph(State)
        .add_node("chat", chat)
        .add_edge(START, "chat")
        .compile(InMemoryCheckpointer(), memory=memory, tools=[get_history])
    )


@pytest.mark.asyncio
async def test_same_thread_reads_back_the_first_runs_messages() -> None:
    """The second run of a thread reads the first run's messages (newest 10) through a tool."""
    memory = InMemoryMemory()
    app = _chat_graph(memory)
    first = [f"m{i}" for i in range(12)]
    assert (await app.ainvoke({"text": "|".join(first)}, thread_id="t1"))["seen"] == []
    second = await app.ainvoke({"text": "hello again"}, thread_id="t1")
    roles = ["user", "assistant"] * 6
    assert second["seen"] == [f"{roles[i]}:m{i}" for i in range(2, 12)]
    other = await app.ainvoke({"text": "hi"}, thread_id="t2")
    assert other["seen"] == []
    assert len(memory) == 14


@pytest.mark.asyncio
async def test_memory_read_filters_by_session_tags_and_query_in_a_run() -> None:
    """In a run, read keeps the session's entries, those with every tag, and those with the text."""
    memory = InMemoryMemory(
        [
            MemoryEntry("Order a pen", session_id="s1", tags=("order", "office")),
            MemoryEntry("hello", session_id="s1", tags=("chat",)),
            MemoryEntry("ORDER paper", session_id="s1", tags=("order",)),
            MemoryEntry("order ink", session_id="s2", tags=("order", "office")),
        ]
    )

    async def look(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        return {
            "seen": {
                "all": await ctx.call_tool("get_history", {}),
                "tags": await ctx.call_tool("get_history", {"tags": ["order", "office"]}),
                "query": await ctx.call_tool("get_history", {"query": "order"}),
                "both": await ctx.call_tool("get_history", {"query": "paper", "tags": ["order"]}),
            }
        }

    app = (
        StateGraph(State)
        .add_node("look", look)
        .add_edge(START, "look")
        .compile(memory=memory, tools=[get_history])
    )
    seen = (await app.ainvoke({}, thread_id="s1"))["seen"]
    assert seen == {
        "all": ["user:Order a pen", "user:hello", "user:ORDER paper"],
        "tags": ["user:Order a pen"],
        "query": ["user:Order a pen", "user:ORDER paper"],
        "both": ["user:ORDER paper"],
    }


# --- run state, middleware and events -------------------------------------------------------------


@tool
async def lookup(args: dict[str, Any], ctx: RunContext[Any]) -> str:
    """Look something up."""
    await asyncio.sleep(0)
    return f"found {args.get('q')}"


def _agent_graph(**compile_args: Any) -> Any:
    async def think(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        ctx.add_usage(prompt_tokens=10, completion_tokens=5)
        found = await ctx.call_tool("lookup", {"q": state.get("text", "")})
        return {"answer": found}

    def reply(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        ctx.add_usage(prompt_tokens=7, completion_tokens=3)
        ctx.add_message("assistant", str(state["answer"]))
        return {}

    return (
        StateGraph(State)
        .add_node("think", think)
        .add_node("reply", reply)
        .add_edge(START, "think")
        .add_edge("think", "reply")
        .add_edge("reply", END)
        .compile(tools=[lookup], **compile_args)
    )


@pytest.mark.asyncio
async def test_state_logger_middleware_reads_steps_tool_calls_tokens_and_duration() -> None:
    """A run:after middleware reads steps, tool calls, total tokens and duration from ctx.state."""
    logged: list[dict[str, Any]] = []

    async def state_logger(mctx: MiddlewareContext[Any], next_: Any) -> None:
        await next_()
        state = mctx.ctx.state
        logged.append(
            {
                "steps": [(s.node, s.status) for s in state.steps],
                "tool_calls": [(c.name, c.node, c.result) for c in state.tool_calls],
                "total_tokens": state.usage.total_tokens,
                "messages": [(m.role, m.content) for m in state.messages],
                "duration_ms": state.duration_ms,
                "finished": state.finished_at is not None and state.finished_at >= state.started_at,
            }
        )

    app = _agent_graph(middleware=[Middleware("state-logger", "run:after", state_logger)])
    await app.ainvoke({"text": "pens"})
    [entry] = logged
    assert entry["steps"] == [("think", "done"), ("reply", "done")]
    assert entry["tool_calls"] == [("lookup", "think", "found pens")]
    assert entry["total_tokens"] == 25
    assert entry["messages"] == [("assistant", "found pens")]
    assert isinstance(entry["duration_ms"], float)
    assert entry["duration_ms"] >= 0
    assert entry["finished"] is True


@pytest.mark.asyncio
async def test_analytics_middleware_sees_input_session_and_tool_and_emits_events() -> None:
    """run:before/run:after/tool:after middleware sees input, session and tool; on() hears it."""

    async def analytics(mctx: MiddlewareContext[Any], next_: Any) -> None:
        await next_()
        payload: dict[str, Any] = {"scope": mctx.scope, "session": mctx.ctx.session_id}
        if mctx.scope == "run:before":
            payload["input"] = mctx.ctx.input
        if mctx.tool is not None:
            payload["tool"] = mctx.tool.name
            payload["result"] = mctx.tool.result
        if mctx.scope == "run:after":
            payload["values"] = mctx.result
        mctx.ctx.emit("analytics", payload)

    app = _agent_graph(
        middleware=[Middleware("analytics", ["run:before", "run:after", "tool:after"], analytics)]
    )
    received: list[RunEvent] = []
    app.on("analytics", received.append)
    await app.ainvoke({"text": "ink"}, thread_id="session-7")
    assert [e.payload for e in received] == [
        {"scope": "run:before", "session": "session-7", "input": {"text": "ink"}},
        {"scope": "tool:after", "session": "session-7", "tool": "lookup", "result": "found ink"},
        {
            "scope": "run:after",
            "session": "session-7",
            "values": {"text": "ink", "answer": "found ink"},
        },
    ]
    assert {e.thread_id for e in received} == {"session-7"}
    assert [e.node for e in received] == [None, "think", None]


@pytest.mark.asyncio
async def test_unsubscribed_listener_hears_nothing_more() -> None:
    """The function on() returns unsubscribes the listener; others keep hearing events."""
    app = _agent_graph()
    first: list[str] = []
    second: list[str] = []
    stop = app.on("run:start", lambda e: first.append(e.run_id))
    app.on("run:start", lambda e: second.append(e.run_id))
    await app.ainvoke({})
    stop()
    await app.ainvoke({})
    assert len(first) == 1
    assert len(second) == 2


@pytest.mark.asyncio
async def test_middleware_onion_order_across_run_node_and_tool_points() -> None:
    """At every point the first registered middleware is outermost, around hooks, nodes, tools."""
    order: list[str] = []

    def layer(name: str) -> Middleware[Any]:
        async def run(mctx: MiddlewareContext[Any], next_: Any) -> None:
            order.append(f"{name}>{mctx.scope}")
            await next_()
            order.append(f"{name}<{mctx.scope}")

        return Middleware(name, ["run:before", "run:after", "node:before", "node:after",
                                 "tool:before", "tool:after"], run)  # fmt: skip

    @tool
    def noop(args: dict[str, Any], ctx: RunContext[Any]) -> None:
        """Do nothing."""
        order.append("tool")

    async def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        order.append("node")
        await ctx.call_tool("noop", {})
        return {}

    hooks: Hooks[Any] = Hooks(
        on_start=lambda ctx: order.append("on_start"),
        on_end=lambda ctx, outcome: order.append("on_end"),
    )
    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(middleware=[layer("A"), layer("B")], hooks=hooks, tools=[noop])
    )
    await app.ainvoke({})

    def point(scope: str) -> list[str]:
        return [f"A>{scope}", f"B>{scope}", f"B<{scope}", f"A<{scope}"]

    assert order == [
        *point("run:before"),
        "on_start",
        *point("node:before"),
        "node",
        *point("tool:before"),
        "tool",
        *point("tool:after"),
        *point("node:after"),
        *point("run:after"),
        "on_end",
    ]
