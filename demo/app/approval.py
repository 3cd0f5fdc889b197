"""Tool calls with side effects wait for the user's decision, in LangChain's HITL shape.

:func:`review` interrupts the run with the request Agent Chat UI renders,
``{"action_requests": [{"name", "args", "description"}], "review_configs":
[{"action_name", "allowed_decisions", "args_schema"?}]}`` (``args_schema``, the
tool's JSON Schema, where an edit is allowed), one action request per held call, and
reads the resume value ``{"decisions": [...]}``, one decision per request in
order: ``{"type": "approve"}``, ``{"type": "edit", "edited_action": {"name",
"args"}}`` or ``{"type": "reject", "message"?}``. Decisions that cannot be used (a
decision not allowed for its tool, edited arguments that break the tool's schema,
a plain answer) are refused: the run streams ``{"refused": message}`` (a custom
chunk naming every problem) and asks again with the same request, so the card stays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

from actions import APPROVALS, SPECS, argument_problems
from langgraph.config import get_stream_writer
from langgraph.types import interrupt

__all__ = ["Verdict", "approval_request", "review"]

_KEYS: Final = {
    "approve": {"type"},
    "edit": {"type", "edited_action"},
    "reject": {"type", "message"},
}


class Verdict(NamedTuple):
    """What the user decided for one tool call: ``approved``, ``edited`` or ``rejected``."""

    status: str
    name: str
    arguments: dict[str, Any]
    message: str | None = None
    """A rejection's message, which the model reads as the tool's result."""


def approval_request(calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The interrupt value that asks for a decision on each of ``calls``."""
    return {
        "action_requests": [
            {"name": c["name"], "args": c["arguments"],
             "description": APPROVALS[c["name"]]["description"]}
            for c in calls
        ],
        "review_configs": [_review_config(c["name"]) for c in calls],
    }  # fmt: skip


def _review_config(name: str) -> dict[str, Any]:
    allowed = list(APPROVALS[name]["allowed_decisions"])
    config: dict[str, Any] = {"action_name": name, "allowed_decisions": allowed}
    if "edit" in allowed:  # the schema an edit's arguments must meet: the card's form
        config["args_schema"] = SPECS[name]["function"]["parameters"]
    return config


def _rejected(call: Mapping[str, Any], message: Any) -> Verdict | list[str]:
    if message is None:
        message = (
            f"User rejected the tool call for `{call['name']}` with id {call['id']}. "
            "The tool was not executed."
        )
    if not isinstance(message, str):
        return [f"a rejection's message must be text, not {type(message).__name__}"]
    return Verdict("rejected", call["name"], dict(call["arguments"]), message)


def _edited(call: Mapping[str, Any], edited: Any) -> Verdict | list[str]:
    if not isinstance(edited, Mapping) or set(edited) != {"name", "args"}:
        return ["'edited_action' must be an object with 'name' and 'args'"]
    problems = argument_problems(str(edited["name"]), edited["args"])
    if problems:
        return problems
    return Verdict("edited", str(edited["name"]), dict(edited["args"]))


def _verdict(call: Mapping[str, Any], decision: Any) -> Verdict | list[str]:
    allowed = APPROVALS[call["name"]]["allowed_decisions"]
    kind = decision.get("type") if isinstance(decision, Mapping) else None
    if kind not in _KEYS:
        return [f"a decision must be an object whose type is approve, edit or reject: {decision!r}"]
    if kind not in allowed:
        return [f"{kind!r} is not allowed; allowed: {', '.join(map(repr, allowed))}"]
    extra = sorted(set(map(str, decision)) - _KEYS[kind])
    if extra:
        return [f"unexpected key(s) {', '.join(map(repr, extra))} in the {kind!r} decision"]
    if kind == "approve":
        return Verdict("approved", call["name"], dict(call["arguments"]))
    if kind == "edit":
        return _edited(call, decision.get("edited_action"))
    return _rejected(call, decision.get("message"))


def _decide(answer: Any, calls: Sequence[Mapping[str, Any]]) -> dict[str, Verdict]:
    if not isinstance(answer, Mapping) or not isinstance(answer.get("decisions"), list):
        raise ValueError(f"An approval is resumed with {{'decisions': [...]}}, not {answer!r}.")
    decisions = answer["decisions"]
    if len(decisions) != len(calls):
        raise ValueError(
            f"An approval of {len(calls)} action(s) needs {len(calls)} decision(s), "
            f"one per action request in order; it got {len(decisions)}."
        )
    verdicts: dict[str, Verdict] = {}
    problems: list[str] = []
    for index, (call, decision) in enumerate(zip(calls, decisions, strict=True)):
        made = _verdict(call, decision)
        if isinstance(made, Verdict):
            verdicts[call["id"]] = made
        else:
            problems += [f"decision {index} ({call['name']}): {problem}" for problem in made]
    if problems:
        raise ValueError("The approval's decisions were refused: " + "; ".join(problems) + ".")
    return verdicts


def review(calls: Sequence[Mapping[str, Any]]) -> dict[str, Verdict]:
    """The user's verdicts on those of ``calls`` that need approval, by call id (interrupts)."""
    held = [call for call in calls if call["name"] in APPROVALS]
    if not held:
        return {}
    request = approval_request(held)
    while True:
        answer = interrupt(request)
        try:
            return _decide(answer, held)
        except ValueError as error:
            # The answer is spent: the next interrupt asks again, and the page says why.
            get_stream_writer()({"refused": str(error)})
