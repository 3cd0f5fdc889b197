"""News from other tabs is a hint: forged channel messages neither end a busy thread nor flood."""

from __future__ import annotations

from typing import Any

from .conftest import PageWatch
from .test_chat import LISTEN, TURN_TIMEOUT_MS, assert_clean, chat, open_ready, wait_turn

CHANNEL = "pyctx_web:pyctx-demo"

# Holds the thread's Web Lock from the page, as a run in another tab would.
HOLD_LOCK = """(threadId) => new Promise((held) => {
  navigator.locks.request(`pyctx_web:pyctx-demo:${threadId}`, () => {
    held();
    return new Promise((release) => { window.__releaseLock = release; });
  });
})"""

# Posts `count` forged messages on the thread's channel, as any script of the origin can.
FORGE = """([channel, threadId, event, count]) => {
  const forged = new BroadcastChannel(channel);
  for (let i = 0; i < count; i++) {
    forged.postMessage({ database: "pyctx-demo", thread_id: threadId, event, checkpoint_id: null });
  }
  forged.close();
}"""

# Resolves after a few frames and a round trip to the worker's server (a history read of a
# thread it does not have): forged news has been handled.
SETTLE = """(threadId) => new Promise((resolve) => {
  let frames = 5;
  const tick = () => {
    if (--frames > 0) { requestAnimationFrame(tick); return; }
    window.__demo.history(crypto.randomUUID()).then(() => resolve());
  };
  requestAnimationFrame(tick);
})"""


def busy_thread(page: Any) -> str:
    """Make the active thread busy elsewhere: its lock is held, so a message is refused."""
    thread_id: str = page.evaluate("window.__demo.activeThreadId")
    page.evaluate(HOLD_LOCK, thread_id)
    chat(page, "help me with email")
    wait_turn(page, "busy")
    return thread_id


def test_a_forged_released_message_leaves_a_busy_thread_busy(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A forged "released" does not end the wait; the lock's real release does."""
    page = open_ready(watched_page, demo_url)
    thread_id = busy_thread(page)
    page.evaluate(LISTEN, ["history"])
    page.evaluate(FORGE, [CHANNEL, thread_id, "released", 1])
    page.evaluate(SETTLE, thread_id)
    assert page.get_attribute("#transcript", "data-thread-state") == "busy"
    assert "running in another tab" in page.inner_text("#turn-status")
    assert page.locator("#send").is_disabled()

    page.evaluate("window.__releaseLock()")
    # A selector, not wait_for_function: the page's policy forbids the eval that polling needs.
    page.wait_for_selector("#transcript:not([data-thread-state=busy])", timeout=TURN_TIMEOUT_MS)
    assert page.locator("#send").is_enabled()
    assert_clean(watched_page)


def test_a_burst_of_forged_checkpoint_messages_refreshes_the_history_a_few_times(
    watched_page: PageWatch, demo_url: str
) -> None:
    """3,000 forged "checkpoint" messages at once ask for the history a few times, not 3,000."""
    page = open_ready(watched_page, demo_url)
    thread_id = busy_thread(page)
    page.evaluate(SETTLE, thread_id)
    page.evaluate(LISTEN, ["history"])
    page.evaluate(FORGE, [CHANNEL, thread_id, "checkpoint", 3000])
    page.evaluate(SETTLE, thread_id)
    refreshes = page.evaluate(
        "(id) => window.__seen.filter((m) => m.type === 'history' && m.thread_id === id).length",
        thread_id,
    )
    assert 1 <= refreshes <= 30, refreshes
    assert page.get_attribute("#transcript", "data-thread-state") == "busy"
    page.evaluate("window.__releaseLock()")
    assert_clean(watched_page)
