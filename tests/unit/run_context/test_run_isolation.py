"""Execution context, tool argument checks and isolation between nodes, tool calls and runs.

What CPython and Pyodide share is in tests/scenarios/run_context_scenarios.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web import (
    AsyncLocalStorage,
    ExecutionContext,
    current_execution_context,
    require_execution_context,
    with_execution_context,
)
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.errors import ToolArgumentError, UnknownToolError
from pyctx_web.graph.middleware import AgentMiddleware, ToolCallRequest
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.tools import tool

marker: AsyncLocalStorage[str] = AsyncLocalStorage(name="test.marker")

left_open: list[AbstractContextManager[ExecutionContext]] = []
"""Execution-context blocks entered and never exited (kept so they are not collected)."""


def leave_open(**values: Any) -> None:
    """Enter a with_execution_context block and never leave it."""
    block = with_execution_context(**values)
    block.__enter__()
    left_open.append(block)


@pytest.fixture
def close_left_open() -> Iterator[None]:
    """After the test, end the blocks it left open (their own contexts are gone by then)."""
    yield
    while left_open:
        with contextlib.suppress(ValueError):  # reset in another context than the one set
            left_open.pop().__exit__(None, None, None)


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    seen: dict[str, Any]
    problems: list[str]


def tenant_of_caller() -> str | None:
    """A service function: it finds the tenant without being given anything."""
    return require_execution_context().tenant_id


def _merge(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    return {**(left or {}), **(right or {})}


class Shared(TypedDict, total=False):
    """State whose ``seen`` dicts from parallel nodes are merged."""

    seen: Annotated[dict[str, Any], _merge]


# --- execution context ----------------------------------------------------------------------------


@tool
async def tenant_tool(args: dict[str, Any], runtime: Runtime[Any]) -> str | None:
    """Return the tenant a service function finds from inside a tool."""
    await asyncio.sleep(0)
    return tenant_of_caller()


@pytest.mark.asyncio
async def test_execution_context_given_or_merged_onto_the_callers() -> None:
    """An ExecutionContext is used as given; a mapping merges onto the caller's one."""
    contexts: list[tuple[ExecutionContext | None, str | None]] = []

    def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        assert runtime.execution_info is not None
        contexts.append((current_execution_context(), runtime.execution_info.run_id))
        return {}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    given = ExecutionContext.of(tenant_id="t", correlation_id="corr-1")
    await app.ainvoke({}, execution_context=given)
    with with_execution_context(tenant_id="outer", user_id="u"):
        await app.ainvoke({}, execution_context={"user_id": "v"})
        await app.ainvoke({})
    (first, _), (second, second_run), (third, _) = contexts
    assert first == given
    assert second is not None
    assert second.to_dict() == {
        "tenant_id": "outer",
        "user_id": "v",
        "correlation_id": second_run,
    }
    assert third is not None
    assert third.user_id == "u"
    with pytest.raises(
        TypeError, match=r"^execution_context must be an ExecutionContext or a mapping, not 'int'$"
    ):
        await app.ainvoke({}, execution_context=42)  # type: ignore[arg-type]  # under test


