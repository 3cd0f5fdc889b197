"""Edit a message, regenerate an answer and switch branches in Chromium; reloads keep the branch."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import PageWatch
from .test_chat import (
    EMAIL_QUESTION,
    MEETING_QUESTION,
    READY_TIMEOUT_MS,
    TURN_TIMEOUT_MS,
    answer,
    assert_clean,
    chat,
    messages,
    open_asked,
    wait_turn,
)
from .ui_support import branch_position

FIRST = "#transcript .msg[data-kind=message] >> nth=0"
ANSWER = "#transcript .msg[data-kind=answer] >> nth=-1"


def reload_ready(page: Any) -> None:
    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)


def edit_first_message(page: Any, text: str) -> None:
    first = page.locator(FIRST)
    first.locator("button.msg-edit").click()
    editor = first.locator("form.msg-editor textarea")
    expect(editor).to_be_focused()
    editor.fill(text)
    first.locator("form.msg-editor button:text-is('Save')").click()


def test_edit_a_message_then_switch_branches_and_reload(
    watched_page: PageWatch, demo_url: str
) -> None:
    """An edited message runs from before it; both branches stay; the one shown survives reload."""
    page = open_asked(watched_page, demo_url)
    answer(page, "draft a reply")
    wait_turn(page, "done")
    email_branch = messages(page)
    thread_id = page.evaluate("window.__demo.activeThreadId")

    # Cancel leaves the message as it was.
    page.locator(FIRST).locator("button.msg-edit").click()
    page.locator(FIRST).locator("form.msg-editor button:text-is('Cancel')").click()
    assert messages(page) == email_branch

    edit_first_message(page, "help me with a meeting")
    wait_turn(page, "waiting")
    assert page.inner_text("#needs-input-question") == MEETING_QUESTION
    assert messages(page) == [("user", "help me with a meeting")]
    page.click("#needs-input-choices button:text-is('Prepare an agenda')")
    wait_turn(page, "done")
    meeting_branch = messages(page)
    expect(page.locator(FIRST).locator(".branch-position")).to_have_text("2 / 2")

    page.locator(FIRST).get_by_role("button", name="Previous branch").click()
    expect(page.locator(FIRST).locator(".branch-position")).to_have_text("1 / 2")
    assert messages(page) == email_branch
    assert page.locator(FIRST).get_by_role("button", name="Previous branch").is_disabled()

    reload_ready(page)
    assert page.evaluate("window.__demo.activeThreadId") == thread_id
    expect(page.locator(FIRST).locator(".branch-position")).to_have_text("1 / 2")
    assert messages(page) == email_branch

    page.locator(FIRST).get_by_role("button", name="Next branch").click()
    expect(page.locator(FIRST).locator(".branch-position")).to_have_text("2 / 2")
    assert messages(page) == meeting_branch
    reload_ready(page)
    expect(page.locator(FIRST).locator(".branch-position")).to_have_text("2 / 2")
    assert messages(page) == meeting_branch
    assert "api_key" not in page.evaluate("JSON.stringify({...localStorage})")
    assert_clean(watched_page)


def test_regenerate_an_answer_adds_a_branch_and_a_new_turn_continues_the_one_shown(
    watched_page: PageWatch, demo_url: str
) -> None:
    """Regenerate adds a branch of the answer; a new message continues the branch shown."""
    page = open_asked(watched_page, demo_url)
    assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
    answer(page, "draft a reply")
    wait_turn(page, "done")
    before = messages(page)

    page.locator(ANSWER).locator("button.msg-regenerate").click()
    wait_turn(page, "done")
    expect(page.locator(ANSWER).locator(".branch-position")).to_have_text("2 / 2")
    assert messages(page)[:-1] == before[:-1]
    assert messages(page)[-1][0] == "assistant"

    page.locator(ANSWER).get_by_role("button", name="Previous branch").click()
    expect(page.locator(ANSWER).locator(".branch-position")).to_have_text("1 / 2")
    chat(page, "help me with a meeting")
    wait_turn(page, "waiting")
    reload_ready(page)
    wait_turn(page, "waiting")
    assert page.inner_text("#needs-input-question") == MEETING_QUESTION
    shown = messages(page)
    assert shown[: len(before)] == before
    assert shown[len(before)] == ("user", "help me with a meeting")
    assert branch_position(page.locator("#transcript .msg[data-kind=answer]").first) == "1 / 2"
    assert page.locator("#transcript .msg-regenerate").count() >= 1
    assert_clean(watched_page)


def test_every_user_message_can_be_edited_and_every_answer_regenerated(
    watched_page: PageWatch, demo_url: str
) -> None:
    """Messages carry Edit, answers Regenerate, questions, replies and tools neither."""
    page = open_asked(watched_page, demo_url)
    answer(page, "draft a reply")
    wait_turn(page, "done")
    page.wait_for_selector(
        "#transcript .msg[data-kind=answer] .msg-regenerate", timeout=TURN_TIMEOUT_MS
    )
    kinds = page.eval_on_selector_all(
        "#transcript .msg",
        "els => els.map(el => [el.dataset.kind, !!el.querySelector('.msg-edit'),"
        " !!el.querySelector('.msg-regenerate')])",
    )
    for kind, edit, regenerate in kinds:
        assert edit == (kind == "message"), kinds
        assert regenerate == (kind == "answer"), kinds
    assert {kind for kind, _, _ in kinds} >= {"message", "question", "reply", "answer"}
    assert_clean(watched_page)


def test_an_open_editor_keeps_its_text_when_the_thread_is_redrawn(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A history read that lands while a message is being edited leaves the editor and its text."""
    page = open_asked(watched_page, demo_url)
    first = page.locator(FIRST)
    first.locator("button.msg-edit").click()
    editor = first.locator("form.msg-editor textarea")
    editor.fill("help me with a")
    page.evaluate(
        """() => import(new URL("js/history.js", document.baseURI).href).then(
          (history) => history.requestHistory(window.__demo.activeThreadId, null))"""
    )
    expect(editor).to_have_value("help me with a")
    expect(editor).to_be_focused()
    editor.press("End")
    editor.type(" meeting")
    first.locator("form.msg-editor button:text-is('Save')").click()
    wait_turn(page, "waiting")
    assert page.locator(FIRST).locator(".msg-body").inner_text() == "help me with a meeting"
    assert_clean(watched_page)
