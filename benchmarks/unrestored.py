"""The demo worker without its memory snapshot: a second visit, and what V8's wasm tiers cost.

The goal row (:func:`startup.unrestored_rows`) loads each page in a fresh browser
context. There V8 compiles Pyodide's wasm lazily, runs it as baseline (Liftoff)
code, and compiles its hot functions again with TurboFan in background threads
while the worker imports pyctx_web and the app. Rows without a goal measure the
same span (``after_load_ms``, from ``loadPyodide`` resolved to ready), alike:

- **second visit**: one browser profile on disk (a persistent context, as a
  person's browser keeps one) visits the demo, sends its first message, stays
  three seconds, and visits again. Chromium keeps the wasm code V8 compiled (its
  code cache, which Playwright's fresh contexts do not use), so the second
  visit starts with it. The snapshot is withheld by serving a copy of the build
  without it, not by intercepting requests, which would bypass the HTTP cache.
- **V8 flags** (evidence, not what a browser does): the same fresh page in
  Chromium launched with ``--js-flags`` that keep the wasm in Liftoff code (no
  tier-up) and, in the full bench, that compile all of it with TurboFan before
  it runs. The last is the worker's own work with the fastest code, what a
  fresh worker pays on top of it is V8's.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import goals
import startup
from baseline import ROOT, Build

FLAGS = {
    "Liftoff only (no tier-up)": "--no-wasm-tier-up --no-wasm-dynamic-tiering",
    "TurboFan only, compiled before it runs": "--no-liftoff --no-wasm-lazy-compilation",
}
"""V8 flags of the evidence rows, by what they make of Pyodide's wasm."""

STAY_S = 3.0
"""How long the first visit stays after its first message: V8 writes its code cache once
enough of the wasm has been compiled by TurboFan, a few seconds into the visit."""


