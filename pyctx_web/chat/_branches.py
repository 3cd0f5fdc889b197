"""A thread's checkpoints as a tree: its branches, and where an edit or a regeneration forks.

An edit of a message, or a regeneration of an answer, runs the graph again from
the checkpoint before that message; the new checkpoints are children of that
one, so a checkpoint with several children is where the conversation branches.
A branch is named by its head: the newest checkpoint under that child.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pyctx_web.graph.types import StateSnapshot

__all__ = ["Tree"]


def _id(snapshot: StateSnapshot) -> str:
    return str(snapshot.config["configurable"]["checkpoint_id"])


def _parent(snapshot: StateSnapshot) -> str | None:
    parent = snapshot.parent_config
    return None if not parent else str(parent["configurable"]["checkpoint_id"])


def _message_ids(snapshot: StateSnapshot) -> list[str]:
    return [_message_id(m) for m in (snapshot.values or {}).get("messages", [])]


def _message_id(message: Any) -> str:
    value = message.get("id") if isinstance(message, dict) else getattr(message, "id", None)
    return str(value)


@dataclass
class Tree:
    """The checkpoints of one thread, newest first as ``get_state_history`` lists them."""

    snapshots: Sequence[StateSnapshot]
    """Every checkpoint of the thread, newest first."""
    by_id: dict[str, StateSnapshot] = field(init=False)
    children: dict[str, list[str]] = field(init=False)
    order: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.by_id = {_id(s): s for s in self.snapshots}
        self.order = {_id(s): rank for rank, s in enumerate(self.snapshots)}  # 0 is newest
        self.children = {}
        for snapshot in reversed(self.snapshots):  # oldest first: children in creation order
            parent = _parent(snapshot)
            if parent is not None:
                self.children.setdefault(parent, []).append(_id(snapshot))

    def path(self, head: str) -> list[StateSnapshot]:
        """The checkpoints from ``head`` up to the thread's first, ``head`` first."""
        path = []
        current: str | None = head
        while current is not None and current in self.by_id:
            snapshot = self.by_id[current]
            path.append(snapshot)
            current = _parent(snapshot)
        return path

    def newest_under(self, checkpoint_id: str) -> str:
        """The newest checkpoint of the subtree under ``checkpoint_id`` (itself included)."""
        newest, stack, order = checkpoint_id, [checkpoint_id], self.order
        while stack:
            current = stack.pop()
            if order[current] < order[newest]:
                newest = current
            stack.extend(self.children.get(current, ()))
        return newest

    def fork_point(self, head: str, message_id: str) -> StateSnapshot | None:
        """The checkpoint before message ``message_id`` on the branch of ``head``, or ``None``.

        Copies of a checkpoint that earlier edits made (an ``input`` or ``fork``
        checkpoint with its parent's messages and next nodes) lead to their
        original, so that every edit of one message forks at the same place.
        """
        path = self.path(head)
        for position, snapshot in enumerate(path):
            if message_id in _message_ids(snapshot):
                continue
            if position == 0:
                return None  # the head itself lacks the message: it is not on this branch
            found = snapshot
            for parent in path[position + 1 :]:
                copy = (
                    found.metadata.get("source") in ("input", "fork") if found.metadata else False
                )
                if not (copy and parent.next == found.next):
                    break
                if _message_ids(parent) != _message_ids(found):
                    break
                found = parent
            return found
        return None

    def branches(self, head: str) -> list[tuple[int, dict[str, Any]]]:
        """For each fork on the branch of ``head``: the message position it changes, and its switch.

        The switch is ``{"index": i, "count": n, "heads": [...]}``: this branch is
        the ``i``-th (from 1) of ``n``, and ``heads[k]`` is the head of branch ``k + 1``.
        """
        found = []
        path = self.path(head)
        for child, parent in itertools.pairwise(path):
            siblings = self.children.get(_id(parent), [])
            if len(siblings) < 2:
                continue
            heads = [self.newest_under(sibling) for sibling in siblings]
            index = siblings.index(_id(child)) + 1
            switch: dict[str, Any] = {"index": index, "count": len(siblings), "heads": heads}
            found.append((len(_message_ids(parent)), switch))
        return found
