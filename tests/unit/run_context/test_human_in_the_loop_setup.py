"""HumanInTheLoopMiddleware: its configuration, the calls it reviews, where it applies.

The decisions and refused resumes are in test_human_in_the_loop.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError, UsageError
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.errors import ResumeError, ToolArgumentError, UnknownToolError
from pyctx_web.graph.middleware import AgentMiddleware, HumanInTheLoopMiddleware, ToolCallRequest
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command

from .hitl_graph import EMAIL, MEETING, refusal, review_graph


@pytest.mark.asyncio
async def test_description_function_gets_the_call_and_the_runtime() -> None:
    """A description function (sync or async) makes a request's text from the call and runtime."""

    def sync_text(call: dict[str, Any], runtime: Runtime[Any]) -> str:
        assert runtime.execution_info is not None
        thread = runtime.execution_info.thread_id
        return f"{thread}: mail {call['arguments']['to']} ({call['id']})"

    async def async_text(call: dict[str, Any], runtime: Runtime[Any]) -> str:
        return f"meet {call['arguments']['when']}"

    hitl = HumanInTheLoopMiddleware(
        {
            "send_email": {"description": sync_text},
            "schedule_meeting": {"description": async_text, "allowed_decisions": ["reject"]},
            "lookup": {"description": "Look it up?"},
        }
    )
    app = review_graph(InMemorySaver(), [], hitl)
    paused = await app.ainvoke({"calls": [EMAIL, MEETING, ("lookup", {})]}, thread_id="t")
    value = paused["__interrupt__"][0].value
    assert [r["description"] for r in value["action_requests"]] == [
        "t: mail ann@example.com (call_1)",
        "meet friday",
        "Look it up?",
    ]
    assert [c["allowed_decisions"] for c in value["review_configs"]] == [
        ["approve", "edit", "reject"],
        ["reject"],
        ["approve", "edit", "reject"],
    ]


@pytest.mark.asyncio
async def test_arguments_schema_restricts_edits_on_top_of_the_tool_schema() -> None:
    """A config's arguments_schema is shown to the reviewer and edited arguments must meet it."""
    only_ann = {"type": "object", "properties": {"to": {"const": "ann@example.com"}}}
    hitl = HumanInTheLoopMiddleware({"send_email": {"arguments_schema": only_ann}})
    app = review_graph(InMemorySaver(), [], hitl)
    paused = await app.ainvoke({"calls": [EMAIL]}, thread_id="t")
    assert paused["__interrupt__"][0].value["review_configs"][0]["arguments_schema"] == only_ann
    edit = {"type": "edit", "edited_action": {"name": "send_email", "arguments": {"to": "b@x"}}}
    with pytest.raises(ResumeError) as refused:
        await app.ainvoke(Command(resume={"decisions": [edit]}), thread_id="t")
    assert str(refused.value) == refusal(
        paused["__interrupt__"][0].id,
        [
            "decision 0 (tool 'send_email'): edited arguments for tool 'send_email': "
            "args.to: must be 'ann@example.com', not 'b@x'"
        ],
    )


@pytest.mark.asyncio
async def test_review_comes_before_awrap_tool_call_which_sees_edited_arguments() -> None:
    """awrap_tool_call of a middleware listed first still runs after the review, on the edit."""
    seen: list[dict[str, Any]] = []

    class Spy(AgentMiddleware[Any]):
        async def awrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
            seen.append(dict(request.tool_call["args"]))
            return await handler(request)

    ran: list[tuple[str, dict[str, Any]]] = []
    app = review_graph(InMemorySaver(), ran, extra=[Spy()])
    await app.ainvoke({"calls": [EMAIL]}, thread_id="t")
    assert seen == []
    edit = {"type": "edit", "edited_action": {"name": "send_email", "arguments": {"to": "b@x"}}}
    await app.ainvoke(Command(resume={"decisions": [edit]}), thread_id="t")
    assert seen == [{"to": "b@x"}]
    assert ran == [("send_email", {"to": "b@x"})]


@pytest.mark.asyncio
async def test_astream_shows_the_interrupt_with_its_value() -> None:
    """astream's updates carry __interrupt__ with the review request, and resume streams on."""
    app = review_graph(InMemorySaver(), [])
    chunks = [c async for c in _astream(app, {"calls": [EMAIL]})]
    (question,) = chunks[-1]["__interrupt__"]
    assert question.value["action_requests"][0]["name"] == "send_email"
    resumed = [c async for c in _astream(app, Command(resume={"decisions": [{"type": "approve"}]}))]
    assert resumed[-1]["act"]["results"][0]["status"] == "approved"


