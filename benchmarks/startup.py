"""Start-up figures measured inside the demo page and its worker, against the baseline build.

Each round loads the demo of this build and the demo of the baseline build
(:mod:`baseline`), each served by its own ``demo/serve.py``, in a fresh browser
context (an empty HTTP cache), in alternating order. In every page a script
injected before the page's own records, with ``performance.now()``:

- when ``body[data-state=ready]`` appears (the page is ready), and the worker's
  ``ready`` message with its stage timings;
- the ``keydown`` of Enter on "help me with email" and the first animation frame
  after the question card shows (the first message of a fresh page, offline model).

In this build's page, a worker that only loads Pyodide then posts ``ready`` runs
after the demo is ready: the same page, the same distribution.

This build's demo is also loaded with its memory snapshot withheld (the request answered
404), in the same rotation: the worker then imports pyctx_web and the app after
``loadPyodide``, which is what any page that loads pyctx_web without a snapshot pays.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import goals
from baseline import Build

FIRST_MESSAGE = "help me with email"
READY_TIMEOUT_MS = 180_000

# Injected before the page's scripts: times the page's ready state, the worker's ready
# message and the first message's question card, all with the page's own clock.
PAGE_PROBE = """
(() => {
  const bench = (window.__bench = { ready: null, readyAt: null, enterAt: null, cardAt: null });
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const data = event.data;
        if (data && data.type === "ready" && bench.ready === null) bench.ready = data;
      });
    }
  };
  new MutationObserver(() => {
    if (bench.readyAt === null && document.body?.dataset.state === "ready") {
      bench.readyAt = performance.now();
    }
    const card = document.getElementById("needs-input");
    if (bench.enterAt !== null && bench.cardAt === null && card && !card.hidden) {
      bench.cardAt = -1;
      requestAnimationFrame(() => { bench.cardAt = performance.now(); });
    }
  }).observe(document, {
    subtree: true, attributes: true, attributeFilter: ["data-state", "hidden"],
  });
  addEventListener("keydown", (event) => {
    if (event.key === "Enter" && bench.enterAt === null && event.target?.id === "chat-input") {
      bench.enterAt = event.timeStamp;
    }
  }, true);
})();
"""

UNRESTORED = " without its snapshot"
"""Appended to a build's label: its demo loaded with the memory snapshot withheld."""

BARE_WORKER_PATH = "/__bench_bare_worker.js"

# A worker that only loads Pyodide, runs one line of Python and posts ready: what the demo's
# worker would cost without pyctx_web and the app.
BARE_WORKER = """
import { loadPyodide } from "/pyodide/pyodide.mjs";
const base = new URL("/pyodide/", self.location.href).href;
const start = performance.now();
const pyodide = await loadPyodide({ indexURL: base, packageBaseUrl: base });
const loaded = performance.now();
const version = pyodide.runPython("import sys; sys.version");
const after = performance.now() - loaded;
postMessage({ type: "ready", version, runtime_ms: loaded - start, after_ms: after });
"""

RUN_BARE_WORKER = """(path) => new Promise((resolve, reject) => {
  const worker = new Worker(path, { type: "module" });
  worker.onmessage = (event) => { resolve(event.data); worker.terminate(); };
  worker.onerror = (event) => reject(new Error(event.message || "the bare worker failed"));
})"""


