"""ChatSession: one thread of a compiled graph, spoken to with the chat protocol."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from pyctx_web._homes import publish
from pyctx_web.chat._events import (
    BUSY,
    OTHER_VERSION,
    Event,
    check_message,
    error,
    failure_text,
    needs_input,
)
from pyctx_web.chat._messages import transcript
from pyctx_web.chat._runview import PAUSED, STREAM_MODES, RunView, done_event
from pyctx_web.errors import ArgumentValueError, PyctxError
from pyctx_web.graph._engine.heads import share_head
from pyctx_web.graph.errors import (
    GraphConfigError,
    GraphVersionError,
    ResumeError,
    RunCancelledError,
    ThreadBusyError,
)

if TYPE_CHECKING:
    from pyctx_web.chat._branches import Tree
    from pyctx_web.graph.checkpoint.base import Checkpointer
    from pyctx_web.graph.state import CompiledStateGraph
    from pyctx_web.graph.types import Interrupt, StateSnapshot

__all__ = ["ChatSession"]


def _resolve(value: Any) -> Any:
    return value() if callable(value) else value


class _Refused(PyctxError):
    """A message that cannot be carried out; its text goes to the user as an error event."""


def _checkpoint_id(snapshot: StateSnapshot) -> str | None:
    value = snapshot.config.get("configurable", {}).get("checkpoint_id")
    return None if value is None else str(value)


def _asking_node(snapshot: StateSnapshot, question: Interrupt) -> str | None:
    for task in snapshot.tasks:
        if any(i.id == question.id for i in task.interrupts):
            return str(task.name)
    return None


def _unfinished(head: StateSnapshot | None) -> StateSnapshot:
    """``head`` if a turn stopped there before its end (a failure, a closed page)."""
    if head is None or not head.next or head.interrupts:
        raise _Refused("This chat has no unfinished turn to continue.")
    return head


class ChatSession:
    """One chat thread of a graph, spoken to with the chat protocol (see :mod:`pyctx_web.chat`).

    ``context`` and ``execution_context`` are passed to every turn's run; either
    may be a function, called at the start of each turn (a model chosen in a
    settings panel, a new correlation id per turn).
    """

    def __init__(
        self,
        graph: CompiledStateGraph,
        *,
        checkpointer: Checkpointer,
        thread_id: str,
        context: Any = None,
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
        self._context = context
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
        problem = check_message(message)
        if problem is not None:
            yield error(problem)
            return
        assert isinstance(message, Mapping)
        try:
            async for event in self._dispatch(message):
                yield event
        except _Refused as refused:
            yield error(str(refused))
        except ThreadBusyError:
            yield error(BUSY, code="thread_busy")
        except Exception as failure:
            yield error(failure_text(failure))

    async def _dispatch(self, message: Mapping[str, Any]) -> AsyncIterator[Event]:
        kind = message["type"]
        if kind == "history":
            wanted = message.get("checkpoint_id")
            tree = await self._tree()  # one read: the thread's checkpoints hold the head
            if wanted is not None and wanted not in tree.by_id:
                raise _Refused(f"This chat has no saved version {wanted}: reload the chat.")
            yield await self._history(tree, wanted)
            return
        if kind == "cancel":
            if not self._running:
                raise _Refused("There is no running turn to cancel.")
            await self.graph.cancel(self.thread_id, "cancelled by the user")
            return
        if self._running:
            raise _Refused("A turn is still running: wait for it to finish or cancel it.")
        self._running = True
        try:
            async for event in self._turn_for(kind, message):
                yield event
        finally:
            self._running = False

    async def _turn_for(self, kind: str, message: Mapping[str, Any]) -> AsyncIterator[Event]:
        # The run takes the session's read of the thread's head instead of reading it again.
        with share_head(self.checkpointer, self.thread_id):
            async for event in self._checked_turn(kind, message):
                yield event

    async def _checked_turn(self, kind: str, message: Mapping[str, Any]) -> AsyncIterator[Event]:
        head = await self._head(message.get("checkpoint_id"))
        # A head the message does not name is the latest: only a named one is read again.
        latest = head is None or "checkpoint_id" not in message or await self._is_latest(head)
        if kind == "chat":
            if head is not None and head.interrupts:
                raise _Refused(
                    "A question is waiting for your answer: answer it before sending a new message."
                )
            turn: Any = {"messages": [{"role": "user", "content": message["text"]}]}
            start = head
        elif kind == "continue":
            # As LangGraph's invoke(None): the nodes still to run go on from the checkpoint.
            turn, start = None, _unfinished(head)
        elif kind == "resume_chat":
            turn, start = await self._resume_input(message, head, latest)
            latest = True  # an older head is asked again on top of the thread
        else:
            turn, start = await self._fork_input(kind, message, head)
            latest = False  # the checkpoint before a message of the head is older than it
        async for event in self._turn(turn, start, latest, decisions="decisions" in message):
            yield event

    async def _head(self, checkpoint_id: str | None) -> StateSnapshot | None:
        """The checkpoint the user sees: the one named, or the thread's latest."""
        config = self._config(checkpoint_id)
        try:
            state = await self.graph.aget_state(config)
        except GraphConfigError:
            state = None
        if state is None or (checkpoint_id is not None and _checkpoint_id(state) != checkpoint_id):
            raise _Refused(f"This chat has no saved version {checkpoint_id}: reload the chat.")
        return state if _checkpoint_id(state) is not None else None

    def _config(self, checkpoint_id: str | None) -> dict[str, Any]:
        configurable = {"thread_id": self.thread_id}
        if checkpoint_id is not None:
            configurable["checkpoint_id"] = checkpoint_id
        return {"configurable": configurable}

    async def _resume_input(
        self, message: Mapping[str, Any], head: StateSnapshot | None, latest: bool
    ) -> tuple[Any, StateSnapshot | None]:
        if head is None or not head.interrupts:
            raise _Refused("There is no question waiting for an answer.")
        pending = head.interrupts
        wanted = message.get("interrupt_id")
        ids = [question.id for question in pending]
        if wanted is not None and wanted not in ids:
            raise _Refused(
                f"That question ({wanted}) is not waiting for an answer; waiting: {', '.join(ids)}."
            )
        if wanted is None and len(ids) > 1:
            raise _Refused(
                f"{len(ids)} questions are waiting: say which one you answer "
                f"with interrupt_id (one of {', '.join(ids)})."
            )
        question = pending[ids.index(wanted) if wanted is not None else 0]
        approval = needs_input(question)["kind"] == "approval"
        if approval != ("decisions" in message):
            raise _Refused(
                "This is an approval: answer it with decisions."
                if approval
                else "This is a question: answer it with resume_value, not decisions."
            )
        from pyctx_web.graph.types import Command  # the first turn needs it, not the import

        answer = {"decisions": message["decisions"]} if approval else message["resume_value"]
        if not latest:
            head = await self._refork(head)
            question = head.interrupts[ids.index(question.id)]
        return Command(resume={question.id: answer}), head

    async def _is_latest(self, snapshot: StateSnapshot) -> bool:
        latest = await self.graph.aget_state(self._config(None))
        return _checkpoint_id(latest) == _checkpoint_id(snapshot)

    async def _refork(self, head: StateSnapshot) -> StateSnapshot:
        """Run an older pending checkpoint up to its question again: only the newest is answered."""
        config = head.config
        async for _ in self.graph.astream(None, config, context=_resolve(self._context)):
            pass
        fork = await self.graph.aget_state(self._config(None))
        if len(fork.interrupts) != len(head.interrupts):
            raise _Refused("The question changed when asked again: answer the new one.")
        return fork

    async def _fork_input(
        self, kind: str, message: Mapping[str, Any], head: StateSnapshot | None
    ) -> tuple[Any, StateSnapshot | None]:
        if head is None:
            raise _Refused("This chat has no messages yet.")
        tree = await self._tree()
        head_id = _checkpoint_id(head)
        assert head_id is not None
        entries = transcript(head.values.get("messages", []))
        target = next((e for e in entries if e["id"] == message["message_id"]), None)
        wanted = "message" if kind == "edit" else "answer"
        if target is None or target["kind"] != wanted:
            what = "a message of yours" if kind == "edit" else "an answer"
            raise _Refused(f"{message['message_id']} is not {what} in this chat.")
        fork = tree.fork_point(head_id, message["message_id"])
        if fork is None:
            raise _Refused(
                f"{message['message_id']} cannot be {kind}ed: no saved step precedes it."
            )
        if kind == "edit":
            return {"messages": [{"role": "user", "content": message["text"]}]}, fork
        return None, fork

    async def _tree(self) -> Tree:
        """The thread's checkpoint tree; read only for history, edits and regenerations."""
        from pyctx_web.chat._branches import Tree

        return Tree([s async for s in self.graph.aget_state_history(self._config(None))])

    async def history(self, checkpoint_id: str | None = None) -> Event:
        """The conversation seen from ``checkpoint_id`` (default: the latest), with its branches."""
        return await self._history(await self._tree(), checkpoint_id)

    async def _history(self, tree: Tree, checkpoint_id: str | None) -> Event:
        if checkpoint_id is not None:
            state = tree.by_id.get(checkpoint_id)
        else:
            state = tree.snapshots[0] if tree.snapshots else None
        if state is None:
            # A thread without checkpoints, or one without that checkpoint (which raises).
            state = await self.graph.aget_state(self._config(checkpoint_id))
        values = state.values or {}
        head = _checkpoint_id(state)
        entries = transcript(values.get("messages", []))
        if head is not None:
            for position, switch in tree.branches(head):
                entry = next((e for e in entries if e["index"] >= position), None)
                if entry is not None:
                    entry["branch"] = switch
        pending = [needs_input(q, _asking_node(state, q)) for q in state.interrupts]
        for item in pending:
            del item["type"]
            item["checkpoint_id"] = head
        event: Event = {
            "type": "history",
            "checkpoint_id": head,
            "messages": entries,
            "pending": pending[0] if pending else None,
            "trace": [dict(t) for t in values.get("trace", [])],
            # Nodes still to run and no question: the turn stopped before its end.
            "unfinished": head is not None and bool(state.next) and not state.interrupts,
        }
        if self._other_version(values, state.next):
            # Shown before anything is sent: a turn on it would end in graph_version.
            event["pending"] = None
            event["unfinished"] = False
            event["notice"] = OTHER_VERSION
        return event

    def _other_version(self, values: Mapping[str, Any], next_nodes: tuple[str, ...]) -> bool:
        """Whether the thread names state keys or nodes this graph does not have."""
        known_keys = self.graph.spec.schema.annotations
        known_nodes = set(self.graph.nodes) | {"__start__"}
        return any(k not in known_keys for k in values) or any(
            n not in known_nodes for n in next_nodes
        )

    async def _turn(
        self, turn: Any, start: StateSnapshot | None, latest: bool, *, decisions: bool = False
    ) -> AsyncIterator[Event]:
        origin = None if start is None else _checkpoint_id(start)
        config = self._config(None if latest else origin)
        yield {"type": "status", "stage": "started", "from_checkpoint": origin}
        view = RunView.starting(start, origin if latest else None)
        asked = False
        try:
            async for mode, chunk in self.graph.astream(
                turn,
                config,
                stream_mode=STREAM_MODES,
                context=_resolve(self._context),
                execution_context=_resolve(self._execution_context),
            ):
                for event in view.events(mode, chunk, self.graph.nodes):
                    if event is PAUSED:
                        asked = True
                    else:
                        yield event
        except RunCancelledError:
            yield {"type": "status", "stage": "cancelled"}
            return
        except ThreadBusyError:
            yield error(BUSY, code="thread_busy")
            return
        except GraphVersionError:
            yield error(OTHER_VERSION, code="graph_version")
            return
        except ResumeError as refused:
            code = "bad_decision" if decisions else None
            yield error(f"The assistant could not go on: {refused}", code=code)
            return
        except Exception as failure:  # a GraphError, or what a node raised (a model's error)
            yield error(failure_text(failure))
            return
        async for event in self._ending(asked, view):
            yield event

    async def _ending(self, asked: bool, view: RunView) -> AsyncIterator[Event]:
        """The turn's last events, from what the run streamed; read only if it did not show."""
        shown = view.ending(asked)
        if shown is None:
            async for event in self._ending_read(asked):
                yield event
            return
        for event in shown:
            yield event

    async def _ending_read(self, asked: bool) -> AsyncIterator[Event]:
        try:
            state = await self.graph.aget_state(self._config(None))
        except Exception as failure:
            yield error(f"The assistant could not read the answer: {failure}")
            return
        head = _checkpoint_id(state)
        if asked:
            for question in state.interrupts:
                yield {
                    **needs_input(question, _asking_node(state, question)),
                    "checkpoint_id": head,
                }
            return
        yield done_event(state.values or {}, head)


publish("pyctx_web.chat", ChatSession)