@pytest.mark.asyncio
async def test_plus_inside_a_node_is_not_seen_by_other_nodes_or_runs() -> None:
    """ExecutionContext.plus in a node changes neither a parallel node, the next node nor a run."""
    release = asyncio.Event()

    async def changer(state: Shared, runtime: Runtime[Any]) -> dict[str, Any]:
        changed = require_execution_context().plus("tenant_id", "changed")
        assert tenant_of_caller() == runtime.context["tenant"]
        with with_execution_context(changed):
            await release.wait()
            inside = tenant_of_caller()
        return {"seen": {"changer": inside, "after": tenant_of_caller()}}

    async def sibling(state: Shared, runtime: Runtime[Any]) -> dict[str, Any]:
        seen = tenant_of_caller()
        release.set()
        return {"seen": {"sibling": seen}}

    def later(state: Shared, runtime: Runtime[Any]) -> dict[str, Any]:
        return {"seen": {"later": tenant_of_caller()}}

    app = (
        StateGraph(Shared)
        .add_node("changer", changer)
        .add_node("sibling", sibling)
        .add_node("later", later)
        .add_edge(START, "changer")
        .add_edge(START, "sibling")
        .add_edge("changer", "later")
        .add_edge("sibling", "later")
        .compile(context={"tenant": ""})
    )
    first, second = await asyncio.gather(
        app.ainvoke({}, context={"tenant": "acme"}, execution_context={"tenant_id": "acme"}),
        app.ainvoke({}, context={"tenant": "globex"}, execution_context={"tenant_id": "globex"}),
    )
    assert first["seen"] == {
        "changer": "changed",
        "after": "acme",
        "sibling": "acme",
        "later": "acme",
    }
    assert second["seen"] == {
        "changer": "changed",
        "after": "globex",
        "sibling": "globex",
        "later": "globex",
    }


# --- what nodes and tools set in the context store ------------------------------------------------


@tool
async def leaky_tool(args: dict[str, Any], runtime: Runtime[Any]) -> dict[str, Any]:
    """Set the context store without cleaning up, and report what it saw first."""
    saw = {"marker": marker.get_store(), "tenant": tenant_of_caller()}
    marker.enter_with(f"tool-{args['n']}")
    leave_open(tenant_id=f"tool-{args['n']}")
    await asyncio.sleep(0)
    assert marker.get_store() == f"tool-{args['n']}"
    return saw


@pytest.mark.asyncio
@pytest.mark.usefixtures("close_left_open")
async def test_each_node_and_tool_call_runs_in_its_own_copy_of_the_context() -> None:
    """What a node or tool sets with enter_with or an open with_execution_context stays in it."""
    gate = asyncio.Event()

    async def setter(state: Shared, runtime: Runtime[Any]) -> dict[str, Any]:
        marker.enter_with("setter")
        leave_open(tenant_id="leaked")
        first = await runtime.call_tool("leaky_tool", {"n": 1})
        second = await runtime.call_tool("leaky_tool", {"n": 2})
        own = {"marker": marker.get_store(), "tenant": tenant_of_caller()}
        gate.set()
        await asyncio.sleep(0)
        return {"seen": {"tool_1": first, "tool_2": second, "setter": own}}

    async def sibling(state: Shared, runtime: Runtime[Any]) -> dict[str, Any]:
        await gate.wait()
        return {"seen": {"sibling": {"marker": marker.get_store(), "tenant": tenant_of_caller()}}}

    def later(state: Shared, runtime: Runtime[Any]) -> dict[str, Any]:
        return {"seen": {"later": {"marker": marker.get_store(), "tenant": tenant_of_caller()}}}

    app = (
        StateGraph(Shared)
        .add_node("setter", setter)
        .add_node("sibling", sibling)
        .add_node("later", later)
        .add_edge(START, "setter")
        .add_edge(START, "sibling")
        .add_edge("setter", "later")
        .add_edge("sibling", "later")
        .compile(tools=[leaky_tool])
    )
    result = await app.ainvoke({}, execution_context={"tenant_id": "acme"})
    clean = {"marker": None, "tenant": "acme"}
    assert result["seen"] == {
        "tool_1": {"marker": "setter", "tenant": "leaked"},
        "tool_2": {"marker": "setter", "tenant": "leaked"},
        "setter": {"marker": "setter", "tenant": "leaked"},
        "sibling": clean,
        "later": clean,
    }
    again = await app.ainvoke({}, execution_context={"tenant_id": "acme"})
    assert again["seen"]["sibling"] == clean
    assert marker.get_store() is None
    assert current_execution_context() is None


# --- tool arguments -------------------------------------------------------------------------------

ORDER = {
    "type": "object",
    "properties": {
        "item": {"type": "string"},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
        "speed": {"enum": ["standard", "express"]},
    },
    "required": ["item", "quantity"],
}


