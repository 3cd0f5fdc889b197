"""``stream_mode="messages"`` with LangChain's ``ChatOpenAI`` in a node, on CPython.

The model talks to the project's scripted OpenAI-compatible server
(``tests/e2e/openai_server.py``) over real HTTP. The same tool-calling agent
(``langchain_openai_agent.py``) also runs on real LangGraph from
``.venv-langgraph``, and both must stream the same items.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyctx_web.graph import START, MessagesState, StateGraph
from tests.differential import support
from tests.e2e.openai_server import (
    OpenAIServer,
    Pause,
    Stream,
    completion,
    sse,
    text_reply,
    tool_call_reply,
)

langchain_openai = pytest.importorskip("langchain_openai")

HERE = Path(__file__).resolve().parent
AGENT = HERE / "langchain_openai_agent.py"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


def _model(server: OpenAIServer, **options: Any) -> Any:
    return langchain_openai.ChatOpenAI(
        model="scripted", base_url=server.base_url, api_key="sk-test", max_retries=0, **options
    )


def _graph(node: Any) -> Any:
    return StateGraph(MessagesState).add_node("agent", node).add_edge(START, "agent").compile()


INPUTS = {"messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.asyncio
async def test_messages_mode_streams_the_tokens_of_chat_openai_in_a_node(
    server: OpenAIServer,
) -> None:
    """A node awaiting ``ChatOpenAI.ainvoke`` streams its tokens, each with the node's metadata."""
    server.script(text_reply("Hel", "lo", " there"))
    model = _model(server)

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = _graph(agent)
    items = [item async for item in graph.astream(INPUTS, stream_mode=["messages", "values"])]
    messages = [chunk for mode, chunk in items if mode == "messages"]
    final = [chunk for mode, chunk in items if mode == "values"][-1]["messages"][-1]

    assert [m.content for m, _ in messages if m.content] == ["Hel", "lo", " there"]
    assert {type(m).__name__ for m, _ in messages} == {"AIMessageChunk"}
    assert {m.id for m, _ in messages} == {final.id}
    assert final.content == "Hello there"
    for _, metadata in messages:
        assert metadata["langgraph_node"] == "agent"
        assert metadata["langgraph_step"] == 1
        assert metadata["langgraph_triggers"] == ("branch:to:agent",)
        assert metadata["ls_provider"] == "openai"
        assert metadata["ls_model_name"] == "scripted"
    # The model was called without streaming=True: the messages mode made it stream.
    assert [request.json.get("stream") for request in server.completions()] == [True]


def test_sync_stream_carries_the_tokens_of_a_sync_invoke(server: OpenAIServer) -> None:
    """``graph.stream`` of a sync node calling ``ChatOpenAI.invoke`` streams its tokens."""
    server.script(text_reply("one", " two"))
    model = _model(server, streaming=True)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    streamed = list(_graph(agent).stream(INPUTS, stream_mode="messages"))

    assert [m.content for m, _ in streamed if m.content] == ["one", " two"]
    assert {metadata["langgraph_node"] for _, metadata in streamed} == {"agent"}


@pytest.mark.asyncio
async def test_without_messages_mode_the_model_is_not_made_to_stream(
    server: OpenAIServer,
) -> None:
    """Streaming ``updates`` only leaves the model's call as it is (one non-streamed completion)."""
    server.script(completion("whole answer"))
    model = _model(server)

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    updates = [chunk async for chunk in _graph(agent).astream(INPUTS, stream_mode="updates")]

    assert updates[0]["agent"]["messages"][0].content == "whole answer"
    assert [request.json.get("stream") for request in server.completions()] == [False]


@pytest.mark.asyncio
async def test_closing_the_stream_mid_answer_closes_the_models_connection(
    server: OpenAIServer,
) -> None:
    """Leaving ``astream`` after the first token cancels the run and the server sees it hang up."""
    first = {"choices": [{"index": 0, "delta": {"content": "first"}, "finish_reason": None}]}
    server.script(Stream([*sse(first), Pause(30)]))
    model = _model(server)

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    stream = _graph(agent).astream(INPUTS, stream_mode="messages")
    async for message, _ in stream:
        if message.content:
            break
    await stream.aclose()

    served = await asyncio.to_thread(server.wait_served, 1, 10)
    assert served[0].closed_early


def _agent_output(command: list[str], server: OpenAIServer) -> str:
    server.script(
        tool_call_reply("multiply", {"a": 6, "b": 7}), text_reply("6 times 7", " is ", "42.")
    )
    done = subprocess.run(
        [*command, str(AGENT), server.base_url],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=support.TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return support.normalize(done.stdout)


def test_agent_on_chat_openai_streams_what_real_langgraph_streams(server: OpenAIServer) -> None:
    """The tool-calling agent's ``messages`` stream equals real LangGraph's, item by item."""
    reference = support.REFERENCE_PYTHON
    probe = [str(reference), "-c", "import langchain_openai"]
    if not reference.exists() or subprocess.run(probe, check=False).returncode != 0:
        pytest.skip(f"{reference} with langchain-openai is missing: ./build.sh setup installs it")

    expected = _agent_output([str(reference)], server)
    actual = _agent_output([sys.executable, str(support.LAUNCHER)], server)

    assert "ToolMessage '42'" in expected
    assert actual.splitlines() == expected.splitlines()
