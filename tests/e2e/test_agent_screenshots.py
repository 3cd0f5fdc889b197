"""Screenshots of the question and approval cards, the edit form and branch switcher, two widths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import PageWatch
from .test_chat import (
    TURN_TIMEOUT_MS,
    answer,
    assert_clean,
    chat,
    open_ready,
    wait_turn,
)
from .ui_support import action, ask_for_approval

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "narrow": {"width": 375, "height": 740}}


def fits(page: Any, selector: str, width: int) -> None:
    box = page.locator(selector).first.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= width + 0.5
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("name", list(VIEWPORTS))
def test_cards_edit_form_and_branch_switcher_fit_and_are_captured(
    watched_page: PageWatch, demo_url: str, artifacts: Path, name: str
) -> None:
    """Each piece fits the viewport's width and is saved as build/e2e/<piece>_<viewport>.png."""
    page = watched_page.page
    size = VIEWPORTS[name]
    page.set_viewport_size(size)
    page.emulate_media(reduced_motion="reduce")
    open_ready(watched_page, demo_url)

    chat(page, "help me with email")
    wait_turn(page, "waiting")
    fits(page, "#needs-input", size["width"])
    page.screenshot(path=str(artifacts / f"question_card_{name}.png"))
    answer(page, "draft a reply")
    wait_turn(page, "done")

    if page.locator("#new-thread").is_hidden():
        page.click("#toggle-sidebar")  # the sidebar folds away at 375 px
    page.click("#new-thread")
    ask_for_approval(page)
    fits(page, "#approval-card", size["width"])
    page.screenshot(path=str(artifacts / f"approval_card_{name}.png"))
    action(page).locator("button:text-is('Edit')").click()
    form = action(page).locator("form.edit-form")
    form.get_by_label("subject").fill("")
    form.locator("button[type=submit]").click()
    assert form.locator(".form-field .field-error:visible").count() == 1
    fits(page, "form.edit-form", size["width"])
    form.screenshot(path=str(artifacts / f"edit_form_{name}.png"))
    page.screenshot(path=str(artifacts / f"edit_form_page_{name}.png"))
    form.locator("button:text-is('Cancel')").click()
    action(page).locator("button:text-is('Approve')").click()
    wait_turn(page, "done")

    answer_bubble = page.locator("#transcript .msg[data-kind=answer]").last
    answer_bubble.locator("button.msg-regenerate").click()
    wait_turn(page, "done")
    switcher = page.locator("#transcript .branch-switcher").last
    switcher.wait_for(timeout=TURN_TIMEOUT_MS)
    assert switcher.locator(".branch-position").inner_text() == "2 / 2"
    fits(page, "#transcript .branch-switcher >> nth=-1", size["width"])
    page.screenshot(path=str(artifacts / f"branch_switcher_{name}.png"))
    for piece in ("question_card", "approval_card", "edit_form", "branch_switcher"):
        assert (artifacts / f"{piece}_{name}.png").stat().st_size > 0
    assert_clean(watched_page)
