"""A worker whose Python dies is replaced: the page says so, reopens the thread and goes on."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import PageWatch
from .test_chat import (
    EMAIL_QUESTION,
    READY_TIMEOUT_MS,
    TURN_TIMEOUT_MS,
    answer,
    chat,
    configure_offline,
    history,
    messages,
    wait_turn,
)

LOST = re.compile(
    r"^The Python worker stopped: its Python suffered a fatal error \(.+\)\. "
    r"A new one is starting; your saved chats are kept\.$"
)
BACK = re.compile(
    r"^The Python worker stopped \(its Python suffered a fatal error \(.+\)\) and was "
    r"restarted; this chat was reopened from its last saved step\.$"
)


def test_a_fatal_error_of_the_workers_python_restarts_it_and_the_thread_goes_on(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A real fatal error mid-answer is named, a new worker reopens the thread, later turns work."""
    page = watched_page.page
    page.goto(f"{demo_url}?test-hooks")
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    configure_offline(page, 100)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    thread_id = page.evaluate("window.__demo.activeThreadId")
    answer(page, "draft a reply")
    page.wait_for_selector("#transcript .msg-streaming", timeout=TURN_TIMEOUT_MS)
    first_worker = page.evaluate_handle("window.__demo.worker")

    # json.loads of a text nested 100,000 deep overflows the stack: Pyodide's fatal error.
    page.evaluate("window.__demo.worker.postMessage({ op: 'test_fatal' })")
    expect(page.locator("#error-text")).to_have_text(LOST, timeout=TURN_TIMEOUT_MS)
    wait_turn(page, "error")
    page.wait_for_selector("body[data-worker=ready]", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#error-text")).to_have_text(BACK)
    assert page.evaluate("(old) => window.__demo.worker !== old", first_worker)
    assert page.evaluate("window.__demo.restarts") == 1

    # The thread as stored: the request, the question and the reply, each once.
    stored = [m["content"] for m in history(page, thread_id)["messages"]]
    for text in ("help me with email", EMAIL_QUESTION, "draft a reply"):
        assert stored.count(text) == 1, stored
    shown = [text for _, text in messages(page)]
    assert shown[:3] == ["help me with email", EMAIL_QUESTION, "draft a reply"], shown

    # Later messages work, in this thread and in a new one.
    chat(page, "help me with a meeting")
    wait_turn(page, "waiting")
    answer(page, "book a room")
    page.wait_for_selector("#transcript[data-thread-state=waiting] .msg:has-text('book a room')")
    wait_turn(page, "waiting")
    assert messages(page)[-2:] == [
        ("assistant", "What do you need for the meeting?"),
        ("user", "book a room"),
    ]
    page.click("#new-thread")
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert page.evaluate("window.__demo.restarts") == 1
    assert watched_page.foreign_requests == []


def test_the_fatal_error_hook_needs_the_test_flag(watched_page: PageWatch, demo_url: str) -> None:
    """Without ?test-hooks the test message is an unknown one to the worker: its Python goes on."""
    page = watched_page.page
    page.goto(demo_url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    page.evaluate("window.__demo.worker.postMessage({ op: 'test_fatal' })")
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert page.evaluate("window.__demo.restarts") == 0
    assert "worker stopped" not in page.inner_text("#error-text")


def test_a_worker_that_stops_answering_is_replaced(watched_page: PageWatch, demo_url: str) -> None:
    """A worker that answers no ping for the watchdog's time is replaced, and the page says so."""
    page = watched_page.page
    page.goto(f"{demo_url}?test-hooks")
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    page.evaluate("window.__demo.worker.postMessage({ op: 'test_hang' })")
    page.wait_for_selector("body[data-worker=ready]", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#error-text")).to_have_text(
        "The Python worker stopped (it stopped answering) and was restarted; "
        "this chat was reopened from its last saved step."
    )
    wait_turn(page, "waiting")
    answer(page, "draft a reply")
    wait_turn(page, "done")
    assert page.evaluate("window.__demo.restarts") == 1
