"""Scenarios of the Runtime of graph nodes and tools, shared by CPython and Pyodide.

Every ``scenario_<behaviour>`` coroutine states one behaviour in its docstring
and checks it with plain ``assert``; each expects a task of its own on any
asyncio event loop (``asyncio.run`` on CPython, Pyodide's WebLoop in Node and
in the browser). Scenarios marked ``pyodide_only`` need JavaScript. Cancelling
a run is in cancel_scenarios.py.

This module imports only pyctx_web and the standard library.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, TypedDict

from pyctx_web import IN_PYODIDE, AsyncLocalStorage, require_execution_context
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.middleware import AgentMiddleware
from pyctx_web.graph.runtime import Runtime, get_runtime
from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import interrupt
from tests.scenarios.common import SessionData, pyodide_only

marker: AsyncLocalStorage[str] = AsyncLocalStorage(name="run_context_scenarios.marker")


class State(TypedDict, total=False):
    """The state of the scenario graphs."""

    text: str
    seen: Any
    answer: Any


def tenant_of_caller() -> str | None:
    """A service function: it finds the tenant without being given anything."""
    return require_execution_context().tenant_id


@tool(
    parameters={
        "type": "object",
        "properties": {"by": {"type": "integer", "minimum": 1}},
        "required": ["by"],
    }
)
async def increment_session(args: dict[str, Any], runtime: Runtime[SessionData]) -> int:
    """Add ``by`` to the session count."""
    await asyncio.sleep(0)
    runtime.context.session_count += args["by"]
    return runtime.context.session_count


async def scenario_typed_context_changed_by_a_tool_reaches_later_nodes_of_its_run_only() -> None:
    """A tool's change to runtime.context.session_count is seen by the next node, no other run."""

    async def bump(state: State, runtime: Runtime[SessionData]) -> dict[str, Any]:
        await runtime.call_tool("increment_session", {"by": 1})
        return {}

    def report(state: State, runtime: Runtime[SessionData]) -> dict[str, Any]:
        return {"seen": (runtime.context.user, runtime.context.session_count)}

    app = (
        StateGraph(State)
        .add_node("bump", bump)
        .add_node("report", report)
        .add_edge(START, "bump")
        .add_edge("bump", "report")
        .compile(context=SessionData(), tools=[increment_session])
    )
    results = await asyncio.gather(*(app.ainvoke({}, context={"user": f"u{i}"}) for i in range(3)))
    assert [r["seen"] for r in results] == [("u0", 1), ("u1", 1), ("u2", 1)]
    assert (await app.ainvoke({}))["seen"] == ("anonymous", 1)


@tool(
    parameters={
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "string"}}},
        "required": ["items"],
    }
)
async def process_items(args: dict[str, Any], runtime: Runtime[Any]) -> int:
    """Process items one by one, reporting progress."""
    items = args["items"]
    runtime.stream_writer({"event": "processing:started", "total": len(items)})
    for done in range(1, len(items) + 1):
        await asyncio.sleep(0)
        runtime.stream_writer({"event": "processing:progress", "completed": done})
    runtime.stream_writer({"event": "processing:completed", "total": len(items)})
    return len(items)


def _event_of(mode: str, chunk: Any) -> tuple[str, ...]:
    """A streamed chunk in short: a task's start or end, or a custom chunk's event."""
    if mode == "tasks":
        return ("task:start" if "input" in chunk else "task:end", chunk["name"])
    if mode == "custom":
        return (chunk["event"],)
    return (mode, *chunk)


async def scenario_node_tool_and_progress_events_stream_in_order() -> None:
    """Task starts, tool events, progress, each task's update, then its end stream in order."""

    async def work(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        return {"answer": await runtime.call_tool("process_items", {"items": ["a", "b"]})}

    def ask(state: State) -> dict[str, Any]:
        return {"seen": interrupt("more?")}

    app = (
        StateGraph(State)
        .add_node("work", work)
        .add_node("ask", ask)
        .add_edge(START, "work")
        .add_edge("work", "ask")
        .compile(InMemorySaver(), tools=[process_items])
    )
    modes = ["tasks", "custom", "updates"]
    chunks = [c async for c in app.astream({}, thread_id="t", stream_mode=modes)]
    assert [_event_of(mode, chunk) for mode, chunk in chunks] == [
        ("task:start", "work"),
        ("tool:start",),
        ("processing:started",),
        ("processing:progress",),
        ("processing:progress",),
        ("processing:completed",),
        ("tool:end",),
        ("updates", "work"),
        ("task:end", "work"),
        ("task:start", "ask"),
        ("updates", "__interrupt__"),
        ("task:end", "ask"),
    ]
    custom = [chunk for mode, chunk in chunks if mode == "custom"]
    assert [c.get("completed") for c in custom[2:4]] == [1, 2]
    assert custom[0] == {
        "event": "tool:start",
        "tool": "process_items",
        "args": {"items": ["a", "b"]},
        "id": None,
    }
    ended = custom[-1]
    assert (ended["tool"], ended["result"], ended["error"]) == ("process_items", 2, None)
    ask_end = chunks[-1][1]
    assert [i["value"] for i in ask_end["interrupts"]] == ["more?"]


@tool
async def tenant_tool(args: dict[str, Any], runtime: Runtime[Any]) -> str | None:
    """Return the tenant a service function finds from inside a tool."""
    await asyncio.sleep(0)
    return tenant_of_caller()


async def scenario_execution_context_reaches_services_from_nodes_and_tools() -> None:
    """A service function finds each concurrent run's tenant from a node and from a tool."""

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        from_node = tenant_of_caller()
        return {"seen": (from_node, await runtime.call_tool("tenant_tool", {}))}

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(tools=[tenant_tool])
    )
    results = await asyncio.gather(
        *(app.ainvoke({}, execution_context={"tenant_id": f"t{i}"}) for i in range(4))
    )
    assert [r["seen"] for r in results] == [(f"t{i}", f"t{i}") for i in range(4)]


