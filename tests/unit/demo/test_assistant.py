"""The demo assistant served by the worker's AgentServer: the model decides when to ask, side
effects wait for approval, all through the LangGraph Server API as the page's client uses it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import assistant
import models
import pytest
from assistant import MAX_QUESTIONS
from protocol import Reply, TokenSink, ToolCall
from worker_main import make_server

from pyctx_web.server.store_sqlite import SqliteStorage
from tests.unit.demo.api import DemoApi, answer, custom

REPORT = "send the daily report to my team"


def run(flow: Callable[[DemoApi], Awaitable[None]]) -> None:
    async def main() -> None:
        api = DemoApi()
        await api.new_thread()
        await flow(api)

    asyncio.run(main())


def test_a_clear_request_gets_no_question_and_its_answer_streams() -> None:
    """A request the model finds clear runs to its answer, streamed as tokens, with no interrupt."""

    async def flow(api: DemoApi) -> None:
        events = await api.say("summarize the notes from today")
        assert "summary" in answer(events)
        state = await api.state()
        assert (state["next"], state["interrupts"]) == ([], [])
        assert state["values"]["messages"][-1]["content"] == answer(events).strip()

    run(flow)


def test_a_vague_request_gets_the_models_question_and_the_model_is_not_asked_twice() -> None:
    """The model's ask_user call is an interrupt {question, reason, choices}; resuming with the
    answer does not repeat the model's call, and the answer is the tool's result."""

    async def flow(api: DemoApi) -> None:
        model = models.model_for({"model": {"kind": "offline", "token_delay_ms": 0}})
        before = model.calls  # type: ignore[attr-defined]
        await api.say("help me with email")
        [question] = await api.pending()
        assert question == {
            "question": "What should I do with your email?",
            "reason": "Reading, writing, sorting and sending email each need a different plan.",
            "choices": ["Summarize my inbox", "Draft a reply", REPORT.capitalize()],
        }
        assert model.calls == before + 1  # type: ignore[attr-defined]
        await api.resume("Summarize my inbox")
        # enrich asks again (nothing left to ask), plan and respond once: the first reply was saved.
        assert model.calls == before + 4  # type: ignore[attr-defined]
        messages = (await api.state())["values"]["messages"]
        assert [m["type"] for m in messages] == ["human", "ai", "tool", "ai", "tool", "ai"]
        assert messages[1]["tool_calls"][0]["name"] == "ask_user"
        assert (messages[2]["name"], messages[2]["content"]) == ("ask_user", "Summarize my inbox")

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
        if on_token is not None:
            await on_token("fine")
        return Reply(content="fine")

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


def test_the_model_asks_at_most_three_questions_per_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model that keeps asking gets three questions answered, then the turn goes on."""
    curious = Curious()
    monkeypatch.setattr(assistant, "model_for", lambda context: curious)

    async def flow(api: DemoApi) -> None:
        events = await api.say("anything")
        questions = []
        while pending := await api.pending():
            questions.append(pending[0]["question"])
            events = await api.resume("yes")
        assert questions == [f"Q{n}?" for n in range(1, MAX_QUESTIONS + 1)]
        assert answer(events) == "fine"

    run(flow)


async def approval_for(api: DemoApi, text: str) -> dict[str, Any]:
    await api.say(text)
    [request] = await api.pending()
    return dict(request)


def test_send_email_waits_for_approval_in_langchains_hitl_shape_and_runs_once_approved() -> None:
    """send_email pauses with a HITL request (its schema for the edit form); approving runs it."""

    async def flow(api: DemoApi) -> None:
        request = await approval_for(api, REPORT)
        assert request["action_requests"] == [
            {
                "name": "send_email",
                "args": {
                    "to": ["team@example.com"],
                    "subject": "Daily report",
                    "body": "Here is today's report.",
                },
                "description": "An email cannot be called back once it is sent.",
            }
        ]
        [review] = request["review_configs"]
        assert review["action_name"] == "send_email"
        assert review["allowed_decisions"] == ["approve", "edit", "reject"]
        assert review["args_schema"]["required"] == ["to", "subject"]
        events = await api.resume({"decisions": [{"type": "approve"}]})
        [tool] = custom(events, "tool")
        assert tool["status"] == "approved"
        assert "Sent “Daily report” to team@example.com." in answer(events)
        assert await api.pending() == []

    run(flow)


def test_a_bad_edit_is_refused_with_reasons_and_keeps_the_card_then_a_good_one_runs() -> None:
    """Edited arguments breaking the schema are refused (a refused chunk names each problem) and
    the same request waits again; good ones run."""

    async def flow(api: DemoApi) -> None:
        request = await approval_for(api, REPORT)
        bad = {"name": "send_email", "args": {"to": "boss", "subject": 3}}
        events = await api.resume({"decisions": [{"type": "edit", "edited_action": bad}]})
        assert custom(events, "refused") == [
            "The approval's decisions were refused: decision 0 (send_email): send_email's 'to' "
            "must be a list, not str; decision 0 (send_email): send_email's 'subject' must be "
            "text, not int."
        ]
        assert custom(events, "tool") == []
        assert await api.pending() == [request]
        good = {"name": "send_email", "args": {"to": ["boss@example.com"], "subject": "Hi"}}
        events = await api.resume({"decisions": [{"type": "edit", "edited_action": good}]})
        [tool] = custom(events, "tool")
        assert (tool["status"], tool["arguments"]["to"]) == ("edited", ["boss@example.com"])
        assert "Sent “Hi” to boss@example.com." in answer(events)

    run(flow)


