"""Tools, JSON Schema checks, memory and middleware composition, each on its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pyctx_web.graph._runctx.jsonschema import validate
from pyctx_web.graph.memory import InMemoryMemory, MemoryEntry
from pyctx_web.graph.middleware import Middleware, MiddlewareContext, run_scope
from pyctx_web.graph.tools import Tool, ToolArgumentError, tool, tool_table

ORDER_SCHEMA = {
    "type": "object",
    "properties": {
        "item": {"type": "string", "minLength": 1},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
        "speed": {"enum": ["standard", "express"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["item", "quantity"],
    "additionalProperties": False,
}


def test_valid_arguments_have_no_problems() -> None:
    """Arguments that satisfy every keyword of the schema produce no problem."""
    assert (
        validate({"item": "pen", "quantity": 3, "speed": "express", "tags": ["a"]}, ORDER_SCHEMA)
        == []
    )


def test_every_problem_is_listed_with_its_path() -> None:
    """Missing required, wrong type, value outside enum and range are each reported."""
    problems = validate(
        {"quantity": 11, "speed": "teleport", "tags": ["ok", 3], "colour": "red"}, ORDER_SCHEMA
    )
    assert problems == [
        "args.item: required property is missing",
        "args.quantity: 11 is greater than the maximum 10",
        "args.speed: 'teleport' is not one of 'standard', 'express'",
        "args.tags[1]: expected string, got integer (3)",
        "args.colour: unexpected property",
    ]


def test_booleans_are_not_integers() -> None:
    """True is refused where the schema asks for an integer, as JSON Schema says."""
    assert validate({"item": "x", "quantity": True}, ORDER_SCHEMA) == [
        "args.quantity: expected integer, got boolean (True)"
    ]


def test_tool_decorator_takes_name_and_description_from_the_function() -> None:
    """Bare @tool names the tool after the function and describes it by its docstring."""

    @tool
    def lookup(args: dict[str, Any], ctx: Any) -> str:
        """Look a word up.

        Longer text that is not part of the description."""
        return str(args)

    assert isinstance(lookup, Tool)
    assert (lookup.name, lookup.description) == ("lookup", "Look a word up.")


def test_tool_check_raises_with_every_problem() -> None:
    """Tool.check raises ToolArgumentError whose problems list each violation."""
    order = tool(name="order", parameters=ORDER_SCHEMA)(lambda args, ctx: None)
    with pytest.raises(ToolArgumentError) as caught:
        order.check({"quantity": 0})
    assert caught.value.problems == [
        "args.item: required property is missing",
        "args.quantity: 0 is less than the minimum 1",
    ]
    assert "invalid arguments for tool 'order'" in str(caught.value)


def test_non_object_arguments_are_refused() -> None:
    """Arguments that are not a mapping are refused before any schema keyword."""
    order = tool(name="order", parameters=ORDER_SCHEMA)(lambda args, ctx: None)
    with pytest.raises(ToolArgumentError, match="expected an object"):
        order.check(["pen", 3])


def test_bad_schemas_and_duplicates_are_refused_when_declared() -> None:
    """A schema with an unknown type, a non-tool and a duplicate tool name fail at declaration."""
    with pytest.raises(ValueError, match="unknown JSON Schema type 'text'"):
        tool(name="bad", parameters={"type": "text"})(lambda args, ctx: None)
    with pytest.raises(TypeError, match="must be made with @tool"):
        tool_table([lambda args, ctx: None])
    first = tool(name="same")(lambda args, ctx: 1)
    with pytest.raises(ValueError, match="two tools are named 'same'"):
        tool_table([first, first])


def test_memory_read_filters_by_session_tags_query_and_limit() -> None:
    """read filters by session, by every tag, by query text, and keeps the newest limit."""
    memory = InMemoryMemory()
    asyncio.run(
        memory.write(
            [
                MemoryEntry("Hello there", session_id="a", tags=("greeting",)),
                MemoryEntry("Order a pen", session_id="a", tags=("order", "office")),
                MemoryEntry("Order paper", session_id="b", tags=("order",)),
                MemoryEntry("order ink", session_id="a", tags=("order",)),
            ]
        )
    )
    read = memory.read
    assert [e.content for e in asyncio.run(read(session_id="a"))] == [
        "Hello there",
        "Order a pen",
        "order ink",
    ]
    assert [e.content for e in asyncio.run(read(tags=["order", "office"]))] == ["Order a pen"]
    assert [e.content for e in asyncio.run(read(query="ORDER", session_id="a"))] == [
        "Order a pen",
        "order ink",
    ]
    assert [e.content for e in asyncio.run(read(session_id="a", limit=2))] == [
        "Order a pen",
        "order ink",
    ]
    asyncio.run(memory.clear(session_id="a"))
    assert [e.session_id for e in asyncio.run(memory.entries())] == ["b"]


def test_memory_write_is_all_or_nothing() -> None:
    """A batch with one bad entry stores none of the batch."""
    memory = InMemoryMemory()
    with pytest.raises(TypeError, match="must be MemoryEntry objects"):
        asyncio.run(memory.write([MemoryEntry("kept?"), "not an entry"]))  # type: ignore[list-item]
    assert len(memory) == 0


def test_middleware_runs_as_an_onion_in_registration_order() -> None:
    """The first registered middleware is outermost: before-parts in order, after-parts reversed."""
    seen: list[str] = []

    def make(name: str) -> Middleware[Any]:
        async def run(mctx: MiddlewareContext[Any], next_: Any) -> None:
            seen.append(f"{name}:in")
            await next_()
            seen.append(f"{name}:out")

        return Middleware(name, ["tool:before"], run)

    mctx = MiddlewareContext("tool:before", ctx=None)  # type: ignore[arg-type]
    reached = asyncio.run(run_scope([make("a"), make("b"), make("c")], mctx))
    assert reached is True
    assert seen == ["a:in", "b:in", "c:in", "c:out", "b:out", "a:out"]


def test_middleware_without_next_skips_the_inner_ones() -> None:
    """A middleware that returns without next() skips the inner ones and reports it."""
    seen: list[str] = []

    async def guard(mctx: MiddlewareContext[Any], next_: Any) -> None:
        seen.append("guard")

    async def inner(mctx: MiddlewareContext[Any], next_: Any) -> None:
        seen.append("inner")
        await next_()

    mctx = MiddlewareContext("tool:before", ctx=None)  # type: ignore[arg-type]
    chain = [Middleware("guard", "tool:before", guard), Middleware("inner", "tool:before", inner)]
    assert asyncio.run(run_scope(chain, mctx)) is False
    assert seen == ["guard"]


def test_middleware_scopes_are_checked() -> None:
    """An unknown scope is refused with the list of valid ones."""
    with pytest.raises(
        ValueError, match=r"unknown scope\(s\) \['step:before'\]; choose among run:before"
    ):
        Middleware("m", ["step:before"], lambda mctx, next_: None)
