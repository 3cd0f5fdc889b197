"""The chat protocol that UIs speak: messages in, events out, as plain JSON-ready dicts.

A :class:`ChatSession` drives one thread of a compiled graph. Messages in::

    {"type": "chat", "text": "help me with email"}
    {"type": "resume_chat", "resume_value": "send daily reports", "interrupt_id": "..."}
    {"type": "cancel"}
    {"type": "history"}

Events out (:meth:`ChatSession.handle` yields them)::

    {"type": "status", "stage": "started" | <node name> | "cancelled", ...}
    {"type": "token", "token": "..."}
    {"type": "needs_input", "question": "...", "reason": "...", "interrupt_id": "...",
     "choices": [...]}                      # choices only when the question offers them
    {"type": "done", "text": "..."}
    {"type": "error", "message": "...", "code": ...}  # code: "thread_busy", "graph_version"
    {"type": "history", "messages": [...], "pending": None | {...}, "trace": [...],
     "notice": "..."}                       # notice only for a thread of another graph version

What the graph provides: a ``messages`` state key (a list of ``{"role", "content"}``
dicts with an add reducer); nodes that ask with ``interrupt({"question": ...,
"reason": ..., "choices": [...]})`` (a plain string is a question without a
reason); nodes that stream with ``ctx.write({"token": text})``. An optional
``trace`` list in the state is passed on by ``history``.

A malformed message gets one ``error`` event that a person can read; the
session stays usable and no stored data changes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.errors import (
    GraphError,
    GraphVersionError,
    ResumeError,
    RunCancelledError,
    ThreadBusyError,
)
from pyctx_web.graph.types import Command, Interrupt

if TYPE_CHECKING:
    from pyctx_web.graph.checkpoint.base import Checkpointer
    from pyctx_web.graph.state import CompiledStateGraph

__all__ = ["MAX_TEXT_LENGTH", "ChatSession", "plain_message"]

MAX_TEXT_LENGTH: Final = 20_000
"""The longest ``text`` a ``chat`` message may carry, in characters."""

_TYPES: Final = ("chat", "resume_chat", "cancel", "history")

Event = dict[str, Any]


def _error(message: str, code: str | None = None) -> Event:
    event: Event = {"type": "error", "message": message}
    if code is not None:
        event["code"] = code
    return event


_BUSY: Final = "This chat is running in another tab: it refreshes when that tab is done."
_OTHER_VERSION: Final = (
    "This chat was saved by another version of the assistant: it can be read "
    "but not continued. Start a new chat to go on."
)


def _kind(value: object) -> str:
    names = {str: "text", bool: "true/false", int: "a number", float: "a number"}
    names.update({list: "a list", dict: "an object", type(None): "null"})
    return names.get(type(value), type(value).__name__)


def _needs_input(question: Interrupt) -> Event:
    value = question.value
    event: Event = {"type": "needs_input", "interrupt_id": question.id}
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


def _resolve(value: Any) -> Any:
    return value() if callable(value) else value


class ChatSession:
    """One chat thread of a graph, spoken to with the chat protocol (see the module docstring).

    ``data`` and ``execution_context`` are passed to every turn's run; either
    may be a function, called at the start of each turn (a model chosen in a
    settings panel, a new correlation id per turn).
    """

    def __init__(
        self,
        graph: CompiledStateGraph,
        *,
        checkpointer: Checkpointer,
        thread_id: str,
        data: Any = None,
        execution_context: Any = None,
    ) -> None:
        if graph.checkpointer is None or graph.checkpointer is not checkpointer:
            raise ArgumentValueError(
                "ChatSession needs the checkpointer the graph was compiled with: "
                "graph = builder.compile(checkpointer=checkpointer)"
            )
        if not isinstance(thread_id, str) or not thread_id:
            raise ArgumentValueError(f"thread_id must be a non-empty str, not {thread_id!r}")
        self.graph = graph
        self.checkpointer = checkpointer
        self.thread_id = thread_id
        self._data = data
        self._execution_context = execution_context
        self._running = False

    @property
    def running(self) -> bool:
        """Whether a turn is running now."""
        return self._running

    async def handle(self, message: object) -> AsyncIterator[Event]:
        """Handle one message; yield the events it produces, ending with the turn's last.

        Whatever the graph raises, a turn ends with ``done``, ``error`` or ``needs_input``.
        """
        problem = self._check(message)
        if problem is not None:
            yield _error(problem)
            return
        assert isinstance(message, Mapping)
        try:
            async for event in self._dispatch(message):
                yield event
        except ThreadBusyError:
            yield _error(_BUSY, code="thread_busy")
        except Exception as error:
            yield _error(f"The assistant failed: {type(error).__name__}: {error}")

    async def _dispatch(self, message: Mapping[str, Any]) -> AsyncIterator[Event]:
        kind = message["type"]
        if kind == "history":
            yield await self.history()
        elif kind == "cancel":
            if not self._running:
                yield _error("There is no running turn to cancel.")
            else:
                await self.graph.cancel(self.thread_id, "cancelled by the user")
        elif kind == "chat":
            async for event in self._chat(message["text"]):
                yield event
        else:
            async for event in self._resume(message["resume_value"], message.get("interrupt_id")):
                yield event

    def _check(self, message: object) -> str | None:
        if not isinstance(message, Mapping):
            return f'A message must be an object with a "type" field, not {_kind(message)}.'
        kind = message.get("type")
        if kind is None:
            return 'The message has no "type" field.'
        if kind not in _TYPES:
            return f"Unknown message type {kind!r}: expected chat, resume_chat, cancel or history."
        if kind == "chat":
            if "text" not in message:
                return 'A "chat" message needs a "text" field with what you want to say.'
            text = message["text"]
            if not isinstance(text, str):
                return f'The "text" of a chat message must be text, not {_kind(text)}.'
            if not text.strip():
                return "The message is empty: type something to send."
            if len(text) > MAX_TEXT_LENGTH:
                return (
                    f"The message is too long ({len(text):,} characters): "
                    f"the limit is {MAX_TEXT_LENGTH:,}."
                )
        if kind == "resume_chat":
            if "resume_value" not in message:
                return 'A "resume_chat" message needs a "resume_value" field with your answer.'
            answer = message["resume_value"]
            if isinstance(answer, str) and len(answer) > MAX_TEXT_LENGTH:
                return f"The answer is too long: the limit is {MAX_TEXT_LENGTH:,} characters."
            if answer is None:
                return "The answer is empty: type an answer to the question."
            interrupt_id = message.get("interrupt_id")
            if interrupt_id is not None and not isinstance(interrupt_id, str):
                return f'"interrupt_id" must be text, not {_kind(interrupt_id)}.'
        return None

    async def history(self) -> Event:
        """The thread's messages, the pending question (or ``None``) and its trace."""
        state = await self.graph.aget_state(self.thread_id)
        values = state.values or {}
        pending = [_needs_input(question) for question in state.interrupts]
        for item in pending:
            del item["type"]
        event: Event = {
            "type": "history",
            "messages": [plain_message(m) for m in values.get("messages", [])],
            "pending": pending[0] if pending else None,
            "trace": [dict(t) for t in values.get("trace", [])],
        }
        if self._other_version(values, state.next):
            # Shown before anything is sent: a turn on it would end in graph_version.
            event["pending"] = None
            event["notice"] = _OTHER_VERSION
        return event

    def _other_version(self, values: Mapping[str, Any], next_nodes: tuple[str, ...]) -> bool:
        """Whether the thread names state keys or nodes this graph does not have."""
        known_keys = self.graph.spec.schema.annotations
        known_nodes = set(self.graph.nodes) | {"__start__"}
        return any(k not in known_keys for k in values) or any(
            n not in known_nodes for n in next_nodes
        )

    async def _pending(self) -> tuple[Interrupt, ...]:
        state = await self.graph.aget_state(self.thread_id)
        return tuple(state.interrupts)

    async def _chat(self, text: str) -> AsyncIterator[Event]:
        if self._running:
            yield _error("A turn is still running: wait for it to finish or cancel it.")
            return
        self._running = True
        try:
            if await self._pending():
                yield _error(
                    "A question is waiting for your answer: answer it before sending a new message."
                )
                return
            turn = {"messages": [{"role": "user", "content": text}]}
            async for event in self._turn(turn):
                yield event
        finally:
            self._running = False

    async def _resume(self, answer: Any, interrupt_id: str | None) -> AsyncIterator[Event]:
        if self._running:
            yield _error("A turn is still running: wait for it to finish or cancel it.")
            return
        self._running = True
        try:
            pending = await self._pending()
            if not pending:
                yield _error("There is no question waiting for an answer.")
                return
            ids = [question.id for question in pending]
            if interrupt_id is not None and interrupt_id not in ids:
                yield _error(
                    f"That question ({interrupt_id}) is not waiting for an answer; "
                    f"waiting: {', '.join(ids)}."
                )
                return
            if interrupt_id is None and len(ids) > 1:
                yield _error(
                    f"{len(ids)} questions are waiting: say which one you answer "
                    f"with interrupt_id (one of {', '.join(ids)})."
                )
                return
            resume: Command[str] = Command(resume={interrupt_id or ids[0]: answer})
            async for event in self._turn(resume):
                yield event
        finally:
            self._running = False

    async def _turn(self, turn: Any) -> AsyncIterator[Event]:
        yield {"type": "status", "stage": "started"}
        asked = False
        try:
            async for mode, chunk in self.graph.astream(
                turn,
                thread_id=self.thread_id,
                stream_mode=["updates", "custom"],
                data=_resolve(self._data),
                execution_context=_resolve(self._execution_context),
            ):
                if mode == "custom":
                    if isinstance(chunk, Mapping) and isinstance(chunk.get("token"), str):
                        yield {"type": "token", "token": chunk["token"]}
                elif "__interrupt__" in chunk:
                    asked = True
                    for question in chunk["__interrupt__"]:
                        yield _needs_input(question)
                else:
                    for node in chunk:
                        yield {"type": "status", "stage": node}
        except RunCancelledError:
            yield {"type": "status", "stage": "cancelled"}
            return
        except ThreadBusyError:
            yield _error(_BUSY, code="thread_busy")
            return
        except GraphVersionError:
            yield _error(_OTHER_VERSION, code="graph_version")
            return
        except (ResumeError, GraphError) as error:
            yield _error(f"The assistant could not go on: {error}")
            return
        except Exception as error:
            yield _error(f"The assistant failed: {type(error).__name__}: {error}")
            return
        if not asked:
            try:
                text = await self._last_answer()
            except Exception as error:
                yield _error(f"The assistant could not read the answer: {error}")
                return
            yield {"type": "done", "text": text}

    async def _last_answer(self) -> str:
        state = await self.graph.aget_state(self.thread_id)
        for message in reversed((state.values or {}).get("messages", [])):
            plain = plain_message(message)
            if plain.get("role") == "assistant":
                return str(plain.get("content", ""))
        return ""


_ROLES: Final = {"human": "user", "ai": "assistant"}
"""LangChain's message types that the chat protocol names otherwise."""


def plain_message(message: Any) -> dict[str, Any]:
    """A message as the chat protocol sends it: ``{"role", "content", ...}``.

    Dict messages are copied; LangChain message objects (where ``add_messages``
    makes them) become the same dict form.
    """
    if isinstance(message, Mapping):
        return dict(message)
    kind = str(getattr(message, "type", ""))
    plain = {"role": _ROLES.get(kind, kind), "content": getattr(message, "content", "")}
    if getattr(message, "id", None) is not None:
        plain["id"] = message.id
    return plain
