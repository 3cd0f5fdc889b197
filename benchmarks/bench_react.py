"""A ReAct agent's step on real LangGraph and on pyctx_web, in one CPython process.

Both sides build the same agent with their ``create_react_agent``: a scripted
LangChain chat model that answers the question with a tool call, then with the
answer, two tools and an in-memory checkpointer. A run is three steps (model,
tools, model) on a new thread, deleted after the run so that the savers do not
grow over the rounds. The chat model does nothing but return its scripted
message, so the figure is the step's cost, not a model's; what langchain-core
itself costs in a run (the model called twice and the tool once, through their
own ``ainvoke``) is measured alone too, as it is shared by both sides.

Needs real ``langgraph`` and ``langchain-core``, which live in
``.venv-langgraph``: the suite runs this module there (``./build.sh bench``). Run
alone with ``.venv-langgraph/bin/python benchmarks/bench_react.py [--quick]``.
Timings are reported, never asserted.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
import warnings
from collections.abc import Awaitable, Callable
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import compare_async, compared, figure

RUNTIMES = ("langgraph",)
"""Not a runtime of its own: the suite runs this module in ``.venv-langgraph``'s CPython."""

NAME = "ReAct agent step, pyctx_web over real LangGraph"
SHARED = "ReAct agent step, langchain-core's own calls (both sides)"
GOAL = 0.05
"""The graph step's goal: the agent's graph costs at most this share of LangGraph's."""
STEPS = 3
"""The steps of one run: the model asks for a tool, the tool answers, the model answers."""


def scripted_parts() -> tuple[Any, list[Any]]:
    """A chat model that asks for ``add`` then answers, and the agent's two tools.

    Raises ImportError without langchain-core.
    """
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool

    class ScriptedModel(BaseChatModel):
        """Asks for ``add`` when the last message is the user's, else answers."""

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
            if messages[-1].type == "human":
                call = {"name": "add", "args": {"a": 2, "b": 3}, "id": "call_add"}
                reply = AIMessage("", tool_calls=[call])
            else:
                reply = AIMessage("2 + 3 = 5")
            return ChatResult(generations=[ChatGeneration(message=reply)])

        async def _agenerate(
            self, messages: list[BaseMessage], *args: Any, **kwargs: Any
        ) -> ChatResult:
            return self._generate(messages)

    @tool
    async def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool
    async def echo(text: str) -> str:
        """Say the text back."""
        return text

    return ScriptedModel(), [add, echo]


def agents() -> tuple[Any, Any, str]:
    """pyctx_web's agent, LangGraph's agent and LangGraph's version (ImportError without it)."""
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.prebuilt import create_react_agent as langgraph_agent

    from pyctx_web.graph.checkpoint.memory import InMemorySaver
    from pyctx_web.graph.prebuilt import create_react_agent

    model, tools = scripted_parts()
    ours = create_react_agent(model, tools, checkpointer=InMemorySaver())
    with warnings.catch_warnings():  # LangGraph points to LangChain's create_agent
        warnings.simplefilter("ignore")
        real = langgraph_agent(model, tools, checkpointer=LangGraphSaver())
    return ours, real, metadata.version("langgraph")


def runner(agent: Any) -> Callable[[], Awaitable[None]]:
    """A coroutine function that runs ``agent`` once on a new thread, then deletes the thread."""

    async def run_once() -> None:
        thread = uuid.uuid4().hex
        config = {"configurable": {"thread_id": thread}}
        out = await agent.ainvoke({"messages": [("user", "what is 2 + 3?")]}, config)
        if len(out["messages"]) != 4:
            raise RuntimeError(f"the agent ran otherwise: {out['messages']!r}")
        await agent.checkpointer.adelete_thread(thread)

    return run_once


def shared_calls() -> Callable[[], Awaitable[None]]:
    """What langchain-core does in a run on its own: the model twice and the tool once."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    model, tools = scripted_parts()
    question = [HumanMessage("what is 2 + 3?")]
    call = {"name": "add", "args": {"a": 2, "b": 3}, "id": "call_add", "type": "tool_call"}
    answered = [*question, AIMessage("", tool_calls=[call]), ToolMessage("5", tool_call_id="c")]

    async def run_once() -> None:
        await model.ainvoke(question)
        await tools[0].ainvoke(call)
        await model.ainvoke(answered)

    return run_once


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Per-step time of pyctx_web's ReAct agent against LangGraph's, interleaved."""
    try:
        ours, real, version = agents()
    except ImportError as error:
        note = f"not measured: {error}"
        return [figure(NAME, runtime, None, "us/step", note=note)]
    rounds = 5 if quick else 11
    cmp = await compare_async(runner(ours), runner(real), rounds=rounds, units=STEPS, scale=1e6)
    alone = await compare_async(shared_calls(), runner(real), rounds=rounds, units=STEPS, scale=1e6)
    share_ours = alone["value"] / cmp["value"] if cmp["value"] else 0.0
    share = (
        f"langchain-core's own calls {alone['value']:.0f} us/step:"
        f" {share_ours:.0%} of pyctx_web's step, {alone['ratio']:.0%} of LangGraph's"
    )
    shape = "create_react_agent, scripted chat model, 2 tools, InMemorySaver; 3 steps a run"
    return [
        compared(
            NAME,
            runtime,
            cmp,
            "us/step",
            baseline=f"real LangGraph {version}",
            limit=GOAL,
            note=f"{shape}, both in this process; {share}",
        ),
        figure(
            SHARED,
            runtime,
            alone["value"],
            "us/step",
            spread=alone["spread"],
            note="the model's and the tool's ainvoke alone, per step of the agent's run",
        ),
    ]


if __name__ == "__main__":
    import platform

    for row in asyncio.run(
        run(f"cpython {platform.python_version()}", quick="--quick" in sys.argv)
    ):
        low, high = row["spread"] or (0, 0)
        line = f"{row['name']:<60} {row['value'] or 0:>8.1f} {row['unit']} [{low:.1f}, {high:.1f}]"
        if row["ratio"] is not None:
            rlow, rhigh = row["ratio_spread"] or (0, 0)
            judged = f"goal {row['goal']}: {'met' if row['met'] else 'missed'}"
            line += f"  x{row['ratio']:.3f} of {row['baseline']} [{rlow:.3f}, {rhigh:.3f}] {judged}"
        print(f"{line}  [{row['note']}]")
