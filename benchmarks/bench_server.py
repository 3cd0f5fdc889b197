"""Agent server figures: a run streamed through the API against streaming the graph directly.

The row: what ``AgentServer.handle`` adds per step when a client streams a run of an
N-step graph (``POST /threads/{id}/runs/stream``, ``stream_mode: values``, the
events read to the end), against ``graph.astream`` of the same graph with the same
checkpointer on a fresh thread, read to the end. Both are timed in the same process,
interleaved, as every comparison of the suite. The work of the run (the steps and
their checkpoints) is in both; the difference is the server's: its run records,
thread bookkeeping, event encoding and SSE framing.

Run alone with ``python benchmarks/bench_server.py [--quick]``, or through the suite
(``./build.sh bench``), which calls :func:`run`. Timings are reported, never asserted.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import compare_async, figure

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server import AgentServer, Request

GOAL_MS = 2.0
"""What a streamed run through the in-page API may add per step, in milliseconds."""


class Counter(TypedDict):
    """A step counter."""

    n: int


def _loop_graph(steps: int) -> CompiledStateGraph:
    async def step(state: Counter) -> dict[str, int]:
        return {"n": state["n"] + 1}

    def again(state: Counter) -> str:
        return "step" if state["n"] < steps else END

    return (
        StateGraph(Counter)
        .add_node("step", step)
        .add_edge(START, "step")
        .add_conditional_edges("step", again)
        .compile(checkpointer=InMemorySaver())
    )


async def _through_api(server: AgentServer, steps: int) -> None:
    """A thread created and a run streamed to its end through ``server.handle``."""
    headers = {"content-type": "application/json"}
    created = await server.handle(Request("POST", "/threads", {}, headers, b"{}"))
    assert isinstance(created.body, bytes)
    thread_id = json.loads(created.body)["thread_id"]
    body = {
        "assistant_id": "loop",
        "input": {"n": 0},
        "stream_mode": ["values"],
        "config": {"recursion_limit": steps + 5},
    }
    path = f"/threads/{thread_id}/runs/stream"
    response = await server.handle(Request("POST", path, {}, headers, json.dumps(body).encode()))
    stream = response.body
    assert not isinstance(stream, bytes), response.status
    async for _ in stream:
        pass


async def _direct(graph: CompiledStateGraph, steps: int) -> None:
    """The same run streamed with ``graph.astream`` on a fresh thread."""
    config = {"configurable": {"thread_id": str(uuid.uuid4())}, "recursion_limit": steps + 5}
    async for _ in graph.astream({"n": 0}, config, stream_mode="values"):
        pass


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Measure the server figures in the current runtime."""
    steps = 20 if quick else 50
    graph = _loop_graph(steps)
    server = AgentServer({"loop": graph})

    async def api() -> None:
        await _through_api(server, steps)

    async def direct() -> None:
        await _direct(graph, steps)

    cmp = await compare_async(api, direct, rounds=5 if quick else 11, units=steps, scale=1e3)
    value, base = cmp["value"], cmp["baseline_value"]
    added = None if cmp["degenerate"] else value - base
    return [
        figure(
            f"streamed run through AgentServer.handle, {steps} steps",
            runtime,
            value,
            "ms/step",
            spread=cmp["spread"],
            baseline="graph.astream of the same graph",
            baseline_value=base,
            ratio=cmp["ratio"],
            ratio_spread=cmp["ratio_spread"],
            goal=f"adds <= {GOAL_MS:g} ms/step",
            met=None if added is None else added <= GOAL_MS,
            note=cmp["degenerate"] or f"adds {added:.3f} ms/step (run, thread and SSE included)",
        )
    ]


if __name__ == "__main__":
    import platform

    runtime = f"cpython {platform.python_version()}"
    for row in asyncio.run(run(runtime, quick="--quick" in sys.argv)):
        print(json.dumps(row))
