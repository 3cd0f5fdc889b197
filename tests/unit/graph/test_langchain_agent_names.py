"""The LangGraph names LangChain's create_agent builds on: RunnableCallable, channels, tracing."""

from __future__ import annotations

import operator
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any, NotRequired, TypedDict

import pytest

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph._internal._runnable import RunnableCallable
from pyctx_web.graph.channels import EphemeralValue, UntrackedValue
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.types import TracePolicy, omit_payload

ROOT = Path(__file__).resolve().parents[3]


class Counted(TypedDict):
    seen: list[str]
    jump: NotRequired[Annotated[str | None, EphemeralValue]]
    calls: NotRequired[Annotated[int, UntrackedValue]]


class Resourced(TypedDict):
    seen: Annotated[list[str], operator.add]
    resource: NotRequired[Annotated[object, UntrackedValue]]


def _two_form_graph() -> Any:
    def sync_form(state: Counted, runtime: Runtime[str]) -> dict[str, Any]:
        return {"seen": [*state["seen"], f"sync:{runtime.context}"]}

    async def async_form(state: Counted, runtime: Runtime[str]) -> dict[str, Any]:
        return {"seen": [*state["seen"], f"async:{runtime.context}"]}

    graph = StateGraph(Counted, context_schema=str)
    graph.add_node("step", RunnableCallable(sync_form, async_form, trace=False))
    graph.add_edge(START, "step")
    return graph.compile()


def test_runnable_callable_node_runs_its_sync_form_under_invoke() -> None:
    """A RunnableCallable node given both forms runs the sync one under invoke() and stream()."""
    assert _two_form_graph().invoke({"seen": []}, context="ctx")["seen"] == ["sync:ctx"]
    chunks = list(_two_form_graph().stream({"seen": []}, context="ctx"))
    assert chunks == [{"step": {"seen": ["sync:ctx"]}}]


@pytest.mark.asyncio
async def test_runnable_callable_node_runs_its_async_form_under_ainvoke() -> None:
    """A RunnableCallable node given both forms runs the async one under ainvoke()."""
    result = await _two_form_graph().ainvoke({"seen": []}, context="ctx")
    assert result["seen"] == ["async:ctx"]


def test_runnable_callable_router_chooses_the_next_node() -> None:
    """A RunnableCallable given to add_conditional_edges routes with its function."""
    graph = StateGraph(Counted)
    graph.add_node("first", lambda state: {"seen": ["first"]})
    graph.add_node("second", lambda state: {"seen": [*state["seen"], "second"]})
    graph.add_edge(START, "first")
    graph.add_conditional_edges("first", RunnableCallable(lambda state: "second"), ["second", END])
    assert graph.compile().invoke({"seen": []})["seen"] == ["first", "second"]


def test_runnable_callable_needs_a_function() -> None:
    """RunnableCallable refuses to be made without a sync or an async function."""
    with pytest.raises(ValueError, match=r"^At least one of func or afunc must be provided\.$"):
        RunnableCallable(None, None)


def test_an_ephemeral_key_is_cleared_by_the_step_after_its_write() -> None:
    """An EphemeralValue key written by a step is seen by the next step only."""
    graph = StateGraph(Counted)
    graph.add_node("write", lambda state: {"jump": "go", "seen": ["write"]})
    graph.add_node("read", lambda state: {"seen": [*state["seen"], f"read:{state.get('jump')}"]})
    graph.add_node("again", lambda state: {"seen": [*state["seen"], f"again:{state.get('jump')}"]})
    graph.add_edge(START, "write").add_edge("write", "read").add_edge("read", "again")
    result = graph.compile().invoke({"seen": []})
    assert result["seen"] == ["write", "read:go", "again:None"]
    assert "jump" not in result


def test_an_untracked_key_lives_for_the_run_and_is_never_checkpointed() -> None:
    """An UntrackedValue key is seen within its run, and a new run on the thread lacks it."""
    graph = StateGraph(Counted)
    graph.add_node("count", lambda state: {"calls": state.get("calls", 0) + 1, "seen": ["c"]})
    graph.add_node("show", lambda state: {"seen": [*state["seen"], f"calls={state.get('calls')}"]})
    graph.add_edge(START, "count").add_edge("count", "show")
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert app.invoke({"seen": []}, config)["seen"] == ["c", "calls=1"]
    assert "calls" not in app.get_state(config).values
    assert app.invoke({"seen": []}, config)["seen"] == ["c", "calls=1"]


def test_trace_policy_keeps_its_processors() -> None:
    """TracePolicy holds its processors, and omit_payload records an empty payload."""
    policy = TracePolicy(process_inputs=omit_payload)
    assert policy.process_inputs is omit_payload
    assert policy.process_outputs is None
    assert omit_payload({"messages": ["secret"]}) == {}


def test_langchain_imports_these_names_after_install_as_langgraph() -> None:
    """After install_as_langgraph(), the LangGraph names LangChain's agents import resolve."""
    code = """
        from pyctx_web.graph import install_as_langgraph
        install_as_langgraph()
        from langgraph._internal._runnable import RunnableCallable
        from langgraph.cache.base import BaseCache
        from langgraph.channels.ephemeral_value import EphemeralValue
        from langgraph.channels.untracked_value import UntrackedValue
        from langgraph.constants import TAG_NOSTREAM
        from langgraph.stream import StreamTransformer
        from langgraph.stream._mux import StreamMux
        from langgraph.stream.run_stream import SubgraphRunStream
        from langgraph.stream.transformers import _TasksLifecycleBase
        from langgraph.types import Checkpointer, TracePolicy, omit_payload
        from langgraph.typing import ContextT
        from langgraph.warnings import LangGraphDeprecatedSinceV10
        print(RunnableCallable.__module__, EphemeralValue.__module__, BaseCache.__module__)
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "pyctx_web.graph._internal._runnable",
        "pyctx_web.graph.channels",
        "pyctx_web.graph.cache",
    ]


def test_a_run_value_asked_for_outside_a_run_is_a_runtime_error() -> None:
    """get_config() and get_runtime() outside a run raise a RuntimeError, as LangGraph's do."""
    from pyctx_web.graph.config import get_config
    from pyctx_web.graph.runtime import get_runtime

    with pytest.raises(RuntimeError, match=r"^get_config\(\) was called outside a graph run$"):
        get_config()
    with pytest.raises(RuntimeError, match=r"^get_runtime\(\) was called outside a graph run$"):
        get_runtime()


