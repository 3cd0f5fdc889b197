"""The demo assistant as an agent: the model decides when to ask, side effects wait for approval."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from assistant import MAX_QUESTIONS, AssistantData, build_assistant
from offline_model import OfflineModel
from protocol import Reply, TokenSink, ToolCall

from pyctx_web.chat import ChatSession
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver

Event = dict[str, Any]


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    made = InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "a.db")
    yield made
    if isinstance(made, SqliteSaver):
        made.close()


def session_of(saver: Any, model: Any) -> ChatSession:
    graph = build_assistant(saver)
    return ChatSession(graph, checkpointer=saver, thread_id="t", context=AssistantData(model=model))


async def send(session: ChatSession, message: Event) -> list[Event]:
    return [event async for event in session.handle(message)]


def run(flow: Any) -> None:
    asyncio.run(flow())


def test_a_clear_request_gets_no_question(saver: Any) -> None:
    """A request the model finds clear runs to its answer without a needs_input."""
    model = OfflineModel(token_delay_ms=0)
    session = session_of(saver, model)

    async def flow() -> None:
        events = await send(session, {"type": "chat", "text": "summarize the notes from today"})
        assert not [e for e in events if e["type"] == "needs_input"]
        assert events[-1]["type"] == "done"
        assert "summary" in events[-1]["text"]

    run(flow)


def test_a_vague_request_gets_the_models_question_and_the_model_is_not_asked_twice(
    saver: Any,
) -> None:
    """The model's ask_user call becomes a question card; resuming does not repeat that call."""
    model = OfflineModel(token_delay_ms=0)
    session = session_of(saver, model)

    async def flow() -> None:
        asked = await send(session, {"type": "chat", "text": "help me with email"})
        assert asked[-1]["kind"] == "question"
        assert asked[-1]["question"] == "What should I do with your email?"
        assert model.calls == 1
        await send(session, {"type": "resume_chat", "resume_value": "Summarize my inbox"})
        # enrich asks again (nothing left to ask), plan and respond once: the first reply was saved.
        assert model.calls == 4
        kinds = [e["kind"] for e in (await session.history())["messages"]]
        assert kinds == ["message", "question", "reply", "tool", "answer"]

    run(flow)


class Curious:
    """A model that asks on every call it is offered ask_user, and answers plainly otherwise."""

    kind = "test"
    token_delay_ms = 0.0

    def __init__(self) -> None:
        self.asked = 0

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        *,
        on_token: TokenSink | None = None,
    ) -> Reply:
        if any(t["function"]["name"] == "ask_user" for t in tools):
            self.asked += 1
            call = ToolCall(f"ask{self.asked}", "ask_user", {"question": f"Q{self.asked}?"})
            return Reply(tool_calls=(call,))
        return Reply(content="fine")

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


def test_the_model_asks_at_most_three_questions_per_turn(saver: Any) -> None:
    """A model that keeps asking gets three questions answered, then the turn goes on."""
    session = session_of(saver, Curious())

    async def flow() -> None:
        events = await send(session, {"type": "chat", "text": "anything"})
        questions = []
        while events[-1]["type"] == "needs_input":
            questions.append(events[-1]["question"])
            events = await send(session, {"type": "resume_chat", "resume_value": "yes"})
        assert questions == [f"Q{n}?" for n in range(1, MAX_QUESTIONS + 1)]
        assert events[-1] == {**events[-1], "type": "done", "text": "fine"}

    run(flow)


async def approval_for(session: ChatSession, text: str) -> Event:
    events = await send(session, {"type": "chat", "text": text})
    assert events[-1]["type"] == "needs_input"
    assert events[-1]["kind"] == "approval"
    return events[-1]


def test_send_email_waits_for_approval_and_runs_once_approved(saver: Any) -> None:
    """send_email pauses with an approval card; approving runs it and the answer says so."""
    session = session_of(saver, OfflineModel(token_delay_ms=0))

    async def flow() -> None:
        card = await approval_for(session, "send the daily report to my team")
        [request] = card["action_requests"]
        assert request["name"] == "send_email"
        assert request["arguments"]["to"] == ["team@example.com"]
        [review] = card["review_configs"]
        assert review["allowed_decisions"] == ["approve", "edit", "reject"]
        assert review["arguments_schema"]["required"] == ["to", "subject"]
        events = await send(session, {"type": "resume_chat", "decisions": [{"type": "approve"}]})
        [tool] = [e for e in events if e["type"] == "tool"]
        assert tool["status"] == "approved"
        assert events[-1]["type"] == "done"
        assert "Sent “Daily report” to team@example.com." in events[-1]["text"]

    run(flow)


