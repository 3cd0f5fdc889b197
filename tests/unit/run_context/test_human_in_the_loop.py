"""HumanInTheLoopMiddleware: tool calls wait for a person's decisions, as LangChain v1's do.

The interrupt value, the decisions and the reject message are LangChain's (with
"arguments" spelled out); a refused resume leaves the thread as it was stored.
How it is configured and where it applies: test_human_in_the_loop_setup.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.errors import ResumeError
from pyctx_web.graph.middleware import HumanInTheLoopMiddleware
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.types import Command

from .hitl_graph import (
    EMAIL,
    EMAIL_SCHEMA,
    MEETING,
    PREFIX,
    State,
    make_tools,
    refusal,
    review_graph,
    thread_records,
    vars_of,
)


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Checkpointer]:
    """Each checkpointer the refusal tests run on."""
    if request.param == "memory":
        yield InMemorySaver()
        return
    with SqliteSaver(tmp_path / "hitl.db") as sqlite:
        yield sqlite


@pytest.mark.asyncio
async def test_approve_pauses_with_langchain_shaped_request_then_runs_the_tool() -> None:
    """One reviewed call pauses with LangChain's request; approve runs it, streams the verdict."""
    ran: list[tuple[str, dict[str, Any]]] = []
    app = review_graph(InMemorySaver(), ran)
    paused = await app.ainvoke({"calls": [EMAIL]}, thread_id="t")
    assert ran == []
    assert paused["__interrupt__"][0].value == {
        "action_requests": [
            {
                "name": "send_email",
                "arguments": {"to": "ann@example.com"},
                "description": f"{PREFIX}\n\nTool: send_email\nArgs: {{'to': 'ann@example.com'}}",
            }
        ],
        "review_configs": [
            {
                "action_name": "send_email",
                "allowed_decisions": ["approve", "edit", "reject"],
                "arguments_schema": EMAIL_SCHEMA,
            }
        ],
    }
    approve: Command[str] = Command(resume={"decisions": [{"type": "approve"}]})
    chunks = [
        c async for c in app.astream(approve, thread_id="t", stream_mode=["custom", "values"])
    ]
    out = [chunk for mode, chunk in chunks if mode == "values"][-1]
    events = [chunk for mode, chunk in chunks if mode == "custom"]
    assert ran == [("send_email", {"to": "ann@example.com"})]
    assert out["results"] == [
        {
            "name": "send_email",
            "arguments": {"to": "ann@example.com"},
            "result": "send_email done",
            "status": "approved",
            "id": "call_1",
        }
    ]
    approval = [e for e in events if e["event"] == "approval"]
    assert approval == [
        {
            "event": "approval",
            "interrupt_id": paused["__interrupt__"][0].id,
            "calls": [
                {
                    "name": "send_email",
                    "arguments": {"to": "ann@example.com"},
                    "status": "approved",
                    "edited_action": None,
                    "message": None,
                }
            ],
        }
    ]


@pytest.mark.asyncio
async def test_mixed_batch_reviews_only_named_tools_in_one_interrupt() -> None:
    """Only the calls needing approval are in the one interrupt; results keep the call order."""
    ran: list[tuple[str, dict[str, Any]]] = []
    app = review_graph(InMemorySaver(), ran)
    calls = [
        {"name": "read_data", "arguments": {}, "id": "a"},
        EMAIL,
        ("lookup", {"q": 1}),
        MEETING,
        {"name": "send_email", "args": {"to": "bob@example.com"}, "id": "b", "type": "tool_call"},
    ]
    paused = await app.ainvoke({"calls": calls}, thread_id="t")
    (question,) = paused["__interrupt__"]
    requests = question.value["action_requests"]
    assert [(r["name"], r["arguments"]) for r in requests] == [
        ("send_email", {"to": "ann@example.com"}),
        ("schedule_meeting", {"when": "friday"}),
        ("send_email", {"to": "bob@example.com"}),
    ]
    configs = question.value["review_configs"]
    assert [(c["action_name"], c["allowed_decisions"]) for c in configs] == [
        ("send_email", ["approve", "edit", "reject"]),
        ("schedule_meeting", ["approve", "reject"]),
    ]
    assert ran == []  # nothing of the batch runs before the decisions
    edit = {"name": "send_email", "args": {"to": "c@x"}}
    decisions: list[dict[str, Any]] = [
        {"type": "approve"},
        {"type": "reject", "message": "Not on Friday."},
        {"type": "edit", "edited_action": edit},
    ]
    out = await app.ainvoke(Command(resume={"decisions": decisions}), thread_id="t")
    assert [(r["name"], r["status"], r["id"]) for r in out["results"]] == [
        ("read_data", "ran", "a"),
        ("send_email", "approved", "call_1"),
        ("lookup", "ran", None),
        ("schedule_meeting", "rejected", "call_2"),
        ("send_email", "edited", "b"),
    ]
    assert out["results"][3]["result"] == "Not on Friday."
    assert [name for name, _ in ran] == ["read_data", "send_email", "lookup", "send_email"]
    assert ran[-1] == ("send_email", {"to": "c@x"})