async def _astream(app: CompiledStateGraph, input: Any) -> AsyncIterator[Any]:
    async for chunk in app.astream(input, thread_id="t", stream_mode="updates"):
        yield chunk


def test_stream_shows_the_interrupt_with_its_value() -> None:
    """The sync stream yields __interrupt__ with the review request as its value."""
    app = review_graph(InMemorySaver(), [])
    chunks = list(app.stream({"calls": [MEETING]}, thread_id="t", stream_mode="updates"))
    value = chunks[-1]["__interrupt__"][0].value
    assert value["review_configs"][0]["allowed_decisions"] == ["approve", "reject"]


BAD_CONFIGS = [
    pytest.param(
        {"x": "yes"},
        ArgumentTypeError,
        "interrupt_on['x'] must be a bool or a dict, not 'str'",
        id="not-bool-dict",
    ),
    pytest.param(
        {1: True},
        ArgumentTypeError,
        "interrupt_on keys must be tool names (str), not 1",
        id="name-not-str",
    ),
    pytest.param(
        {"x": {"allowed_decisions": ["approve", "respond"]}},
        ArgumentValueError,
        "interrupt_on['x']['allowed_decisions'] must be a non-empty list among 'approve', "
        "'edit', 'reject', not ['approve', 'respond']",
        id="unknown-decision",
    ),
    pytest.param(
        {"x": {"when": None}},
        ArgumentValueError,
        "interrupt_on['x'] has unknown key(s) 'when'; known keys: allowed_decisions, "
        "description, arguments_schema",
        id="unknown-key",
    ),
    pytest.param(
        {"x": {"description": 3}},
        ArgumentTypeError,
        "interrupt_on['x']['description'] must be a str or a function (call, runtime) -> str, "
        "not 'int'",
        id="desc",
    ),
]


@pytest.mark.parametrize(("config", "error", "expected"), BAD_CONFIGS)
def test_bad_configs_are_refused_at_construction(
    config: Any, error: type[Exception], expected: str
) -> None:
    """A config that is not a bool or a well-formed dict is refused naming the problem."""
    with pytest.raises(error) as refused:
        HumanInTheLoopMiddleware(config)
    assert str(refused.value) == expected


def test_compile_refuses_a_reviewed_tool_the_graph_lacks() -> None:
    """compile() names the interrupt_on tools that are not tools of the graph."""
    hitl = HumanInTheLoopMiddleware({"send_mail": True, "gone": False})
    with pytest.raises(
        ArgumentValueError,
        match=(
            r"^middleware 'human_in_the_loop': interrupt_on names tool\(s\) 'send_mail' that "
            r"the graph does not have; its tools: 'lookup', 'read_data', 'schedule_meeting', "
            r"'send_email'$"
        ),
    ):
        review_graph(InMemorySaver(), [], hitl)


@pytest.mark.asyncio
async def test_bad_calls_are_refused_before_any_review() -> None:
    """Unknown tools, bad arguments and malformed calls raise before the node pauses."""
    app = review_graph(InMemorySaver(), [])
    cases: list[tuple[Any, type[Exception]]] = [
        ([{"name": "nope", "arguments": {}}], UnknownToolError),
        ([{"name": "send_email", "arguments": {"to": 5}}], ToolArgumentError),
        ([{"name": "send_email", "arguments": {}, "args": {}}], ArgumentValueError),
        (["send_email"], ArgumentTypeError),
    ]
    for index, (calls, error) in enumerate(cases):
        with pytest.raises(error):
            await app.ainvoke({"calls": calls}, thread_id=f"t{index}")


@pytest.mark.asyncio
async def test_a_reviewed_call_outside_a_node_is_refused() -> None:
    """A reviewed tool called from before_agent raises UsageError: only nodes wait."""

    class Early(AgentMiddleware[Any]):
        async def abefore_agent(self, state: Any, runtime: Runtime[Any]) -> None:
            await runtime.call_tool("send_email", {"to": "ann@example.com"})

    app = review_graph(InMemorySaver(), [], extra=[Early()])
    with pytest.raises(
        UsageError,
        match=(
            r"^tool call\(s\) 'send_email' need a person's approval \(HumanInTheLoopMiddleware\), "
            r"which only a node can wait for: call the tool from a node$"
        ),
    ):
        await app.ainvoke({"calls": []}, thread_id="t")
