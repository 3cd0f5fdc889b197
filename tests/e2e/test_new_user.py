"""What a new user meets in the demo: proposals, names, settings, the edit form, titles, a phone."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import PageWatch
from .test_branches import edit_first_message
from .test_chat import (
    TURN_TIMEOUT_MS,
    assert_clean,
    chat,
    configure_offline,
    messages,
    open_asked,
    open_ready,
    wait_turn,
)
from .ui_support import action, ask_for_approval, tool_lines

WAITING = "Waiting for you"


def test_schedule_a_meeting_tomorrow_proposes_the_meeting_for_approval(
    watched_page: PageWatch, demo_url: str
) -> None:
    """ "schedule a meeting tomorrow" shows the schedule_meeting approval, not a question."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    chat(page, "schedule a meeting tomorrow")
    wait_turn(page, "waiting")
    expect(page.locator("#approval-card")).to_be_visible()
    assert page.locator("#needs-input").is_hidden()
    assert "tomorrow 10:00" in action(page, "schedule_meeting").inner_text()
    assert_clean(watched_page)


def test_a_rejection_is_answered_in_the_assistants_words(
    watched_page: PageWatch, demo_url: str
) -> None:
    """After a reject the answer says what was not done and quotes the reason as the user's."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    ask_for_approval(page)
    request = action(page)
    request.locator("button:text-is('Reject')").click()
    form = request.locator("form.reject-form")
    form.get_by_label("Why reject send_email?").fill("Not today.")
    form.locator("button[type=submit]").click()
    wait_turn(page, "done")
    assert messages(page)[-1] == (
        "assistant",
        "You rejected send_email, so I did not send the email. You said: “Not today.”\n"
        "Tell me if you want changes.",
    )
    assert_clean(watched_page)


def _names_of_the_waiting_state(page: Any) -> list[str]:
    page.click("#toggle-graph")
    legend = page.locator("#graph-legend")
    expect(legend).to_contain_text(WAITING)
    names = [
        page.locator("#thread-list li .thread-state").first.inner_text(),
        page.inner_text("#turn-status"),
        legend.inner_text(),
        page.locator(".graph-key li").nth(1).inner_text(),
    ]
    page.click("#close-graph")
    return names


def test_the_waiting_state_has_one_name_everywhere(watched_page: PageWatch, demo_url: str) -> None:
    """Badge, status line, card, graph legend and key all call the waiting state the same."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    ask_for_approval(page)
    names = _names_of_the_waiting_state(page)
    names.append(page.locator("#approval-card .needs-input-kicker").inner_text())
    assert all(WAITING.lower() in name.lower() for name in names), names
    assert names[0] == WAITING
    assert names[1] == f"{WAITING}: decide on the action below."

    page.click("#new-thread")
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    names = _names_of_the_waiting_state(page)
    names.append(page.locator("#needs-input .needs-input-kicker").inner_text())
    assert all(WAITING.lower() in name.lower() for name in names), names
    assert names[1] == f"{WAITING}: answer the question below."
    assert_clean(watched_page)


def test_the_delay_field_shows_the_delay_the_model_uses(
    watched_page: PageWatch, demo_url: str
) -> None:
    """The settings' delay field and the badge both show the worker's delay, 0 included."""
    page = open_ready(watched_page, demo_url)
    badge = page.locator("#model-badge")
    expect(badge).to_have_text("Model: offline · 30 ms per token", timeout=TURN_TIMEOUT_MS)
    page.click("#open-settings")
    assert page.input_value("#token-delay") == "30"
    page.fill("#token-delay", "0")
    page.click("#settings-apply")
    expect(badge).to_have_text("Model: offline · 0 ms per token", timeout=TURN_TIMEOUT_MS)
    page.click("#open-settings")
    assert page.input_value("#token-delay") == "0"
    assert_clean(watched_page)


def test_the_edit_form_refuses_a_recipient_that_is_not_an_email(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A recipient that is not an email address is marked in the form and nothing is sent."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    ask_for_approval(page)
    request = action(page)
    request.locator("button:text-is('Edit')").click()
    form = request.locator("form.edit-form")
    to = form.get_by_label("to")
    to.fill("not an email at all")
    form.locator("button[type=submit]").click()
    assert to.get_attribute("aria-invalid") == "true"
    errors = form.locator(".field-error:visible").all_inner_texts()
    assert "Each entry of to must be an email address, such as ana@example.com." in errors
    wait_turn(page, "waiting")
    assert tool_lines(page) == []
    assert_clean(watched_page)


def test_an_unchanged_edit_runs_as_approved(watched_page: PageWatch, demo_url: str) -> None:
    """Sending the edit form with the proposed arguments unchanged is an approval."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    ask_for_approval(page)
    request = action(page)
    request.locator("button:text-is('Edit')").click()
    request.locator("form.edit-form button[type=submit]").click()
    wait_turn(page, "done")
    [line] = tool_lines(page)
    assert line["status"] == "approved"
    assert "ran with your edits" not in line["text"]
    assert_clean(watched_page)


def test_the_inspector_counts_every_row_it_lists(watched_page: PageWatch, demo_url: str) -> None:
    """The inspector's count is the number of rows it lists, run rows included."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    chat(page, "summarize the notes from today")
    wait_turn(page, "done")
    rows = page.locator("#inspector-list > li")
    assert page.locator("#inspector-list > li.run-start").count() >= 1
    count = page.get_attribute("#inspector-summary", "data-records")
    assert count == str(rows.count())
    assert page.inner_text("#inspector-summary").startswith(f"{count} records")
    assert_clean(watched_page)


def test_editing_the_first_message_renames_the_thread(
    watched_page: PageWatch, demo_url: str
) -> None:
    """The thread's title, in the sidebar and the header, follows an edit of its first message."""
    page = open_asked(watched_page, demo_url)
    edit_first_message(page, "help me with a meeting")
    wait_turn(page, "waiting")
    assert page.inner_text("#thread-title") == "help me with a meeting"
    name = page.locator("#thread-list li .thread-name").first
    assert name.inner_text() == "help me with a meeting"
    page.reload()
    page.wait_for_selector("body[data-state=ready]")
    assert page.locator("#thread-list li .thread-name").first.inner_text() == (
        "help me with a meeting"
    )
    assert_clean(watched_page)


def test_the_name_of_the_demo_is_whole_on_a_phone(watched_page: PageWatch, demo_url: str) -> None:
    """At 375 px wide the header shows "pyctx_web" whole and the page does not scroll sideways."""
    page = watched_page.page
    page.set_viewport_size({"width": 375, "height": 740})
    page = open_ready(watched_page, demo_url)
    widths = page.eval_on_selector(
        ".app-header h1",
        "el => [el.scrollWidth, el.clientWidth, document.documentElement.scrollWidth]",
    )
    assert widths[0] <= widths[1], widths
    assert widths[2] <= 375, widths
    assert_clean(watched_page)
