"""The first turn's IndexedDB work in the demo: one read and one write per step, each kept.

The worker's script is served with a prologue that lists the IndexedDB
transactions it opens (and the messages it posts and takes), so that a test
sees the turn's storage calls as the page makes them, and can stop the worker
dead right after any one of them has committed: the crash of a tab or a worker.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PageWatch
from .test_chat import EMAIL_QUESTION, READY_TIMEOUT_MS, TURN_TIMEOUT_MS, chat, messages, wait_turn

# Run first in the worker: lists in self.__storage each IndexedDB transaction it opens on
# the checkpointer's stores (checkpoints, writes) and, as "server:STORES MODE", on the agent
# server's records (threads, runs, events), each request of the page's fetch it takes
# ("fetch:METHOD PATH") and each message type it posts. Once the `stopAfter`-th readwrite
# transaction of the checkpointer after the first run's request has committed, the worker
# says so on the BroadcastChannel "test-worker-stopped" and closes itself at once: its
# Python never runs again.
PROLOGUE = """
self.__storage = [];
{
  const log = self.__storage;
  const stopAfter = STOP_AFTER;
  const saver = new Set(["checkpoints", "writes"]);
  const records = new Set(["threads", "runs", "events"]);
  let writes = 0;
  let sent = false;
  const transaction = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
    const tx = transaction.call(this, stores, mode, ...rest);
    const names = typeof stores === "string" ? [stores] : [...stores];
    if (names.some((name) => records.has(name))) {
      log.push("server:" + names.join("+") + " " + (mode || "readonly"));
      return tx;
    }
    if (!names.some((name) => saver.has(name))) return tx;
    log.push(mode || "readonly");
    if (sent && mode === "readwrite" && ++writes === stopAfter) {
      tx.addEventListener("complete", () => {
        new BroadcastChannel("test-worker-stopped").postMessage(stopAfter);
        self.close();
      });
    }
    return tx;
  };
  addEventListener("message", (event) => {
    const data = event.data;
    if (data && data.type === "pyctx_web/agent-fetch") {
      log.push("fetch:" + data.method + " " + data.path);
      if (data.method === "POST" && data.path.endsWith("/runs/stream")) sent = true;
    } else if (data && data.op) {
      log.push("op:" + data.op);
    }
  });
  const post = self.postMessage.bind(self);
  self.postMessage = (message, ...rest) => {
    if (message && message.type) log.push("post:" + message.type);
    return post(message, ...rest);
  };
}
"""


def serve_worker_with_prologue(page: Any, stop_after: int = 0) -> None:
    """Serve the page's worker.js with :data:`PROLOGUE` before it (0: never stop)."""

    def prepend(route: Any) -> None:
        response = route.fetch()
        prologue = PROLOGUE.replace("STOP_AFTER", str(stop_after))
        route.fulfill(response=response, body=prologue + response.text())

    page.route("**/worker.js*", prepend)


HELD_LOCKS = "async () => (await navigator.locks.query()).held.map((lock) => lock.name)"
"""The names of the Web Locks the page's origin holds."""


def crash_and_reload(page: Any) -> None:
    """Wait for the worker to stop (see :data:`PROLOGUE`), then reload with the plain worker.

    Returns once the stopped worker is gone: until then it holds its run's Web Lock on the
    thread, as a crashed tab does until the browser has ended it.
    """
    page.wait_for_function("() => window.__workerStopped === true", timeout=TURN_TIMEOUT_MS)
    page.unroute("**/worker.js*")
    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    for _ in range(300):
        if not any(name.startswith("pyctx_web:") for name in page.evaluate(HELD_LOCKS)):
            return
        page.wait_for_timeout(100)
    pytest.fail("the stopped worker still holds its thread's Web Lock after 30 s")


def listen_for_the_stop(page: Any) -> None:
    """Set window.__workerStopped when the worker says it stops."""
    page.evaluate(
        """() => { new BroadcastChannel("test-worker-stopped").onmessage = () => {
          window.__workerStopped = true; }; }"""
    )


def storage_log(page: Any) -> list[str]:
    """What the page's worker logged: transactions' modes, ops taken, message types posted."""
    log: list[str] = page.workers[0].evaluate("self.__storage")
    return log


