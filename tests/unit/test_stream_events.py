"""stream_events(version="v3") and its async form: runs driven by reading their streams."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, ClassVar, TypedDict

import pytest

from pyctx_web.errors import UsageError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.stream import (
    ProtocolEvent,
    StreamChannel,
    StreamTransformer,
    UpdatesTransformer,
)
from pyctx_web.graph.types import interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _step(name: str) -> Any:
    def node(state: State) -> dict[str, Any]:
        get_stream_writer()(f"from-{name}")
        return {"log": [name]}

    return node


def _two_steps(**compile_options: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("a", _step("a"))
    builder.add_node("b", _step("b"))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(**compile_options)


class _Shouts(StreamTransformer):
    """Pushes each custom chunk of its graph, upper-cased, to a named channel."""

    required_stream_modes: ClassVar[tuple[str, ...]] = ("custom",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self.shouts: StreamChannel[str] = StreamChannel("shouts")

    def init(self) -> dict[str, Any]:
        return {"shouts": self.shouts}

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] == "custom" and event["params"]["namespace"] == list(self.scope):
            self.shouts.push(str(event["params"]["data"]).upper())
        return True


def test_values_stream_gives_each_state_and_output_the_last() -> None:
    """run.values yields the state after the input and each step; run.output is the last."""
    run = _two_steps().stream_events({"log": []}, version="v3")
    assert list(run.values) == [{"log": []}, {"log": ["a"]}, {"log": ["a", "b"]}]
    assert run.output == {"log": ["a", "b"]}
    assert run.interrupted is False


def test_compiled_and_call_transformers_add_streams_after_the_builtins() -> None:
    """compile(transformers=...) and the call's transformers add streams, in that order."""
    run = _two_steps(transformers=[_Shouts]).stream_events(
        {"log": []}, version="v3", transformers=[UpdatesTransformer]
    )
    names = [type(t).__name__ for t in run._mux._transformers]
    assert names == [
        "ValuesTransformer",
        "MessagesTransformer",
        "LifecycleTransformer",
        "SubgraphTransformer",
        "_Shouts",
        "UpdatesTransformer",
    ]
    assert list(run.interleave("shouts", "updates")) == [
        ("shouts", "FROM-A"),
        ("updates", {"a": {"log": ["a"]}}),
        ("shouts", "FROM-B"),
        ("updates", {"b": {"log": ["b"]}}),
    ]


def test_a_named_channel_forwards_its_items_to_the_raw_events() -> None:
    """Iterating the run gives its raw events, a named channel's items as custom:<name>."""
    run = _two_steps(transformers=[_Shouts]).stream_events({"log": []}, version="v3")
    seen = [(e["method"], e["params"]["data"]) for e in run if e["method"] != "values"]
    assert seen == [
        ("custom:shouts", "FROM-A"),
        ("custom", "from-a"),
        ("custom:shouts", "FROM-B"),
        ("custom", "from-b"),
    ]


def test_async_run_is_read_with_async_for_and_awaited_output() -> None:
    """astream_events gives a run whose streams are read with async for; output() is awaited."""

    async def main() -> tuple[list[Any], Any]:
        run = await _two_steps().astream_events({"log": []}, version="v3")
        values = [v async for v in run.values]
        return values, await run.output()

    values, output = asyncio.run(main())
    assert values[-1] == output == {"log": ["a", "b"]}


def test_subgraph_runs_get_handles_with_their_own_streams() -> None:
    """run.subgraphs gives a handle per subgraph run, whose values are the subgraph's steps."""
    outer = StateGraph(State)
    outer.add_node("inner", _two_steps())
    outer.add_edge(START, "inner")
    outer.add_edge("inner", END)
    run = outer.compile().stream_events({"log": []}, version="v3")
    found = []
    for handle in run.subgraphs:
        found.append((handle.graph_name, list(handle.values)))
    assert found == [("inner", [{"log": ["a"]}, {"log": ["a", "b"]}])]
    assert run.output == {"log": ["a", "b"]}


