"""The built-in transformers of event-stream runs: one stream per kind of event.

Each reads the events of its own graph (its ``scope``) and leaves those of
subgraphs to the subgraphs' handles. ``values``, ``messages``, ``lifecycle`` and
``subgraphs`` are on every run; ``updates``, ``custom``, ``checkpoints``,
``debug`` and ``tasks`` when their transformer is given. The subgraph ones live
in :mod:`pyctx_web.graph.stream._lifecycle` and ``_subgraphs``. ``messages`` gives one LangChain
``ChatModelStream`` per model call (it needs ``langchain_core``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from pyctx_web.graph._engine.messages_mode import has_langchain
from pyctx_web.graph.stream._lifecycle import (
    LifecyclePayload,
    LifecycleTransformer,
    SubgraphStatus,
)
from pyctx_web.graph.stream._lifecycle import (  # the base of LangChain's SubagentTransformer
    _TasksLifecycleBase as _TasksLifecycleBase,
)
from pyctx_web.graph.stream._subgraphs import SubgraphTransformer
from pyctx_web.graph.stream._types import ProtocolEvent, StreamTransformer
from pyctx_web.graph.stream.stream_channel import StreamChannel

__all__ = [
    "CheckpointsTransformer",
    "CustomTransformer",
    "DebugTransformer",
    "LifecyclePayload",
    "LifecycleTransformer",
    "MessagesTransformer",
    "SubgraphStatus",
    "SubgraphTransformer",
    "TasksTransformer",
    "UpdatesTransformer",
    "ValuesTransformer",
]


class _ModeTransformer(StreamTransformer):
    """The data of its graph's events of one stream mode, as a stream of the same name."""

    _native = True
    mode: ClassVar[str] = ""

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._scope_list = list(scope)

    def init(self) -> dict[str, Any]:
        return {self.mode: self._log}

    def _own(self, event: ProtocolEvent) -> bool:
        return event["method"] == self.mode and event["params"]["namespace"] == self._scope_list

    def process(self, event: ProtocolEvent) -> bool:
        if self._own(event):
            self._log.push(event["params"]["data"])
        return True


class ValuesTransformer(_ModeTransformer):
    """``run.values``: the graph's state after its input and after each step."""

    mode = "values"
    required_stream_modes = ("values",)

    @property
    def error(self) -> BaseException | None:
        """The error the run ended with, or ``None``."""
        return self._log._error


class CustomTransformer(_ModeTransformer):
    """``run.custom``: what the graph's nodes send through ``get_stream_writer()``."""

    mode = "custom"
    required_stream_modes = ("custom",)


class UpdatesTransformer(_ModeTransformer):
    """``run.updates``: ``{node: update}`` as each task of the graph ends."""

    mode = "updates"
    required_stream_modes = ("updates",)


class CheckpointsTransformer(_ModeTransformer):
    """``run.checkpoints``: each checkpoint the graph saves (with a checkpointer)."""

    mode = "checkpoints"
    required_stream_modes = ("checkpoints",)


class DebugTransformer(_ModeTransformer):
    """``run.debug``: the graph's checkpoints and tasks with their step and time."""

    mode = "debug"
    required_stream_modes = ("debug",)


class TasksTransformer(_ModeTransformer):
    """``run.tasks``: each task of the graph as it starts and as it ends."""

    mode = "tasks"
    required_stream_modes = ("tasks",)


class MessagesTransformer(StreamTransformer):
    """``run.messages``: a LangChain ``ChatModelStream`` per model call of the graph's nodes.

    A call's message events (``message-start``, content blocks, ``message-finish``)
    feed its stream; a whole message a node returns is replayed as those events.
    A call whose ``message-start`` has the ``tool`` role is left out, and so
    are tool messages and streamed chunks.
    """

    _native = True
    required_stream_modes = ("messages",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._by_run: dict[str, Any] = {}
        self._ignored_runs: set[str] = set()
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None
        self._scope_list = list(scope)

    def init(self) -> dict[str, Any]:
        return {"messages": self._log}

    def _bind_pump(self, fn: Callable[[], bool]) -> None:
        self._pump_fn = fn

    def _bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        self._apump_fn = fn

    def _make_stream(
        self, *, namespace: list[str], node: str | None, message_id: str | None
    ) -> Any:
        from langchain_core.language_models.chat_model_stream import (
            AsyncChatModelStream,
            ChatModelStream,
        )

        if self._pump_fn is not None and self._apump_fn is None:
            stream: Any = ChatModelStream(namespace=namespace, node=node, message_id=message_id)
            stream.set_request_more(self._pump_fn)
            return stream
        made = AsyncChatModelStream(namespace=namespace, node=node, message_id=message_id)
        if self._apump_fn is not None:
            made.set_arequest_more(self._apump_fn)
        return made

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        if event["method"] != "messages" or params["namespace"] != self._scope_list:
            return True
        if not has_langchain():  # no chat model streams without LangChain: dict messages stay
            return True
        from langchain_core.messages import AIMessageChunk, BaseMessage, ToolMessage

        payload, metadata = params["data"]
        node = metadata.get("langgraph_node") if metadata else None
        run_id = str(metadata.get("run_id", "")) if metadata else ""
        if isinstance(payload, dict) and "event" in payload:
            self._route(payload, run_id, node)
        elif isinstance(payload, BaseMessage) and not isinstance(
            payload, AIMessageChunk | ToolMessage
        ):
            from langchain_core.language_models._compat_bridge import message_to_events

            stream = self._make_stream(namespace=[], node=node, message_id=payload.id)
            for part in message_to_events(payload, message_id=payload.id):
                stream.dispatch(part)
            self._log.push(stream)
        return True

    def _route(self, event: dict[str, Any], run_id: str, node: str | None) -> None:
        kind = event.get("event")
        if kind == "message-start":
            if event.get("role") == "tool":
                self._ignored_runs.add(run_id)
                return
            ident = event.get("message_id")
            stream = self._make_stream(
                namespace=[], node=node, message_id=None if ident is None else str(ident)
            )
            self._by_run[run_id] = stream
            self._log.push(stream)
            stream.dispatch(event)
        elif run_id in self._ignored_runs:
            if kind == "message-finish":
                self._ignored_runs.discard(run_id)
        elif run_id in self._by_run:
            self._by_run[run_id].dispatch(event)
            if kind == "message-finish":
                del self._by_run[run_id]

    def finalize(self) -> None:
        self._by_run.clear()
        self._ignored_runs.clear()

    def fail(self, err: BaseException) -> None:
        for stream in self._by_run.values():
            stream.fail(err)
        self.finalize()