def log_after_the_first_run(page: Any) -> list[str]:
    """The worker's log once the page has sent a request after the first run's: the card shows
    as the run streams its question, a moment before the run (and its stream) ends."""
    for _ in range(300):
        log = storage_log(page)
        if first_run(log) is not None:
            return log
        page.wait_for_timeout(50)
    pytest.fail("the page sent no request after the first run's in 15 s")


def first_run(log: list[str]) -> list[str] | None:
    """The log from the first run's request to the page's next request (the run's stream has
    ended: the question is stored)."""
    start = next(
        i
        for i, e in enumerate(log)
        if e.startswith("fetch:POST /threads/") and e.endswith("/runs/stream")
    )
    end = next((i for i, e in enumerate(log) if i > start and e.startswith("fetch:")), None)
    return None if end is None else log[start:end]


def first_turn(log: list[str]) -> list[str]:
    """The checkpointer's transactions of the first run (see :func:`first_run`)."""
    kinds = ("op:", "post:", "fetch:", "server:")
    return [entry for entry in first_run(log) or [] if not entry.startswith(kinds)]


def first_turn_records(log: list[str]) -> list[str]:
    """The transactions of the first run on the agent server's records."""
    run = first_run(log) or []
    return [entry[len("server:") :] for entry in run if entry.startswith("server:")]


def test_the_first_turn_reads_at_its_start_and_end_and_writes_once_per_step(
    watched_page: PageWatch, demo_url: str
) -> None:
    """Enter to the question card: one read of the thread, one readwrite transaction per step
    (the input with its writes, two steps, the question), one read as the run ends (the
    server records the thread's state and questions, as a LangGraph Server does), and no read
    for the card."""
    page = watched_page.page
    serve_worker_with_prologue(page)
    page.goto(demo_url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert first_turn(log_after_the_first_run(page)) == ["readonly", *["readwrite"] * 4, "readonly"]
    assert watched_page.console_errors == []


def test_the_first_run_writes_its_thread_once_as_it_starts_and_once_as_it_ends(
    watched_page: PageWatch, demo_url: str
) -> None:
    """The first run's request makes the thread (no request of its own before it): the server
    reads the thread, stores the run pending, reads the thread again and stores it busy once,
    stores the run running and then ended, and reads the thread (with its runs, as it is
    busy) and stores it with its state."""
    page = watched_page.page
    serve_worker_with_prologue(page)
    page.goto(demo_url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    log = log_after_the_first_run(page)
    assert not any(entry == "fetch:POST /threads" for entry in log)
    assert first_turn_records(log) == [
        "threads readonly",
        "runs readwrite",
        "threads readonly",
        "threads readwrite",
        "runs readwrite",
        "runs readwrite",
        "threads readonly",
        "runs readonly",
        "threads readwrite",
    ]
    assert watched_page.console_errors == []


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_a_crash_after_a_step_of_the_first_turn_keeps_the_message_and_the_turn_goes_on(
    watched_page: PageWatch, demo_url: str, steps: int
) -> None:
    """A worker stopped dead right after the first turn's first, second or third write: after a
    reload the turn shows as unfinished, and Continue asks the question about the message.

    After the first write the thread holds the input checkpoint, whose values are those
    before the input (as LangGraph's history shows them): the message shows once Continue
    has applied it; after the second and third, it shows at once.
    """
    page = watched_page.page
    serve_worker_with_prologue(page, stop_after=steps)
    page.goto(demo_url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    listen_for_the_stop(page)
    chat(page, "help me with email")
    crash_and_reload(page)
    wait_turn(page, "unfinished")
    shown = [("user", "help me with email")]
    assert messages(page) == ([] if steps == 1 else shown)
    page.click("#continue-turn")
    wait_turn(page, "waiting")
    expect(page.locator("#needs-input-question")).to_have_text(EMAIL_QUESTION)
    assert messages(page) == shown


def test_a_crash_right_after_the_question_is_stored_brings_the_card_back(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A worker stopped dead right after the question's write, before the card was drawn:
    after a reload the card is there with the question, which is answered once."""
    page = watched_page.page
    serve_worker_with_prologue(page, stop_after=4)
    page.goto(demo_url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    listen_for_the_stop(page)
    chat(page, "help me with email")
    crash_and_reload(page)
    wait_turn(page, "waiting")
    expect(page.locator("#needs-input-question")).to_have_text(EMAIL_QUESTION)
    assert messages(page)[0] == ("user", "help me with email")