@contextmanager
def serving(build: Build) -> Iterator[str]:
    """``build``'s demo served by its own ``demo/serve.py`` on a free port; yields its URL."""
    env = {**os.environ, "PYTHONPATH": str(build.src), "PYCTX_DEMO_QUIET": "1"}
    serve = build.src / "demo" / "serve.py"
    process = subprocess.Popen(
        [sys.executable, str(serve), "--port", "0", "--dist", str(build.dist)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"http://[\d.]+:\d+/", line)
        if not found:
            raise RuntimeError(f"{build.label}: serve.py printed {line!r}, not its URL")
        yield found.group(0)
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def after_load_ms(ready: dict[str, Any]) -> float | None:
    """What the worker spent after ``loadPyodide`` up to its ready message, from its message.

    The worker reports that span as ``after_load_ms``. A worker that does not (the
    baseline's) reports its elapsed time and each stage's, the ``runtime`` stage being
    ``loadPyodide``: its elapsed time less that stage, which also counts what the worker
    did before calling ``loadPyodide``. Without either, the other stages are summed.
    """
    if isinstance(ready.get("after_load_ms"), int | float):
        return float(ready["after_load_ms"])
    stages = ready.get("stages") or {}
    elapsed = ready.get("elapsed_ms")
    if isinstance(elapsed, int | float) and isinstance(stages.get("runtime"), int | float):
        return float(elapsed - stages["runtime"])
    others = [value for key, value in stages.items() if key != "runtime"]
    return float(sum(others)) if others else None


def load_demo(browser: Any, url: str, *, bare: bool, snapshot: bool = True) -> dict[str, Any]:
    """One fresh page of the demo: ready time, worker stages, first message; the bare worker.

    Without ``snapshot``, the worker's request for its memory snapshot gets a 404.
    """
    context = browser.new_context()
    try:
        context.add_init_script(PAGE_PROBE)
        if not snapshot:
            context.route(
                "**/demo.snapshot",
                lambda route: route.fulfill(status=404, body="withheld by the benchmark"),
            )
        context.route(
            f"**{BARE_WORKER_PATH}",
            lambda route: route.fulfill(body=BARE_WORKER, content_type="text/javascript"),
        )
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(
            "() => window.__bench.readyAt !== null && window.__bench.ready !== null",
            timeout=READY_TIMEOUT_MS,
        )
        page.fill("#chat-input", FIRST_MESSAGE)
        page.press("#chat-input", "Enter")
        page.wait_for_function("() => window.__bench.cardAt > 0", timeout=60_000)
        probe = page.evaluate("window.__bench")
        result: dict[str, Any] = {
            "ready_ms": probe["readyAt"],
            "worker": probe["ready"],
            "after_ms": after_load_ms(probe["ready"]),
            "first_ms": probe["cardAt"] - probe["enterAt"],
        }
        if bare:
            result["bare"] = page.evaluate(RUN_BARE_WORKER, BARE_WORKER_PATH)
        return result
    finally:
        context.close()


def measure(browser: Any, urls: dict[str, str], *, rounds: int) -> dict[str, list[dict[str, Any]]]:
    """``rounds`` rounds of one fresh page per build, in rotating order; results per build.

    One page of each build is loaded first and not counted: the first loads of a browser
    (and of the server's files) are slower than the rest, whichever build they are.
    """
    labels = list(urls)
    loads: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    for label in labels:
        load_demo(browser, urls[label], bare=False, snapshot=not label.endswith(UNRESTORED))
    for round_index in range(rounds):
        for label in goals.rotation(labels, round_index):
            loads[label].append(
                load_demo(
                    browser,
                    urls[label],
                    bare=label == labels[0],
                    snapshot=not label.endswith(UNRESTORED),
                )
            )
    return loads


def stage_note(loads: list[dict[str, Any]]) -> str:
    """The median of each stage the workers of ``loads`` timed, as ``"stage ms, ..."``."""
    stages: dict[str, list[float]] = {}
    for load in loads:
        for stage, ms in (load["worker"].get("stages") or {}).items():
            if isinstance(ms, int | float):
                stages.setdefault(stage, []).append(float(ms))
    return ", ".join(f"{stage} {statistics.median(ms):.0f}" for stage, ms in stages.items())


def rows(
    loads: dict[str, list[dict[str, Any]]], current: Build, base: Build, runtime: str, quick: bool
) -> list[dict[str, Any]]:
    """The start-up goal rows of :func:`measure`'s loads."""
    mine, theirs = loads[current.label], loads[base.label]
    note = goals.rounds_note(len(mine), quick)
    after = [load["after_ms"] for load in mine if load["after_ms"] is not None]
    bare = [load["bare"]["after_ms"] for load in mine if load["after_ms"] is not None]
    base_after = [load["after_ms"] for load in theirs if load["after_ms"] is not None]
    today = f"{statistics.median(base_after):.0f} ms" if base_after else "not measured"
    restored = sum(1 for load in mine if load["worker"].get("snapshot") is True)
    note = f"{note}; restored from the memory snapshot in {restored} of {len(mine)} pages"
    return [
        goals.bounded(
            "demo worker: pyctx_web and the app, from loadPyodide resolved to ready",
            runtime,
            after,
            "ms",
            limit=50,
            bases=bare,
            baseline="a worker that only loads Pyodide, same page",
            with_ratio=False,
            note=f"{note}; worker stages (ms, median): {stage_note(mine)}; "
            f"{base.label}: {today} (stages {stage_note(theirs)})",
        ),
        _ready_ratio(
            "demo page, navigation to ready",
            runtime,
            (mine, theirs),
            baseline=f"the demo of {base.label}, interleaved pairs",
            limit=0.5,
            note=f"{note}; each page in a fresh browser context",
        ),
        goals.bounded(
            f"first message: Enter on '{FIRST_MESSAGE}' to the question card drawn",
            runtime,
            [load["first_ms"] for load in mine],
            "ms",
            limit=100,
            bases=[load["first_ms"] for load in theirs],
            baseline=f"the demo of {base.label}",
            note=f"{note}; offline model, fresh page; keydown to the first frame with the card; "
            "the goal is RAIL's 100 ms response budget, 50 ms the longer-term aim",
        ),
        *unrestored_rows(mine, loads.get(current.label + UNRESTORED, []), runtime, quick),
    ]


def _ready_ratio(
    name: str,
    runtime: str,
    pair: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    *,
    baseline: str,
    limit: float,
    note: str,
) -> dict[str, Any]:
    """The per-round ratio of the pages' ready times: the first loads over the second."""
    loads, bases = pair
    ready, base_ready = ([load["ready_ms"] for load in side] for side in (loads, bases))
    return goals.ratio_row(
        name, runtime, ready, base_ready, "ms", baseline=baseline, limit=limit, note=note
    )


def unrestored_rows(
    mine: list[dict[str, Any]], unrestored: list[dict[str, Any]], runtime: str, quick: bool
) -> list[dict[str, Any]]:
    """This build's pages without the snapshot: the worker's time after ``loadPyodide`` (goal:
    at most 100 ms, what a page loading pyctx_web with ``loadPyctxWeb`` and no snapshot pays),
    and what the snapshot saves (no goals)."""
    if not unrestored:
        return []
    note = goals.rounds_note(len(unrestored), quick)
    after = [load["after_ms"] for load in unrestored if load["after_ms"] is not None]
    worker = goals.bounded(
        "demo worker without its memory snapshot: pyctx_web and the app after loadPyodide",
        runtime,
        after,
        "ms",
        limit=100,
        note=f"{note}; the snapshot request answered 404; "
        f"worker stages (ms, median): {stage_note(unrestored)}",
    )
    info = [
        goals.ratio_row(
            "loadPyodide in the demo worker, restoring the memory snapshot",
            runtime,
            [float(load["worker"]["stages"]["runtime"]) for load in mine],
            [float(load["worker"]["stages"]["runtime"]) for load in unrestored],
            "ms",
            baseline="loadPyodide without it, same build",
            limit=1.0,
            note=f"{note}; the snapshot holds pyctx_web and the app imported",
        ),
        _ready_ratio(
            "demo page, navigation to ready, with the memory snapshot",
            runtime,
            (mine, unrestored),
            baseline="the same page without it",
            limit=1.0,
            note=note,
        ),
    ]
    for row in info:
        row.update(goal=None, met=None)
    return [worker, *info]


def stock_stdlib(dist_names: list[str]) -> str | None:
    """The stock standard library kept beside the compiled ``python_stdlib.zip``, if any."""
    for name in sorted(dist_names):
        if name != "python_stdlib.zip" and re.fullmatch(r"python_stdlib[\w.-]*\.zip", name):
            return name
    return None


def stdlib_rows(
    browser: Any, url: str, names: list[str], runtime: str, *, rounds: int, quick: bool
) -> list[dict[str, Any]]:
    """``loadPyodide`` with the compiled ``python_stdlib.zip`` against the stock one.

    ``url`` is the benchmark page; each load is a fresh browser context, in alternating order.
    """
    name = "loadPyodide, compiled python_stdlib.zip"
    stock = stock_stdlib(names)
    if stock is None:
        row = goals.bounded(name, runtime, [], "ms", limit=float("inf"))
        row.update(
            goal=None, note="skipped: build/dist keeps no stock python_stdlib*.zip beside it"
        )
        return [row]

    def load(stdlib: str) -> float:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(f"{url}?mode=bare&stdlib={stdlib}")
            page.evaluate("window.coldStart")
            return float(page.evaluate("window.loadPyodideMs"))
        finally:
            context.close()

    times: dict[str, list[float]] = {"python_stdlib.zip": [], stock: []}
    for round_index in range(rounds):
        for stdlib in goals.rotation(list(times), round_index):
            times[stdlib].append(load(stdlib))
    row = goals.ratio_row(
        name,
        runtime,
        times["python_stdlib.zip"],
        times[stock],
        "ms",
        baseline=f"the stock {stock}",
        limit=1.0,
        note=f"{goals.rounds_note(rounds, quick)}; fresh browser context each",
    )
    row.update(goal=None, met=None)
    return [row]
