"""The chat protocol: ChatSession over the demo assistant, on CPython."""

from __future__ import annotations

import asyncio
import operator
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.chat import MAX_TEXT_LENGTH, ChatSession
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.state import CompiledStateGraph

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "demo" / "app"))
from assistant import AssistantData, build_assistant
from offline_model import OfflineModel

FAST = AssistantData(model=OfflineModel(token_delay_ms=0))


def make_session(tmp_path: Path, kind: str = "memory") -> ChatSession:
    checkpointer = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "chat.db")
    graph = build_assistant(checkpointer)
    return ChatSession(graph, checkpointer=checkpointer, thread_id="t1", context=FAST)


async def collect(session: ChatSession, message: Any) -> list[dict[str, Any]]:
    return [event async for event in session.handle(message)]


@pytest.fixture(params=["memory", "sqlite"])
def session(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChatSession]:
    made = make_session(tmp_path, request.param)
    yield made
    if isinstance(made.checkpointer, SqliteSaver):
        made.checkpointer.close()


def test_seed_flow_asks_then_answers_with_the_clarification(session: ChatSession) -> None:
    """A vague request yields needs_input; the answer streams tokens and ends done using it."""

    async def flow() -> None:
        first = await collect(session, {"type": "chat", "text": "help me with email"})
        asked = [e for e in first if e["type"] == "needs_input"]
        assert len(asked) == 1
        assert asked[0]["question"] == "What should I do with your email?"
        assert asked[0]["reason"]
        assert asked[0]["kind"] == "question"
        assert asked[0]["node"] == "enrich"
        assert "Draft a reply" in asked[0]["choices"]
        assert first[-1]["type"] == "needs_input"
        second = await collect(
            session,
            {
                "type": "resume_chat",
                "resume_value": "draft a reply",
                "interrupt_id": asked[0]["interrupt_id"],
            },
        )
        tokens = "".join(e["token"] for e in second if e["type"] == "token")
        assert second[-1]["type"] == "done"
        assert second[-1]["text"] == tokens.strip()
        assert "draft a reply" in second[-1]["text"]

    asyncio.run(flow())


BAD_MESSAGES = [
    ("not an object", 'A message must be an object with a "type" field, not text.'),
    ({}, 'The message has no "type" field.'),
    (
        {"type": "shout"},
        "Unknown message type 'shout': expected chat, resume_chat, edit, regenerate, "
        "continue, cancel or history.",
    ),
    ({"type": "chat"}, 'A "chat" message needs a "text" field with what you want to say.'),
    ({"type": "chat", "text": 42}, 'The "text" of a chat message must be text, not a number.'),
    ({"type": "chat", "text": "   "}, "The message is empty: type something to send."),
    (
        {"type": "chat", "text": "x" * (MAX_TEXT_LENGTH + 1)},
        "The message is too long (20,001 characters): the limit is 20,000.",
    ),
    (
        {"type": "resume_chat"},
        'A "resume_chat" message needs a "resume_value" (an answer) or "decisions".',
    ),
    ({"type": "resume_chat", "resume_value": "x"}, "There is no question waiting for an answer."),
    (
        {"type": "resume_chat", "resume_value": "x", "interrupt_id": 7},
        '"interrupt_id" must be non-empty text, not a number.',
    ),
    ({"type": "cancel"}, "There is no running turn to cancel."),
]


@pytest.mark.parametrize(("message", "expected"), BAD_MESSAGES, ids=[str(i) for i in range(11)])
def test_malformed_message_gets_one_error_and_changes_nothing(
    session: ChatSession, message: Any, expected: str
) -> None:
    """Each malformed message yields exactly one readable error; the stored thread is unchanged."""

    async def flow() -> None:
        await collect(session, {"type": "chat", "text": "plan my week please, thanks a lot"})
        before = await session.history()
        history_before = [s async for s in session.graph.aget_state_history("t1")]
        events = await collect(session, message)
        assert events == [{"type": "error", "message": expected}]
        assert await session.history() == before
        after = [s async for s in session.graph.aget_state_history("t1")]
        assert [s.config for s in after] == [s.config for s in history_before]
        done = await collect(
            session, {"type": "chat", "text": "and then summarize my notes for me"}
        )
        assert done[-1]["type"] == "done"

    asyncio.run(flow())


def test_chat_while_a_question_is_pending_is_refused(session: ChatSession) -> None:
    """A new chat while a question waits gets an error, and the question can still be answered."""

    async def flow() -> None:
        await collect(session, {"type": "chat", "text": "help me with email"})
        refused = await collect(session, {"type": "chat", "text": "something else entirely now"})
        assert refused == [
            {
                "type": "error",
                "message": "A question is waiting for your answer: "
                "answer it before sending a new message.",
            }
        ]
        history = await session.history()
        assert history["pending"]["question"] == "What should I do with your email?"
        done = await collect(session, {"type": "resume_chat", "resume_value": "Draft a reply"})
        assert done[-1]["type"] == "done"

    asyncio.run(flow())


