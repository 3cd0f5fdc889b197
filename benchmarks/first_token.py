"""The first token of a turn in the demo page, against the demo of the chat protocol.

Each round loads, in rotating order, a fresh page (a fresh browser context) of this
build's demo, whose page is a LangGraph SDK client of its worker's agent server, and of
the demo of :data:`baseline.PROTOCOL_REF`, whose page spoke the chat protocol to its
worker (built by :mod:`baseline`; each served by its own ``demo/serve.py``). In both the
memory snapshot is withheld (the baseline build has none): each worker imports the app
after ``loadPyodide``, and the page waits :data:`SETTLE_MS` after ready so that what the
worker imports after its ready message is done.

Then, on the offline model with its default token delay, two turns on one thread of
:data:`MESSAGE` (a request that needs no question and no approval: the answer is
streamed), each timed with the page's own clock from the ``keydown`` of Enter to the
first animation frame after the streamed answer shows text: the first turn of the page,
and the second. The goal, the issue's: at most :data:`LIMIT_MS` more than the chat
protocol's, as the median of the per-round differences.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import baseline
import goals
import startup

MESSAGE = "summarize my inbox"
"""A turn the offline model answers without a question or an approval: plan, then stream."""

LIMIT_MS = 10.0
"""How much later than the chat protocol's the first token may be drawn."""

SETTLE_MS = 1500
"""How long a page waits after ready before the first turn."""

TURN_TIMEOUT_MS = 60_000

# Injected before the page's scripts: Enter's keydown and the first frame after the streamed
# answer shows text, per turn, with the page's own clock. The same DOM in both pages.
PROBE = """
(() => {
  const b = (window.__firstToken = { turns: [], enterAt: null, waiting: false });
  new MutationObserver(() => {
    if (!b.waiting) return;
    const body = document.querySelector("#transcript .msg-streaming .msg-body");
    if (body && body.textContent.trim()) {
      b.waiting = false;
      const enterAt = b.enterAt;
      requestAnimationFrame(() => { b.turns.push(performance.now() - enterAt); });
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
  addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && event.target?.id === "chat-input") {
      b.enterAt = event.timeStamp;
      b.waiting = true;
    }
  }, true);
})();
"""

TURN_DONE = """(count) =>
  window.__firstToken.turns.length >= count &&
  document.getElementById("transcript").dataset.threadState === "done" &&
  !document.querySelector("#transcript .msg-streaming")
"""


def one_page(browser: Any, url: str) -> list[float]:
    """One fresh page of the demo at ``url``: Enter to the first token drawn, per turn (ms)."""
    context = browser.new_context()
    try:
        context.add_init_script(PROBE)
        context.route(
            "**/demo.snapshot",
            lambda route: route.fulfill(status=404, body="withheld by the benchmark"),
        )
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("body[data-state=ready]", timeout=startup.READY_TIMEOUT_MS)
        page.wait_for_timeout(SETTLE_MS)
        for turn in (1, 2):
            page.fill("#chat-input", MESSAGE)
            page.press("#chat-input", "Enter")
            page.wait_for_function(TURN_DONE, arg=turn, timeout=TURN_TIMEOUT_MS)
        turns: list[float] = page.evaluate("window.__firstToken.turns")
        return turns
    finally:
        context.close()


def measure(browser: Any, urls: dict[str, str], rounds: int) -> dict[str, list[list[float]]]:
    """``rounds`` rounds of one fresh page per build, rotating; a first page each not counted."""
    labels = list(urls)
    for label in labels:
        one_page(browser, urls[label])
    times: dict[str, list[list[float]]] = {label: [] for label in labels}
    for round_index in range(rounds):
        for label in goals.rotation(labels, round_index):
            times[label].append(one_page(browser, urls[label]))
    return times


def rows(
    times: dict[str, list[list[float]]], current: str, base: str, runtime: str, quick: bool
) -> list[dict[str, Any]]:
    """The two goal rows: the page's first turn and its second, against the baseline's."""
    note = goals.rounds_note(len(times[current]), quick)
    result = []
    for index, which in ((0, "first turn of a fresh page"), (1, "second turn")):
        result.append(
            goals.added_row(
                f"first token of a turn: Enter on '{MESSAGE}' to the first token drawn, "
                f"LangGraph SDK client ({which})",
                runtime,
                [turns[index] for turns in times[current]],
                [turns[index] for turns in times[base]],
                "ms",
                baseline=f"the chat protocol's demo ({base}), interleaved fresh pages",
                limit=LIMIT_MS,
                note=f"{note}; offline model, default token delay; memory snapshot withheld "
                "in both; keydown to the first frame with the answer's text",
            )
        )
    return result


def run(dist: Path, quick: bool, launch: dict[str, Any]) -> list[dict[str, Any]]:
    """The step of the suite: both demos served, measured in one Chromium."""
    from playwright.sync_api import sync_playwright

    current = baseline.current_build(dist)
    base = baseline.ensure_baseline(baseline.PROTOCOL_REF)
    urls: dict[str, str] = {}
    with (
        startup.serving(current) as urls[current.label],
        startup.serving(base) as urls[base.label],
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(**launch)
        try:
            runtime = f"pyodide-chromium {browser.version}"
            times = measure(browser, urls, rounds=5 if quick else 15)
        finally:
            browser.close()
    figures = rows(times, current.label, base.label, runtime, quick)
    return [{"runtime": runtime, "clock_resolution": None, "figures": figures}]
