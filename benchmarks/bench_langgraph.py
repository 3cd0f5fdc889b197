"""The same looping graph on real LangGraph and on pyctx_web, in one CPython process.

Needs real ``langgraph``, which lives in ``.venv-langgraph`` only: the suite runs
this module there (``./build.sh bench``). Run alone with
``.venv-langgraph/bin/python benchmarks/bench_langgraph.py [--quick]``. Without
``langgraph``, each row says so in its note. Timings are reported, never asserted.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import compare_async, compared, figure

RUNTIMES = ("langgraph",)
"""Not a runtime of its own: the suite runs this module in ``.venv-langgraph``'s CPython."""

NAME = "graph step, pyctx_web over real LangGraph"
LABELS = ("no checkpointer", "in-memory checkpointer")
GOAL = 0.05
"""A step of pyctx_web costs at most this share of LangGraph's, with or without a checkpointer:
both are the steps of a program in a browser, where pyctx_web replaces LangGraph."""


class Counter(TypedDict):
    """A step counter."""

    n: int


def loop_graph(api: dict[str, Any], saver: Any, steps: int) -> Any:
    """The graph of ``benchmarks/bench_graph.py`` built with ``api``'s StateGraph, START and END."""

    async def step(state: Counter) -> dict[str, int]:
        return {"n": state["n"] + 1}

    def again(state: Counter) -> str:
        return "step" if state["n"] < steps else api["END"]

    builder = api["StateGraph"](Counter)
    builder.add_node("step", step)
    builder.add_edge(api["START"], "step")
    builder.add_conditional_edges("step", again)
    return builder.compile(checkpointer=saver)


def runner(graph: Any, steps: int, threaded: bool) -> Callable[[], Any]:
    """A coroutine function that runs ``graph`` once from ``n = 0``, on a new thread if asked."""

    async def run_once() -> None:
        configurable = {"thread_id": uuid.uuid4().hex} if threaded else {}
        config = {"configurable": configurable, "recursion_limit": steps + 5}
        await graph.ainvoke({"n": 0}, config=config)

    return run_once


def apis() -> tuple[dict[str, Any], dict[str, Any], str]:
    """LangGraph's and pyctx_web's graph API, and LangGraph's version (ImportError without it)."""
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import END as LG_END
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LangGraphStateGraph

    from pyctx_web.graph import END, START, StateGraph
    from pyctx_web.graph.checkpoint.memory import InMemorySaver

    real = {"StateGraph": LangGraphStateGraph, "START": LG_START, "END": LG_END}
    real["saver"] = LangGraphSaver
    ours = {"StateGraph": StateGraph, "START": START, "END": END, "saver": InMemorySaver}
    return real, ours, metadata.version("langgraph")


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Per-step time of pyctx_web against real LangGraph on the same graph, interleaved."""
    try:
        real, ours, version = apis()
    except ImportError:
        return [
            figure(f"{NAME}, {label}", runtime, None, "us/step", note="langgraph not installed")
            for label in LABELS
        ]
    rounds = 5 if quick else 11
    steps = 50 if quick else 200
    results = []
    for label in LABELS:
        threaded = label != "no checkpointer"
        graphs = [
            loop_graph(api, api["saver"]() if threaded else None, steps) for api in (ours, real)
        ]
        work, baseline = (runner(graph, steps, threaded) for graph in graphs)
        cmp = await compare_async(work, baseline, rounds=rounds, units=steps, scale=1e6)
        results.append(
            compared(
                f"{NAME}, {label}",
                runtime,
                cmp,
                "us/step",
                baseline=f"real LangGraph {version}",
                limit=GOAL,
                note=f"the same {steps}-step graph, both in this process",
            )
        )
    return results


if __name__ == "__main__":
    import platform

    for row in asyncio.run(
        run(f"cpython {platform.python_version()}", quick="--quick" in sys.argv)
    ):
        ratio = "" if row["ratio"] is None else f"  x{row['ratio']:.3f} of {row['baseline']}"
        low, high = row["ratio_spread"] or (0, 0)
        judged = f"  goal {row['goal']}: {'met' if row['met'] else 'missed'}"
        print(
            f"{row['name']:<70} {row['value'] or 0:>8.1f} {row['unit']}{ratio}"
            f" [{low:.3f}, {high:.3f}]{judged}  [{row['note']}]"
        )
