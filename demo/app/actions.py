"""The demo's tools: ``ask_user``, and actions that only record what they would do.

``send_email`` and ``schedule_meeting`` stand for tools with side effects: the
assistant holds them for the user's approval. ``make_plan`` has none.
"""

from __future__ import annotations

from typing import Annotated

from observe import observe
from offline_model import make_plan as plan_steps

from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import interrupt

__all__ = ["ACTION_TOOLS", "ALL_TOOLS", "ask_user"]


@tool
def ask_user(
    question: Annotated[str, "One short question for the user."],
    reason: Annotated[str, "Why you need to know."] = "",
    choices: Annotated[list[str], "A few likely answers, shown as buttons."] | None = None,
) -> str:
    """Ask the user a question when the request is too vague to act on; returns their answer."""
    observe("tool", "ask_user")
    answer = interrupt({"question": question, "reason": reason, "choices": choices or []})
    return str(answer).strip()


@tool
def send_email(
    to: Annotated[list[str], "The recipients' addresses."],
    subject: Annotated[str, "The subject line."],
    body: Annotated[str, "The text of the email."] = "",
) -> str:
    """Send an email (the demo records it instead of sending)."""
    observe("tool", "send_email")
    return f"Sent “{subject}” to {', '.join(to)}."


@tool
def schedule_meeting(
    title: Annotated[str, "What the meeting is called."],
    when: Annotated[str, "When it starts, such as 'tomorrow 10:00'."],
    attendees: Annotated[list[str], "Who is invited."],
) -> str:
    """Schedule a meeting and invite the attendees (the demo records it instead)."""
    observe("tool", "schedule_meeting")
    return f"Scheduled “{title}” for {when} with {', '.join(attendees)}."


@tool
def make_plan(
    request: Annotated[str, "What the user asked for."],
    clarification: Annotated[str, "What the user said when asked, if anything."] = "",
) -> list[str]:
    """Three steps that carry out the request; no side effects."""
    observe("tool", "make_plan")
    return plan_steps(request, clarification)


ACTION_TOOLS = (send_email, schedule_meeting, make_plan)
"""The tools ``plan`` offers the model."""
ALL_TOOLS = (ask_user, *ACTION_TOOLS)
"""Every tool of the assistant's graph."""