def test_resume_with_an_unknown_interrupt_id_lists_the_waiting_one(session: ChatSession) -> None:
    """An answer to a question that is not waiting names the one that is."""

    async def flow() -> None:
        asked = await collect(session, {"type": "chat", "text": "help me with email"})
        waiting = asked[-1]["interrupt_id"]
        events = await collect(
            session, {"type": "resume_chat", "resume_value": "x", "interrupt_id": "nope"}
        )
        assert events == [
            {
                "type": "error",
                "message": "That question (nope) is not waiting for an answer; "
                f"waiting: {waiting}.",
            }
        ]

    asyncio.run(flow())


def test_chat_during_a_turn_is_refused_and_cancel_stops_the_turn(tmp_path: Path) -> None:
    """While an answer streams, a second chat is refused and cancel ends the turn cancelled."""

    async def flow() -> None:
        checkpointer = InMemorySaver()
        graph: CompiledStateGraph = build_assistant(checkpointer)
        slow = AssistantData(model=OfflineModel(token_delay_ms=20))
        session = ChatSession(graph, checkpointer=checkpointer, thread_id="t1", context=slow)
        events: list[dict[str, Any]] = []
        first_token = asyncio.Event()

        async def turn() -> None:
            async for event in session.handle(
                {"type": "chat", "text": "summarize the quarterly plan"}
            ):
                events.append(event)
                if event["type"] == "token":
                    first_token.set()

        running = asyncio.create_task(turn())
        await first_token.wait()
        refused = await collect(session, {"type": "chat", "text": "another message meanwhile"})
        assert refused[0]["message"].startswith("A turn is still running")
        assert await collect(session, {"type": "cancel"}) == []
        await running
        assert events[-1] == {"type": "status", "stage": "cancelled"}
        assert not any(e["type"] == "done" for e in events)
        history = await session.history()
        assert [m["kind"] for m in history["messages"]] == ["message", "tool"]
        again = await collect(session, {"type": "history"})
        assert again[0]["type"] == "history"

    asyncio.run(flow())


def test_history_shows_the_pending_question_and_the_trace(session: ChatSession) -> None:
    """history returns the messages, the pending question with its id, and what each node saw."""

    async def flow() -> None:
        asked = await collect(session, {"type": "chat", "text": "help me with email"})
        history = await session.history()
        [message] = history["messages"]
        # add_messages gives every message an id.
        assert isinstance(message.pop("id"), str)
        assert message == {
            "kind": "message",
            "role": "user",
            "content": "help me with email",
            "index": 0,
        }
        assert history["pending"]["interrupt_id"] == asked[-1]["interrupt_id"]
        assert history["pending"]["node"] == "enrich"
        assert history["pending"]["checkpoint_id"] == history["checkpoint_id"]
        assert [t["name"] for t in history["trace"]] == ["intake"]
        assert {t["thread_id"] for t in history["trace"]} == {"t1"}

    asyncio.run(flow())


def test_session_needs_the_graphs_checkpointer() -> None:
    """A session over a checkpointer the graph was not compiled with is refused."""
    graph = build_assistant(InMemorySaver())
    with pytest.raises(
        ValueError,
        match=(
            r"^ChatSession needs the checkpointer the graph was compiled with: "
            r"graph = builder\.compile\(checkpointer=checkpointer\)$"
        ),
    ):
        ChatSession(graph, checkpointer=InMemorySaver(), thread_id="t")


def test_a_turn_on_a_thread_running_elsewhere_is_answered_thread_busy(tmp_path: Path) -> None:
    """A second session's turn on a thread whose run is going gets error code thread_busy."""
    checkpointer = InMemorySaver()
    graph = build_assistant(checkpointer)
    slow = AssistantData(model=OfflineModel(token_delay_ms=20))
    first = ChatSession(graph, checkpointer=checkpointer, thread_id="shared", context=slow)
    second = ChatSession(graph, checkpointer=checkpointer, thread_id="shared", context=FAST)

    async def flow() -> None:
        running = asyncio.ensure_future(collect(first, {"type": "chat", "text": "plan my week"}))
        for _ in range(1000):
            if first.running:
                break
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)  # the turn's run has started and streams its tokens
        busy = await collect(second, {"type": "chat", "text": "hello"})
        assert busy[-1]["type"] == "error"
        assert busy[-1]["code"] == "thread_busy"
        assert "another tab" in busy[-1]["message"]
        done = await running
        assert done[-1]["type"] == "done"
        history = await second.history()
        assert [m["content"] for m in history["messages"] if m["kind"] == "message"] == [
            "plan my week"
        ]

    asyncio.run(flow())