@pyodide_only
async def scenario_js_timer_callback_sees_the_runs_execution_context() -> None:
    """A jsbridge.set_timeout callback bound in a node or a tool sees the run's tenant."""
    assert IN_PYODIDE, "this scenario needs JavaScript"
    from pyctx_web.jsbridge import set_timeout

    async def via_timer() -> tuple[str | None, bool]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[str | None, bool]] = loop.create_future()
        info = get_runtime().execution_info
        assert info is not None

        def callback() -> None:
            future.set_result((tenant_of_caller(), get_runtime().execution_info == info))

        set_timeout(callback, 0)
        return await future

    @tool
    async def timer_tool(args: dict[str, Any], runtime: Runtime[Any]) -> tuple[str | None, bool]:
        """Read the tenant from a JavaScript timer callback."""
        return await via_timer()

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        return {"seen": [await via_timer(), await runtime.call_tool("timer_tool", {})]}

    app = (
        StateGraph(State).add_node("node", node).add_edge(START, "node").compile(tools=[timer_tool])
    )
    results = await asyncio.gather(
        *(app.ainvoke({}, execution_context={"tenant_id": f"t{i}"}) for i in range(3))
    )
    assert [r["seen"] for r in results] == [[(f"t{i}", True), (f"t{i}", True)] for i in range(3)]


async def scenario_twenty_concurrent_runs_are_isolated() -> None:
    """20 runs in flight at once each see only their own context, runtime and context store."""
    runs = 20
    arrived = 0
    everyone_in = asyncio.Event()
    ended: dict[str, Any] = {}

    def look(runtime: Runtime[Any]) -> tuple[Any, ...]:
        found: Runtime[Any] = get_runtime()
        return (
            runtime.context["who"],
            runtime.context["set_before"],
            tenant_of_caller(),
            marker.get_store(),
            found.context is runtime.context and found.execution_info == runtime.execution_info,
        )

    class Isolation(AgentMiddleware[Any]):
        def before_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            runtime.context["set_before"] = runtime.context["who"]
            marker.enter_with(runtime.context["who"])

        def after_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            ended[runtime.context["who"]] = look(runtime)

    @tool
    async def whoami(args: dict[str, Any], runtime: Runtime[Any]) -> tuple[Any, ...]:
        """Report what the tool sees of its run."""
        marker.enter_with("set by the tool")
        await asyncio.sleep(0)
        return look(runtime)[:3]

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        nonlocal arrived
        arrived += 1
        if arrived == runs:
            everyone_in.set()
        await everyone_in.wait()
        from_tool = await runtime.call_tool("whoami", {})
        return {"seen": [look(runtime), from_tool]}

    async def later(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"seen": [*state["seen"], look(runtime)]}

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_node("later", later)
        .add_edge(START, "node")
        .add_edge("node", "later")
        .compile(context={"who": None}, middleware=[Isolation()], tools=[whoami])
    )
    results = await asyncio.gather(
        *(
            app.ainvoke({}, context={"who": f"w{i}"}, execution_context={"tenant_id": f"w{i}"})
            for i in range(runs)
        )
    )
    for i, result in enumerate(results):
        who = f"w{i}"
        mine = (who, who, who, who, True)
        assert result["seen"] == [mine, (who, who, who), mine]
        assert ended[who] == mine
    assert marker.get_store() is None


@dataclass
class _Services:
    """A run context holding what cannot be deep-copied."""

    lock: Any
    db: Any
    visits: int = 0


async def scenario_run_context_is_never_deep_copied() -> None:
    """A default holding a lock and an SQLite connection works; runs get a shallow copy each."""
    import sqlite3
    import threading

    default = _Services(threading.Lock(), sqlite3.connect(":memory:"))

    def visit(state: dict[str, Any], runtime: Runtime[_Services]) -> dict[str, Any]:
        services = runtime.context
        with services.lock:
            services.visits += 1
            (one,) = services.db.execute("SELECT 1").fetchone()
        return {"seen": (services.visits, one, services.lock is default.lock)}

    class Seen(TypedDict, total=False):
        seen: Any

    builder = StateGraph(Seen).add_node("visit", visit).add_edge(START, "visit")
    app = builder.compile(context=default)
    assert (await app.ainvoke({}))["seen"] == (1, 1, True)
    assert (await app.ainvoke({}))["seen"] == (1, 1, True)  # the last run's field is not seen
    assert default.visits == 0
    given = _Services(threading.Lock(), default.db, visits=10)
    assert (await app.ainvoke({}, context=given))["seen"] == (11, 1, False)
    assert given.visits == 11  # the object given is the run's context itself
    default.db.close()