def _tracer() -> Any:
    """A LangChain tracer keeping each chain run's name, inputs, outputs and parent."""
    pytest.importorskip("langchain_core")
    from langchain_core.tracers.base import BaseTracer
    from langchain_core.tracers.schemas import Run

    class Kept(BaseTracer):
        def __init__(self) -> None:
            super().__init__()
            self.runs: list[Run] = []

        def _persist_run(self, run: Run) -> None:
            return None

        def _on_chain_end(self, run: Run) -> None:
            self.runs.append(run)

        def _on_llm_end(self, run: Run) -> None:
            self.runs.append(run)

    return Kept()


def test_a_run_with_callbacks_traces_each_node_as_a_chain_run() -> None:
    """With LangChain callbacks given, the run and its nodes are chain runs over the model calls."""
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import HumanMessage

    model = FakeListChatModel(responses=["hi"])

    def ask(state: Counted) -> dict[str, Any]:
        model.invoke([HumanMessage("hello")])
        return {"seen": ["asked"]}

    graph = StateGraph(Counted)
    graph.add_node("ask", ask)
    graph.add_node(
        "quiet", lambda state: None, trace_policy=TracePolicy(omit_payload, omit_payload)
    )
    graph.add_edge(START, "ask").add_edge("ask", "quiet")
    tracer = _tracer()
    app = graph.compile(name="agent")
    app.invoke({"seen": []}, {"callbacks": [tracer]})
    by_name = {run.name: run for run in tracer.runs}
    assert by_name["agent"].parent_run_id is None
    assert by_name["agent"].inputs == {"seen": []}
    assert by_name["agent"].outputs == {"seen": ["asked"]}
    assert by_name["ask"].parent_run_id == by_name["agent"].id
    assert by_name["ask"].inputs == {"seen": []}
    assert by_name["ask"].outputs == {"seen": ["asked"]}
    assert by_name["FakeListChatModel"].parent_run_id == by_name["ask"].id
    assert by_name["quiet"].inputs == {}
    assert by_name["quiet"].outputs == {}


def test_langgraph_deprecation_warnings_say_since_and_until_which_version() -> None:
    """LangGraph's deprecation warnings read as LangGraph's, naming both versions."""
    from pyctx_web.graph.warnings import LangGraphDeprecatedSinceV10, LangGraphDeprecationWarning

    warning = LangGraphDeprecatedSinceV10("`config_schema` is deprecated.")
    assert isinstance(warning, LangGraphDeprecationWarning)
    assert isinstance(warning, DeprecationWarning)
    assert str(warning) == (
        "`config_schema` is deprecated. Deprecated in LangGraph V1.0 to be removed in V2.0."
    )


def test_a_traced_run_still_streams_its_model_tokens() -> None:
    """A run given LangChain callbacks streams its models' tokens to stream_mode="messages"."""
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import HumanMessage

    model = FakeListChatModel(responses=["hey"])

    def ask(state: Counted) -> dict[str, Any]:
        model.invoke([HumanMessage("hello")])
        return {"seen": ["asked"]}

    graph = StateGraph(Counted).add_node("ask", ask).add_edge(START, "ask").compile()
    tracer = _tracer()
    chunks = graph.stream({"seen": []}, {"callbacks": [tracer]}, stream_mode="messages")
    assert "".join(str(message.content) for message, _ in chunks) == "hey"
    assert {run.name for run in tracer.runs} >= {"ask", "FakeListChatModel"}


def test_a_traced_run_is_named_and_identified_by_its_config() -> None:
    """A traced run takes the config's run_name and run_id; its node runs do not."""
    from uuid import uuid4

    graph = StateGraph(Counted).add_node("only", lambda state: None).add_edge(START, "only")
    tracer, run_id = _tracer(), uuid4()
    graph.compile().invoke(
        {"seen": []}, {"callbacks": [tracer], "run_name": "mine", "run_id": run_id}
    )
    by_name = {run.name: run for run in tracer.runs}
    assert set(by_name) == {"mine", "only"}
    assert by_name["mine"].id == run_id
    assert by_name["only"].parent_run_id == run_id


def test_an_untracked_key_may_hold_what_no_checkpoint_can() -> None:
    """An UntrackedValue key holds a live object through a checkpointed run, parallel steps too."""
    resource = object()
    graph = StateGraph(Resourced)
    graph.add_node("open", lambda state: {"resource": resource, "seen": ["open"]})
    graph.add_node("side", lambda state: {"seen": ["side"]})
    graph.add_node("use", lambda state: {"seen": [f"same={state['resource'] is resource}"]})
    graph.add_edge(START, "open").add_edge(START, "side").add_edge("open", "use")
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "live"}}
    assert app.invoke({"seen": []}, config)["seen"] == ["open", "side", "same=True"]
    history = list(app.get_state_history(config))
    assert all("resource" not in snapshot.values for snapshot in history)
    assert all("resource" not in str(snapshot.metadata) for snapshot in history)
