"""Scenarios of the run context of graph nodes and tools, shared by CPython and Pyodide.

Every ``scenario_<behaviour>`` coroutine states one behaviour in its docstring
and checks it with plain ``assert``; each expects a task of its own on any
asyncio event loop (``asyncio.run`` on CPython, Pyodide's WebLoop in Node and
in the browser). Scenarios marked ``pyodide_only`` need JavaScript.

This module imports only pyctx_web and the standard library.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from pyctx_web import IN_PYODIDE, AsyncLocalStorage, require_execution_context
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver as InMemoryCheckpointer
from pyctx_web.graph.errors import RunCancelledError
from pyctx_web.graph.events import RunEvent
from pyctx_web.graph.runtime import Hooks, RunContext, RunOutcome, get_run_context
from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import StateSnapshot, interrupt

F = TypeVar("F", bound=Callable[..., Coroutine[Any, Any, None]])

marker: AsyncLocalStorage[str] = AsyncLocalStorage(name="run_context_scenarios.marker")


def pyodide_only(fn: F) -> F:
    """Mark a scenario that needs JavaScript; CPython runners skip it."""
    fn.pyodide_only = True  # type: ignore[attr-defined]
    return fn


class State(TypedDict, total=False):
    """The state of the scenario graphs."""

    text: str
    seen: Any
    answer: Any


def tenant_of_caller() -> str | None:
    """A service function: it finds the tenant without being given anything."""
    return require_execution_context().tenant_id


@dataclass
class SessionData:
    """The typed data of the session graph."""

    user: str = "anonymous"
    session_count: int = 0


@tool(
    parameters={
        "type": "object",
        "properties": {"by": {"type": "integer", "minimum": 1}},
        "required": ["by"],
    }
)
async def increment_session(args: dict[str, Any], ctx: RunContext[SessionData]) -> int:
    """Add ``by`` to the session count."""
    await asyncio.sleep(0)
    ctx.data.session_count += args["by"]
    return ctx.data.session_count


async def scenario_typed_data_changed_by_a_tool_reaches_later_nodes_of_its_run_only() -> None:
    """A tool's change to ctx.data.session_count is seen by the next node and by no other run."""

    async def bump(state: State, ctx: RunContext[SessionData]) -> dict[str, Any]:
        await ctx.call_tool("increment_session", {"by": 1})
        return {}

    def report(state: State, ctx: RunContext[SessionData]) -> dict[str, Any]:
        return {"seen": (ctx.data.user, ctx.data.session_count)}

    app = (
        StateGraph(State)
        .add_node("bump", bump)
        .add_node("report", report)
        .add_edge(START, "bump")
        .add_edge("bump", "report")
        .compile(data=SessionData(), tools=[increment_session])
    )
    results = await asyncio.gather(*(app.ainvoke({}, data={"user": f"u{i}"}) for i in range(3)))
    assert [r["seen"] for r in results] == [("u0", 1), ("u1", 1), ("u2", 1)]
    assert (await app.ainvoke({}))["seen"] == ("anonymous", 1)


@tool(
    parameters={
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "string"}}},
        "required": ["items"],
    }
)
async def process_items(args: dict[str, Any], ctx: RunContext[Any]) -> int:
    """Process items one by one, reporting progress."""
    items = args["items"]
    ctx.emit("processing:started", {"total": len(items)})
    for done in range(1, len(items) + 1):
        await asyncio.sleep(0)
        ctx.emit("processing:progress", {"completed": done, "total": len(items)})
    ctx.emit("processing:completed", {"total": len(items)})
    return len(items)


