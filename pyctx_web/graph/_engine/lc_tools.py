"""The LangChain callback handler of the ``tools`` stream mode (imported only with LangChain).

Each LangChain tool a node runs streams ``tool-started`` (its call id, name
and input), the parts of its output it sends while it runs
(``tool-output-delta``, through :func:`output_delta_writer`), and then
``tool-finished`` (its output) or ``tool-error`` (its error's text). A tool
that paused the run on a question has neither: it runs again when answered.
A tool tagged ``"nostream"`` is left out.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers._streaming import _StreamingCallbackHandler

from pyctx_web.graph._engine.frames import current_task
from pyctx_web.graph._engine.lc_tokens import NOSTREAM, RunHandler
from pyctx_web.graph.errors import GraphInterrupt

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run

__all__ = ["ToolEventHandler", "output_delta_writer"]

T = TypeVar("T")

_Writer = Callable[[Any], None]

_writer: ContextVar[_Writer | None] = ContextVar("pyctx_web.graph.tool_output", default=None)
"""Sends a part of the running tool call's output to the ``tools`` stream."""


def output_delta_writer() -> _Writer | None:
    """What sends a part of the running tool's output to the ``tools`` stream (``None``: none)."""
    return _writer.get()


class ToolEventHandler(RunHandler, BaseCallbackHandler, _StreamingCallbackHandler[Any]):
    """Streams the calls of the LangChain tools a node runs to the run's ``tools`` mode."""

    run_inline = True

    def __init__(self, run: Run) -> None:
        self.run = run
        self.calls: dict[UUID, tuple[str, Token[_Writer | None]]] = {}

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
        return output

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if tags and NOSTREAM in tags:
            return
        frame = current_task.get_store()
        if frame is not None and frame.run is not self.run:
            return  # a tool of another run (a subgraph's) that has this handler too: its own
        call_id = kwargs.get("tool_call_id") or str(run_id)
        name = (serialized or {}).get("name") or kwargs.get("name") or ""
        run = self.run

        def send(delta: Any) -> None:
            run.emit(
                "tools", {"event": "tool-output-delta", "tool_call_id": call_id, "delta": delta}
            )

        self.calls[run_id] = (call_id, _writer.set(send))
        payload: dict[str, Any] = {"event": "tool-started", "tool_call_id": call_id}
        payload["tool_name"] = name
        if inputs is not None:
            payload["input"] = inputs
        run.emit("tools", payload)

    def _ended(self, run_id: UUID) -> str | None:
        found = self.calls.pop(run_id, None)
        if found is None:
            return None
        call_id, token = found
        try:
            _writer.reset(token)
        except ValueError:  # ended in another context than it started: that context ends too
            _writer.set(None)
        return call_id

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        call_id = self._ended(run_id)
        if call_id is not None:
            self.run.emit(
                "tools", {"event": "tool-finished", "tool_call_id": call_id, "output": output}
            )

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        call_id = self._ended(run_id)
        if call_id is not None and not isinstance(error, GraphInterrupt):
            self.run.emit(
                "tools", {"event": "tool-error", "tool_call_id": call_id, "message": str(error)}
            )
