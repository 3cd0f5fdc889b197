"""Event-stream runs of graphs calling LangChain models and tools: messages, tool calls, tasks."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.message import add_messages
from pyctx_web.graph.prebuilt import ToolNode, ToolRuntime
from pyctx_web.graph.prebuilt._tool_call_stream import ToolCallTransformer


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


@tool
def spell(word: str, runtime: ToolRuntime) -> str:
    """Send each letter of the word as it goes, then the word."""
    for letter in word:
        runtime.emit_output_delta(letter)
    return word


@tool
def broken() -> str:
    """Fail."""
    raise ValueError("no luck")


def _tools_graph(*tools: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("tools", ToolNode(list(tools), handle_tool_errors=False))
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    return builder.compile(transformers=[ToolCallTransformer])


def _asking(name: str, **args: Any) -> dict[str, Any]:
    call = {"name": name, "args": args, "id": "c1", "type": "tool_call"}
    return {"messages": [AIMessage("", tool_calls=[call])]}


def test_tools_mode_streams_a_tool_calls_start_deltas_and_end() -> None:
    """stream_mode="tools" gives tool-started, each emit_output_delta, then tool-finished."""
    chunks = list(_tools_graph(spell).stream(_asking("spell", word="ab"), stream_mode="tools"))
    assert [(c["event"], c.get("delta")) for c in chunks] == [
        ("tool-started", None),
        ("tool-output-delta", "a"),
        ("tool-output-delta", "b"),
        ("tool-finished", None),
    ]
    assert (chunks[0]["tool_call_id"], chunks[0]["tool_name"]) == ("c1", "spell")
    assert chunks[-1]["output"].content == "ab"


def test_tool_calls_stream_gives_a_handle_per_call_with_its_deltas() -> None:
    """run.tool_calls gives each call's handle: its deltas, then its output."""
    run = _tools_graph(spell).stream_events(_asking("spell", word="ab"), version="v3")
    calls = []
    for call in run.tool_calls:
        calls.append((call.tool_name, list(call.output_deltas), call.output, call.completed))
    assert calls == [("spell", ["a", "b"], "ab", True)]


def test_a_failing_tool_call_has_its_error_and_fails_the_run() -> None:
    """A tool's error is its handle's error, and the run's."""
    run = _tools_graph(broken).stream_events(_asking("broken"), version="v3")
    seen: list[Any] = []

    def read() -> None:
        for call in run.tool_calls:
            seen.append(call)
            list(call.output_deltas)

    with pytest.raises(ValueError, match=r"^no luck$"):
        read()
    assert [(c.error, c.completed) for c in seen] == [("no luck", True)]


def _model_graph(model: Any, **config: Any) -> Any:
    def call(state: State) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(State)
    builder.add_node("model", call)
    builder.add_edge(START, "model")
    builder.add_edge("model", END)
    graph = builder.compile()
    return graph.with_config(config) if config else graph


def test_messages_stream_gives_a_chat_model_stream_per_call() -> None:
    """run.messages gives one ChatModelStream per model call, its text streamed once."""
    model = GenericFakeChatModel(messages=iter([AIMessage("hello there")]))
    run = _model_graph(model).stream_events({"messages": [HumanMessage("hi")]}, version="v3")
    texts = ["".join(stream.text) for stream in run.messages]
    assert texts == ["hello there"]


def test_async_messages_stream_gives_async_chat_model_streams() -> None:
    """Under astream_events the model calls' streams are read with async for."""
    model = GenericFakeChatModel(messages=iter([AIMessage("hello there")]))

    async def main() -> list[str]:
        run = await _model_graph(model).astream_events(
            {"messages": [HumanMessage("hi")]}, version="v3"
        )
        texts = []
        async for stream in run.messages:
            texts.append("".join([part async for part in stream.text]))
        return texts

    assert asyncio.run(main()) == ["hello there"]


def test_task_starts_carry_the_runs_metadata() -> None:
    """A task's start in stream_mode="tasks" carries the run's own metadata."""
    model = GenericFakeChatModel(messages=iter([AIMessage("ok")]))
    graph = _model_graph(model, metadata={"lc_agent_name": "helper"})
    starts = [c for c in graph.stream({"messages": []}, stream_mode="tasks") if "result" not in c]
    assert [c["metadata"] for c in starts] == [{"lc_agent_name": "helper"}]


def test_a_nested_graphs_tool_calls_stream_once_under_its_namespace() -> None:
    """A tool call of a graph run by a tool streams under the inner namespace only, also once
    a traced run (one given LangChain callbacks) made node calls chain runs."""
    inner = _tools_graph(spell)

    @tool
    def delegate(word: str, config: RunnableConfig) -> str:
        """Spell the word through the inner graph."""
        done = inner.invoke(_asking("spell", word=word), config)
        return str(done["messages"][-1].content)

    outer = _tools_graph(delegate)
    outer.invoke(_asking("delegate", word="ab"), {"callbacks": [BaseCallbackHandler()]})
    chunks = outer.stream(_asking("delegate", word="ab"), stream_mode="tools", subgraphs=True)
    started = [(len(ns), c["tool_name"]) for ns, c in chunks if c["event"] == "tool-started"]
    assert started == [(0, "delegate"), (1, "spell")]