def test_a_thread_of_another_assistant_version_reads_and_answers_graph_version() -> None:
    """A thread with a state key the assistant lacks shows its history; a turn is refused."""

    class OldState(TypedDict):
        messages: Annotated[list[dict[str, str]], operator.add]
        mood: str

    def old_reply(state: OldState) -> dict[str, Any]:
        return {"messages": [{"role": "assistant", "content": "hi"}], "mood": "calm"}

    checkpointer = InMemorySaver()
    old = StateGraph(OldState).add_node("old_reply", old_reply).add_edge(START, "old_reply")
    old_graph = old.compile(checkpointer=checkpointer)
    session = ChatSession(
        build_assistant(checkpointer), checkpointer=checkpointer, thread_id="old", context=FAST
    )

    async def flow() -> None:
        user = {"role": "user", "content": "hello"}
        await old_graph.ainvoke({"messages": [user]}, thread_id="old")
        history = await session.history()
        assert [m["content"] for m in history["messages"]] == ["hello", "hi"]
        assert "another version" in history["notice"]
        fresh = ChatSession(session.graph, checkpointer=checkpointer, thread_id="new", context=FAST)
        assert "notice" not in await fresh.history()
        events = await collect(session, {"type": "chat", "text": "and now?"})
        assert events[-1]["type"] == "error"
        assert events[-1]["code"] == "graph_version"
        assert "another version" in events[-1]["message"]
        assert (await session.history())["messages"] == history["messages"]

    asyncio.run(flow())


def test_a_graph_that_cannot_be_read_still_answers_with_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn whose thread cannot be read ends with an error event, not an exception."""
    session = make_session(tmp_path)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("storage is gone")

    monkeypatch.setattr(session.graph, "aget_state", broken)

    async def flow() -> None:
        events = await collect(session, {"type": "chat", "text": "hello"})
        assert events[-1]["type"] == "error"
        assert "storage is gone" in events[-1]["message"]

    asyncio.run(flow())


class FailingOnce:
    """A model that fails its first ``failures`` calls as an unreachable API does, then answers
    as the offline model."""

    kind = "openai"
    token_delay_ms = 0.0

    def __init__(self, failures: int = 1) -> None:
        self.failures = failures
        self.offline = OfflineModel(token_delay_ms=0)

    async def complete(self, messages: Any, tools: Any = (), *, on_token: Any = None) -> Any:
        from protocol import ModelError

        if self.failures > 0:
            self.failures -= 1
            raise ModelError("Could not reach the model API at http://127.0.0.1:9.")
        return await self.offline.complete(messages, tools, on_token=on_token)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


def test_a_failed_turn_is_worded_shown_unfinished_and_continued(tmp_path: Path) -> None:
    """A turn whose model fails ends with the failure in words, its history says it is
    unfinished, and continue runs it on from its last checkpoint to an answer."""
    checkpointer = InMemorySaver()
    session = ChatSession(
        build_assistant(checkpointer),
        checkpointer=checkpointer,
        thread_id="t1",
        context=AssistantData(model=FailingOnce()),
    )

    async def flow() -> None:
        events = await collect(session, {"type": "chat", "text": "what can you do?"})
        assert events[-1] == {
            "type": "error",
            "message": "The assistant could not go on: "
            "Could not reach the model API at http://127.0.0.1:9.",
        }
        history = (await collect(session, {"type": "history"}))[-1]
        assert history["unfinished"] is True
        assert [m["kind"] for m in history["messages"]] == ["message"]
        events = await collect(session, {"type": "continue"})
        assert events[0]["stage"] == "started"
        assert events[-1]["type"] == "done"
        assert events[-1]["text"]
        history = (await collect(session, {"type": "history"}))[-1]
        assert history["unfinished"] is False
        assert history["messages"][-1]["kind"] == "answer"

    asyncio.run(flow())


def test_continue_without_an_unfinished_turn_is_refused(session: ChatSession) -> None:
    """Continue on a thread with no turn stopped before its end is refused in words."""

    async def flow() -> None:
        events = await collect(session, {"type": "continue"})
        assert events == [
            {"type": "error", "message": "This chat has no unfinished turn to continue."}
        ]
        await collect(session, {"type": "chat", "text": "help me with email"})
        events = await collect(session, {"type": "continue"})
        assert events[-1]["message"] == "This chat has no unfinished turn to continue."
        assert (await collect(session, {"type": "history"}))[-1]["unfinished"] is False

    asyncio.run(flow())
