"""The exceptions of :mod:`pyctx_web.graph`.

::

    BaseException
     +-- GraphInterrupt           a node paused with interrupt(); `except Exception` misses it
    Exception
     +-- GraphBubbleUp            passes through the nodes and tools it is raised in
    ContextMissingError
     +-- OutsideRunError(RuntimeError)  get_config(), get_runtime()... called outside a run
    PyctxError
     +-- GraphError               base of the graph errors
          +-- InvalidGraphError(ValueError)        the graph being built is wrong
          +-- InvalidUpdateError(ValueError)       a state update, input or route is wrong
          +-- GraphRecursionError(RecursionError)  more steps than the recursion limit
          +-- GraphConfigError(ValueError)         a checkpointer or thread_id is missing
          +-- SyncUnavailableError(RuntimeError)   a sync form called where it cannot run
          +-- ResumeError(ValueError)              a resume was refused; lists pending ids
          +-- ParentCommand(GraphBubbleUp)         a subgraph's node sent a Command to its parent
          +-- RunCancelledError                    a run was cancelled; carries the reason
          +-- ThreadBusyError                      another run wrote the thread first, or runs it
          +-- ToolArgumentError(ValueError)        tool arguments break the tool's schema
          +-- UnknownToolError(LookupError)        no tool has that name; lists the known ones
          +-- CheckpointError                      a checkpoint cannot be read or written
               +-- CheckpointNotFoundError(LookupError)  the thread has no checkpoint with that id
               +-- CheckpointExistsError           the thread already has a checkpoint with that id
               +-- CorruptCheckpointError          a stored checkpoint or write cannot be decoded
               +-- GraphVersionError               another version of the graph stored the thread
               +-- CheckpointStorageError          the storage failed to open, read or write
               +-- SerializationError(TypeError)   a value JSON cannot hold faithfully

Each checkpoint error builds its message from its data, so that the same
failure reads the same whichever checkpointer reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyctx_web.errors import ContextMissingError, PyctxError

if TYPE_CHECKING:
    from pyctx_web.graph._values import Command, Interrupt

__all__ = [
    "CheckpointError",
    "CheckpointExistsError",
    "CheckpointNotFoundError",
    "CheckpointStorageError",
    "CorruptCheckpointError",
    "GraphBubbleUp",
    "GraphConfigError",
    "GraphError",
    "GraphInterrupt",
    "GraphRecursionError",
    "GraphVersionError",
    "InvalidGraphError",
    "InvalidUpdateError",
    "OutsideRunError",
    "ParentCommand",
    "ResumeError",
    "RunCancelledError",
    "SerializationError",
    "SyncUnavailableError",
    "ThreadBusyError",
    "ToolArgumentError",
    "UnknownToolError",
    "is_invalid_resume",
    "mark_invalid_resume",
]


class GraphInterrupt(BaseException):
    """Raised by :func:`~pyctx_web.graph._engine.interrupts` to pause the node that called it.

    It derives from ``BaseException`` so that a node's ``except Exception``
    cannot swallow it: let it propagate. The run catches it, saves the
    question in the checkpoint and returns it under ``"__interrupt__"``.
    """

    interrupts: tuple[Interrupt, ...]

    def __init__(self, interrupts: Sequence[Interrupt] = ()) -> None:
        self.interrupts = tuple(interrupts)
        super().__init__(self.interrupts)


class GraphBubbleUp(Exception):  # LangGraph's name
    """An exception that passes through the node or tool it is raised in to the run.

    ``ToolNode`` never turns one into a message, whatever its ``handle_tool_errors``.
    :class:`ParentCommand` is one; :class:`GraphInterrupt` passes through anyway, as a
    ``BaseException``.
    """


_INVALID_RESUME = "_pyctx_invalid_resume"


def mark_invalid_resume(error: BaseException) -> None:
    """Mark ``error`` as an answer that does not match its question's ``response_schema``."""
    setattr(error, _INVALID_RESUME, True)


