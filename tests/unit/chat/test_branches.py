"""The chat protocol's edit, regenerate and branches, over a small graph on CPython."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyctx_web.chat import ChatSession
from pyctx_web.graph import END, START, MessagesState, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.types import interrupt

Event = dict[str, Any]


def _text(message: Any) -> str:
    return str(message["content"] if isinstance(message, dict) else message.content)


def make_session(kind: str, tmp_path: Path) -> ChatSession:
    """A session over ``think -> answer``: each answer is numbered, so a regeneration differs."""
    numbers = itertools.count(1)

    def think(state: MessagesState) -> dict[str, Any]:
        return {}

    def answer(state: MessagesState) -> dict[str, Any]:
        said = _text(state["messages"][-1])
        return {"messages": [{"role": "assistant", "content": f"#{next(numbers)} on {said}"}]}

    builder = StateGraph(MessagesState)
    builder.add_node("think", think)
    builder.add_node("answer", answer)
    builder.add_edge(START, "think")
    builder.add_edge("think", "answer")
    builder.add_edge("answer", END)
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "b.db")
    graph = builder.compile(checkpointer=saver)
    return ChatSession(graph, checkpointer=saver, thread_id="t")


async def send(session: ChatSession, message: Event) -> list[Event]:
    return [event async for event in session.handle(message)]


def texts(history: Event) -> list[str]:
    return [entry["content"] for entry in history["messages"]]


@pytest.fixture(params=["memory", "sqlite"])
def session(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChatSession]:
    made = make_session(request.param, tmp_path)
    yield made
    if isinstance(made.checkpointer, SqliteSaver):
        made.checkpointer.close()


def test_edit_forks_before_the_message_and_switching_shows_each_branch(
    session: ChatSession,
) -> None:
    """Editing the second message runs from before it; both branches stay reachable by head."""

    async def flow() -> None:
        await send(session, {"type": "chat", "text": "one"})
        await send(session, {"type": "chat", "text": "two"})
        old = await session.history()
        second = old["messages"][2]
        assert second["kind"] == "message"
        assert second["content"] == "two"
        events = await send(
            session,
            {
                "type": "edit",
                "message_id": second["id"],
                "text": "TWO",
                "checkpoint_id": old["checkpoint_id"],
            },
        )
        assert events[0]["type"] == "status"
        assert events[0]["from_checkpoint"] is not None
        assert events[-1]["type"] == "done"
        assert events[-1]["text"] == "#3 on TWO"
        new = await session.history(events[-1]["checkpoint_id"])
        assert texts(new) == ["one", "#1 on one", "TWO", "#3 on TWO"]
        switch = new["messages"][2]["branch"]
        assert (switch["index"], switch["count"]) == (2, 2)
        back = await send(session, {"type": "history", "checkpoint_id": switch["heads"][0]})
        assert texts(back[0]) == ["one", "#1 on one", "two", "#2 on two"]
        assert back[0]["messages"][2]["branch"]["index"] == 1
        assert "branch" not in back[0]["messages"][0]

    asyncio.run(flow())


def test_regenerate_reruns_only_the_answer_and_every_retry_joins_one_switch(
    session: ChatSession,
) -> None:
    """Two regenerations of one answer give one switcher with three branches on that answer."""

    async def flow() -> None:
        await send(session, {"type": "chat", "text": "one"})
        head = (await session.history())["checkpoint_id"]
        for _ in range(2):
            history = await session.history(head)
            answer = history["messages"][1]
            events = await send(
                session, {"type": "regenerate", "message_id": answer["id"], "checkpoint_id": head}
            )
            assert events[-1]["type"] == "done"
            head = events[-1]["checkpoint_id"]
        history = await session.history(head)
        assert texts(history) == ["one", "#3 on one"]
        assert {k: history["messages"][1]["branch"][k] for k in ("index", "count")} == {
            "index": 3,
            "count": 3,
        }
        assert "branch" not in history["messages"][0]

    asyncio.run(flow())


def test_chat_from_an_older_branch_continues_that_branch(session: ChatSession) -> None:
    """A chat sent with an older branch's head forks there and keeps the other branch intact."""

    async def flow() -> None:
        await send(session, {"type": "chat", "text": "one"})
        first = await session.history()
        edited = await send(
            session, {"type": "edit", "message_id": first["messages"][0]["id"], "text": "uno"}
        )
        old_head = (await session.history(edited[-1]["checkpoint_id"]))["messages"][0]["branch"][
            "heads"
        ][0]
        done = await send(session, {"type": "chat", "text": "more", "checkpoint_id": old_head})
        history = await session.history(done[-1]["checkpoint_id"])
        assert texts(history)[:2] == ["one", "#1 on one"]
        assert texts(history)[2] == "more"
        other = await session.history(edited[-1]["checkpoint_id"])
        assert texts(other) == ["uno", "#2 on uno"]

    asyncio.run(flow())