@contextmanager
def without_snapshot(build: Build) -> Iterator[Build]:
    """``build`` laid out for ``demo/serve.py`` without ``demo.snapshot`` (the distribution,
    the app and the page's ``vendor`` modules): a worker then finds none (HTTP 404), with no
    request intercepted. Files are hard links where possible."""
    home = Path(tempfile.mkdtemp(prefix="unrestored-", dir=ROOT / "build" / "bench"))
    try:
        dist = home / "dist"
        shutil.copytree(build.dist, dist, copy_function=_link)
        (home / "demo-app").mkdir()
        _link(build.dist.parent / "demo-app" / "app.zip", home / "demo-app" / "app.zip")
        # The page's bundled npm modules (LangGraph's SDK), which serve.py finds beside dist.
        vendor = build.dist.parent / "vendor"
        if vendor.is_dir():
            shutil.copytree(vendor, home / "vendor", copy_function=_link)
        yield Build(f"{build.label} without its snapshot", build.src, build.wheel, dist)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _link(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def visit(context: Any, url: str, *, first_message: bool) -> dict[str, Any]:
    """One page of the demo in ``context``: the worker's ready message; with
    ``first_message``, the first message is sent and the page stays :data:`STAY_S`."""
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_function(
            "() => window.__bench.readyAt !== null && window.__bench.ready !== null",
            timeout=startup.READY_TIMEOUT_MS,
        )
        ready: dict[str, Any] = page.evaluate("window.__bench.ready")
        if first_message:
            page.fill("#chat-input", startup.FIRST_MESSAGE)
            page.press("#chat-input", "Enter")
            page.wait_for_function("() => window.__bench.cardAt > 0", timeout=60_000)
            page.wait_for_timeout(STAY_S * 1000)
        return ready
    finally:
        page.close()


def revisits(
    playwright: Any, url: str, launch: dict[str, Any], rounds: int
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Per round, a new browser profile: the worker's ready message on the first visit and on
    the second (each as :func:`startup.load_demo` keeps it, under ``"worker"``)."""
    visits: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for _ in range(rounds):
        profile = tempfile.mkdtemp(prefix="profile-", dir=ROOT / "build" / "bench")
        context = playwright.chromium.launch_persistent_context(profile, **launch)
        try:
            context.add_init_script(startup.PAGE_PROBE)
            first = visit(context, url, first_message=True)
            second = visit(context, url, first_message=False)
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)
        if first.get("snapshot") or second.get("snapshot"):
            raise RuntimeError("a worker was restored from a snapshot the server does not have")
        visits.append(({"worker": first}, {"worker": second}))
    return visits


def _span(load: dict[str, Any]) -> float:
    span = startup.after_load_ms(load["worker"])
    if span is None:
        raise RuntimeError(f"the worker's ready message names no time after loadPyodide: {load}")
    return span


def flagged(
    playwright: Any, url: str, launch: dict[str, Any], rounds: int, quick: bool
) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """Fresh pages of the demo in Chromium with each of :data:`FLAGS` and without, rotating,
    and Chromium's version; the TurboFan-only browser (seconds of compiling per page) only
    in the full bench."""
    kinds = {"default": ""} | {
        name: flags for name, flags in FLAGS.items() if not (quick and "TurboFan" in name)
    }
    browsers = {
        name: playwright.chromium.launch(
            **{**launch, "args": [*launch["args"], *([f"--js-flags={flags}"] if flags else [])]}
        )
        for name, flags in kinds.items()
    }
    loads: dict[str, list[dict[str, Any]]] = {name: [] for name in kinds}
    version = str(browsers["default"].version)
    try:
        for round_index in range(rounds):
            for name in goals.rotation(list(kinds), round_index):
                loads[name].append(startup.load_demo(browsers[name], url, bare=False))
    finally:
        for browser in browsers.values():
            browser.close()
    return loads, version


def run(current: Build, launch: dict[str, Any], quick: bool) -> list[dict[str, Any]]:
    """The rows of this module, measured in Chromium (``launch``: its executable and flags)."""
    from playwright.sync_api import sync_playwright

    rounds = 3 if quick else 7
    with (
        without_snapshot(current) as bare,
        startup.serving(bare) as url,
        sync_playwright() as playwright,
    ):
        visits = revisits(playwright, url, launch, rounds)
        loads, version = flagged(playwright, url, launch, rounds, quick)
    runtime = f"pyodide-chromium {version}"
    note = goals.rounds_note(rounds, quick)
    rows = [
        goals.ratio_row(
            "demo worker without its snapshot, second visit: pyctx_web and the app after "
            "loadPyodide",
            runtime,
            [_span(second) for _, second in visits],
            [_span(first) for first, _ in visits],
            "ms",
            baseline="the first visit, same browser profile",
            limit=1.0,
            note=f"{note}; a new profile on disk each round (Chromium's wasm code cache); "
            f"the first visit sends the first message and stays {STAY_S:g} s; worker stages "
            f"(ms, median): {startup.stage_note([second for _, second in visits])}; "
            f"first visit: {startup.stage_note([first for first, _ in visits])}",
        )
    ]
    default = [load["after_ms"] for load in loads["default"] if load["after_ms"] is not None]
    for name in FLAGS:
        spans = [load["after_ms"] for load in loads.get(name, []) if load["after_ms"] is not None]
        if not spans:
            continue
        loaded = statistics.median(load["worker"]["stages"]["runtime"] for load in loads[name])
        rows.append(
            goals.ratio_row(
                f"demo worker without its snapshot, V8 flags: {name}",
                runtime,
                spans,
                default[: len(spans)],
                "ms",
                baseline="Chromium's own flags, interleaved",
                limit=1.0,
                note=f'{note}; evidence only: --js-flags="{FLAGS[name]}"; loadPyodide '
                f"itself took {loaded:.0f} ms (median); worker stages (ms, median): "
                f"{startup.stage_note(loads[name])}; with Chromium's own flags: "
                f"{startup.stage_note(loads['default'])}",
            )
        )
    for row in rows:
        row.update(goal=None, met=None)
    return rows
