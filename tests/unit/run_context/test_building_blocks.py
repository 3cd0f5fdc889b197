"""Tools, JSON Schema checks, memory and middleware composition, each on its own."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._runctx.jsonschema import validate
from pyctx_web.graph._runctx.middleware import wrap_tool_call
from pyctx_web.graph._runctx.tools import tool_table
from pyctx_web.graph.errors import ToolArgumentError
from pyctx_web.graph.memory import InMemoryMemory, MemoryEntry
from pyctx_web.graph.middleware import AgentMiddleware, ToolCallRequest
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.tools import Tool, tool

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
    def lookup(args: dict[str, Any], runtime: Any) -> str:
        """Look a word up.

        Longer text that is not part of the description."""
        return str(args)

    assert isinstance(lookup, Tool)
    assert (lookup.name, lookup.description) == ("lookup", "Look a word up.")


def test_tool_check_raises_with_every_problem() -> None:
    """Tool.check raises ToolArgumentError whose problems list each violation."""
    order = tool(name="order", parameters=ORDER_SCHEMA)(lambda args, runtime: None)
    with pytest.raises(ToolArgumentError) as caught:
        order.check({"quantity": 0})
    assert caught.value.problems == [
        "args.item: required property is missing",
        "args.quantity: 0 is less than the minimum 1",
    ]
    assert str(caught.value) == (
        "invalid arguments for tool 'order':\n"
        "  args.item: required property is missing\n"
        "  args.quantity: 0 is less than the minimum 1"
    )


def test_non_object_arguments_are_refused() -> None:
    """Arguments that are not a mapping are refused before any schema keyword."""
    order = tool(name="order", parameters=ORDER_SCHEMA)(lambda args, runtime: None)
    with pytest.raises(
        ToolArgumentError,
        match=(
            r"^invalid arguments for tool 'order':\n"
            r"  args: expected an object \(dict\), got list$"
        ),
    ):
        order.check(["pen", 3])


def test_bad_schemas_and_duplicates_are_refused_when_declared() -> None:
    """A schema with an unknown type, a non-tool and a duplicate tool name fail at declaration."""
    with pytest.raises(
        ValueError,
        match=(
            r"^tool 'bad' parameters: unknown JSON Schema type 'text'; 'type' must be one of "
            r"null, boolean, integer, number, string, array, object, or a non-empty list of "
            r"distinct ones, not 'text'$"
        ),
    ):
        tool(name="bad", parameters={"type": "text"})(lambda args, runtime: None)
    with pytest.raises(TypeError, match=r"^tools must be made with @tool, not 'function'$"):
        tool_table([lambda args, runtime: None])
    first = tool(name="same")(lambda args, runtime: 1)
    with pytest.raises(ValueError, match=r"^two tools are named 'same'$"):
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
    with pytest.raises(TypeError, match=r"^memory entries must be MemoryEntry objects, not 'str'$"):
        # The str entry is the bad input under test.
        asyncio.run(memory.write([MemoryEntry("kept?"), "not an entry"]))  # type: ignore[list-item]
    assert len(memory) == 0


class Layer(AgentMiddleware[Any]):
    """Records entering and leaving awrap_tool_call; ``answer`` makes it skip the handler."""

    def __init__(self, label: str, seen: list[str], answer: Any = None) -> None:
        self.label, self.seen, self.answer = label, seen, answer

    async def awrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
        self.seen.append(f"{self.label}:in")
        if self.answer is not None:
            return self.answer
        result = await handler(request)
        self.seen.append(f"{self.label}:out")
        return result


def _request() -> ToolCallRequest:
    noop = tool(name="noop")(lambda args: None)
    return ToolCallRequest({"name": "noop", "args": {}, "id": None}, noop, Runtime())


def test_middleware_runs_as_an_onion_in_registration_order() -> None:
    """The first registered middleware is outermost: before-parts in order, after-parts reversed."""
    seen: list[str] = []

    async def run(request: ToolCallRequest) -> str:
        seen.append("tool")
        return "ran"

    chain = [Layer("a", seen), Layer("b", seen), Layer("c", seen)]
    assert asyncio.run(wrap_tool_call(chain, _request(), run)) == "ran"
    assert seen == ["a:in", "b:in", "c:in", "tool", "c:out", "b:out", "a:out"]


def test_middleware_without_handler_skips_the_inner_ones() -> None:
    """A middleware that returns without calling handler skips the inner ones and the tool."""
    seen: list[str] = []

    async def run(request: ToolCallRequest) -> str:
        seen.append("tool")
        return "ran"

    chain = [Layer("guard", seen, answer="cached"), Layer("inner", seen)]
    assert asyncio.run(wrap_tool_call(chain, _request(), run)) == "cached"
    assert seen == ["guard:in"]


def test_middleware_must_be_agent_middleware_with_async_wrap_hooks() -> None:
    """compile() refuses a non-AgentMiddleware and a sync wrap_tool_call, naming the fix."""

    class Sync(AgentMiddleware[Any]):
        def wrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
            return handler(request)

    class State(TypedDict, total=False):
        x: int

    graph = StateGraph(State).add_node("n", lambda state: {}).add_edge(START, "n")
    with pytest.raises(
        ArgumentTypeError,
        match=r"^middleware must be AgentMiddleware instances, not 'function'$",
    ):
        # A plain function where an AgentMiddleware belongs is the case under test.
        graph.compile(middleware=[lambda request, handler: None])  # type: ignore[list-item]
    with pytest.raises(
        ArgumentTypeError,
        match=(
            r"^middleware 'Sync' defines wrap_tool_call\(\); tool calls and nodes run "
            r"asynchronously here: define async awrap_tool_call\(request, handler\) instead$"
        ),
    ):
        graph.compile(middleware=[Sync()])