def test_a_bad_edit_is_refused_with_reasons_and_keeps_the_card_then_a_good_one_runs(
    saver: Any,
) -> None:
    """Edited arguments breaking the schema are refused, the thread unchanged; good ones run."""
    session = session_of(saver, OfflineModel(token_delay_ms=0))

    async def flow() -> None:
        card = await approval_for(session, "send the daily report to my team")
        before = await session.history()
        bad = {"name": "send_email", "arguments": {"to": "boss", "subject": 3}}
        events = await send(
            session,
            {"type": "resume_chat", "decisions": [{"type": "edit", "edited_action": bad}]},
        )
        assert events[-1]["type"] == "error"
        assert events[-1]["code"] == "bad_decision"
        assert "to" in events[-1]["message"]
        assert "subject" in events[-1]["message"]
        assert await session.history() == before
        good = {"name": "send_email", "arguments": {"to": ["boss@example.com"], "subject": "Hi"}}
        events = await send(
            session,
            {
                "type": "resume_chat",
                "interrupt_id": card["interrupt_id"],
                "decisions": [{"type": "edit", "edited_action": good}],
            },
        )
        [tool] = [e for e in events if e["type"] == "tool"]
        assert (tool["status"], tool["arguments"]["to"]) == ("edited", ["boss@example.com"])
        assert "Sent “Hi” to boss@example.com." in events[-1]["text"]

    run(flow)


def test_a_rejected_call_does_not_run_and_the_model_hears_why(saver: Any) -> None:
    """Rejecting send_email skips it; the reason reaches the model as the tool's result."""
    session = session_of(saver, OfflineModel(token_delay_ms=0))

    async def flow() -> None:
        await approval_for(session, "send the daily report to my team")
        reject = {"type": "reject", "message": "Not today."}
        events = await send(session, {"type": "resume_chat", "decisions": [reject]})
        ran = [e["record"]["name"] for e in events if e["type"] == "inspect"]
        [tool] = [e for e in events if e["type"] == "tool"]
        assert (tool["status"], tool["content"]) == ("rejected", "Not today.")
        assert "Not today." in events[-1]["text"]
        assert "respond" in ran
        assert "send_email" not in ran

    run(flow)


def test_schedule_meeting_allows_no_edit(saver: Any) -> None:
    """schedule_meeting offers approve and reject only; an edit is refused and the card stays."""
    session = session_of(saver, OfflineModel(token_delay_ms=0))

    async def flow() -> None:
        card = await approval_for(session, "schedule a meeting with the whole team tomorrow")
        assert card["review_configs"][0]["allowed_decisions"] == ["approve", "reject"]
        edit = {"type": "edit", "edited_action": card["action_requests"][0]}
        events = await send(session, {"type": "resume_chat", "decisions": [edit]})
        assert events[-1]["code"] == "bad_decision"
        assert (await session.history())["pending"]["interrupt_id"] == card["interrupt_id"]

    run(flow)


class Keyed(OfflineModel):
    """The offline model holding an API key, as the OpenAI-compatible one does."""

    api_key = "sk-never-stored-0123456789"


def test_the_model_and_its_key_are_never_checkpointed(tmp_path: Path) -> None:
    """A whole turn with approval leaves no trace of the model's key in the SQLite file."""
    saver = SqliteSaver(tmp_path / "k.db")
    session = session_of(saver, Keyed(token_delay_ms=0))

    async def flow() -> None:
        await approval_for(session, "send the daily report to my team")
        await send(session, {"type": "resume_chat", "decisions": [{"type": "approve"}]})

    run(flow)
    saver.close()
    stored = (tmp_path / "k.db").read_bytes()
    assert b"Daily report" in stored
    assert Keyed.api_key.encode() not in stored
    assert json.dumps(Keyed.api_key).encode() not in stored


def test_a_plain_answer_to_an_approval_is_refused(saver: Any) -> None:
    """An approval answered with resume_value gets one error asking for decisions."""
    session = session_of(saver, OfflineModel(token_delay_ms=0))

    async def flow() -> None:
        card = await approval_for(session, "send the daily report to my team")
        events = await send(session, {"type": "resume_chat", "resume_value": "yes"})
        assert events == [
            {"type": "error", "message": "This is an approval: answer it with decisions."}
        ]
        assert (await session.history())["pending"]["interrupt_id"] == card["interrupt_id"]

    run(flow)