@tool(name="place_order", parameters=ORDER)
def place_order(args: dict[str, Any], runtime: Runtime[Any]) -> str:
    """Place an order."""
    return f"{args['quantity']} x {args['item']}"


def _order_graph(args: Any, **compile_args: Any) -> Any:
    async def order(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        try:
            await runtime.call_tool("place_order", args)
        except ToolArgumentError as error:
            return {"problems": error.problems, "seen": {"tool": error.tool}}
        return {"problems": []}

    return (
        StateGraph(State)
        .add_node("order", order)
        .add_edge(START, "order")
        .compile(tools=[place_order], **compile_args)
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("args", "problems"),
    [
        ({"quantity": 2}, ["args.item: required property is missing"]),
        ({"item": 7, "quantity": 2}, ["args.item: expected string, got integer (7)"]),
        (
            {"item": "pen", "quantity": 2, "speed": "warp"},
            ["args.speed: 'warp' is not one of 'standard', 'express'"],
        ),
        ({"item": "pen", "quantity": 0}, ["args.quantity: 0 is less than the minimum 1"]),
        ({"item": "pen", "quantity": 11}, ["args.quantity: 11 is greater than the maximum 10"]),
        (
            {"quantity": "two", "speed": "warp"},
            [
                "args.item: required property is missing",
                "args.quantity: expected integer, got string ('two')",
                "args.speed: 'warp' is not one of 'standard', 'express'",
            ],
        ),
    ],
    ids=["missing", "type", "enum", "minimum", "maximum", "all-at-once"],
)
async def test_call_tool_with_bad_arguments_lists_each_problem(
    args: dict[str, Any], problems: list[str]
) -> None:
    """call_tool raises ToolArgumentError listing every way the arguments break the schema."""
    app = _order_graph(args)
    chunks = [c async for c in app.astream({}, stream_mode=["custom", "values"])]
    result = chunks[-1][1]
    assert result["problems"] == problems
    assert result["seen"] == {"tool": "place_order"}
    assert [mode for mode, _ in chunks if mode == "custom"] == []  # no tool:start: it never ran


@pytest.mark.asyncio
async def test_arguments_rewritten_by_middleware_are_checked_again() -> None:
    """Arguments that awrap_tool_call middleware breaks are refused before the tool runs."""

    class Breaker(AgentMiddleware[Any]):
        async def awrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
            broken = {**request.tool_call, "args": {**request.tool_call["args"], "quantity": 99}}
            return await handler(request.override(tool_call=broken))

    app = _order_graph({"item": "pen", "quantity": 1}, middleware=[Breaker()])
    assert (await app.ainvoke({}))["problems"] == [
        "args.quantity: 99 is greater than the maximum 10"
    ]


@pytest.mark.asyncio
async def test_bad_arguments_fail_the_run_when_not_caught() -> None:
    """A ToolArgumentError the node does not catch is what ainvoke raises, problems included."""

    async def order(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        await runtime.call_tool("place_order", {"item": "pen"})
        return {}

    app = (
        StateGraph(State)
        .add_node("order", order)
        .add_edge(START, "order")
        .compile(tools=[place_order])
    )
    with pytest.raises(
        ToolArgumentError,
        match=(
            r"^invalid arguments for tool 'place_order':\n"
            r"  args\.quantity: required property is missing$"
        ),
    ):
        await app.ainvoke({})


@pytest.mark.asyncio
async def test_unknown_tool_lists_the_known_ones() -> None:
    """Calling a tool the graph does not have raises UnknownToolError naming the known tools."""

    async def node(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        await runtime.call_tool("refund", {})
        return {}

    app = (
        StateGraph(State)
        .add_node("node", node)
        .add_edge(START, "node")
        .compile(tools=[place_order, tenant_tool])
    )
    with pytest.raises(
        UnknownToolError,
        match=r"^unknown tool 'refund'; known tools: 'place_order', 'tenant_tool'$",
    ) as caught:
        await app.ainvoke({})
    assert caught.value.known == ["place_order", "tenant_tool"]
