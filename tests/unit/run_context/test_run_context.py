"""The Runtime of nodes and tools: typed context, memory, the run's log, middleware, streaming.

What CPython and Pyodide share is in tests/scenarios/run_context_scenarios.py.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.config import get_config
from pyctx_web.graph.memory import InMemoryMemory, MemoryEntry
from pyctx_web.graph.middleware import AgentMiddleware, NodeCallRequest, ToolCallRequest
from pyctx_web.graph.runtime import RunLog, Runtime
from pyctx_web.graph.tools import tool
from tests.scenarios.common import SessionData


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    text: str
    seen: Any
    answer: Any


@tool(
    parameters={
        "type": "object",
        "properties": {"by": {"type": "integer", "minimum": 1}},
        "required": ["by"],
    }
)
def increment_session(args: dict[str, Any], runtime: Runtime[SessionData]) -> int:
    """Add ``by`` to the session count of the run's context."""
    runtime.context.session_count += args["by"]
    return runtime.context.session_count


# --- typed context --------------------------------------------------------------------------------


def _session_graph() -> Any:
    async def bump(state: State, runtime: Runtime[SessionData]) -> dict[str, Any]:
        await runtime.call_tool("increment_session", {"by": 2})
        await asyncio.sleep(0)
        return {}

    def report(state: State, runtime: Runtime[SessionData]) -> dict[str, Any]:
        return {"seen": runtime.context.session_count}

    return (
        StateGraph(State)
        .add_node("bump", bump)
        .add_node("report", report)
        .add_edge(START, "bump")
        .add_edge("bump", "report")
        .compile(context=SessionData(), tools=[increment_session])
    )


@pytest.mark.asyncio
async def test_context_with_an_unknown_field_is_refused() -> None:
    """A context dict naming a field the dataclass does not have is refused before the run."""
    app = _session_graph()
    with pytest.raises(
        ArgumentTypeError,
        match=r"^context has no field\(s\) 'colour'; SessionData has session_count, user$",
    ):
        await app.ainvoke({}, context={"colour": "red"})
    assert (await app.ainvoke({}, context={"user": "ada"}))["seen"] == 2


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
async def get_history(args: dict[str, Any], runtime: Runtime[Any]) -> list[str]:
    """Read back the session's remembered messages."""
    assert runtime.memory is not None
    assert runtime.execution_info is not None
    entries = await runtime.memory.read(
        session_id=runtime.execution_info.thread_id,
        limit=args.get("limit"),
        query=args.get("query"),
        tags=args.get("tags"),
    )
    return [f"{e.role}:{e.content}" for e in entries]


