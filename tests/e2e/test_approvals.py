"""The approval card in Chromium: approve, edit in the generated form, reject, reload."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import PageWatch
from .test_chat import (
    READY_TIMEOUT_MS,
    TURN_TIMEOUT_MS,
    assert_clean,
    configure_offline,
    open_ready,
    wait_turn,
)
from .ui_support import action, ask_for_approval, tool_lines


def test_approve_runs_the_proposed_action_and_the_tool_line_shows_it(
    watched_page: PageWatch, demo_url: str
) -> None:
    """The card shows the tool, its arguments and description; Approve runs it as proposed."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    card = ask_for_approval(page)
    request = action(page)
    assert request.locator(".action-name").inner_text() == "send_email"
    arguments = request.locator(".action-arguments").inner_text()
    assert "team@example.com" in arguments
    assert "Daily report" in arguments
    assert request.locator(".action-description").inner_text().strip()
    buttons = request.locator(".decision-buttons button").all_inner_texts()
    assert buttons == ["Approve", "Edit", "Reject"]
    assert page.evaluate("document.activeElement.textContent") == "Approve"

    request.locator("button:text-is('Approve')").click()
    wait_turn(page, "done")
    assert card.is_hidden()
    [line] = tool_lines(page)
    assert line["tool"] == "send_email"
    assert line["status"] == "approved"
    assert "team@example.com" in line["text"]
    assert "Daily report" in line["text"]
    assert_clean(watched_page)


def test_edit_refuses_bad_arguments_in_the_form_and_runs_the_good_ones(
    watched_page: PageWatch, demo_url: str
) -> None:
    """Edit checks each field before sending; the tool then runs with the edited arguments."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    ask_for_approval(page)
    request = action(page)
    request.locator("button:text-is('Edit')").click()
    form = request.locator("form.edit-form")
    expect(form).to_be_visible()
    subject = form.get_by_label("subject")
    to = form.get_by_label("to")
    assert subject.input_value() == "Daily report"
    assert to.input_value() == "team@example.com"
    assert "(required)" in form.locator("label[for$='-subject']").inner_text()

    subject.fill("   ")
    to.fill("")
    form.locator("button[type=submit]").click()
    assert subject.get_attribute("aria-invalid") == "true"
    assert to.get_attribute("aria-invalid") == "true"
    errors = form.locator(".field-error:visible").all_inner_texts()
    assert "subject is required." in errors
    assert "to needs at least one entry." in errors
    assert page.evaluate("document.activeElement.id") == to.get_attribute("id")
    wait_turn(page, "waiting")  # nothing was sent

    subject.fill("Numbers for today")
    to.fill("ana@example.com\nbo@example.com")
    form.locator("button[type=submit]").click()
    wait_turn(page, "done")
    [line] = tool_lines(page)
    assert line["status"] == "edited"
    assert "Numbers for today" in line["text"]
    assert "ana@example.com, bo@example.com" in line["text"]
    assert "team@example.com" not in line["text"]
    assert_clean(watched_page)


def test_reject_asks_for_a_reason_and_the_action_does_not_run(
    watched_page: PageWatch, demo_url: str
) -> None:
    """Reject needs a reason; sent, the tool line says rejected and the turn ends."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    ask_for_approval(page)
    request = action(page)
    request.locator("button:text-is('Reject')").click()
    form = request.locator("form.reject-form")
    reason = form.get_by_label("Why reject send_email?")
    expect(reason).to_be_focused()
    form.locator("button[type=submit]").click()
    assert reason.get_attribute("aria-invalid") == "true"
    assert form.locator(".field-error").inner_text().strip()
    wait_turn(page, "waiting")

    reason.fill("Not today, the numbers are late")
    form.locator("button[type=submit]").click()
    wait_turn(page, "done")
    [line] = tool_lines(page)
    assert line["status"] == "rejected"
    assert page.locator("#approval-card").is_hidden()
    assert_clean(watched_page)


def test_reload_with_an_approval_pending_brings_the_card_back(
    watched_page: PageWatch, demo_url: str
) -> None:
    """After a reload the approval card is back as it was, and approving it finishes the turn."""
    page = open_ready(watched_page, demo_url)
    configure_offline(page, 0)
    ask_for_approval(page)
    shown = action(page).inner_text()

    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    wait_turn(page, "waiting")
    card = page.locator("#approval-card")
    card.wait_for(state="visible", timeout=TURN_TIMEOUT_MS)
    assert action(page).inner_text() == shown
    action(page).locator("button:text-is('Approve')").click()
    wait_turn(page, "done")
    assert [line["status"] for line in tool_lines(page)] == ["approved"]
    assert_clean(watched_page)
