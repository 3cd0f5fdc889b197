"""The encoded parts of a task's result write: its ``Command(goto=...)`` and ``@task`` results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph._values import Send

__all__ = ["decode_goto", "decode_results", "encode_goto"]


def encode_goto(serde: JsonSerde, goto: Sequence[str | Send]) -> list[Any]:
    """A task's ``goto`` as stored: node names, and ``{"node", "arg"}`` for each :class:`Send`."""
    out: list[Any] = []
    for g in goto:
        if isinstance(g, Send):
            arg = serde.encode(g.arg, key="arg", label=f"the arg of Send({g.node!r})")
            out.append({"node": g.node, "arg": arg})
        else:
            out.append(g)
    return out


def decode_goto(serde: JsonSerde, items: list[Any]) -> list[str | Send]:
    """The ``goto`` :func:`encode_goto` stored."""
    out: list[str | Send] = []
    for g in items:
        out.append(g if isinstance(g, str) else Send(g["node"], serde.decode(g["arg"])))
    return out


def decode_results(serde: JsonSerde, items: list[Any]) -> dict[str, tuple[str, Any]]:
    """A node's stored ``@task`` results: ``(task name, result)`` by call position."""
    # A result saved without its task's name ([position, result]) matches any task.
    return {str(r[0]): (str(r[1]) if len(r) == 3 else "", serde.decode(r[-1])) for r in items}
