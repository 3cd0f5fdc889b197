"""The offline model: deterministic rules that speak the same tool-calling protocol as an API.

It reads the conversation the way a model would and answers with tool calls:

* offered ``ask_user``, it asks about a request too vague to act on ("help me
  with email"), once per request, and says nothing otherwise. A request that
  names one of the actions the tools take, with its object ("schedule a meeting
  tomorrow", "send the report"), is enough: what it leaves out has a default
  the user sees, and can change or refuse, on the approval card;
* offered the action tools, it proposes ``send_email`` for "send the daily report
  to my team", ``schedule_meeting`` for "schedule a meeting ..." (at the day and
  time the request names, else tomorrow at 10:00), and ``make_plan`` for anything
  else, once per request;
* offered no tools, it answers from what the tools did, and says in its own
  words which actions the user rejected, quoting their reason as theirs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol import Reply, TokenSink, ToolCall

__all__ = ["OfflineModel", "assess", "make_plan"]

# topic word -> (question, reason, quick replies)
_TOPICS: dict[str, tuple[str, str, list[str]]] = {
    "email": (
        "What should I do with your email?",
        "Reading, writing, sorting and sending email each need a different plan.",
        ["Summarize my inbox", "Draft a reply", "Send the daily report to my team"],
    ),
    "meeting": (
        "What do you need for the meeting?",
        "A meeting can need scheduling, an agenda or notes, and I should not guess which.",
        ["Schedule a meeting", "Prepare an agenda", "Write up notes"],
    ),
    "report": (
        "Which report, and what should happen to it?",
        "Reports can be written, summarized or sent, for different readers.",
        ["Write a weekly report", "Summarize a report", "Send the daily report to my team"],
    ),
    "code": (
        "What should I do with the code?",
        "Reviewing, fixing and explaining code are different jobs.",
        ["Review it", "Fix a bug", "Explain it"],
    ),
}
_VAGUE_WORDS = 6
_ACTIONS = re.compile(
    r"\b(?:schedul\w*|book|arrange|set up)\b.*\b(?:meeting|call)s?\b"
    r"|\bsend\b.*\b(?:report|e-?mail|mail|note)s?\b"
)
"""An action verb of the tools followed by its object: a request naming one needs no question."""


def assess(request: str) -> dict[str, Any] | None:
    """The question to ask when ``request`` is too vague to act on, or ``None``."""
    words = re.findall(r"[a-z']+", request.lower())
    if len(words) > _VAGUE_WORDS or _ACTIONS.search(" ".join(words)):
        return None
    for word in words:
        topic = _TOPICS.get(word.rstrip("s")) or _TOPICS.get(word)
        if topic is not None:
            question, reason, choices = topic
            return {"question": question, "reason": reason, "choices": choices}
    if len(words) <= 2:
        return {
            "question": "What would you like me to do?",
            "reason": f"“{request.strip()}” is too short for me to plan anything useful.",
            "choices": [],
        }
    return None


_PLANS: list[tuple[str, list[str]]] = [
    ("summar", ["Gather what needs summarizing", "Pick out decisions and deadlines",
                "Write a five-line summary with links to the details"]),
    ("draft", ["Read what you are replying to", "Draft a short, friendly answer",
               "Leave it for you to review before sending"]),
    ("agenda", ["List the topics and who leads each", "Put the decisions needed first",
                "Share the agenda a day ahead"]),
]  # fmt: skip


def make_plan(request: str, clarification: str) -> list[str]:
    """Three steps for ``request`` as ``clarification`` narrows it."""
    goal = f"{clarification} {request}".lower()
    for keyword, steps in _PLANS:
        if keyword in goal:
            return list(steps)
    return [
        f"Pin down the goal: {clarification or request}",
        "Break it into small steps",
        "Do the first step and check the result with you",
    ]


@dataclass(frozen=True)
class _Turn:
    """The conversation since the newest user message, as the rules read it."""

    request: str
    asked: bool
    clarification: str
    results: list[dict[str, Any]]


def _turn(messages: Sequence[dict[str, Any]]) -> _Turn:
    start = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    request = str(messages[start]["content"]) if start >= 0 else ""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    asked, clarification, results = False, "", []
    for message in messages[start + 1 :]:
        for call in message.get("tool_calls") or ():
            function = call["function"]
            calls[call["id"]] = (function["name"], json.loads(function["arguments"] or "{}"))
        if message.get("role") != "tool":
            continue
        name, arguments = calls.get(message.get("tool_call_id", ""), ("", {}))
        if name == "ask_user":
            asked, clarification = True, str(message.get("content", ""))
        else:
            results.append({"name": name, "arguments": arguments, "content": message["content"]})
    return _Turn(request, asked, clarification, results)


def _proposal(turn: _Turn) -> tuple[str, dict[str, Any]]:
    goal = f"{turn.clarification} {turn.request}".lower()
    if "send" in goal and any(word in goal for word in ("report", "email", "mail")):
        subject = "Daily report" if "report" in goal else "A note from me"
        body = "Here is today's report." if "report" in goal else "Hello team."
        return "send_email", {"to": ["team@example.com"], "subject": subject, "body": body}
    if "schedul" in goal or ("meeting" in goal and "agenda" not in goal and "note" not in goal):
        return "schedule_meeting", {
            "title": "Team meeting",
            "when": meeting_time(goal),
            "attendees": ["team@example.com"],
        }
    return "make_plan", {"request": turn.request, "clarification": turn.clarification}


_DAY = re.compile(r"\b(today|tomorrow|(?:next )?(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b")
_TIME = re.compile(r"\b(\d{1,2}(?::\d{2})? ?[ap]m|\d{1,2}:\d{2})\b")


def meeting_time(text: str) -> str:
    """When a meeting asked for in ``text`` starts: the day and time named, else tomorrow 10:00."""
    day, time = _DAY.search(text), _TIME.search(text)
    return f"{day[1] if day else 'tomorrow'} {time[1] if time else '10:00'}"


# How each side-effect tool reports that it ran. The protocol gives a rejected call's
# reviewer message as its result, so any other result of these tools is a rejection.
_RAN = {
    "send_email": (re.compile(r"^Sent “.*” to .+\.$", re.S), "send the email"),
    "schedule_meeting": (re.compile(r"^Scheduled “.*” for .+\.$", re.S), "schedule the meeting"),
}
_NO_REASON = "User rejected the tool call"
"""How the reviewer's message begins when the user gave no reason."""


