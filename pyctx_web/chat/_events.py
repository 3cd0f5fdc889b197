"""The events a chat session sends, and the checks of the messages it takes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pyctx_web.graph.types import Interrupt

__all__ = ["MAX_TEXT_LENGTH", "Event", "check_message", "error", "failure_text", "needs_input"]

Event = dict[str, Any]

MAX_TEXT_LENGTH: Final = 20_000
"""The longest ``text`` a ``chat`` or ``edit`` message may carry, in characters."""

TYPES: Final = ("chat", "resume_chat", "edit", "regenerate", "continue", "cancel", "history")

BUSY: Final = "This chat is running in another tab: it refreshes when that tab is done."
OTHER_VERSION: Final = (
    "This chat was saved by another version of the assistant: it can be read "
    "but not continued. Start a new chat to go on."
)


def error(message: str, code: str | None = None) -> Event:
    """An ``error`` event; ``code`` lets a UI react to it."""
    event: Event = {"type": "error", "message": message}
    if code is not None:
        event["code"] = code
    return event


def failure_text(failure: BaseException) -> str:
    """What a person reads of a failure a turn ended with: its words, not its class."""
    words = str(failure).strip()
    if words:
        return f"The assistant could not go on: {words}"
    return f"The assistant failed without saying why ({type(failure).__name__})."


def kind_of(value: object) -> str:
    """How a JSON value's type reads in a message to a person."""
    names = {str: "text", bool: "true/false", int: "a number", float: "a number"}
    names.update({list: "a list", dict: "an object", type(None): "null"})
    return names.get(type(value), type(value).__name__)


def needs_input(question: Interrupt, node: str | None = None) -> Event:
    """The ``needs_input`` event of a pending interrupt: a question or an approval."""
    value = question.value
    event: Event = {"type": "needs_input", "interrupt_id": question.id, "node": node}
    if isinstance(value, Mapping) and "action_requests" in value:
        event["kind"] = "approval"
        event["action_requests"] = [dict(a) for a in value.get("action_requests", ())]
        event["review_configs"] = [dict(r) for r in value.get("review_configs", ())]
        return event
    event["kind"] = "question"
    if isinstance(value, Mapping):
        event["question"] = str(value.get("question", ""))
        event["reason"] = str(value.get("reason", ""))
        choices = value.get("choices")
        if isinstance(choices, list) and choices:
            event["choices"] = [str(choice) for choice in choices]
    else:
        event["question"] = str(value)
        event["reason"] = ""
    return event


def _check_text(message: Mapping[str, Any], what: str) -> str | None:
    if "text" not in message:
        return f'A "{what}" message needs a "text" field with what you want to say.'
    text = message["text"]
    if not isinstance(text, str):
        return f'The "text" of a {what} message must be text, not {kind_of(text)}.'
    if not text.strip():
        return "The message is empty: type something to send."
    if len(text) > MAX_TEXT_LENGTH:
        return (
            f"The message is too long ({len(text):,} characters): the limit is {MAX_TEXT_LENGTH:,}."
        )
    return None


def _check_resume(message: Mapping[str, Any]) -> str | None:
    if "decisions" in message:
        decisions = message["decisions"]
        if not isinstance(decisions, list) or not all(isinstance(d, dict) for d in decisions):
            return f'"decisions" must be a list of objects, not {kind_of(decisions)}.'
        return None
    if "resume_value" not in message:
        return 'A "resume_chat" message needs a "resume_value" (an answer) or "decisions".'
    answer = message["resume_value"]
    if isinstance(answer, str) and len(answer) > MAX_TEXT_LENGTH:
        return f"The answer is too long: the limit is {MAX_TEXT_LENGTH:,} characters."
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        return "The answer is empty: type an answer to the question."
    return None


def _check_ids(message: Mapping[str, Any]) -> str | None:
    for name in ("interrupt_id", "checkpoint_id", "message_id"):
        value = message.get(name)
        if value is not None and (not isinstance(value, str) or not value):
            return f'"{name}" must be non-empty text, not {kind_of(value)}.'
    if message["type"] in ("edit", "regenerate") and "message_id" not in message:
        return f'A "{message["type"]}" message needs a "message_id" naming the message.'
    return None


def check_message(message: object) -> str | None:
    """What is wrong with ``message``, in words a person reads, or ``None`` if nothing."""
    if not isinstance(message, Mapping):
        return f'A message must be an object with a "type" field, not {kind_of(message)}.'
    kind = message.get("type")
    if kind is None:
        return 'The message has no "type" field.'
    if kind not in TYPES:
        return f"Unknown message type {kind!r}: expected {', '.join(TYPES[:-1])} or history."
    problem = _check_ids(message)
    if problem is None and kind in ("chat", "edit"):
        problem = _check_text(message, kind)
    if problem is None and kind == "resume_chat":
        problem = _check_resume(message)
    return problem