def _chat_graph(memory: InMemoryMemory) -> Any:
    async def chat(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        assert runtime.memory is not None
        assert runtime.execution_info is not None
        history = await runtime.call_tool("get_history", {"limit": 10})
        lines = state["text"].split("|")
        await runtime.memory.write(
            [
                MemoryEntry(
                    line,
                    role="user" if i % 2 == 0 else "assistant",
                    session_id=runtime.execution_info.thread_id,
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
        .compile(InMemorySaver(), memory=memory, tools=[get_history])
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

    async def look(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        call = runtime.call_tool
        return {
            "seen": {
                "all": await call("get_history", {}),
                "tags": await call("get_history", {"tags": ["order", "office"]}),
                "query": await call("get_history", {"query": "order"}),
                "both": await call("get_history", {"query": "paper", "tags": ["order"]}),
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


# --- the run's log, middleware and streaming ------------------------------------------------------


@tool
async def lookup(args: dict[str, Any], runtime: Runtime[Any]) -> str:
    """Look something up."""
    await asyncio.sleep(0)
    return f"found {args.get('q')}"


def _agent_graph(**compile_args: Any) -> Any:
    async def think(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        runtime.add_usage(prompt_tokens=10, completion_tokens=5)
        found = await runtime.call_tool("lookup", {"q": state.get("text", "")})
        return {"answer": found}

    def reply(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        runtime.add_usage(prompt_tokens=7, completion_tokens=3)
        runtime.add_message("assistant", str(state["answer"]))
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


def _logged(log: RunLog) -> dict[str, Any]:
    return {
        "steps": [(s.node, s.status) for s in log.steps],
        "tool_calls": [(c.name, c.node, c.result) for c in log.tool_calls],
        "total_tokens": log.usage.total_tokens,
        "messages": [(m.role, m.content) for m in log.messages],
    }


@pytest.mark.asyncio
async def test_state_logger_middleware_reads_steps_tool_calls_tokens_and_duration() -> None:
    """after_agent reads steps, tool calls, tokens from runtime.log; RunHandle.log the duration."""
    logged: list[dict[str, Any]] = []

    class StateLogger(AgentMiddleware[Any]):
        def after_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            logged.append({**_logged(runtime.log), "finished_at": runtime.log.finished_at})

    app = _agent_graph(middleware=[StateLogger()])
    handle = app.start({"text": "pens"})
    await handle
    [entry] = logged
    assert entry == {
        "steps": [("think", "done"), ("reply", "done")],
        "tool_calls": [("lookup", "think", "found pens")],
        "total_tokens": 25,
        "messages": [("assistant", "found pens")],
        "finished_at": None,
    }
    log = handle.log
    assert _logged(log) == {k: v for k, v in entry.items() if k != "finished_at"}
    assert isinstance(log.duration_ms, float)
    assert log.duration_ms >= 0
    assert log.finished_at is not None
    assert log.finished_at >= log.started_at


@pytest.mark.asyncio
async def test_analytics_middleware_sees_input_session_and_tool_and_streams_events() -> None:
    """before/after_agent and awrap_tool_call see input, session and tool, and stream them."""

    class Analytics(AgentMiddleware[Any]):
        def before_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            runtime.stream_writer({"hook": "before_agent", "session": _thread(), "input": state})

        async def awrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
            result = await handler(request)
            info = request.runtime.execution_info
            assert info is not None
            request.runtime.stream_writer(
                {
                    "hook": "awrap_tool_call",
                    "session": info.thread_id,
                    "tool": request.tool.name,
                    "result": result,
                }
            )
            return result

        def after_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            runtime.stream_writer({"hook": "after_agent", "session": _thread(), "values": state})

    app = _agent_graph(middleware=[Analytics()])
    received = [
        chunk
        async for chunk in app.astream({"text": "ink"}, thread_id="session-7", stream_mode="custom")
        if "hook" in chunk
    ]
    assert received == [
        {"hook": "before_agent", "session": "session-7", "input": {"text": "ink"}},
        {
            "hook": "awrap_tool_call",
            "session": "session-7",
            "tool": "lookup",
            "result": "found ink",
        },
        {
            "hook": "after_agent",
            "session": "session-7",
            "values": {"text": "ink", "answer": "found ink"},
        },
    ]


def _thread() -> str:
    thread: str = get_config()["configurable"]["thread_id"]
    return thread


@pytest.mark.asyncio
async def test_tool_calls_stream_start_and_end_chunks() -> None:
    """Each tool call streams a tool:start chunk and a tool:end chunk with its result or error."""

    @tool
    def fail(args: dict[str, Any]) -> None:
        """Fail."""
        raise ValueError("no")

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        await runtime.call_tools([{"name": "lookup", "arguments": {"q": "pen"}, "id": "c1"}])
        with pytest.raises(ValueError, match=r"^no$"):
            await runtime.call_tool("fail", {})
        return {}

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(tools=[lookup, fail])
    )
    chunks = [c async for c in app.astream({}, stream_mode="custom")]
    durations = [c.pop("duration_ms") for c in chunks if c["event"] == "tool:end"]
    assert all(isinstance(d, float) and d >= 0 for d in durations)
    assert chunks == [
        {"event": "tool:start", "tool": "lookup", "args": {"q": "pen"}, "id": "c1"},
        {"event": "tool:end", "tool": "lookup", "id": "c1", "result": "found pen", "error": None},
        {"event": "tool:start", "tool": "fail", "args": {}, "id": None},
        {
            "event": "tool:end",
            "tool": "fail",
            "id": None,
            "result": None,
            "error": "ValueError('no')",
        },
    ]


@pytest.mark.asyncio
async def test_middleware_onion_order_across_run_node_and_tool_points() -> None:
    """The first listed is outermost around nodes and tools; after_agent runs innermost first."""
    order: list[str] = []

    class Layer(AgentMiddleware[Any]):
        def __init__(self, label: str) -> None:
            self.label = label

        def before_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            order.append(f"{self.label}:before_agent")

        async def awrap_node_call(self, request: NodeCallRequest, handler: Any) -> Any:
            order.append(f"{self.label}>node:{request.node}")
            update = await handler(request)
            order.append(f"{self.label}<node:{update}")
            return update

        async def awrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
            order.append(f"{self.label}>tool:{request.tool_call['name']}")
            result = await handler(request)
            order.append(f"{self.label}<tool:{result}")
            return result

        async def aafter_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            order.append(f"{self.label}:after_agent")

    @tool
    def noop(args: dict[str, Any]) -> str:
        """Do nothing."""
        order.append("tool")
        return "nothing"

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        order.append("node")
        await runtime.call_tool("noop", {})
        return {"answer": 1}

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(middleware=[Layer("A"), Layer("B")], tools=[noop])
    )
    await app.ainvoke({})
    assert order == [
        "A:before_agent",
        "B:before_agent",
        "A>node:node",
        "B>node:node",
        "node",
        "A>tool:noop",
        "B>tool:noop",
        "tool",
        "B<tool:nothing",
        "A<tool:nothing",
        "B<node:{'answer': 1}",
        "A<node:{'answer': 1}",
        "B:after_agent",
        "A:after_agent",
    ]
