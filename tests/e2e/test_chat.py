"""The demo chat in Chromium: questions, streamed answers, reloads, cancel, concurrency, safety."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PageWatch
from .openai_server import OpenAIServer, text_reply, tool_call_reply

READY_TIMEOUT_MS = 90_000
TURN_TIMEOUT_MS = 30_000
EMAIL_QUESTION = "What should I do with your email?"
MEETING_QUESTION = "What do you need for the meeting?"
XSS = "<img src=x onerror=window.__xss=1><script>window.__xss=2</script>"

# Collects the page's chat events of the given types (what its runs and history reads tell
# it, window.__demo.events) in window.__seen (a test-side listener).
LISTEN = """(types) => {
  window.__seen = window.__seen || [];
  for (const type of types) {
    window.__demo.events.addEventListener(type, (event) => window.__seen.push(event.detail));
  }
}"""

# Every record of every store of every IndexedDB database of the page's origin, as text.
DUMP_INDEXEDDB = """async () => {
  const text = (value) => {
    if (value instanceof ArrayBuffer) value = new Uint8Array(value);
    if (ArrayBuffer.isView(value)) {
      return new TextDecoder("utf-8").decode(value) + " " + new TextDecoder("latin1").decode(value);
    }
    if (value && typeof value === "object") {
      return Object.entries(value).map(([k, v]) => `${k}=${text(v)}`).join(" ");
    }
    return String(value);
  };
  const request = (req) => new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const out = [];
  for (const info of await indexedDB.databases()) {
    const db = await request(indexedDB.open(info.name));
    for (const store of db.objectStoreNames) {
      const tx = db.transaction(store, "readonly");
      const keys = await request(tx.objectStore(store).getAllKeys());
      const values = await request(tx.objectStore(store).getAll());
      const all = `${text(keys)} ${text(values)}`;
      out.push({ db: info.name, store, count: values.length, text: all });
    }
    db.close();
  }
  return out;
}"""


# --- helpers ---------------------------------------------------------------------------------


def open_ready(watch: PageWatch, url: str) -> Any:
    page = watch.page
    page.goto(url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    return page


def open_asked(watch: PageWatch, url: str) -> Any:
    """A ready page on the offline model (no token delay) whose first message, "help me with
    email", has been asked its question."""
    page = open_ready(watch, url)
    configure_offline(page, 0)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    return page


def wait_turn(page: Any, state: str) -> None:
    page.wait_for_selector(f"#transcript[data-thread-state={state}]", timeout=TURN_TIMEOUT_MS)


def chat(page: Any, text: str) -> None:
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")


def answer(page: Any, text: str) -> None:
    page.fill("#answer-input", text)
    page.press("#answer-input", "Enter")


def configure_offline(page: Any, delay_ms: int) -> None:
    page.click("#open-settings")
    page.check("input[name=kind][value=offline]")
    page.fill("#token-delay", str(delay_ms))
    page.click("#settings-apply")
    page.wait_for_selector(
        f"#model-badge[data-kind=offline]:text-is('Model: offline · {delay_ms} ms per token')"
    )


def messages(page: Any) -> list[tuple[str, str]]:
    """The transcript as (role, text) pairs."""
    pairs = page.eval_on_selector_all(
        "#transcript .msg",
        "els => els.map(el => [el.dataset.role, el.querySelector('.msg-body').textContent])",
    )
    return [(role, text) for role, text in pairs]


def records(page: Any) -> list[dict[str, str]]:
    """The records the context inspector lists, with their data attributes."""
    listed: list[dict[str, str]] = page.eval_on_selector_all(
        "#inspector-list .record", "els => els.map(el => ({...el.dataset}))"
    )
    return listed


def history(page: Any, thread_id: str) -> dict[str, Any]:
    """Read a thread's history from the server, as the page does on load, and return it."""
    reply: dict[str, Any] = page.evaluate(
        "(threadId) => window.__demo.history(threadId)", thread_id
    )
    return reply


def assert_clean(watch: PageWatch) -> None:
    assert watch.console_errors == []
    assert watch.foreign_requests == []


# --- tests -----------------------------------------------------------------------------------


