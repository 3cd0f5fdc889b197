"""The shapes of a human-in-the-loop interrupt and its answer, as LangGraph's prebuilt names them.

A node asks ``interrupt([HumanInterrupt(...)])`` and is resumed with a list of
``HumanResponse``; these are TypedDicts, so the values are plain dicts.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

__all__ = ["ActionRequest", "HumanInterrupt", "HumanInterruptConfig", "HumanResponse"]


class HumanInterruptConfig(TypedDict):
    """What the person may do with the request."""

    allow_ignore: bool
    allow_respond: bool
    allow_edit: bool
    allow_accept: bool


class ActionRequest(TypedDict):
    """The action awaiting the person: its name and arguments."""

    action: str
    args: dict[str, Any]


class HumanInterrupt(TypedDict):
    """One request to a person: the action, what they may do, and a description."""

    action_request: ActionRequest
    config: HumanInterruptConfig
    description: NotRequired[str | None]


class HumanResponse(TypedDict):
    """The person's answer: accept, ignore, a text response, or the action edited."""

    type: Literal["accept", "ignore", "response", "edit"]
    args: str | ActionRequest | None
