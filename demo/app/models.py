"""The demo assistant's models: an offline deterministic one, and any OpenAI-compatible API.

A model does two things: it decides whether a request is too vague to act on
(and then what to ask), and it streams an answer. The vagueness check is the
same deterministic one for both, so the demo asks the same questions whatever
model answers.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from openai_model import OpenAICompatibleModel
from protocol import ModelError

__all__ = ["ModelError", "OfflineModel", "OpenAICompatibleModel", "assess", "make_model"]


# topic word -> (question, reason, quick replies)
_TOPICS: dict[str, tuple[str, str, list[str]]] = {
    "email": (
        "What should I do with your email?",
        "Reading, writing, sorting and sending email each need a different plan.",
        ["Summarize my inbox", "Draft a reply", "Send daily reports"],
    ),
    "meeting": (
        "What do you need for the meeting?",
        "A meeting can need scheduling, an agenda or notes, and I should not guess which.",
        ["Schedule a meeting", "Prepare an agenda", "Write up notes"],
    ),
    "report": (
        "Which report, and what should happen to it?",
        "Reports can be written, summarized or sent, for different readers.",
        ["Write a weekly report", "Summarize a report", "Send daily reports"],
    ),
    "code": (
        "What should I do with the code?",
        "Reviewing, fixing and explaining code are different jobs.",
        ["Review it", "Fix a bug", "Explain it"],
    ),
}
_VAGUE_WORDS = 6


def assess(request: str) -> dict[str, Any] | None:
    """The question to ask when ``request`` is too vague to act on, or ``None``."""
    words = re.findall(r"[a-z']+", request.lower())
    if len(words) > _VAGUE_WORDS:
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
    (
        "send",
        [
            "Collect the figures and notes to send",
            "Draft the message from a short template",
            "Send it to the right people on schedule and keep a copy",
        ],
    ),
    (
        "summar",
        [
            "Gather what needs summarizing",
            "Pick out decisions, deadlines and open questions",
            "Write a five-line summary with links to the details",
        ],
    ),
    (
        "draft",
        [
            "Read what you are replying to",
            "Draft a short, friendly answer",
            "Leave it for you to review before sending",
        ],
    ),
    (
        "schedul",
        [
            "Find a time that suits everyone",
            "Send the invitation with a clear title",
            "Add a reminder the day before",
        ],
    ),
]


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


def answer_text(request: str, clarification: str, plan: list[str]) -> str:
    """The offline model's answer: the plan, told in the user's terms."""
    goal = clarification or request
    steps = "\n".join(f"{number}. {step}." for number, step in enumerate(plan, 1))
    return (
        f"Here is how I will {goal[:1].lower()}{goal[1:]}:\n{steps}\nTell me if you want changes."
    )


@dataclass
class OfflineModel:
    """Deterministic answers with no network, for the demo and its tests."""

    token_delay_ms: float = 30
    """Pause between streamed tokens."""
    kind: str = field(default="offline", init=False)

    async def stream_answer(
        self, request: str, clarification: str, plan: list[str]
    ) -> AsyncIterator[str]:
        """Yield the answer a word (with its trailing space) at a time."""
        for token in re.findall(r"\S+\s*", answer_text(request, clarification, plan)):
            yield token

    def describe(self) -> dict[str, Any]:
        """What the page may show of this model."""
        return {"kind": self.kind, "token_delay_ms": self.token_delay_ms}


def make_model(config: Any) -> OfflineModel | OpenAICompatibleModel:
    """Build a model from the settings panel's ``{kind, ...}``; ``ModelError`` names a bad field."""
    if not isinstance(config, dict):
        raise ModelError("The model settings must be an object with a kind.")
    kind = config.get("kind")
    delay = config.get("token_delay_ms", None)
    if delay is not None and (not isinstance(delay, int | float) or not 0 <= delay <= 5000):
        raise ModelError("token_delay_ms must be a number from 0 to 5000.")
    if kind == "offline":
        return OfflineModel() if delay is None else OfflineModel(token_delay_ms=delay)
    if kind == "openai":
        return OpenAICompatibleModel.from_settings(config, 0 if delay is None else delay)
    raise ModelError(f"Unknown model kind {kind!r}: choose offline or openai.")