def test_seed_flow_asks_then_streams_an_answer_that_uses_the_reply(
    watched_page: PageWatch, demo_url: str, artifacts: Path
) -> None:
    """A vague request gets a question and a reason; the typed answer streams back, ending done."""
    page = watched_page.page
    page.goto(demo_url)
    page.screenshot(path=str(artifacts / "loading.png"))
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    page.screenshot(path=str(artifacts / "ready.png"))
    configure_offline(page, 60)
    page.evaluate(LISTEN, ["token", "done"])

    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
    assert page.inner_text("#needs-input-reason").strip()
    assert page.evaluate("document.activeElement.id") == "answer-input"
    replies = page.eval_on_selector_all(
        "#needs-input-choices button", "els => els.map(e => e.textContent)"
    )
    assert "Draft a reply" in replies
    page.screenshot(path=str(artifacts / "needs_input.png"))

    page.keyboard.type("draft a reply")
    page.keyboard.press("Enter")
    page.wait_for_selector("#transcript .msg-streaming", timeout=TURN_TIMEOUT_MS)
    page.screenshot(path=str(artifacts / "streaming.png"))
    wait_turn(page, "done")
    page.screenshot(path=str(artifacts / "done.png"))

    seen = page.evaluate("window.__seen")
    tokens = [m["token"] for m in seen if m["type"] == "token"]
    done = [m for m in seen if m["type"] == "done"]
    assert len(done) == 1
    assert len(tokens) > 3
    assert "".join(tokens).strip() == done[0]["text"]
    roles = messages(page)
    assert roles[0] == ("user", "help me with email")
    assert ("user", "draft a reply") in roles
    assert roles[-1][0] == "assistant"
    assert "draft a reply" in roles[-1][1]
    assert page.locator("#needs-input").is_hidden()
    assert page.locator("#thread-list li[data-thread-state=done]").count() == 1
    assert_clean(watched_page)


def test_reload_while_a_question_is_pending_brings_the_card_back(
    watched_page: PageWatch, demo_url: str
) -> None:
    """After a reload the question is back, its answer completes the thread, and intake ran once."""
    page = open_ready(watched_page, demo_url)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    thread_id = page.evaluate("window.__demo.activeThreadId")

    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    wait_turn(page, "waiting")
    assert page.evaluate("window.__demo.activeThreadId") == thread_id
    assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
    assert (
        page.locator(f'#thread-list li[data-thread-id="{thread_id}"]')
        .inner_text()
        .startswith("help me with email")
    )
    assert messages(page)[0] == ("user", "help me with email")

    answer(page, "draft a reply")
    wait_turn(page, "done")
    assert "draft a reply" in messages(page)[-1][1]

    names = [r["name"] for r in records(page) if r["kind"] == "node"]
    assert names.count("intake") == 1, names
    assert {"enrich", "plan", "respond"} <= set(names)
    trace = history(page, thread_id)["trace"]
    assert [t["name"] for t in trace if t["kind"] == "node"].count("intake") == 1, trace
    assert {t["thread_id"] for t in trace} == {thread_id}
    assert_clean(watched_page)