BAD = [
    ({"type": "edit", "text": "x"}, 'A "edit" message needs a "message_id" naming the message.'),
    (
        {"type": "edit", "message_id": "nope", "text": "x"},
        "nope is not a message of yours in this chat.",
    ),
    ({"type": "regenerate", "message_id": 5}, '"message_id" must be non-empty text, not a number.'),
    ({"type": "history", "checkpoint_id": "nope"}, None),
    (
        {"type": "chat", "text": "x", "checkpoint_id": "nope"},
        "This chat has no saved version nope: reload the chat.",
    ),
]


@pytest.mark.parametrize(("message", "expected"), BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_edit_and_head_messages_get_one_error_and_store_nothing(
    session: ChatSession, message: Event, expected: str | None
) -> None:
    """A bad edit, regenerate or head is refused with one readable error and no new checkpoint."""

    async def flow() -> None:
        await send(session, {"type": "chat", "text": "one"})
        before = [s.config async for s in session.graph.aget_state_history("t")]
        events = await send(session, message)
        assert len(events) == 1
        assert events[0]["type"] == "error"
        if expected is not None:
            assert events[0]["message"] == expected
        assert [s.config async for s in session.graph.aget_state_history("t")] == before

    asyncio.run(flow())


def asking_session() -> ChatSession:
    """A session over ``ask -> answer``: ``ask`` interrupts with a question every turn."""

    def ask(state: MessagesState) -> dict[str, Any]:
        reply = interrupt({"question": f"About {_text(state['messages'][-1])}?"})
        return {"messages": [{"role": "assistant", "content": f"noted: {reply}"}]}

    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    saver = InMemorySaver()
    return ChatSession(builder.compile(checkpointer=saver), checkpointer=saver, thread_id="q")


def test_answering_a_question_on_an_older_branch_asks_it_there_again() -> None:
    """A resume on an older branch's pending head forks and answers it; the newer still waits."""

    async def flow() -> None:
        session = asking_session()
        first = await send(session, {"type": "chat", "text": "one"})
        assert first[-1]["question"] == "About one?"
        message_id = (await session.history())["messages"][0]["id"]
        edited = await send(session, {"type": "edit", "message_id": message_id, "text": "uno"})
        assert edited[-1]["question"] == "About uno?"
        old_head = first[-1]["checkpoint_id"]
        done = await send(
            session,
            {"type": "resume_chat", "resume_value": "yes", "checkpoint_id": old_head},
        )
        assert done[-1]["type"] == "done"
        assert done[-1]["text"] == "noted: yes"
        newer = await session.history(edited[-1]["checkpoint_id"])
        assert newer["pending"]["question"] == "About uno?"
        assert texts(await session.history(done[-1]["checkpoint_id"])) == ["one", "noted: yes"]

    asyncio.run(flow())


def test_an_answer_of_the_wrong_kind_is_refused() -> None:
    """Decisions sent for a question get one error naming the form the answer must take."""

    async def flow() -> None:
        session = asking_session()
        await send(session, {"type": "chat", "text": "one"})
        before = await session.history()
        events = await send(session, {"type": "resume_chat", "decisions": [{"type": "approve"}]})
        assert events == [
            {
                "type": "error",
                "message": "This is a question: answer it with resume_value, not decisions.",
            }
        ]
        assert await session.history() == before

    asyncio.run(flow())
