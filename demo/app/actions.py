"""The demo's tools as a model is offered them, and what each does when called.

``ask_user`` is how the model asks the user a question (the graph turns its
call into an interrupt). ``send_email`` and ``schedule_meeting`` stand for tools
with side effects: they only record what they would do, and the graph holds
them for the user's approval (:data:`APPROVALS`). ``make_plan`` has none. Each
tool is a chat-completions tool entry (:data:`SPECS`, its ``parameters`` a JSON
Schema) and a function of its arguments (:func:`run_tool`, which checks them
first). Recipients are email addresses (``format: email``, which the approval
card's edit form checks, with a ``pattern`` :func:`argument_problems` asserts,
since JSON Schema takes ``format`` as an annotation only).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from observe import observe

__all__ = [
    "ACTION_SPECS",
    "APPROVALS",
    "ASK_SPEC",
    "ASK_TOOL",
    "EMAIL_PATTERN",
    "SPECS",
    "argument_problems",
    "run_tool",
]

ASK_TOOL: Final = "ask_user"
"""The tool through which the model asks the user: its calls are questions, its results replies."""

EMAIL_PATTERN = r"^[^\s@]+@[^\s@]+\.[^\s@]+$"
"""What an address must look like: a name, ``@`` and a domain with a dot (the form's check too)."""


def _addresses(description: str) -> dict[str, Any]:
    address = {"type": "string", "format": "email", "pattern": EMAIL_PATTERN}
    return {"type": "array", "items": address, "minItems": 1, "description": description}


def _spec(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


_TEXT: Final = {"type": "string"}

ASK_SPEC: Final = _spec(
    ASK_TOOL,
    "Ask the user a question when the request is too vague to act on; returns their answer.",
    {
        "question": {**_TEXT, "description": "One short question for the user."},
        "reason": {**_TEXT, "description": "Why you need to know.", "default": ""},
        "choices": {
            "type": "array",
            "items": _TEXT,
            "description": "A few likely answers, shown as buttons.",
            "default": [],
        },
    },
    ["question"],
)

ACTION_SPECS: Final = (
    _spec(
        "send_email",
        "Send an email (the demo records it instead of sending).",
        {
            "to": _addresses("The recipients' email addresses."),
            "subject": {**_TEXT, "description": "The subject line."},
            "body": {**_TEXT, "description": "The text of the email.", "default": ""},
        },
        ["to", "subject"],
    ),
    _spec(
        "schedule_meeting",
        "Schedule a meeting and invite the attendees (the demo records it instead).",
        {
            "title": {**_TEXT, "description": "What the meeting is called."},
            "when": {**_TEXT, "description": "When it starts, such as 'tomorrow 10:00'."},
            "attendees": _addresses("The email addresses of the people invited."),
        },
        ["title", "when", "attendees"],
    ),
    _spec(
        "make_plan",
        "Three steps that carry out the request; no side effects.",
        {
            "request": {**_TEXT, "description": "What the user asked for."},
            "clarification": {
                **_TEXT,
                "description": "What the user said when asked, if anything.",
                "default": "",
            },
        },
        ["request"],
    ),
)
"""The tools ``plan`` offers the model."""

SPECS: Final = {spec["function"]["name"]: spec for spec in (ASK_SPEC, *ACTION_SPECS)}
"""Every tool of the assistant, by name."""

APPROVALS: Final = {
    "send_email": {
        "allowed_decisions": ["approve", "edit", "reject"],
        "description": "An email cannot be called back once it is sent.",
    },
    "schedule_meeting": {
        "allowed_decisions": ["approve", "reject"],
        "description": "Scheduling sends invitations to every attendee.",
    },
}
"""The tools whose calls wait for the user's approval, the decisions allowed and why."""


def _value_problems(where: str, value: Any, schema: Mapping[str, Any]) -> list[str]:
    if schema.get("type") == "string":
        if not isinstance(value, str):
            return [f"{where} must be text, not {type(value).__name__}"]
        pattern = schema.get("pattern")
        if pattern is not None and not re.search(pattern, value):
            return [f"{where} is not an email address: {value!r}"]
        return []
    if not isinstance(value, list):
        return [f"{where} must be a list, not {type(value).__name__}"]
    if len(value) < schema.get("minItems", 0):
        return [f"{where} needs at least {schema['minItems']} item(s)"]
    problems = []
    for index, item in enumerate(value):
        problems += _value_problems(f"{where}[{index}]", item, schema["items"])
    return problems


def argument_problems(name: str, arguments: Any) -> list[str]:
    """What is wrong with ``arguments`` for the tool ``name`` (its JSON Schema), if anything."""
    spec = SPECS.get(name)
    if spec is None:
        return [f"there is no tool {name!r}; tools: {', '.join(sorted(SPECS))}"]
    if not isinstance(arguments, Mapping):
        return [f"the arguments of {name} must be an object, not {type(arguments).__name__}"]
    parameters = spec["function"]["parameters"]
    problems = [f"{name} needs '{key}'" for key in parameters["required"] if key not in arguments]
    for key, value in arguments.items():
        schema = parameters["properties"].get(key)
        if schema is None:
            problems.append(f"{name} takes no argument '{key}'")
        else:
            problems += _value_problems(f"{name}'s '{key}'", value, schema)
    return problems


def _send_email(args: Mapping[str, Any]) -> str:
    return f"Sent “{args['subject']}” to {', '.join(args['to'])}."


def _schedule_meeting(args: Mapping[str, Any]) -> str:
    return f"Scheduled “{args['title']}” for {args['when']} with {', '.join(args['attendees'])}."


def _make_plan(args: Mapping[str, Any]) -> list[str]:
    from offline_model import make_plan  # the offline model's rules, when used

    return make_plan(str(args["request"]), str(args.get("clarification", "")))


_ACTIONS: Final[dict[str, Callable[[Mapping[str, Any]], Any]]] = {
    "send_email": _send_email,
    "schedule_meeting": _schedule_meeting,
    "make_plan": _make_plan,
}


def run_tool(name: str, arguments: Mapping[str, Any]) -> Any:
    """Call the action tool ``name`` with ``arguments``; ``ValueError`` names bad arguments."""
    problems = argument_problems(name, arguments) if name in _ACTIONS else [f"no action {name!r}"]
    if problems:
        raise ValueError("; ".join(problems))
    observe("tool", name)
    return _ACTIONS[name](arguments)
