"""The useStream example page (examples/usestream, served by ``./build.sh demo`` at /usestream/)
in real Chromium: a conversation whose interrupts the page's buttons resume.

By default the page's LangGraph SDK talks to pyctx_web's server in the page's Web Worker;
with ``?api=URL`` the same page talks to the real LangGraph Server (``langgraph dev``,
installed by ``./build.sh server``) serving the same graph file, which runs there on real
LangGraph unmodified.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from tests.server.reference import ServerStartError, langgraph_dev

from .conftest import ROOT, PageWatch

GRAPH_FOLDER = ROOT / "examples" / "usestream"
START_LIMIT_MS = 120_000  # Pyodide, pyctx_web and langchain-core loading in the worker
STEP_LIMIT_MS = 60_000

# Every text the page's messages showed, in order of change: streamed answers grow here.
RECORD_TEXTS = """
window.__texts = [];
new MutationObserver(() => {
  const shown = [...document.querySelectorAll(".message .text")].map((node) => node.textContent);
  const last = shown.at(-1);
  if (last !== undefined && window.__texts.at(-1) !== last) window.__texts.push(last);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""

FIRST_TURN = [
    ("You", "Please send the weekly report"),
    ("Assistant", 'ask_user({"question":"Who should receive the report?"})'),
    ("Tool", "ask_user", "ana@example.com"),
    ("Assistant", 'send_email({"to":"ana@example.com","subject":"The weekly report"})'),
    ("Tool", "send_email", "sent the weekly report to ana@example.com"),
    ("Assistant", "Done: sent the weekly report to ana@example.com."),
]
SECOND_TURN = [
    ("You", "Send it to Bo too"),
    ("Assistant", 'ask_user({"question":"Who should receive the report?"})'),
    ("Tool", "ask_user", "bo@example.com"),
    ("Assistant", 'send_email({"to":"bo@example.com","subject":"The weekly report"})'),
    ("Tool", "send_email", "The person rejected it."),
    ("Assistant", "All right, I did not send the report."),
]


@pytest.fixture(scope="module")
def langgraph_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real LangGraph Server serving examples/usestream's graph.py (its langgraph.json)."""
    try:
        with langgraph_dev(tmp_path_factory.mktemp("usestream-langgraph"), GRAPH_FOLDER) as url:
            yield url
    except ServerStartError as error:
        pytest.fail(str(error))


def messages(page: Any) -> list[tuple[str, ...]]:
    """The page's messages, each as the texts of its parts: role, tool name, text, calls."""
    return [
        tuple(part.inner_text() for part in item.locator(":scope > span").all())
        for item in page.locator(".messages > li").all()
    ]


def wait_until_idle(page: Any, status: str) -> None:
    """Wait until the page's status line says ``status`` (the stream ended)."""
    page.locator(".status", has_text=status).wait_for(timeout=STEP_LIMIT_MS)


def turn(page: Any, request: str, recipient: str, decision: str) -> None:
    """One turn: send ``request``, answer the question with ``recipient``, then ``decision``."""
    page.get_by_role("textbox", name="Message").fill(request)
    page.get_by_role("button", name="Send").click()
    question = page.locator(".card", has_text="Who should receive the report?")
    question.wait_for(timeout=STEP_LIMIT_MS)
    assert question.locator("h2").inner_text() == "The assistant asks"
    assert page.get_by_role("button", name="Approve").count() == 0
    question.get_by_label("Your answer").fill(recipient)
    question.get_by_role("button", name="Answer").click()
    approval = page.locator(".card", has_text="An email cannot be called back once it is sent.")
    approval.wait_for(timeout=STEP_LIMIT_MS)
    assert approval.locator("h2").inner_text() == "Approve this action?"
    assert recipient in approval.locator(".args").inner_text()
    approval.get_by_role("button", name=decision).click()
    wait_until_idle(page, "Ready")


def converse(watch: PageWatch, url: str) -> list[str]:
    """Hold two turns on the page at ``url`` (approved, then rejected); checks what the page
    shows after each and returns every text its messages showed, in order."""
    page = watch.page
    page.add_init_script(RECORD_TEXTS)
    page.goto(url)
    wait_until_idle(page, "Ready")
    turn(page, "Please send the weekly report", "ana@example.com", "Approve")
    assert messages(page) == FIRST_TURN
    assert page.locator(".outbox li").all_inner_texts() == ["The weekly report to ana@example.com"]
    turn(page, "Send it to Bo too", "bo@example.com", "Reject")
    assert messages(page) == FIRST_TURN + SECOND_TURN
    assert page.locator(".outbox li").all_inner_texts() == ["The weekly report to ana@example.com"]
    assert page.locator(".card").count() == 0
    assert watch.console_errors == []
    assert watch.foreign_requests == []
    texts: list[str] = page.evaluate("window.__texts")
    return texts


def assert_streamed(texts: list[str], answer: str) -> None:
    """``answer`` was shown growing, a word at a time, before it was whole."""
    start = texts.index(answer.split(" ")[0] + " ")
    grown = texts[start : texts.index(answer) + 1]
    assert len(grown) > 2
    assert all(later.startswith(text) for text, later in itertools.pairwise(grown))


def test_page_converses_with_its_in_page_server(watched_page: PageWatch, demo_url: str) -> None:
    """On the in-page server the page streams the answers and its buttons answer the question
    and approve or reject the email; no request of the LangGraph API goes over the network."""
    requested: list[str] = []
    watched_page.page.on("request", lambda request: requested.append(request.url))
    texts = converse(watched_page, demo_url + "usestream/")
    assert watched_page.page.locator(".server").inner_text() == (
        "In-page server: pyctx_web in a Web Worker"
    )
    assert_streamed(texts, "Done: sent the weekly report to ana@example.com.")
    assert_streamed(texts, "All right, I did not send the report.")
    paths = {urlsplit(url).path for url in requested}
    assert not {path for path in paths if path.startswith(("/threads", "/runs"))}
    assert {"/usestream/", "/usestream/main.js", "/usestream/worker.js", "/pyctx_web.mjs"} <= paths
    page = watched_page.page
    page.get_by_role("button", name="New thread").click()
    page.locator(".messages > li").first.wait_for(state="detached", timeout=STEP_LIMIT_MS)
    assert page.locator(".outbox").count() == 0
    assert page.get_by_role("textbox", name="Message").is_enabled()


def test_same_page_converses_with_langgraph_dev(
    watched_page: PageWatch, demo_url: str, langgraph_url: str
) -> None:
    """With ?api=URL the same page holds the same conversation with the real LangGraph Server
    serving the same graph file, and its worker never starts."""
    requested: list[str] = []
    watched_page.page.on("request", lambda request: requested.append(request.url))
    texts = converse(watched_page, f"{demo_url}usestream/?api={quote(langgraph_url, safe='')}")
    assert watched_page.page.locator(".server").inner_text() == (
        f"LangGraph Server at {langgraph_url}"
    )
    assert_streamed(texts, "Done: sent the weekly report to ana@example.com.")
    assert_streamed(texts, "All right, I did not send the report.")
    assert any(url.startswith(f"{langgraph_url}/threads/") for url in requested)
    assert not [url for url in requested if url.endswith(("/usestream/worker.js", ".wasm"))]


def test_page_says_when_its_worker_cannot_start(watched_page: PageWatch, demo_url: str) -> None:
    """A graph file the worker cannot fetch stops the page with the reason, shown in its
    status line, and no message can be sent."""
    page = watched_page.page
    page.route("**/usestream/graph.py", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(demo_url + "usestream/")
    status = page.locator(".status", has_text="The worker stopped")
    status.wait_for(timeout=START_LIMIT_MS)
    assert status.inner_text() == "The worker stopped: could not fetch graph.py: HTTP 404"
    assert page.get_by_role("textbox", name="Message").is_disabled()


@pytest.mark.parametrize("server", ["in-page", "langgraph-dev"])
def test_thread_survives_a_reload(
    watched_page: PageWatch, demo_url: str, request: pytest.FixtureRequest, server: str
) -> None:
    """The page keeps its thread in its address: reloaded while the question waits, it shows
    the thread's messages and the question again (read back from the in-page server's
    IndexedDB, or from the LangGraph Server), and the answer resumes the run there."""
    page = watched_page.page
    url = demo_url + "usestream/"
    if server == "langgraph-dev":
        url += "?api=" + quote(request.getfixturevalue("langgraph_url"), safe="")
    page.goto(url)
    wait_until_idle(page, "Ready")
    page.get_by_role("textbox", name="Message").fill("Please send the weekly report")
    page.get_by_role("button", name="Send").click()
    page.get_by_label("Your answer").wait_for(timeout=STEP_LIMIT_MS)
    assert "thread=" in page.url
    page.reload()
    page.get_by_label("Your answer").wait_for(timeout=START_LIMIT_MS)
    assert messages(page) == FIRST_TURN[:2]
    page.get_by_label("Your answer").fill("ana@example.com")
    page.get_by_role("button", name="Answer").click()
    page.get_by_role("button", name="Approve").click()
    wait_until_idle(page, "Ready")
    assert messages(page) == FIRST_TURN
    assert watched_page.console_errors == []
