"""The agent-server row in Chromium: a run streamed through ``createAgentServerFetch`` to a
``pyctx_web.server`` in a Web Worker, against the worker streaming the graph directly.

``page/server_bench.mjs`` starts ``page/server_worker.mjs`` (Pyodide, pyctx_web, an N-step
graph, ``serveAgentServer``) and times, in turns, the page's fetch of a new thread and of
the run's event stream read to the end, against one message asking the worker to stream
the same graph with ``graph.astream`` and answer when done. Each round times one run each
way; the row is the per-step time with its quartiles, and the per-round difference per
step against the goal. Timings are reported, never asserted.
"""

from __future__ import annotations

from typing import Any

from stats import figure, quantiles, summarize

GOAL_MS = 2.0
"""What a streamed run through the in-page API may add per step, in milliseconds."""


def rows(page: Any, runtime: str, quick: bool) -> list[dict[str, Any]]:
    """The row, measured in ``page`` (the bench page, served with the distribution)."""
    steps, rounds = (20, 7) if quick else (50, 21)
    data = page.evaluate(
        "async ([s, r]) => (await import('./server_bench.mjs')).measure(s, r)", [steps, rounds]
    )
    api = [ms / steps for ms in data["api"]]
    direct = [ms / steps for ms in data["direct"]]
    cmp = summarize(api, direct)
    added = quantiles([a - d for a, d in zip(api, direct, strict=True)]) if api else None
    met = None if added is None else added[1] <= GOAL_MS
    note = (
        f"adds {added[1]:.3f} ms/step (quartiles {added[0]:.3f} to {added[2]:.3f}), "
        f"{rounds} rounds of one run each way; run, thread, SSE and MessageChannel included"
        if added
        else "no rounds measured"
    )
    return [
        figure(
            f"streamed run through createAgentServerFetch to a Worker, {steps} steps",
            runtime,
            cmp["value"],
            "ms/step",
            spread=cmp["spread"],
            baseline="graph.astream in the worker, asked by a message",
            baseline_value=cmp["baseline_value"],
            ratio=cmp["ratio"],
            ratio_spread=cmp["ratio_spread"],
            goal=f"adds <= {GOAL_MS:g} ms/step",
            met=met,
            note=note,
        )
    ]
