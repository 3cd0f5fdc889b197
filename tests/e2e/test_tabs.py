"""Two pages of the demo on one thread: one turn wins, the other waits its turn and refreshes."""

from __future__ import annotations

from .conftest import PageWatch
from .test_chat import (
    LISTEN,
    READY_TIMEOUT_MS,
    TURN_TIMEOUT_MS,
    answer,
    assert_clean,
    chat,
    configure_offline,
    history,
    messages,
    open_asked,
    open_ready,
    wait_turn,
)


def test_two_pages_on_one_thread_one_turn_wins_the_other_refreshes(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A turn sent while another page runs the thread is refused; that page shows the winner's."""
    first = open_ready(watched_page, demo_url)
    # Slow tokens, so that the second page has started before the first turn ends.
    configure_offline(first, 1000)
    chat(first, "help me with email")
    wait_turn(first, "waiting")
    thread_id = first.evaluate("window.__demo.activeThreadId")
    answer(first, "draft a reply")
    first.wait_for_selector("#transcript .msg-streaming", timeout=TURN_TIMEOUT_MS)

    # A second page of the same browser context: same localStorage, same IndexedDB.
    second = first.context.new_page()
    errors: list[str] = []
    second.on("pageerror", lambda error: errors.append(str(error)))
    second.goto(demo_url)
    second.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    assert second.evaluate("window.__demo.activeThreadId") == thread_id
    assert first.locator("#transcript .msg-streaming").count() == 1, "the first turn ended"
    chat(second, "help me with a meeting")
    wait_turn(second, "busy")
    assert "running in another tab" in second.inner_text("#turn-status")
    assert second.input_value("#chat-input") == "help me with a meeting"
    assert second.locator("#error-banner").is_hidden()
    assert second.locator("#send").is_disabled()

    first.wait_for_selector("#transcript[data-thread-state=done]", timeout=120_000)
    wait_turn(second, "done")
    assert messages(second) == messages(first)

    stored = [m["content"] for m in history(second, thread_id)["messages"]]
    for text in ("help me with email", "draft a reply"):
        assert stored.count(text) == 1, stored
    assert "help me with a meeting" not in stored
    assert errors == []
    assert_clean(watched_page)


def test_a_page_closed_mid_stream_reopens_at_its_last_checkpoint_and_goes_on(
    watched_page: PageWatch, demo_url: str
) -> None:
    """Closing a page while tokens stream loses nothing checkpointed; a new page continues it."""
    first = open_ready(watched_page, demo_url)
    configure_offline(first, 300)
    chat(first, "help me with email")
    wait_turn(first, "waiting")
    thread_id = first.evaluate("window.__demo.activeThreadId")
    answer(first, "draft a reply")
    first.wait_for_selector("#transcript .msg-streaming", timeout=TURN_TIMEOUT_MS)
    context = first.context
    first.close()

    again = context.new_page()
    again.goto(demo_url)
    again.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    assert again.evaluate("window.__demo.activeThreadId") == thread_id
    before = [m["content"] for m in history(again, thread_id)["messages"]]
    assert before.count("help me with email") == 1, before
    assert before.count("draft a reply") == 1, before
    # The closed page's lock went with it: the thread takes a new turn at once.
    configure_offline(again, 0)
    chat(again, "help me with a meeting")
    wait_turn(again, "waiting")
    after = [m["content"] for m in history(again, thread_id)["messages"]]
    assert after[: len(before)] == before
    assert after.count("help me with a meeting") == 1, after
    assert after.count("draft a reply") == 1, after


# Fills the origin's quota with a database of its own, in chunks, until a write fails.
FILL = """async () => {
  const db = await new Promise((ok) => {
    const r = indexedDB.open("filler");
    r.onupgradeneeded = () => r.result.createObjectStore("s");
    r.onsuccess = () => ok(r.result);
  });
  const put = (size, key) => new Promise((ok) => {
    const tx = db.transaction("s", "readwrite");
    tx.objectStore("s").put("f".repeat(size), key);
    tx.oncomplete = () => ok(true);
    tx.onabort = () => ok(false);
  });
  let key = 0;
  for (const size of [262144, 16384, 1024]) while (await put(size, key)) key += 1;
  db.close();
  return key;
}"""
DROP_FILLER = """() => new Promise((ok, fail) => {
  const r = indexedDB.deleteDatabase("filler"); r.onsuccess = ok; r.onerror = fail; })"""


def test_a_full_storage_quota_is_a_clear_error_and_the_thread_survives(
    watched_page: PageWatch, demo_url: str
) -> None:
    """With the storage full an answer fails and its question stays; freed, the thread goes on."""
    page = watched_page.page
    cdp = page.context.new_cdp_session(page)
    # Chromium reads an origin's quota once, at its first use of storage: set it before.
    quota = {"origin": demo_url.rstrip("/"), "quotaSize": 4 * 1024 * 1024}
    cdp.send("Storage.overrideQuotaForOrigin", quota)
    open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    thread_id = page.evaluate("window.__demo.activeThreadId")
    before = history(page, thread_id)
    assert page.evaluate(FILL) > 0

    page.evaluate(LISTEN, ["error"])
    answer(page, "draft a reply " + "x" * 10_000)
    page.wait_for_selector("#error-banner:not([hidden])", timeout=TURN_TIMEOUT_MS)
    # Nothing of the failed answer was stored: the thread is back at its question.
    wait_turn(page, "waiting")
    [error] = page.evaluate("window.__seen")
    assert "QuotaExceededError" in error["message"], error
    assert history(page, thread_id) == before
    page.click("#error-dismiss")

    page.evaluate(DROP_FILLER)
    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    wait_turn(page, "waiting")
    answer(page, "draft a reply")
    wait_turn(page, "done")
    stored = [m["content"] for m in history(page, thread_id)["messages"]]
    assert stored.count("draft a reply") == 1, stored
    assert not [t for t in stored if t.startswith("draft a reply x")], stored


# Makes the thread's latest checkpoint wait in a node the assistant does not have, as a thread
# saved by a version of the assistant whose node had another name would. (A state key of
# another version alone does not: the graph reads only its own keys, as LangGraph's does,
# and the thread goes on.)
AGE_THREAD = """(threadId) => new Promise((ok, fail) => {
  const r = indexedDB.open("pyctx-demo");
  r.onerror = () => fail(r.error);
  r.onsuccess = () => {
    const db = r.result;
    const tx = db.transaction("checkpoints", "readwrite");
    const range = IDBKeyRange.bound([threadId], [threadId, []]);
    const cursor = tx.objectStore("checkpoints").openCursor(range, "prev");
    cursor.onsuccess = () => {
      const record = cursor.result.value;
      const data = JSON.parse(record.data);
      for (const task of data.tasks) task.name = `${task.name}_v1`;
      record.data = JSON.stringify(data);
      cursor.result.update(record);
    };
    tx.oncomplete = () => { db.close(); ok(true); };
    tx.onabort = () => { db.close(); fail(tx.error); };
  };
})"""


def test_a_thread_of_another_assistant_version_opens_read_only_with_a_notice(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A thread saved by another version shows its messages and says it cannot go on."""
    page = open_asked(watched_page, demo_url)
    thread_id = page.evaluate("window.__demo.activeThreadId")
    shown = messages(page)
    assert page.evaluate(AGE_THREAD, thread_id) is True

    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    wait_turn(page, "outdated")
    assert messages(page) == shown
    assert "another version of the assistant" in page.inner_text("#turn-status")
    assert page.locator("#needs-input").is_hidden()
    assert page.locator("#send").is_disabled()
    assert page.locator("#error-banner").is_hidden()
    assert_clean(watched_page)


# Adds a state key the assistant does not have to the thread's latest checkpoint, as a thread
# saved by a version of the assistant with another state would hold.
ADD_KEY = AGE_THREAD.replace(
    "for (const task of data.tasks) task.name = `${task.name}_v1`;", 'data.values.mood = "calm";'
)


def test_an_answer_on_a_thread_with_another_versions_state_leaves_it_read_only(
    watched_page: PageWatch, demo_url: str
) -> None:
    """An answer the graph refuses for another version's state key shows the read-only notice."""
    page = open_asked(watched_page, demo_url)
    thread_id = page.evaluate("window.__demo.activeThreadId")
    assert page.evaluate(ADD_KEY, thread_id) is True

    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    wait_turn(page, "waiting")
    shown = messages(page)
    answer(page, "draft a reply")
    wait_turn(page, "outdated")
    # The transcript is redrawn from what the thread stores: the refused answer is not.
    for _ in range(100):
        if messages(page) == shown:
            break
        page.wait_for_timeout(50)
    assert messages(page) == shown
    assert "another version of the assistant" in page.inner_text("#turn-status")
    assert page.locator("#needs-input").is_hidden()
    assert page.locator("#send").is_disabled()
    assert page.locator("#error-banner").is_hidden()
    assert_clean(watched_page)
