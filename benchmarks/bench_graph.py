"""Graph runtime figures: a step against a plain await, and whether its cost grows with history.

Run alone with ``python benchmarks/bench_graph.py [--quick]``, or through the suite
(``./build.sh bench``), which calls :func:`run`. Timings are reported, never asserted.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import clock, compare_async, figure

from pyctx_web.graph import (
    END,
    START,
    Checkpointer,
    CompiledGraph,
    InMemoryCheckpointer,
    SQLiteCheckpointer,
    StateGraph,
)


class Counter(TypedDict):
    """A step counter and the time each step's node ran."""

    n: int


def _loop_graph(
    checkpointer: Checkpointer | None, steps: int, stamps: list[float]
) -> CompiledGraph:
    async def step(state: Counter) -> dict[str, int]:
        stamps.append(clock())
        return {"n": state["n"] + 1}

    def again(state: Counter) -> str:
        return "step" if state["n"] < steps else END

    return (
        StateGraph(Counter)
        .add_node("step", step)
        .add_edge(START, "step")
        .add_conditional_edges("step", again)
        .compile(checkpointer=checkpointer)
    )


async def _per_step(graph: CompiledGraph, steps: int, with_thread: bool) -> float:
    start = clock()
    thread_id = uuid.uuid4().hex if with_thread else None
    await graph.ainvoke({"n": 0}, thread_id=thread_id, config={"recursion_limit": steps + 5})
    return (clock() - start) / steps


async def _plain(steps: int) -> float:
    async def step(state: Counter) -> dict[str, int]:
        return {"n": state["n"] + 1}

    state: Counter = {"n": 0}
    start = clock()
    for _ in range(steps):
        state = {"n": (await step(state))["n"]}
    return (clock() - start) / steps


def _checkpointers(folder: str) -> dict[str, Checkpointer | None]:
    return {
        "no checkpointer": None,
        "InMemoryCheckpointer": InMemoryCheckpointer(),
        "SQLiteCheckpointer": SQLiteCheckpointer(os.path.join(folder, "bench.db")),
    }


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Measure the graph figures in the current runtime."""
    rounds = 5 if quick else 11
    steps = 100 if quick else 300
    long_run = 1000
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        savers = _checkpointers(folder)
        for label, saver in savers.items():
            stamps: list[float] = []
            graph = _loop_graph(saver, steps, stamps)
            threaded = saver is not None

            async def graph_run(g: CompiledGraph = graph, threaded: bool = threaded) -> float:
                return await _per_step(g, steps, threaded)

            async def plain_run() -> float:
                return await _plain(steps)

            cmp = await compare_async(graph_run, plain_run, rounds=rounds)
            overhead = (cmp["value"] - cmp["baseline_value"]) * 1e6
            # The goal is set for CPython with the in-memory checkpointer only.
            judged = label == "InMemoryCheckpointer" and runtime.startswith("cpython")
            results.append(
                figure(
                    f"graph step, {label}",
                    runtime,
                    cmp["value"] * 1e6,
                    "us/step",
                    spread=(cmp["spread"][0] * 1e6, cmp["spread"][1] * 1e6),
                    baseline="plain await of the node",
                    baseline_value=cmp["baseline_value"] * 1e6,
                    ratio=cmp["ratio"],
                    ratio_spread=cmp["ratio_spread"],
                    goal="overhead <= 50 us" if judged else None,
                    met=overhead <= 50 if judged else None,
                    note=f"overhead {overhead:.1f} us/step",
                )
            )
        for label in ("InMemoryCheckpointer", "SQLiteCheckpointer"):
            saver = savers[label]
            ratios = []
            firsts, lasts = [], []
            for _ in range(3 if quick else 5):
                stamps = []
                graph = _loop_graph(saver, long_run, stamps)
                await graph.ainvoke(
                    {"n": 0}, thread_id=uuid.uuid4().hex, config={"recursion_limit": long_run + 5}
                )
                steps_s = [b - a for a, b in itertools.pairwise(stamps)]
                first = statistics.median(steps_s[:100])
                last = statistics.median(steps_s[-100:])
                firsts.append(first)
                lasts.append(last)
                ratios.append(last / first)
            ratio = statistics.median(ratios)
            results.append(
                figure(
                    f"graph 1000-step run, last/first step, {label}",
                    runtime,
                    statistics.median(lasts) * 1e6,
                    "us/step",
                    baseline="first 100 steps",
                    baseline_value=statistics.median(firsts) * 1e6,
                    ratio=ratio,
                    goal="<= 1.2",
                    met=ratio <= 1.2,
                    note="median of the last 100 step times over the first 100",
                )
            )
        sqlite_saver = savers["SQLiteCheckpointer"]
        if isinstance(sqlite_saver, SQLiteCheckpointer):
            sqlite_saver.close()
    return results


def _print(results: list[dict[str, Any]]) -> None:
    for row in results:
        line = f"{row['name']:<55} {row['value']:>10.1f} {row['unit']}"
        if row["baseline_value"] is not None:
            line += f"   vs {row['baseline']}: {row['baseline_value']:.1f} (x{row['ratio']:.2f})"
        if row["goal"]:
            line += f"   goal {row['goal']}: {'met' if row['met'] else 'missed'}"
        if row["note"]:
            line += f"   [{row['note']}]"
        print(line)


if __name__ == "__main__":
    import platform

    _print(asyncio.run(run(f"cpython {platform.python_version()}", quick="--quick" in sys.argv)))