def test_cancel_during_streaming_stops_the_turn_and_the_thread_goes_on(
    watched_page: PageWatch, demo_url: str
) -> None:
    """Cancel while tokens stream ends the turn as cancelled; the thread takes a new request."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 200)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    answer(page, "draft a reply")
    page.wait_for_selector("#transcript .msg-streaming", timeout=TURN_TIMEOUT_MS)
    page.click("#cancel-turn")
    wait_turn(page, "cancelled")
    assert page.locator("#transcript .msg-cancelled").count() == 1
    assert page.locator("#cancel-turn").is_hidden()
    assert page.locator("#error-banner").is_hidden()

    configure_offline(page, 10)
    chat(page, "help me with a meeting")
    wait_turn(page, "waiting")
    assert page.inner_text("#needs-input-question") == MEETING_QUESTION
    page.click("#needs-input-choices button:text-is('Prepare an agenda')")
    wait_turn(page, "done")
    assert messages(page)[-1][0] == "assistant"
    assert_clean(watched_page)


def test_two_chats_at_once_both_ask_both_finish_and_never_cross(
    watched_page: PageWatch, demo_url: str, artifacts: Path
) -> None:
    """Two threads started together both ask, both finish when answered, and no record crosses."""
    page = open_ready(watched_page, demo_url)
    page.click("#two-chats")
    expect(page.locator("#thread-list li[data-thread-state=waiting]")).to_have_count(
        2, timeout=TURN_TIMEOUT_MS
    )
    first, second = page.eval_on_selector_all(
        "#thread-list li[data-thread-state=waiting]", "els => els.map(e => e.dataset.threadId)"
    )
    page.screenshot(path=str(artifacts / "two_chats_waiting.png"))

    assert page.evaluate("window.__demo.activeThreadId") == first
    assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
    answer(page, "draft a reply")
    page.click(f'#thread-list li[data-thread-id="{second}"] .thread-open')
    page.wait_for_selector(f"#needs-input-question:text-is('{MEETING_QUESTION}')")
    answer(page, "prepare an agenda")
    expect(page.locator("#thread-list li[data-thread-state=done]")).to_have_count(
        2, timeout=TURN_TIMEOUT_MS
    )
    page.click(f'#thread-list li[data-thread-id="{first}"] .thread-open')
    wait_turn(page, "done")
    assert "draft a reply" in messages(page)[-1][1]
    page.screenshot(path=str(artifacts / "two_chats_done.png"))

    assert page.is_checked("#inspector-all")
    listed = records(page)
    assert {r["postedFor"] for r in listed} >= {first, second}
    assert [r for r in listed if r["crossing"] != "false"] == []
    assert all(r["threadId"] == r["postedFor"] for r in listed)
    runs = {t: {r["runId"] for r in listed if r["postedFor"] == t} for t in (first, second)}
    assert runs[first]
    assert runs[second]
    assert not runs[first] & runs[second]
    assert page.get_attribute("#inspector-summary", "data-crossings") == "0"

    page.click(f'#thread-list li[data-thread-id="{second}"] .thread-delete')
    expect(page.locator(f'#thread-list li[data-thread-id="{second}"]')).to_have_count(0)
    assert page.evaluate("window.__demo.activeThreadId") == first
    assert second not in page.evaluate("JSON.stringify({...localStorage})")
    gone = history(page, second)
    assert gone["messages"] == []
    assert gone["pending"] is None
    assert_clean(watched_page)


def test_html_and_script_payloads_show_as_text_and_never_run(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A markup payload sent as a message and as an answer shows literally and runs no script."""
    page = open_ready(watched_page, demo_url)
    chat(page, XSS)
    wait_turn(page, "done")
    assert messages(page)[0] == ("user", XSS)
    assert page.locator("#thread-list li .thread-name").first.inner_text() == XSS[:39] + "…"

    page.click("#new-thread")
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    answer(page, XSS)
    wait_turn(page, "done")
    assert ("user", XSS) in messages(page)
    assert XSS in messages(page)[-1][1]  # the answer quotes it, as text

    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("img").count() == 0
    assert page.locator("body script").count() == 0
    assert_clean(watched_page)


