"""Graph runtime figures: a step against a plain await, and whether its cost grows with history.

Run alone with ``python benchmarks/bench_graph.py [--quick]``, or through the suite
(``./build.sh bench``), which calls :func:`run`. Timings are reported, never asserted.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import COARSE, clock, compare_async, figure

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.state import CompiledStateGraph


class Counter(TypedDict):
    """A step counter and the time each step's node ran."""

    n: int


def _loop_graph(
    checkpointer: Checkpointer | None,
    steps: int,
    stamps: list[float],
    tick: Callable[[], float] = clock,
) -> CompiledStateGraph:
    async def step(state: Counter) -> dict[str, int]:
        stamps.append(tick())
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


async def _invoke(graph: CompiledStateGraph, steps: int, with_thread: bool) -> None:
    thread_id = uuid.uuid4().hex if with_thread else None
    await graph.ainvoke({"n": 0}, thread_id=thread_id, config={"recursion_limit": steps + 5})


async def _plain(steps: int) -> None:
    async def step(state: Counter) -> dict[str, int]:
        return {"n": state["n"] + 1}

    state: Counter = {"n": 0}
    for _ in range(steps):
        state = {"n": (await step(state))["n"]}


def _window(stamps: list[float], first: bool, size: int = 100) -> float:
    """Seconds per step over ``size`` consecutive steps at the start or the end of a run.

    One span over the whole window, not ``size`` short ones, so that a coarse clock
    cannot round it to zero.
    """
    window = stamps[: size + 1] if first else stamps[-(size + 1) :]
    return (window[-1] - window[0]) / size


def _checkpointers(folder: str) -> dict[str, Checkpointer | None]:
    return {
        "no checkpointer": None,
        "InMemorySaver": InMemorySaver(),
        "SqliteSaver": SqliteSaver(os.path.join(folder, "bench.db")),
    }


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Measure the graph figures in the current runtime."""
    with tempfile.TemporaryDirectory() as folder:
        savers = _checkpointers(folder)
        try:
            return await step_rows(runtime, savers, quick=quick) + await _growth_rows(
                runtime, savers, quick=quick
            )
        finally:
            sqlite_saver = savers["SqliteSaver"]
            if isinstance(sqlite_saver, SqliteSaver):
                sqlite_saver.close()


async def step_rows(
    runtime: str, savers: dict[str, Checkpointer | None], *, quick: bool
) -> list[dict[str, Any]]:
    """A graph step with each of ``savers`` against a plain await of the node."""
    rounds = 5 if quick else 11
    steps = 100 if quick else 300
    results: list[dict[str, Any]] = []
    for label, saver in savers.items():
        stamps: list[float] = []
        graph = _loop_graph(saver, steps, stamps)
        threaded = saver is not None

        async def graph_run(g: CompiledStateGraph = graph, threaded: bool = threaded) -> None:
            await _invoke(g, steps, threaded)

        async def plain_run() -> None:
            await _plain(steps)

        cmp = await compare_async(graph_run, plain_run, rounds=rounds, units=steps, scale=1e6)
        # The goal is set for CPython with the in-memory checkpointer only.
        judged = label == "InMemorySaver" and runtime.startswith("cpython")
        results.append(_step_row(f"graph step, {label}", runtime, cmp, judged=judged))
    return results


async def _growth_rows(
    runtime: str, savers: dict[str, Checkpointer | None], *, quick: bool
) -> list[dict[str, Any]]:
    long_run = 1000
    # On CPython the windows are timed in the process's CPU time: what grows with a run's
    # history is work this process does, and CPU time leaves out the time other processes
    # of a shared machine took its core, which made single windows swing by 1.5x.
    cpu = runtime.startswith("cpython")
    tick = time.process_time if cpu else clock
    results: list[dict[str, Any]] = []
    for label in ("InMemorySaver", "SqliteSaver"):
        saver = savers[label]
        firsts, lasts = [], []
        for _ in range(3 if quick else 5):
            stamps: list[float] = []
            graph = _loop_graph(saver, long_run, stamps, tick)
            await graph.ainvoke(
                {"n": 0}, thread_id=uuid.uuid4().hex, config={"recursion_limit": long_run + 5}
            )
            firsts.append(_window(stamps, first=True))
            lasts.append(_window(stamps, first=False))
        results.append(_growth_row(label, runtime, firsts, lasts, cpu=cpu))
    return results


def _step_row(name: str, runtime: str, cmp: dict[str, Any], *, judged: bool) -> dict[str, Any]:
    """The row of a graph step against a plain await; ``judged`` rows carry the 50 us goal."""
    value, base = cmp["value"], cmp["baseline_value"]
    overhead = None if cmp["degenerate"] else value - base
    return figure(
        name,
        runtime,
        value,
        "us/step",
        spread=cmp["spread"],
        baseline="plain await of the node",
        baseline_value=base,
        ratio=cmp["ratio"],
        ratio_spread=cmp["ratio_spread"],
        goal="overhead <= 50 us" if judged else None,
        met=overhead <= 50 if judged and overhead is not None else None,
        note=cmp["degenerate"] or f"overhead {overhead:.1f} us/step",
    )


def _growth_row(
    label: str, runtime: str, firsts: list[float], lasts: list[float], *, cpu: bool = False
) -> dict[str, Any]:
    """Whether a step costs more after 900 checkpoints: last 100 steps over the first 100."""
    ratios = [last / first for first, last in zip(firsts, lasts, strict=True) if first > 0]
    ratio = statistics.median(ratios) if ratios else None
    return figure(
        f"graph 1000-step run, last/first step, {label}",
        runtime,
        statistics.median(lasts) * 1e6,
        "us/step",
        baseline="first 100 steps",
        baseline_value=statistics.median(firsts) * 1e6,
        ratio=ratio,
        goal="<= 1.2",
        met=None if ratio is None else ratio <= 1.2,
        note=(
            f"{'CPU ' if cpu else ''}time of the last 100 steps over the first 100"
            + ("" if ratios else f"; {COARSE}")
        ),
    )


def _print(results: list[dict[str, Any]]) -> None:
    for row in results:
        line = f"{row['name']:<55} {row['value'] or 0:>10.1f} {row['unit']}"
        if row["ratio"] is not None:
            line += f"   vs {row['baseline']}: {row['baseline_value']:.1f} (x{row['ratio']:.2f})"
        if row["goal"]:
            line += f"   goal {row['goal']}: {'met' if row['met'] else 'missed'}"
        if row["note"]:
            line += f"   [{row['note']}]"
        print(line)


if __name__ == "__main__":
    import platform

    _print(asyncio.run(run(f"cpython {platform.python_version()}", quick="--quick" in sys.argv)))
