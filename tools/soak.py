"""Soak the demo page: many turns through a question, an approval and an answer, in one page.

usage: .venv/bin/python tools/soak.py [--turns 200] [--at 10,50,100,150]

Run by hand after ``./build.sh setup`` (on a loaded machine, start the load first, for
example ``stress-ng --cpu 2``). It serves the demo as the e2e tier does and opens it once
in headless Chromium with the offline model (no token delay). Each turn starts a new chat,
sends "help me with email", answers the assistant's question with "send it to the team",
approves the ``send_email`` it proposes and waits until the thread is answered; every
thread is stored in the page's IndexedDB.

After turn 1, the turns of ``--at`` and the last turn it collects garbage and prints:

* the page: ``JSHeapUsedSize`` and ``Nodes`` of CDP ``Performance.getMetrics``, and
  ``performance.memory.usedJSHeapSize``;
* the demo's worker: its JavaScript heap and its ArrayBuffer backing stores, which
  include the WebAssembly memory holding Pyodide's whole heap (CDP ``Runtime.getHeapUsage``).

It exits with status 1 if the page crashes or a turn does not finish in time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import served_demo  # noqa: E402
from tests.e2e.test_chat import (  # noqa: E402
    EMAIL_QUESTION,
    READY_TIMEOUT_MS,
    TURN_TIMEOUT_MS,
    answer,
    chat,
    configure_offline,
)
from tools.chromium import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

REQUEST = "help me with email"
"""A request the offline model asks a question about."""
REPLY = "send it to the team"
"""The answer after which it proposes ``send_email``, which needs approval."""


class SoakError(Exception):
    """The soak stopped: the page crashed, or a turn or a measurement failed."""


@dataclass
class WorkerSession:
    """A CDP session on the page's Web Worker, through the browser's own session.

    Playwright opens CDP sessions on pages only; a worker is reached with
    ``Target.attachToTarget`` (not flattened) and ``Target.sendMessageToTarget``.
    """

    page: Any
    browser_session: Any
    session_id: str = ""
    replies: dict[int, dict[str, Any]] = field(default_factory=dict)
    next_id: int = 0

    @classmethod
    def attach(cls, page: Any, browser: Any) -> WorkerSession:
        """Attach to the one worker target of the browser."""
        session = browser.new_browser_cdp_session()
        targets = session.send("Target.getTargets")["targetInfos"]
        workers = [t["targetId"] for t in targets if t["type"] == "worker"]
        if len(workers) != 1:
            raise SoakError(f"expected the demo's one worker, found {len(workers)}")
        worker = cls(page, session)
        session.on("Target.receivedMessageFromTarget", worker._received)
        attached = session.send("Target.attachToTarget", {"targetId": workers[0]})
        worker.session_id = attached["sessionId"]
        return worker

    def _received(self, event: dict[str, Any]) -> None:
        message = json.loads(event["message"])
        if "id" in message:
            self.replies[message["id"]] = message

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one CDP command to the worker and return its result."""
        self.next_id += 1
        number = self.next_id
        message = json.dumps({"id": number, "method": method, "params": params or {}})
        self.browser_session.send(
            "Target.sendMessageToTarget", {"sessionId": self.session_id, "message": message}
        )
        deadline = time.monotonic() + 60
        while number not in self.replies:
            if time.monotonic() > deadline:
                raise SoakError(f"the worker did not answer {method} within 60 s")
            self.page.wait_for_timeout(20)  # lets Playwright deliver the reply event
        reply = self.replies.pop(number)
        if "error" in reply:
            raise SoakError(f"the worker refused {method}: {reply['error']}")
        result: dict[str, Any] = reply["result"]
        return result

    def memory(self) -> dict[str, int]:
        """The worker's JavaScript heap after a collection, and its ArrayBuffer backing stores.

        The backing stores hold the WebAssembly memory, that is Pyodide's whole heap.
        (``Runtime.queryObjects`` on ``WebAssembly.Memory`` would give that memory alone,
        but it crashed the worker's renderer in Chromium 156.)
        """
        self.call("HeapProfiler.collectGarbage")
        heap = self.call("Runtime.getHeapUsage")
        return {
            "worker_js_heap_used": int(heap["usedSize"]),
            "worker_buffers_incl_wasm": int(heap["backingStorageSize"]),
        }


