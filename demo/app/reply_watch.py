"""How long and how large one model reply may grow: the idle timeout, the deadline, the size cap.

:class:`ReplyLimits` holds the three bounds of an OpenAI-compatible model's reply
(settable in the model settings, see :meth:`ReplyLimits.from_settings`);
:class:`ReplyWatch` applies them to one reply as it arrives. Only parts of the
reply reset the idle timeout: a server that sends nothing but event-stream
comments (keep-alives) is stopped after ``idle_timeout_s`` all the same, and no
reply, however busy its server, runs past ``deadline_s``. The watch takes the
time from its caller, so that its logic is the same under any clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from protocol import ModelError

__all__ = ["ReplyLimits", "ReplyWatch"]

_BOUNDS: dict[str, tuple[float, float]] = {
    "idle_timeout_s": (0.05, 3600.0),
    "deadline_s": (0.05, 86400.0),
    "max_reply_chars": (1.0, 100_000_000.0),
}


def _shown(number: float) -> str:
    return f"{number:,.0f}" if number >= 1000 else f"{number:g}"


@dataclass(frozen=True, slots=True)
class ReplyLimits:
    """The bounds of one reply."""

    idle_timeout_s: float = 60.0
    """The longest wait for the next part of the reply (comments are not parts)."""
    deadline_s: float = 300.0
    """The longest a whole reply may take, retries included."""
    max_reply_chars: int = 1_000_000
    """The most characters of text and tool-call arguments a reply may have (1 MB of text)."""

    @classmethod
    def from_settings(cls, config: dict[str, Any]) -> ReplyLimits:
        """The limits the model settings name (``idle_timeout_s``, ``deadline_s``,
        ``max_reply_chars``), the defaults for the others; ``ModelError`` names a bad one."""
        values: dict[str, Any] = {}
        for name, (low, high) in _BOUNDS.items():
            value = config.get(name)
            if value is None:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or not low <= value <= high
            ):
                raise ModelError(f"{name} must be a number from {_shown(low)} to {_shown(high)}.")
            values[name] = int(value) if name == "max_reply_chars" else float(value)
        return cls(**values)


class ReplyWatch:
    """One reply's clock and size, from ``started`` (a time in seconds of any clock)."""

    def __init__(self, limits: ReplyLimits, started: float) -> None:
        self.limits = limits
        self.started = started
        self.last_part = started
        self.heard_since_part = False
        self.chars = 0

    def part(self, now: float) -> None:
        """A part of the reply (an event with data) arrived at ``now``: the idle wait restarts."""
        self.last_part = now
        self.heard_since_part = False

    def heard(self) -> None:
        """Bytes arrived that held no part of the reply (comments, blank lines)."""
        self.heard_since_part = True

    def wait_s(self, now: float) -> float:
        """How long the next read may wait at ``now`` before the reply is stopped (>= 0)."""
        idle_end = self.last_part + self.limits.idle_timeout_s
        return max(0.0, min(idle_end, self.deadline_at) - now)

    def left_s(self, now: float) -> float:
        """The time left before the deadline at ``now`` (>= 0)."""
        return max(0.0, self.deadline_at - now)

    @property
    def deadline_at(self) -> float:
        """When the reply's deadline passes."""
        return self.started + self.limits.deadline_s

    def expired(self) -> ModelError:
        """The error that stops the reply when the wait :meth:`wait_s` allowed ran out.

        The wait's nearer end names the cause, not the clock read afterwards: a
        timer may fire a little before its time (Node's ``setTimeout`` does),
        which must not turn a passed deadline into an idle timeout.
        """
        if self.deadline_at <= self.last_part + self.limits.idle_timeout_s:
            return self.past_deadline()
        if self.heard_since_part:
            return ModelError(
                f"The model API sent only keep-alive comments for "
                f"{self.limits.idle_timeout_s:g} s; the reply was stopped."
            )
        return ModelError(
            f"The model API sent nothing for {self.limits.idle_timeout_s:g} s; "
            f"the reply was stopped."
        )

    def past_deadline(self) -> ModelError:
        """The error of a reply that would run past its deadline."""
        return ModelError(
            f"The model API's reply took longer than {self.limits.deadline_s:g} s; it was stopped."
        )

    def grow(self, chars: int) -> None:
        """The reply now has ``chars`` characters; ``ModelError`` once past the size cap."""
        self.chars = chars
        if chars > self.limits.max_reply_chars:
            raise ModelError(
                f"The model's reply is longer than {self.limits.max_reply_chars:,} characters, "
                f"the most this page takes; it was stopped."
            )
