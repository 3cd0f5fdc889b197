"""The LangChain callback handler of the ``messages`` stream mode (imported only with LangChain).

Being a streaming handler, it makes chat models called without streaming
stream anyway, as LangGraph's handler does; each token goes to the run's
``messages`` stream with the node's metadata, the model's own and its tags.
A model tagged ``"nostream"`` is left out, and so is one called in a subgraph's
node: its tokens belong to the subgraph's run, which streams them (with
``subgraphs=True``) or not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.outputs import ChatGenerationChunk, LLMResult
from langchain_core.tracers._streaming import (
    _StreamingCallbackHandler,
    _V2StreamingCallbackHandler,
)

from pyctx_web.graph._engine.frames import current_task

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run

__all__ = ["EventTokenHandler", "RunHandler", "TokenHandler", "callbacks_with"]

T = TypeVar("T")

NOSTREAM = "nostream"
"""The tag that keeps a model's tokens out of the ``messages`` stream."""


def _set_by_call(key: str) -> bool:
    """Whether a model call's own metadata ``key`` outranks the node's (not its place)."""
    return not key.startswith("langgraph_") and key not in ("thread_id", "checkpoint_ns")


class RunHandler:
    """A handler streaming to one run: a node's own replaces the one of the node around it."""


class TokenHandler(RunHandler, BaseCallbackHandler, _StreamingCallbackHandler[Any]):
    """Streams the tokens of the chat models a node calls to the run's ``messages`` mode."""

    run_inline = True

    def __init__(self, run: Run, metadata: dict[str, Any], seen: set[str]) -> None:
        self.run = run
        self.metadata = metadata
        self.seen = seen
        self.models: dict[UUID, dict[str, Any]] = {}
        self.streamed: set[UUID] = set()

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
        return output

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if tags and NOSTREAM in tags:
            return
        frame = current_task.get_store()
        if frame is not None and frame.run is not self.run:
            return
        own = metadata or {}
        # The node's place wins; what the model call itself set (its config's metadata) wins
        # over the run's: a caller cannot forge a key a model call is marked with.
        merged = {**own, **self.metadata}
        merged.update((k, v) for k, v in own.items() if k not in self.metadata or _set_by_call(k))
        # As LangChain copies it into the model's metadata from the config of the task, or in
        # a subgraph from the config the subgraph was called with.
        namespace = self.run.namespace
        merged["checkpoint_ns"] = (
            namespace[0] if namespace else self.metadata.get("langgraph_checkpoint_ns", "")
        )
        # The model's integration names it, as the node's names the graph for whole messages.
        if "ls_integration" in own:
            merged["ls_integration"] = own["ls_integration"]
        # LangChain's "seq:step:N" tags number the steps of a sequence: not the user's.
        users = [tag for tag in tags or () if not tag.startswith("seq:step")]
        if users:
            merged["tags"] = users
        self.models[run_id] = merged

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: Any = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        if run_id not in self.models or not isinstance(chunk, ChatGenerationChunk):
            return
        self.streamed.add(run_id)
        message = chunk.message
        if message.id is not None:
            self.seen.add(message.id)
        self.run.emit("messages", (message, self.models[run_id]))

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.models.pop(run_id, None)
        self.streamed.discard(run_id)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        metadata = self.models.pop(run_id, None)
        if metadata is None or run_id in self.streamed:
            self.streamed.discard(run_id)
            return
        for generations in response.generations:
            for generation in generations:
                message = getattr(generation, "message", None)
                if message is not None and message.id not in self.seen:
                    if message.id is not None:
                        self.seen.add(message.id)
                    self.run.emit("messages", (message, metadata))


class EventTokenHandler(TokenHandler, _V2StreamingCallbackHandler):
    """Streams the message events of the chat models a node calls (``message-start``, content
    blocks, ``message-finish``) to the run's ``messages`` mode, as ``stream_events`` v3 reads
    them: with the call's ``run_id`` in the metadata; whole messages only when not streamed."""

    def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> None:
        return None  # the call's message events carry its tokens

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id in self.streamed:  # the node's update repeats the message its events carried
            for generations in response.generations:
                for generation in generations:
                    message = getattr(generation, "message", None)
                    if message is not None and message.id is not None:
                        self.seen.add(message.id)
        super().on_llm_end(response, run_id=run_id, **kwargs)

    def on_stream_event(self, event: Any, *, run_id: UUID, **kwargs: Any) -> None:
        metadata = self.models.get(run_id)
        if metadata is None:
            return
        if event.get("event") == "message-start":
            self.streamed.add(run_id)
            ident = event.get("message_id")
            if ident:
                self.seen.add(str(ident))
        self.run.emit("messages", (event, {**metadata, "run_id": str(run_id)}))


def callbacks_with(
    given: Any, own: list[BaseCallbackHandler], tags: list[str]
) -> BaseCallbackManager:
    """The callbacks of a node's LangChain config: ``given`` (a list or a manager) with
    ``own`` in place of the handlers of the node around (the node runs in a subgraph, or
    is a ``@task`` call of a node), and the run's ``tags``, which the models it calls inherit
    as in LangGraph, also where a model's ``with_config(tags=...)`` sets tags of its own."""
    metadata: dict[str, Any] = {}
    if isinstance(given, BaseCallbackManager):
        handlers = list(given.inheritable_handlers)
        inherited = list(given.inheritable_tags)
        metadata = dict(given.inheritable_metadata)
    else:
        handlers = list(given) if isinstance(given, list) else []
        inherited = []
    kept = [item for item in handlers if not isinstance(item, RunHandler)]
    kept.extend(own)
    every = [*inherited, *(tag for tag in tags if tag not in inherited)]
    return BaseCallbackManager(
        handlers=kept,
        inheritable_handlers=kept,
        tags=every,
        inheritable_tags=every,
        metadata=metadata,
        inheritable_metadata=metadata,
    )