def _rejection(name: str, content: str) -> str | None:
    """What to tell the user when ``content`` says the call of ``name`` was rejected, else None."""
    ran, action = _RAN.get(name, (None, f"run {name}"))
    if (ran is None or ran.match(content)) and not content.startswith(_NO_REASON):
        return None
    said = "" if content.startswith(_NO_REASON) else f" You said: “{content.strip()}”"
    return f"You rejected {name}, so I did not {action}.{said}"


def answer_text(turn: _Turn) -> str:
    """The offline model's answer: what the tools did, told in the user's terms."""
    lines = []
    for result in turn.results:
        content = str(result["content"])
        if result["name"] == "make_plan":
            steps = json.loads(content) if content.startswith("[") else [content]
            goal = turn.clarification or turn.request
            lines.append(f"Here is how I will {goal[:1].lower()}{goal[1:]}:")
            lines.extend(f"{number}. {step}." for number, step in enumerate(steps, 1))
        else:
            lines.append(_rejection(result["name"], content) or content)
    if not lines:
        lines.append(f"I looked at “{turn.request}” and found nothing to do.")
    lines.append("Tell me if you want changes.")
    return "\n".join(lines)


@dataclass
class OfflineModel:
    """Deterministic answers with no network, for the demo and its tests."""

    token_delay_ms: float = 30
    """Pause between streamed tokens."""
    kind: str = field(default="offline", init=False)
    calls: int = field(default=0, init=False, compare=False)
    """How many times :meth:`complete` ran: tests read it."""

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        *,
        on_token: TokenSink | None = None,
    ) -> Reply:
        """Answer ``messages`` by the rules in the module docstring."""
        self.calls += 1
        turn = _turn(messages)
        offered = {tool["function"]["name"] for tool in tools}
        number = sum(1 for m in messages for _ in m.get("tool_calls") or ())
        if "ask_user" in offered:
            question = None if turn.asked else assess(turn.request)
            if question is None:
                return Reply()
            return Reply(tool_calls=(ToolCall(f"call_{number}", "ask_user", question),))
        if offered:
            if turn.results:
                return Reply()
            name, arguments = _proposal(turn)
            return Reply(tool_calls=(ToolCall(f"call_{number}", name, arguments),))
        text = answer_text(turn)
        if on_token is not None:
            for token in re.findall(r"\S+\s*", text):
                await on_token(token)
        return Reply(content=text)

    def describe(self) -> dict[str, Any]:
        """What the page may show of this model."""
        return {"kind": self.kind, "token_delay_ms": self.token_delay_ms}
