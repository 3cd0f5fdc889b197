"""The demo's tools: ``ask_user``, and actions that only record what they would do.

``send_email`` and ``schedule_meeting`` stand for tools with side effects: the
assistant holds them for the user's approval. ``make_plan`` has none. Their
recipients are email addresses (``format: email``, which the approval card's
edit form checks, with a ``pattern`` the tool's argument check asserts, since
JSON Schema takes ``format`` as an annotation only).
"""

from __future__ import annotations

from typing import Annotated, Any

from observe import observe

from pyctx_web.graph.tools import tool
from pyctx_web.graph.types import interrupt

__all__ = ["ACTION_TOOLS", "ALL_TOOLS", "EMAIL_PATTERN", "ask_user"]

EMAIL_PATTERN = r"^[^\s@]+@[^\s@]+\.[^\s@]+$"
"""What an address must look like: a name, ``@`` and a domain with a dot (the form's check too)."""


def _addresses(description: str) -> dict[str, Any]:
    address = {"type": "string", "format": "email", "pattern": EMAIL_PATTERN}
    return {"type": "array", "items": address, "minItems": 1, "description": description}


def _parameters(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


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


@tool(
    parameters=_parameters(
        {
            "to": _addresses("The recipients' email addresses."),
            "subject": {"type": "string", "description": "The subject line."},
            "body": {"type": "string", "description": "The text of the email.", "default": ""},
        },
        ["to", "subject"],
    )
)
def send_email(args: dict[str, Any]) -> str:
    """Send an email (the demo records it instead of sending)."""
    observe("tool", "send_email")
    return f"Sent “{args['subject']}” to {', '.join(args['to'])}."


@tool(
    parameters=_parameters(
        {
            "title": {"type": "string", "description": "What the meeting is called."},
            "when": {
                "type": "string",
                "description": "When it starts, such as 'tomorrow 10:00'.",
            },
            "attendees": _addresses("The email addresses of the people invited."),
        },
        ["title", "when", "attendees"],
    )
)
def schedule_meeting(args: dict[str, Any]) -> str:
    """Schedule a meeting and invite the attendees (the demo records it instead)."""
    observe("tool", "schedule_meeting")
    return f"Scheduled “{args['title']}” for {args['when']} with {', '.join(args['attendees'])}."


@tool
def make_plan(
    request: Annotated[str, "What the user asked for."],
    clarification: Annotated[str, "What the user said when asked, if anything."] = "",
) -> list[str]:
    """Three steps that carry out the request; no side effects."""
    observe("tool", "make_plan")
    from offline_model import make_plan as plan_steps  # the offline model's rules, when used

    return plan_steps(request, clarification)


ACTION_TOOLS = (send_email, schedule_meeting, make_plan)
"""The tools ``plan`` offers the model."""
ALL_TOOLS = (ask_user, *ACTION_TOOLS)
"""Every tool of the assistant's graph."""