def test_malformed_requests_get_errors_and_the_page_keeps_working(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A run of an unknown assistant and an unknown op to the worker each get an error that
    names the problem; the page keeps working."""
    page = open_ready(watched_page, demo_url)
    # The page's policy forbids eval, so wait inside one evaluated function, not with polling.
    errors = page.evaluate(
        """async () => {
          const worker = window.__demo.worker;
          const unknown = new Promise((resolve) => {
            worker.addEventListener("message", (event) => {
              if (event.data.type === "error") resolve(event.data.message);
            });
          });
          worker.postMessage({op: "nope"});
          const api = await window.__demo.client();
          const thread = await api.threads.create();
          let refused = null;
          try {
            await api.runs.wait(thread.thread_id, "nope", {input: null});
          } catch (error) {
            refused = error.message;
          }
          return {unknown: await unknown, refused};
        }"""
    )
    assert "nope" in errors["unknown"]
    assert errors["refused"].startswith("HTTP 422: "), errors
    assert "nope" in errors["refused"]
    banner = page.locator("#error-banner")
    assert banner.is_visible()
    assert page.inner_text("#error-text") == errors["unknown"]
    page.click("#error-dismiss")
    assert banner.is_hidden()

    chat(page, "help me with email")
    wait_turn(page, "waiting")
    answer(page, "draft a reply")
    wait_turn(page, "done")
    assert banner.is_hidden()
    assert_clean(watched_page)


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """The scripted OpenAI-compatible API on a free port of 127.0.0.1."""
    with OpenAIServer() as server:
        yield server


ANSWER_PIECES = ("Sure", ": I will ", "send daily reports", " every morning.")


def test_openai_compatible_model_streams_and_keeps_the_key_out_of_storage(
    watched_page: PageWatch, demo_url: str, openai_server: OpenAIServer
) -> None:
    """The model asks through ask_user and streams its answer; the key is only ever a header."""
    key = "sk-test-Zq81-never-store-me"
    question = {
        "question": EMAIL_QUESTION,
        "reason": "Reading, writing and sending email each need a different plan.",
        "choices": ["Summarize my inbox", "Send daily reports"],
    }
    openai_server.script(
        tool_call_reply("ask_user", question),  # enrich: the model asks
        text_reply(),  # enrich, after the answer: nothing more to ask
        text_reply(),  # plan: no action to take
        text_reply(*ANSWER_PIECES),  # respond
    )
    page = watched_page.page
    logged: list[str] = []
    page.on("console", lambda msg: logged.append(msg.text))
    open_ready(watched_page, demo_url)

    page.click("#open-settings")
    page.check("input[name=kind][value=openai]")
    page.fill("#base-url", openai_server.base_url)
    page.fill("#model-name", "scripted-model")
    page.fill("#api-key", key)
    page.click("#settings-apply")
    page.wait_for_selector("#model-badge[data-kind=openai]")
    assert page.locator("#settings").is_hidden()

    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
    answer(page, "send daily reports")
    wait_turn(page, "done")
    assert messages(page)[-1] == ("assistant", "".join(ANSWER_PIECES))

    posts = openai_server.completions()
    assert len(posts) == 4
    for post in posts:
        headers = {name.lower(): value for name, value in post.headers.items()}
        assert headers["authorization"] == f"Bearer {key}"
        assert key not in post.body
        assert key not in post.path
        assert all(key not in v for n, v in headers.items() if n != "authorization")
        assert post.json["model"] == "scripted-model"
        assert post.json["stream"] is True
    assert [t["function"]["name"] for t in posts[0].json["tools"]] == ["ask_user"]
    assert "send daily reports" in json.dumps(posts[-1].json["messages"])

    dump = page.evaluate(DUMP_INDEXEDDB)
    assert sum(store["count"] for store in dump) > 0
    stored = " ".join(store["text"] for store in dump)
    assert "send daily reports" in stored  # the checkpoints are readable here ...
    assert key not in stored  # ... and hold no key
    local = page.evaluate("JSON.stringify({...localStorage}) + JSON.stringify({...sessionStorage})")
    assert "send daily reports" not in local
    assert key not in local
    assert all(key not in text for text in logged)
    assert key not in page.content()
    assert key not in page.inner_text("#inspector-list")
    assert_clean(watched_page)


def test_narrow_screen_layout_and_keyboard(
    watched_page: PageWatch, demo_url: str, artifacts: Path
) -> None:
    """At 375 px the sidebar folds, Escape closes panels, nothing overflows, controls are named."""
    page = watched_page.page
    page.set_viewport_size({"width": 375, "height": 740})
    page.emulate_media(reduced_motion="reduce")  # the sidebar opens without a slide
    open_ready(watched_page, demo_url)
    assert page.locator("#sidebar").is_hidden()
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert page.evaluate("document.activeElement.id") == "answer-input"
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    card = page.locator("#needs-input").bounding_box()
    assert card is not None
    assert card["x"] >= 0
    assert card["x"] + card["width"] <= 375
    page.screenshot(path=str(artifacts / "narrow_needs_input.png"))

    page.click("#toggle-sidebar")
    assert page.locator("#sidebar").is_visible()
    assert page.evaluate("document.activeElement.id") == "new-thread"
    page.screenshot(path=str(artifacts / "narrow_sidebar.png"))
    page.keyboard.press("Escape")
    assert page.locator("#sidebar").is_hidden()
    assert page.evaluate("document.activeElement.id") == "toggle-sidebar"

    page.click("#open-settings")
    assert page.locator("#settings").is_visible()
    page.keyboard.press("Escape")
    assert page.locator("#settings").is_hidden()

    page.focus("#answer-input")
    page.keyboard.type("draft a reply")
    page.keyboard.press("Enter")
    wait_turn(page, "done")
    page.screenshot(path=str(artifacts / "narrow_done.png"))

    unnamed = page.evaluate(
        """() => [...document.querySelectorAll("button, input, textarea, select")]
          .filter((el) => {
            const labelled = el.labels && [...el.labels].some((l) => l.textContent.trim());
            const named = el.getAttribute("aria-label") || el.textContent.trim() || labelled;
            return !named;
          })
          .map((el) => el.id || el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
    assert_clean(watched_page)


def test_page_policy_allows_only_same_origin_scripts(demo_url: str) -> None:
    """The page and its worker allow same-origin scripts and WebAssembly, never eval."""
    with urllib.request.urlopen(demo_url) as response:
        policy = response.headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self' 'wasm-unsafe-eval'"
    assert directives["object-src"] == "'none'"
    assert directives["style-src"] == "'self'"
    assert "unsafe-inline" not in policy
    # The worker runs pyctx_web under the same policy: the library's JavaScript comes
    # from the same-origin module /pyctx_web.mjs, not from evaluated strings.
    with urllib.request.urlopen(demo_url + "worker.js") as response:
        assert response.headers["Content-Security-Policy"] == policy
    with urllib.request.urlopen(demo_url + "pyctx_web.mjs") as response:
        assert response.headers["Content-Type"].startswith("text/javascript")
        assert "export const jsbridge" in response.read().decode()
