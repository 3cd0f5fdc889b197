"""The offline model's rules, and the demo tools' schemas, as a new user meets them."""

from __future__ import annotations

import asyncio

import offline_model
import pytest
from actions import SPECS, argument_problems
from offline_model import assess

from tests.unit.demo.api import DemoApi, answer


async def _api() -> DemoApi:
    api = DemoApi()
    await api.new_thread()
    return api


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
        api = await _api()
        await api.say("schedule a meeting tomorrow")
        [pending] = await api.pending()
        [request] = pending["action_requests"]
        assert (request["name"], request["args"]["when"]) == (
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
    api = await _api()
    await api.say("send the daily report to my team")
    decision = {"type": "reject"} if reason is None else {"type": "reject", "message": reason}
    events = await api.resume({"decisions": [decision]})
    assert await api.pending() == []
    return answer(events)


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
        api = await _api()
        await api.say("send the daily report to my team")
        return answer(await api.resume({"decisions": [{"type": "approve"}]}))

    assert asyncio.run(flow()).splitlines()[0] == "Sent “Daily report” to team@example.com."


def test_the_recipients_are_email_addresses_in_the_schema() -> None:
    """send_email's recipients carry format: email, with a pattern the argument check asserts."""
    items = SPECS["send_email"]["function"]["parameters"]["properties"]["to"]["items"]
    assert items["format"] == "email"
    assert "pattern" in items


def test_arguments_breaking_a_tools_schema_are_named() -> None:
    """A missing, unknown or mistyped argument, and a recipient that is not an address, are
    each named."""
    assert argument_problems("send_email", {"to": ["nope"], "cc": 1}) == [
        "send_email needs 'subject'",
        "send_email's 'to'[0] is not an email address: 'nope'",
        "send_email takes no argument 'cc'",
    ]
    assert argument_problems("launch", {}) == [
        "there is no tool 'launch'; tools: ask_user, make_plan, schedule_meeting, send_email"
    ]