async def scenario_events_reach_listeners_in_order() -> None:
    """Built-in run, node, tool and interrupt events and a tool's progress events come in order."""

    async def work(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        return {"answer": await ctx.call_tool("process_items", {"items": ["a", "b"]})}

    def ask(state: State) -> dict[str, Any]:
        return {"seen": interrupt("more?")}

    app = (
        StateGraph(State)
        .add_node("work", work)
        .add_node("ask", ask)
        .add_edge(START, "work")
        .add_edge("work", "ask")
        .compile(InMemoryCheckpointer(), tools=[process_items])
    )
    events: list[RunEvent] = []
    app.on("*", events.append)
    await app.ainvoke({}, thread_id="t")
    progress = [e.payload["completed"] for e in events if e.name == "processing:progress"]
    assert progress == [1, 2]
    assert [(e.name, e.node) for e in events if e.name != "processing:progress"] == [
        ("run:start", None),
        ("node:start", "work"),
        ("tool:start", "work"),
        ("processing:started", "work"),
        ("processing:completed", "work"),
        ("tool:end", "work"),
        ("node:end", "work"),
        ("node:start", "ask"),
        ("interrupt", "ask"),
        ("node:end", "ask"),
        ("run:end", None),
    ]
    names = [e.name for e in events]
    assert names.index("processing:started") < names.index("processing:progress")
    assert names.index("processing:progress") < names.index("processing:completed")
    payloads = {e.name: e.payload for e in events if e.name != "processing:progress"}
    assert payloads["processing:started"] == {"total": 2}
    assert payloads["processing:completed"] == {"total": 2}
    assert payloads["interrupt"]["value"] == "more?"
    assert payloads["node:end"]["status"] == "interrupted"
    assert payloads["run:end"]["status"] == "interrupt"
    assert len({e.run_id for e in events}) == 1


@tool(
    parameters={
        "type": "object",
        "properties": {"confirm": {"type": "boolean"}},
        "required": ["confirm"],
    }
)
def dangerous_action(args: dict[str, Any], ctx: RunContext[Any]) -> str:
    """Do something irreversible, or cancel the run when not confirmed."""
    if not args["confirm"]:
        ctx.cancel("not confirmed")
        return "cancelling"
    return "done"


async def scenario_tool_cancel_stops_the_run_and_keeps_the_last_checkpoint() -> None:
    """A tool calling ctx.cancel() ends the run at its next await and keeps the checkpoint."""
    outcomes: list[RunOutcome] = []
    reached: list[str] = []
    before: list[StateSnapshot] = []

    def prepare(state: State) -> dict[str, Any]:
        return {"text": "prepared"}

    async def act(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        before.append(await app.aget_state(ctx.thread_id))
        result = await ctx.call_tool("dangerous_action", {"confirm": ctx.data["confirm"]})
        await asyncio.sleep(0)
        reached.append("after the await")
        return {"answer": result}

    app = (
        StateGraph(State)
        .add_node("prepare", prepare)
        .add_node("act", act)
        .add_edge(START, "prepare")
        .add_edge("prepare", "act")
        .compile(
            InMemoryCheckpointer(),
            data={"confirm": False},
            hooks=Hooks(on_end=lambda ctx, outcome: outcomes.append(outcome)),
            tools=[dangerous_action],
        )
    )
    cancelled: RunCancelledError | None = None
    try:
        await app.ainvoke({}, thread_id="t")
    except RunCancelledError as caught:
        cancelled = caught
    assert cancelled is not None, "the run was not cancelled"
    assert cancelled.reason == "not confirmed"
    assert reached == []
    assert outcomes == [RunOutcome("cancelled", reason="not confirmed")]
    snapshot = await app.aget_state("t")
    assert (snapshot.values, snapshot.next) == ({"text": "prepared"}, ("act",))
    assert [snapshot] == before
    done = await app.ainvoke(None, thread_id="t", data={"confirm": True})
    assert done == {"text": "prepared", "answer": "done"}


@tool
async def tenant_tool(args: dict[str, Any], ctx: RunContext[Any]) -> str | None:
    """Return the tenant a service function finds from inside a tool."""
    await asyncio.sleep(0)
    return tenant_of_caller()


async def scenario_execution_context_reaches_services_from_nodes_and_tools() -> None:
    """A service function finds each concurrent run's tenant from a node and from a tool."""

    async def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        from_node = tenant_of_caller()
        return {"seen": (from_node, await ctx.call_tool("tenant_tool", {}))}

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
        ctx = require_run_context_for_timer()

        def callback() -> None:
            future.set_result((tenant_of_caller(), get_run_context() is ctx))

        set_timeout(callback, 0)
        return await future

    @tool
    async def timer_tool(args: dict[str, Any], ctx: RunContext[Any]) -> tuple[str | None, bool]:
        """Read the tenant from a JavaScript timer callback."""
        return await via_timer()

    async def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        return {"seen": [await via_timer(), await ctx.call_tool("timer_tool", {})]}

    app = (
        StateGraph(State).add_node("node", node).add_edge(START, "node").compile(tools=[timer_tool])
    )
    results = await asyncio.gather(
        *(app.ainvoke({}, execution_context={"tenant_id": f"t{i}"}) for i in range(3))
    )
    assert [r["seen"] for r in results] == [[(f"t{i}", True), (f"t{i}", True)] for i in range(3)]


def require_run_context_for_timer() -> RunContext[Any]:
    """The current run's context, which a timer callback must find again."""
    ctx = get_run_context()
    assert ctx is not None
    return ctx


async def scenario_twenty_concurrent_runs_are_isolated() -> None:
    """20 runs in flight at once each see only their own data, user_context and contexts."""
    runs = 20
    arrived = 0
    everyone_in = asyncio.Event()
    ended: dict[str, Any] = {}

    def on_start(ctx: RunContext[Any]) -> None:
        ctx.user_context["who"] = ctx.data["who"]
        marker.enter_with(ctx.data["who"])

    def look(ctx: RunContext[Any]) -> tuple[Any, ...]:
        return (
            ctx.data["who"],
            ctx.user_context["who"],
            tenant_of_caller(),
            marker.get_store(),
            get_run_context() is ctx,
        )

    @tool
    async def whoami(args: dict[str, Any], ctx: RunContext[Any]) -> tuple[Any, ...]:
        """Report what the tool sees of its run."""
        marker.enter_with("set by the tool")
        await asyncio.sleep(0)
        return look(ctx)[:3]

    async def node(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        nonlocal arrived
        arrived += 1
        if arrived == runs:
            everyone_in.set()
        await everyone_in.wait()
        from_tool = await ctx.call_tool("whoami", {})
        return {"seen": [look(ctx), from_tool]}

    async def later(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"seen": [*state["seen"], look(ctx)]}

    def on_end(ctx: RunContext[Any], outcome: RunOutcome) -> None:
        ended[ctx.data["who"]] = look(ctx)

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_node("later", later)
        .add_edge(START, "node")
        .add_edge("node", "later")
        .compile(data={"who": None}, hooks=Hooks(on_start=on_start, on_end=on_end), tools=[whoami])
    )
    results = await asyncio.gather(
        *(
            app.ainvoke({}, data={"who": f"w{i}"}, execution_context={"tenant_id": f"w{i}"})
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
    """Run data holding what cannot be deep-copied."""

    lock: Any
    db: Any
    visits: int = 0


async def scenario_run_data_is_never_deep_copied() -> None:
    """A default holding a lock and an SQLite connection works; runs get a shallow copy each."""
    import sqlite3
    import threading

    default = _Services(threading.Lock(), sqlite3.connect(":memory:"))

    def visit(state: dict[str, Any], ctx: RunContext[_Services]) -> dict[str, Any]:
        with ctx.data.lock:
            ctx.data.visits += 1
            (one,) = ctx.data.db.execute("SELECT 1").fetchone()
        return {"seen": (ctx.data.visits, one, ctx.data.lock is default.lock)}

    class Seen(TypedDict, total=False):
        seen: Any

    app = StateGraph(Seen).add_node("visit", visit).add_edge(START, "visit")
    app = app.compile(data=default)
    assert (await app.ainvoke({}))["seen"] == (1, 1, True)
    assert (await app.ainvoke({}))["seen"] == (1, 1, True)  # the last run's field is not seen
    assert default.visits == 0
    given = _Services(threading.Lock(), default.db, visits=10)
    assert (await app.ainvoke({}, data=given))["seen"] == (11, 1, False)
    assert given.visits == 11  # the object given is the run's data itself
    default.db.close()
