"""The offline model's rules, and the demo tools' schemas, as a new user meets them."""

from __future__ import annotations

import asyncio
from typing import Any

import offline_model
import pytest
from actions import send_email
from assistant import AssistantData, build_assistant
from offline_model import OfflineModel, assess

from pyctx_web.chat import ChatSession
from pyctx_web.graph.checkpoint.memory import InMemorySaver

Event = dict[str, Any]


async def _turn(session: ChatSession, message: Event) -> list[Event]:
    return [event async for event in session.handle(message)]


def _session() -> ChatSession:
    saver = InMemorySaver()
    data = AssistantData(model=OfflineModel(token_delay_ms=0))
    return ChatSession(build_assistant(saver), checkpointer=saver, thread_id="t", context=data)


@pytest.mark.parametrize(
    "request_text",
    ["schedule a meeting tomorrow", "schedule a meeting", "book a call friday", "send the report"],
)
def test_a_short_request_naming_an_action_and_its_object_gets_no_question(
    request_text: str,
) -> None:
    """A request naming an action the tools take, with its object, is clear enough to act on."""
    assert assess(request_text) is None


@pytest.mark.parametrize("request_text", ["help me with a meeting", "email", "a meeting"])
def test_a_request_naming_no_action_still_gets_a_question(request_text: str) -> None:
    """A topic without an action (help me with a meeting) is still too vague to act on."""
    assert assess(request_text) is not None


def test_schedule_a_meeting_tomorrow_proposes_schedule_meeting() -> None:
    """ "schedule a meeting tomorrow" goes straight to a schedule_meeting approval, no question."""

    async def flow() -> None:
        events = await _turn(_session(), {"type": "chat", "text": "schedule a meeting tomorrow"})
        assert events[-1]["type"] == "needs_input"
        assert events[-1]["kind"] == "approval"
        [request] = events[-1]["action_requests"]
        assert (request["name"], request["arguments"]["when"]) == (
            "schedule_meeting",
            "tomorrow 10:00",
        )

    asyncio.run(flow())


def test_the_meeting_time_is_what_the_request_names() -> None:
    """The day and time named in the request become the meeting's start; tomorrow 10:00 if none."""
    assert offline_model.meeting_time("schedule a meeting friday at 3pm") == "friday 3pm"
    assert offline_model.meeting_time("schedule a meeting at 14:30") == "tomorrow 14:30"
    assert offline_model.meeting_time("schedule a meeting") == "tomorrow 10:00"


async def _rejected(reason: str | None) -> str:
    session = _session()
    await _turn(session, {"type": "chat", "text": "send the daily report to my team"})
    decision = {"type": "reject"} if reason is None else {"type": "reject", "message": reason}
    events = await _turn(session, {"type": "resume_chat", "decisions": [decision]})
    assert events[-1]["type"] == "done"
    return str(events[-1]["text"])


def test_after_a_reject_the_answer_says_so_and_quotes_the_reason_as_the_users() -> None:
    """The answer to a rejection speaks in the assistant's words and quotes the user's reason."""
    text = asyncio.run(_rejected("Not today."))
    assert text.splitlines() == [
        "You rejected send_email, so I did not send the email. You said: “Not today.”",
        "Tell me if you want changes.",
    ]


def test_a_reject_without_a_reason_is_told_without_quoting_the_default_message() -> None:
    """A rejection with no reason is told as such; the middleware's message is not quoted."""
    text = asyncio.run(_rejected(None))
    assert text.splitlines()[0] == "You rejected send_email, so I did not send the email."


def test_an_approved_action_is_reported_as_done() -> None:
    """What send_email reports when it ran is the answer, not read as a rejection."""

    async def flow() -> str:
        session = _session()
        await _turn(session, {"type": "chat", "text": "send the daily report to my team"})
        events = await _turn(session, {"type": "resume_chat", "decisions": [{"type": "approve"}]})
        return str(events[-1]["text"])

    assert asyncio.run(flow()).splitlines()[0] == "Sent “Daily report” to team@example.com."


def test_the_recipients_are_email_addresses_in_the_schema() -> None:
    """send_email's recipients carry format: email, with a pattern the argument check asserts."""
    items = send_email.parameters["properties"]["to"]["items"]
    assert items["format"] == "email"
    assert "pattern" in items


def test_an_edit_with_a_recipient_that_is_not_an_email_is_refused() -> None:
    """An edit with a recipient that is not an email address is refused; the card stays."""

    async def flow() -> None:
        session = _session()
        await _turn(session, {"type": "chat", "text": "send the daily report to my team"})
        bad = {"name": "send_email", "arguments": {"to": ["not an email at all"], "subject": "Hi"}}
        decision = {"type": "edit", "edited_action": bad}
        events = await _turn(session, {"type": "resume_chat", "decisions": [decision]})
        assert events[-1]["type"] == "error"
        assert events[-1]["code"] == "bad_decision"
        assert "'not an email at all' does not match the pattern" in events[-1]["message"]
        assert (await session.history())["pending"]["kind"] == "approval"

    asyncio.run(flow())