def test_a_paused_run_says_it_was_interrupted_with_its_questions() -> None:
    """A run paused by interrupt() ends with interrupted True and its questions."""

    def ask(state: State) -> dict[str, Any]:
        return {"log": [interrupt("why?")]}

    builder = StateGraph(State)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    graph = builder.compile(checkpointer=InMemorySaver())
    run = graph.stream_events({"log": []}, {"configurable": {"thread_id": "t"}}, version="v3")
    assert run.interrupted is True
    assert [q.value for q in run.interrupts] == ["why?"]


def test_run_errors_reach_the_reader() -> None:
    """A node's error ends the run's streams with that error."""

    def boom(state: State) -> dict[str, Any]:
        raise ValueError("nope")

    builder = StateGraph(State)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    run = builder.compile().stream_events({"log": []}, version="v3")
    with pytest.raises(ValueError, match=r"^nope$"):
        list(run.values)


def test_refused_arguments_are_named() -> None:
    """stream_mode/subgraphs, ready-made transformers and other versions are refused."""
    graph = _two_steps()
    with pytest.raises(
        TypeError,
        match=(
            r"^stream_events\(version='v3'\) / astream_events\(version='v3'\) do not accept "
            r"stream_mode: the run sets them \(stream_mode from its transformers, "
            r"subgraphs=True for the subgraphs' handles\)$"
        ),
    ):
        graph.stream_events({"log": []}, version="v3", stream_mode="values")
    with pytest.raises(TypeError, match=r"^.*got pre-built instance _Shouts\. Pass .*$"):
        graph.stream_events({"log": []}, version="v3", transformers=[_Shouts()])
    with pytest.raises(
        UsageError,
        match=(
            r"^stream_events\(version='v2'\) is not supported: pyctx_web's graphs have "
            r"version='v3' \(or stream\(\)/astream\(\) with stream_mode\)$"
        ),
    ):
        graph.stream_events({"log": []})


def test_a_channel_is_read_once_and_only_in_its_runs_form() -> None:
    """A second reader of a stream is refused; a sync run's stream refuses async for."""
    run = _two_steps().stream_events({"log": []}, version="v3")
    iter(run.values)
    with pytest.raises(
        RuntimeError, match=r"^StreamChannel already has a subscriber; use \.tee\(n\) .*$"
    ):
        iter(run.values)
    with pytest.raises(TypeError, match=r"^This StreamChannel is bound to sync mode.*$"):
        aiter(run.lifecycle)


def test_a_bound_graph_run_from_a_node_runs_with_its_bound_config() -> None:
    """A with_config() copy run from a node starts its tasks with the metadata bound to it."""
    inner = _two_steps().with_config(metadata={"lc_agent_name": "inner"})

    async def delegate(state: State) -> dict[str, Any]:
        return {"log": (await inner.ainvoke({"log": []}))["log"]}

    builder = StateGraph(State)
    builder.add_node("delegate", delegate)
    builder.add_edge(START, "delegate")
    chunks = builder.compile().stream({"log": []}, stream_mode="tasks", subgraphs=True)
    starts = [(len(ns), data.get("metadata")) for ns, data in chunks if "result" not in data]
    assert starts == [(0, None), (1, {"lc_agent_name": "inner"}), (1, {"lc_agent_name": "inner"})]


def test_a_subgraph_run_in_a_thread_of_its_own_streams_into_its_parent() -> None:
    """A graph invoked synchronously in a worker thread from a node streams with subgraphs=True."""
    inner = _two_steps()

    async def delegate(state: State) -> dict[str, Any]:
        done = await asyncio.to_thread(lambda: inner.invoke({"log": []}))
        return {"log": done["log"]}

    builder = StateGraph(State)
    builder.add_node("delegate", delegate)
    builder.add_edge(START, "delegate")
    graph = builder.compile().with_config(metadata={"team": "outer"})
    chunks = list(graph.stream({"log": []}, stream_mode=["updates", "tasks"], subgraphs=True))
    inner_updates = [data for ns, mode, data in chunks if ns and mode == "updates"]
    assert inner_updates == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]
    inner_starts = [d for ns, mode, d in chunks if ns and mode == "tasks" and "result" not in d]
    assert [d["metadata"] for d in inner_starts] == [{"team": "outer"}, {"team": "outer"}]