def page_memory(page: Any, session: Any) -> dict[str, int]:
    """The page's JavaScript heap and DOM node count after a collection."""
    session.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
    return {
        "page_js_heap_used": int(metrics["JSHeapUsedSize"]),
        "page_memory_used": int(page.evaluate("performance.memory.usedJSHeapSize")),
        "page_dom_nodes": int(metrics["Nodes"]),
    }


def turn(page: Any) -> None:
    """One turn in a new chat: the request, the question answered, the action approved."""
    page.click("#new-thread")
    thread = page.evaluate("window.__demo.activeThreadId")
    chat(page, REQUEST)
    page.wait_for_selector("#needs-input:not([hidden])", timeout=TURN_TIMEOUT_MS)
    question = page.inner_text("#needs-input-question")
    if question != EMAIL_QUESTION:
        raise SoakError(f"the assistant asked {question!r}, not {EMAIL_QUESTION!r}")
    answer(page, REPLY)
    approve = '#approval-card .action-request[data-tool="send_email"] button:text-is("Approve")'
    page.click(approve, timeout=TURN_TIMEOUT_MS)
    page.wait_for_selector(
        f'#thread-list li[data-thread-id="{thread}"][data-thread-state="done"]',
        timeout=TURN_TIMEOUT_MS,
    )


def soak(url: str, turns: int, marks: set[int]) -> list[tuple[int, float, dict[str, int]]]:
    """Run ``turns`` turns in one page at ``url``; the memory figures at each mark."""
    from playwright.sync_api import Error, sync_playwright

    rows: list[tuple[int, float, dict[str, int]]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        page = browser.new_page()
        crashes: list[str] = []
        page.on("crash", lambda crashed: crashes.append(crashed.url))
        page.goto(url)
        page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
        configure_offline(page, 0)
        session = page.context.new_cdp_session(page)
        session.send("Performance.enable")
        worker = WorkerSession.attach(page, browser)
        started = time.monotonic()
        for number in range(1, turns + 1):
            try:
                turn(page)
            except Error as error:
                what = "crashed" if crashes else "failed"
                raise SoakError(f"turn {number} {what}: {error}") from error
            if number in marks or number == turns:
                figures = {**page_memory(page, session), **worker.memory()}
                rows.append((number, time.monotonic() - started, figures))
                print(row_text(number, rows[-1][1], figures), flush=True)
        if crashes:
            raise SoakError(f"the page crashed: {crashes}")
        browser.close()
    return rows


def row_text(number: int, elapsed: float, figures: dict[str, int]) -> str:
    """One line of the report: the turn, the time so far and the memory figures in MB."""
    megabytes = ", ".join(
        f"{name} {value / 1e6:.2f} MB" if name != "page_dom_nodes" else f"{name} {value}"
        for name, value in figures.items()
    )
    return f"turn {number:4d} ({elapsed:7.1f} s): {megabytes}"


def main() -> int:
    """Parse the arguments, run the soak, print the figures; 1 if it stopped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="how many turns (200)")
    parser.add_argument(
        "--at", default="10,50,100,150", help="turns after which to measure (10,50,100,150)"
    )
    options = parser.parse_args()
    if options.turns < 1:
        parser.error(f"--turns must be at least 1, not {options.turns}")
    marks = {1, *(int(part) for part in options.at.split(",") if part.strip())}
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"soak: {options.turns} turns, load average {load}", flush=True)
    try:
        with served_demo() as url:
            soak(url, options.turns, marks)
    except SoakError as error:
        print(f"soak stopped: {error}", file=sys.stderr)
        return 1
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"soak: done, no crash, load average {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
