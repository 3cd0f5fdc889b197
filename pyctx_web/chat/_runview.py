"""A turn's run as its stream shows it: the chat events, and where the run left the thread.

The session streams the run with ``checkpoints`` among its modes: each checkpoint
the run writes comes with its id and values, and a pause with its questions. The
turn's last event (``needs_input`` or ``done``) is made from those, not from a
read of what the run has just written.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyctx_web.chat._events import Event, needs_input
from pyctx_web.chat._messages import transcript

if TYPE_CHECKING:
    from pyctx_web.graph.types import Interrupt, StateSnapshot

__all__ = ["PAUSED", "STREAM_MODES", "RunView", "done_event"]

STREAM_MODES = ["updates", "custom", "tasks", "checkpoints"]
"""What the session streams of a run."""

PAUSED: Event = {"type": "__paused__"}
"""Yielded by :meth:`RunView.events` where the run paused to ask; never sent."""


@dataclass
class RunView:
    """Where a turn's run left the thread, as far as its stream showed it."""

    head: str | None
    """The id of the checkpoint the run wrote last; until it writes one, the one it starts
    from when that is the thread's latest, else ``None`` (not known)."""
    values: Mapping[str, Any] | None = None
    """The values of the checkpoint the run wrote last (``None`` until it writes one)."""
    questions: tuple[Interrupt, ...] = ()
    """The questions waiting when the run paused."""
    askers: dict[str, str] = field(default_factory=dict)
    """The node that asked each question, by interrupt id."""

    @classmethod
    def starting(cls, start: StateSnapshot | None, head: str | None) -> RunView:
        """The view of a run from ``start`` (the thread's latest when ``head`` is its id)."""
        view = cls(head)
        for task in start.tasks if start is not None else ():
            view.askers.update((q.id, str(task.name)) for q in task.interrupts)
        return view

    def events(self, mode: str, chunk: Any, nodes: Collection[str]) -> Iterator[Event]:
        """The chat events of one stream chunk (:data:`PAUSED` for a pause); notes where the
        run is."""
        if mode == "custom" and isinstance(chunk, Mapping):
            if isinstance(chunk.get("token"), str):
                yield {"type": "token", "token": chunk["token"]}
            elif isinstance(chunk.get("tool"), Mapping):
                yield {"type": "tool", **chunk["tool"]}
            elif isinstance(chunk.get("inspect"), Mapping):
                yield {"type": "inspect", "record": dict(chunk["inspect"])}
        elif mode == "checkpoints":
            self.head = str(chunk["config"]["configurable"]["checkpoint_id"])
            self.values = chunk["values"]
        elif mode == "tasks":
            # Tasks a node calls (@task) stream as tasks too: only nodes are stages.
            if "input" in chunk and chunk["name"] in nodes:
                yield {"type": "status", "stage": "running", "node": chunk["name"]}
            for question in chunk.get("interrupts") or ():
                self.askers[str(question["id"])] = str(chunk["name"])
        elif mode == "updates":
            if "__interrupt__" in chunk:
                self.questions = tuple(chunk["__interrupt__"])
                yield PAUSED
            else:
                for node in chunk:
                    if node in nodes:
                        yield {"type": "status", "stage": node}

    def ending(self, asked: bool) -> list[Event] | None:
        """The turn's last events: its questions, or its answer; ``None`` when the stream did
        not show enough of them (the thread must be read)."""
        if self.head is None:
            return None
        if asked:
            return [
                {**needs_input(q, self.askers.get(q.id)), "checkpoint_id": self.head}
                for q in self.questions
            ]
        if self.values is None:
            return None
        return [done_event(self.values, self.head)]


def done_event(values: Mapping[str, Any], head: str | None) -> Event:
    """The ``done`` event of a turn that ended at checkpoint ``head`` with ``values``."""
    entries = transcript(values.get("messages", []))
    answers = [e["content"] for e in entries if e["kind"] == "answer"]
    return {"type": "done", "text": answers[-1] if answers else "", "checkpoint_id": head}