@pytest.mark.asyncio
async def test_reject_does_not_run_the_tool_and_call_tool_returns_the_message() -> None:
    """A rejected call_tool returns LangChain's default reject message and the tool never runs."""
    ran: list[tuple[str, dict[str, Any]]] = []

    async def one(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        answer = await runtime.call_tool("send_email", {"to": "ann@example.com"})
        record = runtime.log.tool_calls[-1]
        return {"results": [{"answer": answer, "review": record.review}]}

    hitl = HumanInTheLoopMiddleware({"send_email": True})
    app = (
        StateGraph(State)
        .add_node("one", one)
        .add_edge(START, "one")
        .compile(InMemorySaver(), middleware=[hitl], tools=make_tools(ran))
    )
    await app.ainvoke({}, thread_id="t")
    out = await app.ainvoke(Command(resume={"decisions": [{"type": "reject"}]}), thread_id="t")
    assert ran == []
    assert out["results"] == [
        {
            "answer": "User rejected the tool call for `send_email` with id None. The tool was "
            "not executed. Do not retry this tool call unless the user explicitly requests it.",
            "review": "rejected",
        }
    ]


@pytest.mark.asyncio
async def test_bad_edit_is_refused_with_reasons_leaving_the_thread_then_a_good_edit_runs(
    saver: Checkpointer,
) -> None:
    """Edited arguments that break the schema are refused with each reason; nothing is stored."""
    ran: list[tuple[str, dict[str, Any]]] = []
    app = review_graph(saver, ran)
    await app.ainvoke({"calls": [EMAIL]}, thread_id="t")
    before, stored = await app.aget_state("t"), await thread_records(saver, "t")
    bad = {"name": "send_email", "arguments": {"to": "nobody", "cc": "x"}}
    with pytest.raises(ResumeError) as refused:
        await app.ainvoke(
            Command(resume={"decisions": [{"type": "edit", "edited_action": bad}]}), thread_id="t"
        )
    edited = "decision 0 (tool 'send_email'): edited arguments for tool 'send_email'"
    assert str(refused.value) == refusal(
        before.interrupts[0].id,
        [
            f"{edited}: args.to: 'nobody' does not match the pattern '@'",
            f"{edited}: args.cc: unexpected property",
        ],
    )
    assert refused.value.pending_ids == (before.interrupts[0].id,)
    assert refused.value.checkpoint_id == before.config["configurable"]["checkpoint_id"]
    assert ran == []
    after = await app.aget_state("t")
    assert after.config == before.config
    assert after.interrupts == before.interrupts
    assert await thread_records(saver, "t") == stored
    good = {"name": "send_email", "arguments": {"to": "bob@example.com", "body": "hi"}}
    out = await app.ainvoke(
        Command(resume={"decisions": [{"type": "edit", "edited_action": good}]}), thread_id="t"
    )
    assert out["results"][0]["status"] == "edited"
    assert ran == [("send_email", {"to": "bob@example.com", "body": "hi"})]


DECISION_TYPES = "expected one of 'approve', 'edit', 'reject'"
TOOLS = "'lookup', 'read_data', 'schedule_meeting', 'send_email'"
MAIL, MEET = "decision 0 (tool 'send_email')", "decision 1 (tool 'schedule_meeting')"
REFUSED = [
    pytest.param(
        "yes", ["the resume value must be {'decisions': [...]}, got 'str'"], id="not-a-dict"
    ),
    pytest.param(
        {"decisions": "approve"}, ["'decisions' must be a list, not 'str'"], id="not-a-list"
    ),
    pytest.param(
        {"decisions": [{"type": "approve"}]},
        ["expected 2 decision(s), one per action request in order, got 1"],
        id="too-few",
    ),
    pytest.param(
        {"decisions": [{"type": "approve"}] * 3},
        ["expected 2 decision(s), one per action request in order, got 3"],
        id="too-many",
    ),
    pytest.param(
        {"decisions": [{"type": "approve"}, {"type": "edit", "edited_action": MEETING}]},
        [f"{MEET}: 'edit' is not allowed; allowed: 'approve', 'reject'"],
        id="disallowed",
    ),
    pytest.param(
        {"decisions": [{"kind": "approve"}, "approve"]},
        [
            f"{MAIL}: unknown decision type None; {DECISION_TYPES}",
            f"{MEET}: expected a dict with a 'type', not 'str'",
        ],
        id="malformed",
    ),
    pytest.param(
        {"decisions": [{"type": "approve", "why": 1}, {"type": "reject", "message": 5}]},
        [
            f"{MAIL}: unexpected key(s) 'why' in the 'approve' decision",
            f"{MEET}: 'message' must be a str, not 'int'",
        ],
        id="each-problem-listed",
    ),
    pytest.param(
        {"decisions": [{"type": "edit", "edited_action": {"name": "nope", "arguments": {}}}, {}]},
        [
            f"{MAIL}: 'edited_action' names no tool of the graph: 'nope'; tools: {TOOLS}",
            f"{MEET}: unknown decision type None; {DECISION_TYPES}",
        ],
        id="edit-unknown-tool",
    ),
    pytest.param(
        {"decisions": [{"type": "edit"}, {"type": "approve"}]},
        [f"{MAIL}: 'edited_action' must be a dict with 'name' and 'arguments'"],
        id="edit-without-action",
    ),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("answer", "expected"), REFUSED)
async def test_wrong_decisions_are_refused_and_the_thread_is_unchanged(
    saver: Checkpointer, answer: Any, expected: list[str]
) -> None:
    """A missing, extra, malformed or disallowed decision is refused and nothing is stored."""
    ran: list[tuple[str, dict[str, Any]]] = []
    app = review_graph(saver, ran)
    await app.ainvoke({"calls": [EMAIL, MEETING]}, thread_id="t")
    before, stored = await app.aget_state("t"), await thread_records(saver, "t")
    with pytest.raises(ResumeError) as refused:
        await app.ainvoke(Command(resume=answer), thread_id="t")
    qid = before.interrupts[0].id
    assert str(refused.value) == refusal(qid, expected)
    assert ran == []
    after = await app.aget_state("t")
    assert after.config == before.config
    assert after.interrupts == before.interrupts
    assert await thread_records(saver, "t") == stored
    fine = {"decisions": [{"type": "approve"}, {"type": "approve"}]}
    out = await app.ainvoke(Command(resume={qid: fine}), thread_id="t")
    assert [r["status"] for r in out["results"]] == ["approved", "approved"]


@pytest.mark.asyncio
async def test_node_proposing_other_calls_on_rerun_is_refused() -> None:
    """Decisions are not applied when the rerun node proposes calls other than those reviewed."""
    saver = InMemorySaver()
    ran: list[tuple[str, dict[str, Any]]] = []
    proposed = [{"to": "ann@example.com"}]

    async def act(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        done = await runtime.call_tools([("send_email", proposed[0])])
        return {"results": [vars_of(r) for r in done]}

    hitl = HumanInTheLoopMiddleware({"send_email": True})
    app = (
        StateGraph(State)
        .add_node("act", act)
        .add_edge(START, "act")
        .compile(saver, middleware=[hitl], tools=make_tools(ran))
    )
    await app.ainvoke({}, thread_id="t")
    stored = await thread_records(saver, "t")
    proposed[0] = {"to": "eve@example.com"}
    approve: Command[Any] = Command(resume={"decisions": [{"type": "approve"}]})
    with pytest.raises(ResumeError) as refused:
        await app.ainvoke(approve, thread_id="t")
    qid = (await app.aget_state("t")).interrupts[0].id
    assert str(refused.value) == refusal(
        qid,
        [
            "the node proposes other tool calls than the ones reviewed, so the decisions cannot "
            "apply to them: reviewed [('send_email', {'to': 'ann@example.com'})], proposed now "
            "[('send_email', {'to': 'eve@example.com'})]"
        ],
    )
    assert ran == []
    assert await thread_records(saver, "t") == stored
    proposed[0] = {"to": "ann@example.com"}
    out = await app.ainvoke(approve, thread_id="t")
    assert out["results"][0]["status"] == "approved"


@pytest.mark.asyncio
async def test_parallel_nodes_one_refused_the_other_keeps_its_result() -> None:
    """Answering two paused nodes at once, a refused one waits on and the other's result stays."""
    ran: list[tuple[str, dict[str, Any]]] = []

    def node(call: dict[str, Any], key: str) -> Any:
        async def act(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
            done = await runtime.call_tools([call])
            return {key: [vars_of(r) for r in done]}

        return act

    class Both(TypedDict, total=False):
        mail: list[dict[str, Any]]
        meet: list[dict[str, Any]]

    hitl = HumanInTheLoopMiddleware({"send_email": True, "schedule_meeting": True})
    app = (
        StateGraph(Both)
        .add_node("mail", node(EMAIL, "mail"))
        .add_node("meet", node(MEETING, "meet"))
        .add_edge(START, "mail")
        .add_edge(START, "meet")
        .compile(InMemorySaver(), middleware=[hitl], tools=make_tools(ran))
    )
    paused = await app.ainvoke({}, thread_id="t")
    mail_id, meet_id = (i.id for i in paused["__interrupt__"])
    answers = {mail_id: {"decisions": [{"type": "approve"}]}, meet_id: {"decisions": []}}
    with pytest.raises(ResumeError) as refused:
        await app.ainvoke(Command(resume=answers), thread_id="t")
    assert str(refused.value) == refusal(
        meet_id, ["expected 1 decision(s), one per action request in order, got 0"]
    )
    assert ran == [("send_email", {"to": "ann@example.com"})]
    state = await app.aget_state("t")
    assert [i.id for i in state.interrupts] == [meet_id]
    out = await app.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), thread_id="t")
    assert [name for name, _ in ran] == ["send_email", "schedule_meeting"]
    assert out["mail"][0]["status"] == "approved"
    assert out["meet"][0]["status"] == "approved"
