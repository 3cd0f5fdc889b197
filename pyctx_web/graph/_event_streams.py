"""A compiled graph's event-stream runs: ``stream_events`` / ``astream_events`` (``version="v3"``).

The run's machinery is :mod:`pyctx_web.graph.stream`, imported on the first call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyctx_web.errors import UsageError

if TYPE_CHECKING:
    from pyctx_web.graph.stream.run_stream import AsyncGraphRunStream, GraphRunStream

__all__ = ["EventStreams"]


def _check_version(version: str) -> None:
    if version != "v3":
        raise UsageError(
            f"stream_events(version={version!r}) is not supported: pyctx_web's graphs have "
            "version='v3' (or stream()/astream() with stream_mode)"
        )


class EventStreams:
    """What a compiled graph's event-stream runs are made of: its transformers, and the runs."""

    stream_transformers: tuple[Any, ...] = ()
    """The transformer factories given to ``compile(transformers=...)``, after the built-ins."""

    def stream_events(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        version: str = "v2",
        transformers: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> GraphRunStream:
        """The sync event-stream run of ``input`` (``version="v3"``); reading its streams runs it.

        ``transformers`` come after the graph's; ``kwargs`` are :meth:`stream`'s
        options but ``stream_mode`` and ``subgraphs``, which the run sets.
        """
        _check_version(version)
        from pyctx_web.graph.stream._events import stream_events_v3

        return stream_events_v3(self, input, config, transformers, kwargs)  # type: ignore[arg-type]

    async def astream_events(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        version: str = "v2",
        transformers: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> AsyncGraphRunStream:
        """The async event-stream run of ``input`` (``version="v3"``), as :meth:`stream_events`."""
        _check_version(version)
        from pyctx_web.graph.stream._events import astream_events_v3

        return await astream_events_v3(self, input, config, transformers, kwargs)  # type: ignore[arg-type]
