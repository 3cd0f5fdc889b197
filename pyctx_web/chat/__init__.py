"""The chat protocol that UIs speak: messages in, events out, as plain JSON-ready dicts.

A :class:`ChatSession` drives one thread of a compiled graph. Every message may
name ``checkpoint_id``, the head of the branch the UI shows (default: the
thread's latest checkpoint); a turn from an older head forks the thread there.
Messages in::

    {"type": "chat", "text": "help me with email"}
    {"type": "resume_chat", "interrupt_id": "...", "resume_value": "send daily reports"}
    {"type": "resume_chat", "interrupt_id": "...", "decisions": [{"type": "approve"}, ...]}
    {"type": "edit", "message_id": "...", "text": "..."}    # a user message, run again
    {"type": "regenerate", "message_id": "..."}            # an answer, run again
    {"type": "continue"}            # a turn that stopped before its end goes on (invoke(None))
    {"type": "cancel"}
    {"type": "history"}

Events out (:meth:`ChatSession.handle` yields them)::

    {"type": "status", "stage": "started", "from_checkpoint": "..." | None}
    {"type": "status", "stage": "running", "node": "..."}      # a node starts
    {"type": "status", "stage": <node name> | "cancelled"}      # a node ended, the run stopped
    {"type": "token", "token": "..."}
    {"type": "tool", "name", "arguments", "status", "content"}  # what a node reported of a tool
    {"type": "inspect", "record": {...}}                        # what a node reported of its run
    {"type": "needs_input", "kind": "question", "question", "reason", "choices"?,
     "interrupt_id", "node", "checkpoint_id"}
    {"type": "needs_input", "kind": "approval", "action_requests", "review_configs",
     "interrupt_id", "node", "checkpoint_id"}
    {"type": "done", "text": "...", "checkpoint_id": "..."}
    {"type": "error", "message": "...", "code": ...}  # thread_busy, graph_version, bad_decision
    {"type": "history", "checkpoint_id", "messages": [entry, ...], "pending": None | {...},
     "trace": [...], "unfinished": bool,     # unfinished: a turn stopped before its end
     "notice": "..."}                        # notice only for a thread of another graph version

A history entry is one bubble: ``{"id", "kind", "role", "content", "index"}`` with
kind ``message`` (the user's; editable), ``question`` (asked through the
:data:`ASK_TOOL` tool; with ``reason``, ``choices``), ``reply`` (the user's
answer to it), ``tool`` (a tool call: ``name``, ``arguments``, ``status``),
``note`` (text beside tool calls) or ``answer`` (regenerable). An entry where
branches part carries ``branch: {"index", "count", "heads"}``: show
``< index / count >``; ``heads`` are the branches' checkpoints to ask history for.

What the graph provides: a ``messages`` state key (chat-completions dicts or
LangChain messages, merged by ``add_messages``); nodes that ask with
``interrupt({"question", "reason", "choices"})`` or through
``HumanInTheLoopMiddleware`` (an approval); nodes that stream custom chunks
(``runtime.stream_writer``, ``get_stream_writer()``): ``{"token": text}``, and
``{"tool": {...}}`` or ``{"inspect": {...}}`` to report a tool or a record of the run.

A malformed message gets one ``error`` event that a person can read; the
session stays usable and no stored data changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyctx_web.chat._events import MAX_TEXT_LENGTH
from pyctx_web.chat._messages import ASK_TOOL, openai_message, plain_message, transcript

if TYPE_CHECKING:
    from pyctx_web.chat._session import ChatSession

__all__ = [
    "ASK_TOOL",
    "MAX_TEXT_LENGTH",
    "ChatSession",
    "openai_message",
    "plain_message",
    "transcript",
]


def __getattr__(name: str) -> Any:
    # ChatSession, with the session machinery, is imported when first named: a page that
    # imports the chat protocol to build its graph does not wait for it.
    if name != "ChatSession":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pyctx_web.chat._session import ChatSession

    globals()[name] = ChatSession  # later uses skip this function
    return ChatSession


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
