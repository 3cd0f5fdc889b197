"""IndexedDB in a browser: an interrupt then resume round trip, and what durability="exit" saves."""

from __future__ import annotations

import statistics
import uuid
from typing import Any, TypedDict

from stats import clock, compare_async, figure, quantiles

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.types import Command, interrupt

RUNTIMES = ("pyodide-chromium",)


class Ask(TypedDict, total=False):
    """A question and its answer."""

    question: str
    answer: str


class Count(TypedDict):
    """A step counter."""

    n: int


STEPS = 20


def _step(state: Count) -> dict[str, int]:
    return {"n": state["n"] + 1}


def _again(state: Count) -> str:
    return "step" if state["n"] < STEPS else END


async def _durability_row(runtime: str, checkpointer: Any, quick: bool) -> dict[str, Any]:
    """Per step, a 20-step run with durability="exit" against the same run with "sync"."""
    graph = (
        StateGraph(Count)
        .add_node("step", _step)
        .add_edge(START, "step")
        .add_conditional_edges("step", _again)
        .compile(checkpointer=checkpointer)
    )

    async def run_with(durability: Any) -> None:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        await graph.ainvoke({"n": 0}, config, durability=durability)

    async def exit_run() -> None:
        await run_with("exit")

    async def sync_run() -> None:
        await run_with("sync")

    cmp = await compare_async(exit_run, sync_run, rounds=5 if quick else 11, units=STEPS, scale=1e3)
    saved = None if cmp["degenerate"] else cmp["baseline_value"] - cmp["value"]
    return figure(
        'graph step, IndexedDB, durability="exit"',
        runtime,
        cmp["value"],
        "ms/step",
        spread=cmp["spread"],
        baseline='durability="sync"',
        baseline_value=cmp["baseline_value"],
        ratio=cmp["ratio"],
        ratio_spread=cmp["ratio_spread"],
        note=cmp["degenerate"] or f"saves {saved:.2f} ms per step of a {STEPS}-step run",
    )


def _ask(state: Ask) -> dict[str, str]:
    return {"answer": str(interrupt(state["question"]))}


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Measure ainvoke-to-interrupt plus resume-to-end, over IndexedDB."""
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver

    checkpointer = IndexedDBSaver(f"pyctx-bench-{uuid.uuid4().hex[:8]}")
    graph = (
        StateGraph(Ask)
        .add_node("ask", _ask)
        .add_edge(START, "ask")
        .add_edge("ask", END)
        .compile(checkpointer=checkpointer)
    )
    rounds = 10 if quick else 40
    await graph.ainvoke({"question": "warm up?"}, thread_id="warm")  # opens the database
    times = []
    for index in range(rounds):
        thread = f"t{index}"
        start = clock()
        paused = await graph.ainvoke({"question": "name?"}, thread_id=thread)
        done = await graph.ainvoke(Command(resume="Ada"), thread_id=thread)
        times.append((clock() - start) * 1e3)
        if "__interrupt__" not in paused or done.get("answer") != "Ada":
            raise RuntimeError("the interrupt round trip did not pause and resume as expected")
    q1, q2, q3 = quantiles(times)
    durability = await _durability_row(runtime, checkpointer, quick)
    return [
        durability,
        figure(
            "interrupt then resume round trip, IndexedDB",
            runtime,
            q2,
            "ms",
            spread=(q1, q3),
            goal="<= 20 ms",
            met=q2 <= 20,
            note=(
                f"median of {rounds}; best {min(times):.1f} ms, "
                f"mean {statistics.fmean(times):.1f} ms"
            ),
        ),
    ]