def is_invalid_resume(error: BaseException) -> bool:
    """Whether ``error`` is ``interrupt()`` refusing an answer its ``response_schema`` rejects.

    Such a run fails and saves nothing, so the question can be answered again;
    ``ToolNode`` lets the error through whatever its ``handle_tool_errors``.
    """
    return getattr(error, _INVALID_RESUME, False) is True


class OutsideRunError(ContextMissingError, RuntimeError):
    """A run's value (``get_config()``, ``get_runtime()``, ``get_store()``...) was asked for
    outside a graph run; a ``RuntimeError`` too, as LangGraph raises there."""


class GraphError(PyctxError):
    """Base class of the errors :mod:`pyctx_web.graph` raises."""


class InvalidGraphError(GraphError, ValueError):
    """The graph being built or compiled is wrong; the message names the problem."""


class InvalidUpdateError(GraphError, ValueError):
    """A state update, an input or a router result is wrong.

    ``node`` is the node that wrote it (or ``"__start__"`` for the input) and
    ``key`` the state key concerned, when there is one.
    """

    def __init__(self, message: str, *, node: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.node = node
        self.key = key


class ParentCommand(GraphError, GraphBubbleUp):
    """A subgraph's node returned ``Command(graph=Command.PARENT, ...)``: it ends the subgraph.

    The node that runs the subgraph in the parent graph takes :attr:`command`
    as its own return value. Raised out of ``invoke`` when the graph has no
    parent, as in LangGraph.
    """

    def __init__(self, command: Command[Any]) -> None:
        super().__init__(repr(command))
        self.command = command
        """The command, with ``graph=Command.PARENT``."""


class GraphRecursionError(GraphError, RecursionError):
    """The run reached ``recursion_limit`` steps without finishing."""

    def __init__(self, message: str, *, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class GraphConfigError(GraphError, ValueError):
    """A call lacks something it needs: a checkpointer, a thread_id, a known checkpoint."""


class SyncUnavailableError(GraphError, RuntimeError):
    """A sync form (``invoke``, ``stream``...) was called in Pyodide where it cannot wait."""


class ResumeError(GraphError, ValueError):
    """A resume was refused; the checkpoint is untouched and can still be answered.

    ``pending_ids`` lists the interrupts that wait for an answer and
    ``rejected_ids`` the ids of the resume map that caused the refusal.
    """

    def __init__(
        self,
        message: str,
        *,
        thread_id: str,
        checkpoint_id: str | None,
        pending_ids: Sequence[str] = (),
        rejected_ids: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id
        self.pending_ids = tuple(pending_ids)
        self.rejected_ids = tuple(rejected_ids)


class RunCancelledError(GraphError):
    """A run was cancelled (``runtime.cancel()``, ``CompiledStateGraph.cancel`` or a run handle).

    The last checkpoint of the thread is intact; ``reason`` says why, when given.
    """

    def __init__(self, reason: str | None, *, run_id: str, thread_id: str | None) -> None:
        why = f": {reason}" if reason else ""
        super().__init__(f"run {run_id} of thread {thread_id!r} was cancelled{why}")
        self.reason = reason
        self.run_id = run_id
        self.thread_id = thread_id


class ToolArgumentError(GraphError, ValueError):
    """Arguments of a tool call break the tool's parameter schema; ``problems`` lists how."""

    def __init__(self, tool: str, problems: list[str]) -> None:
        listed = "\n  ".join(problems)
        super().__init__(f"invalid arguments for tool {tool!r}:\n  {listed}")
        self.tool = tool
        self.problems = problems


class UnknownToolError(GraphError, LookupError):
    """A tool was called by a name the graph does not know; ``known`` lists the names it knows."""

    def __init__(self, name: str, known: list[str]) -> None:
        names = ", ".join(repr(n) for n in known) or "none"
        super().__init__(f"unknown tool {name!r}; known tools: {names}")
        self.name = name
        self.known = known


class ThreadBusyError(GraphError):
    """Another run wrote this thread first, or is running it now: this one changed nothing.

    ``thread_id`` names the thread; ``reason`` says which of the two it was.
    """

    def __init__(self, thread_id: str, reason: str = "another run wrote this thread first") -> None:
        super().__init__(
            f"thread {thread_id!r} is busy: {reason}; nothing was written, "
            f"try again once the thread is free"
        )
        self.thread_id = thread_id
        self.reason = reason


class CheckpointError(GraphError):
    """A checkpoint cannot be read (corrupt, unknown) or written.

    The subclasses say which; ``except CheckpointError`` catches them all.
    ``thread_id`` and ``checkpoint_id`` name the checkpoint concerned.
    """

    def __init__(
        self, message: str, *, thread_id: str | None = None, checkpoint_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id


class CheckpointNotFoundError(CheckpointError, LookupError):
    """The thread has no checkpoint ``checkpoint_id``; nothing was read or stored.

    ``action`` is what needed the checkpoint (``"store writes"``), or ``None``
    when it was a read (``alist(before=...)``).
    """

    def __init__(self, thread_id: str, checkpoint_id: str, *, action: str | None = None) -> None:
        missing = f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}"
        super().__init__(
            missing if action is None else f"cannot {action}: {missing}",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )
        self.action = action


class CheckpointExistsError(CheckpointError):
    """The thread already has a checkpoint with that id; the stored one is kept unchanged."""

    def __init__(self, thread_id: str, checkpoint_id: str) -> None:
        super().__init__(
            f"checkpoint {checkpoint_id!r} already exists in thread {thread_id!r}",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )


class CorruptCheckpointError(CheckpointError):
    """A stored checkpoint, or one of its pending writes, cannot be decoded.

    ``detail`` says what is wrong with it; older checkpoints of the thread still read.
    """

    def __init__(self, thread_id: str, checkpoint_id: str, detail: str) -> None:
        super().__init__(
            f"checkpoint {checkpoint_id!r} of thread {thread_id!r} is corrupt: {detail}",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )
        self.detail = detail


class GraphVersionError(CheckpointError):
    """A thread's checkpoint names nodes or state keys this graph does not have.

    Another version of the graph wrote it (a node or key renamed or removed). It
    can still be read; ``update_state(config, values, as_node=...)`` with a node
    of this graph moves it on. ``nodes`` and ``keys`` list what is missing.
    """

    def __init__(
        self, thread_id: str, checkpoint_id: str, *, nodes: Sequence[str], keys: Sequence[str]
    ) -> None:
        missing = [f"node(s) {', '.join(map(repr, nodes))}"] if nodes else []
        missing += [f"state key(s) {', '.join(map(repr, keys))}"] if keys else []
        super().__init__(
            f"thread {thread_id!r} was written by another version of the graph: its "
            f"checkpoint {checkpoint_id!r} names {' and '.join(missing)} that this graph "
            "does not have; move it on with update_state(config, values, "
            "as_node=<a node of this graph>)",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )
        self.nodes = tuple(nodes)
        self.keys = tuple(keys)


class CheckpointStorageError(CheckpointError):
    """The storage failed an operation; a failed write stored nothing.

    ``action`` is what was attempted (``"open checkpoint database 'a.db'"``,
    ``"write checkpoint 'c' of thread 't'"``) and ``detail`` what the storage reported.
    """

    def __init__(
        self,
        action: str,
        detail: str,
        *,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
    ) -> None:
        super().__init__(
            f"cannot {action}: {detail}", thread_id=thread_id, checkpoint_id=checkpoint_id
        )
        self.action = action
        self.detail = detail


class SerializationError(CheckpointError, TypeError):
    """A value cannot be stored in a checkpoint; nothing of the checkpoint was written.

    ``key`` is the state key (or what else held the value), ``path`` where in
    that value the offending part is (``"items[2].name"``), ``type_name`` its
    type and ``problem`` what is wrong with it (``"a non-finite float"``).
    ``label`` says what ``key`` is in the message (``"state key 'items'"`` by default).
    """

    def __init__(
        self,
        *,
        key: str,
        path: str,
        type_name: str,
        problem: str,
        label: str | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
    ) -> None:
        what = label if label is not None else f"state key {key!r}"
        where = "" if path == key else f" at {path}"
        super().__init__(
            f"cannot checkpoint {what}{where}: {type_name!r} is {problem}",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )
        self.key = key
        self.path = path
        self.type_name = type_name
        self.problem = problem
