"""Call options: LangGraph-style configs, stream modes, and their checks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Final, TypeVar

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "DONE",
    "STREAM_MODES",
    "config_of",
    "next_item",
    "parse_config",
    "stream_modes",
]

T = TypeVar("T")

STREAM_MODES: Final = frozenset({"updates", "values", "custom"})
DEFAULT_RECURSION_LIMIT: Final = 25
DONE: Final = "__done__"


def config_of(thread_id: str | None, checkpoint_id: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


def parse_config(
    thread_id: str | None, config: Mapping[str, Any] | None
) -> tuple[str | None, str | None, int]:
    """``(thread_id, checkpoint_id, recursion_limit)`` from the keyword and a LangGraph config."""
    checkpoint_id = None
    limit = DEFAULT_RECURSION_LIMIT
    if config is not None:
        if not isinstance(config, Mapping):
            raise ArgumentTypeError(f"config must be a dict, not {type(config).__qualname__!r}")
        conf = config.get("configurable") or {}
        if thread_id is None:
            thread_id = conf.get("thread_id")
        checkpoint_id = conf.get("checkpoint_id")
        limit = config.get("recursion_limit", limit)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ArgumentValueError(f"recursion_limit must be an int >= 1, not {limit!r}")
    if thread_id is not None and not isinstance(thread_id, str):
        raise ArgumentTypeError(f"thread_id must be a str, not {type(thread_id).__qualname__!r}")
    if checkpoint_id is not None and not isinstance(checkpoint_id, str):
        raise ArgumentTypeError(
            f"checkpoint_id must be a str, not {type(checkpoint_id).__qualname__!r}"
        )
    return thread_id, checkpoint_id, limit


def stream_modes(stream_mode: str | Sequence[str]) -> tuple[frozenset[str], bool]:
    single = isinstance(stream_mode, str)
    modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
    for mode in modes:
        if mode not in STREAM_MODES:
            raise ArgumentValueError(
                f"unknown stream_mode {mode!r}; expected one of {', '.join(sorted(STREAM_MODES))}"
            )
    if not modes:
        raise ArgumentValueError("stream_mode must name at least one mode")
    return frozenset(modes), single


async def next_item(agen: AsyncIterator[T]) -> T:
    return await agen.__anext__()
