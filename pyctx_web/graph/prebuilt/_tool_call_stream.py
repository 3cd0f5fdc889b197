"""``run.tool_calls`` of an event-stream run: a :class:`ToolCallStream` per tool call.

:class:`ToolCallTransformer` (LangChain's ``create_agent`` gives it to
``compile(transformers=[...])`` first) reads the graph's ``tools`` events: a
call's ``tool-started`` makes its handle, ``tool-output-delta`` feeds its
``output_deltas`` (what the tool sends with ``ToolRuntime.emit_output_delta``),
``tool-finished`` gives its ``output`` and ``tool-error`` its ``error``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from pyctx_web._homes import publish
from pyctx_web.graph.stream._types import ProtocolEvent, StreamTransformer
from pyctx_web.graph.stream.stream_channel import StreamChannel

__all__ = ["ToolCallStream", "ToolCallTransformer"]


class ToolCallStream:
    """One tool call of the run: its id, tool and input; its deltas; then its output or error."""

    def __init__(
        self, tool_call_id: str, tool_name: str, input: dict[str, Any] | None = None
    ) -> None:
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.input = input
        self._output_deltas: StreamChannel[Any] = StreamChannel()
        self.output: Any = None
        self.error: str | None = None
        self.completed = False

    @property
    def output_deltas(self) -> StreamChannel[Any]:
        """The parts of its output the tool streamed, in order; ends when the call ends."""
        return self._output_deltas

    def _bind(self, *, is_async: bool) -> None:
        self._output_deltas._bind(is_async=is_async)

    def _push_delta(self, delta: Any) -> None:
        self._output_deltas.push(delta)

    def _finish(self, output: Any) -> None:
        self.output = output
        self.completed = True
        self._output_deltas.close()

    def _fail(self, message: str) -> None:
        self.error = message
        self.completed = True
        self._output_deltas.close()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._output_deltas)

    def __aiter__(self) -> AsyncIterator[Any]:
        return aiter(self._output_deltas)

    def __repr__(self) -> str:
        status = "running" if not self.completed else "failed" if self.error else "completed"
        return (
            f"ToolCallStream(tool_call_id={self.tool_call_id!r}, "
            f"tool_name={self.tool_name!r}, status={status})"
        )


def _content_of(output: Any) -> Any:
    """A tool's output as its call's result: a ToolMessage's (or serialized one's) content."""
    if type(output).__name__ == "ToolMessage" and hasattr(output, "content"):
        return output.content
    if (
        isinstance(output, dict)
        and output.get("type") == "constructor"
        and isinstance(output.get("id"), list)
        and output["id"][-1] == "ToolMessage"
    ):
        given = output.get("kwargs")
        return given.get("content") if isinstance(given, dict) else output
    return output


class ToolCallTransformer(StreamTransformer):
    """``run.tool_calls``: the tool calls of its graph's nodes, as :class:`ToolCallStream`."""

    _native = True
    required_stream_modes = ("tools",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[ToolCallStream] = StreamChannel()
        self._active: dict[str, ToolCallStream] = {}
        self._is_async = False
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None

    def init(self) -> dict[str, Any]:
        return {"tool_calls": self._log}

    def _bind_pump(self, fn: Callable[[], bool]) -> None:
        self._pump_fn = fn
        self._is_async = False

    def _bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        self._apump_fn = fn
        self._is_async = True

    def _new_stream(self, call_id: str, name: str, given: dict[str, Any] | None) -> ToolCallStream:
        stream = ToolCallStream(call_id, name, given)
        stream._bind(is_async=self._is_async)
        stream.output_deltas._set_pumps(self._pump_fn, self._apump_fn)
        return stream

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "tools" or tuple(event["params"]["namespace"]) != self.scope:
            return True
        data = event["params"]["data"]
        call_id = data.get("tool_call_id")
        kind = data.get("event")
        if call_id is None:
            return True
        if kind == "tool-started":
            stream = self._new_stream(call_id, data.get("tool_name", ""), data.get("input"))
            self._active[call_id] = stream
            self._log.push(stream)
        elif kind == "tool-output-delta" and call_id in self._active:
            self._active[call_id]._push_delta(data.get("delta"))
        elif kind == "tool-finished" and call_id in self._active:
            self._active.pop(call_id)._finish(_content_of(data.get("output")))
        elif kind == "tool-error" and call_id in self._active:
            self._active.pop(call_id)._fail(data.get("message", ""))
        return True

    def finalize(self) -> None:
        for stream in self._active.values():
            if not stream.completed:
                stream._finish(None)
        self._active.clear()

    def fail(self, err: BaseException) -> None:
        for stream in self._active.values():
            if not stream.completed:
                stream._fail(str(err))
        self._active.clear()


publish("pyctx_web.graph.prebuilt", ToolCallTransformer)