def test_a_recipient_that_is_not_an_email_address_is_refused() -> None:
    """An edit whose recipient is not an email address is refused, naming it."""

    async def flow(api: DemoApi) -> None:
        await approval_for(api, REPORT)
        bad = {"name": "send_email", "args": {"to": ["not an email"], "subject": "Hi"}}
        events = await api.resume({"decisions": [{"type": "edit", "edited_action": bad}]})
        [refused] = custom(events, "refused")
        assert refused.endswith("send_email's 'to'[0] is not an email address: 'not an email'.")

    run(flow)


def test_a_rejected_call_does_not_run_and_the_model_hears_why() -> None:
    """Rejecting send_email skips it; the reason reaches the model as the tool's result."""

    async def flow(api: DemoApi) -> None:
        await approval_for(api, REPORT)
        events = await api.resume({"decisions": [{"type": "reject", "message": "Not today."}]})
        ran = [record["name"] for record in custom(events, "inspect")]
        [tool] = custom(events, "tool")
        assert (tool["status"], tool["content"]) == ("rejected", "Not today.")
        assert "Not today." in answer(events)
        assert "respond" in ran
        assert "send_email" not in ran

    run(flow)


def test_schedule_meeting_allows_no_edit() -> None:
    """schedule_meeting offers approve and reject only; an edit is refused and the card stays."""

    async def flow(api: DemoApi) -> None:
        request = await approval_for(api, "schedule a meeting with the whole team tomorrow")
        assert request["review_configs"] == [
            {"action_name": "schedule_meeting", "allowed_decisions": ["approve", "reject"]}
        ]
        action = request["action_requests"][0]
        edit = {"type": "edit", "edited_action": {"name": action["name"], "args": action["args"]}}
        events = await api.resume({"decisions": [edit]})
        assert custom(events, "refused") == [
            "The approval's decisions were refused: decision 0 (schedule_meeting): 'edit' is "
            "not allowed; allowed: 'approve', 'reject'."
        ]
        assert await api.pending() == [request]

    run(flow)


def test_a_plain_answer_to_an_approval_is_refused() -> None:
    """An approval resumed with plain text is refused, and the card stays."""

    async def flow(api: DemoApi) -> None:
        request = await approval_for(api, REPORT)
        events = await api.resume("yes")
        assert custom(events, "refused") == [
            "An approval is resumed with {'decisions': [...]}, not 'yes'."
        ]
        assert await api.pending() == [request]

    run(flow)


def test_a_context_carrying_the_api_key_is_refused() -> None:
    """A run whose context holds the API key fails, its message streamed as a custom error chunk
    (the server's error event withholds it)."""

    async def flow(api: DemoApi) -> None:
        model = {"kind": "openai", "base_url": "http://127.0.0.1:9", "model": "m", "api_key": "k"}
        events = await api.say("hello", context={"model": model})
        assert [name for name, _ in events if name == "error"] == ["error"]
        assert custom(events, "error") == [
            "A run's context must not carry the API key (runs are stored): give it to the "
            "worker's configure_model, or to the server as OPENAI_API_KEY."
        ]

    run(flow)


def test_the_key_given_to_the_worker_is_in_no_run_thread_event_or_checkpoint(
    tmp_path: Path,
) -> None:
    """A run naming an API model whose key the worker was given stores its settings (in the
    server's SQLite storage: runs, threads, events, checkpoints), never the key."""
    key = "sk-never-stored-0123456789"
    models.remember_key("http://127.0.0.1:9/v1", key)
    saver = SqliteStorage(tmp_path / "k.db")
    settings = {"kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}

    async def main() -> None:
        api = DemoApi(make_server(saver))
        await api.new_thread()
        events = await api.say("hello", context={"model": settings})
        assert [name for name, _ in events if name == "error"] == ["error"]  # nothing listens
        runs = await api.call("GET", f"/threads/{api.thread_id}/runs")
        threads = await api.server.threads.all()
        stored = json.dumps([runs, threads, await api.state()])
        assert "127.0.0.1:9/v1" in stored
        assert key not in stored

    try:
        asyncio.run(main())
    finally:
        saver.close()
        models.forget_models()
    stored_bytes = (tmp_path / "k.db").read_bytes()
    assert b"127.0.0.1:9/v1" in stored_bytes
    assert key.encode() not in stored_bytes


def test_without_a_delay_only_the_first_token_waits_for_a_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With token_delay_ms 0, the answer's first token is delivered by a timer and the rest are
    written at once; every token still streams, in order."""
    import observe

    timers: list[float] = []
    loop_call_later = asyncio.BaseEventLoop.call_later

    def counting(self: Any, delay: float, *args: Any, **kwargs: Any) -> Any:
        timers.append(delay)
        return loop_call_later(self, delay, *args, **kwargs)

    monkeypatch.setattr(asyncio.BaseEventLoop, "call_later", counting)
    assert observe.IN_PYODIDE is False

    async def flow(api: DemoApi) -> None:
        events = await api.say("summarize the notes from today")
        tokens = custom(events, "token")
        assert len(tokens) > 5
        final = (await api.state())["values"]["messages"][-1]["content"]
        assert "".join(tokens).strip() == final
        assert timers.count(0) == 1

    run(flow)
