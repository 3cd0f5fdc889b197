"""Chat messages in graph state: the ``add_messages`` reducer and ``MessagesState``.

Mirrors ``langgraph.graph.message``. Messages are OpenAI-style dicts
(``{"role": "user", "content": "Hi", "id": "..."}``), with no dependency. Where
``langchain_core`` is importable, they are its message objects instead, coerced
as LangGraph does: dicts, ``(role, content)`` tuples and strings become
``HumanMessage``, ``AIMessage``... (so ``message.pretty_print()`` works).

A message is merged by its id: one whose id is already in the list replaces
it in place, a new one is appended (and given a ``uuid4`` id if it has none).
``RemoveMessage(id=...)`` deletes a message, and
``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` every message before it.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, TypeAlias, TypedDict, overload

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._engine.ids import random_uuid

__all__ = [
    "REMOVE_ALL_MESSAGES",
    "AnyMessage",
    "DictRemoveMessage",
    "Format",
    "Messages",
    "MessagesState",
    "RemoveMessage",
    "add_messages",
]

REMOVE_ALL_MESSAGES: Final = "__remove_all__"
"""The id of a ``RemoveMessage`` that deletes every message before it."""

AnyMessage: TypeAlias = Any
"""A message: an OpenAI-style dict, or a ``langchain_core`` message where it is importable."""

Messages: TypeAlias = Any
"""One message, or a list of them: what either side of :func:`add_messages` takes."""

Format: TypeAlias = Literal["langchain-openai"] | None
"""The ``format`` of :func:`add_messages`."""

_ROLES: Final = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
}
"""The roles a dict message may give, LangChain's aliases included, and the role it keeps."""

_REMOVE: Final = "remove"
"""The role (or ``type``) of a removal given as a dict."""

_UNKNOWN: Final = object()
_langchain: Any = _UNKNOWN
"""``langchain_core.messages`` once looked up; ``None`` when it is not importable."""


def _langchain_messages() -> types.ModuleType | None:
    """``langchain_core.messages``, imported on first use; ``None`` when it is not importable."""
    global _langchain
    if _langchain is _UNKNOWN:
        try:
            import langchain_core.messages as messages
        except ImportError:
            _langchain = None
        else:
            _langchain = messages
    return _langchain  # type: ignore[no-any-return]


class DictRemoveMessage(dict[str, Any]):
    """A removal as a dict, ``{"role": "remove", "id": id}``: ``RemoveMessage`` without LangChain.

    A dict, so that a node's update holding one is checkpointed like any other
    (it comes back as the plain dict, which :func:`add_messages` reads the same).
    """

    __slots__ = ()

    def __init__(self, id: str) -> None:
        if not isinstance(id, str):
            raise ArgumentTypeError(
                f"RemoveMessage() id must be a str, not {type(id).__qualname__!r}"
            )
        super().__init__(role=_REMOVE, id=id)

    @property
    def id(self) -> str:
        """The id of the message to delete, or :data:`REMOVE_ALL_MESSAGES`."""
        return self["id"]  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"RemoveMessage(id={self['id']!r})"


if TYPE_CHECKING:
    RemoveMessage = DictRemoveMessage


# --- dict messages ---------------------------------------------------------------------------


def _role_of(message: dict[Any, Any]) -> str:
    """The role a dict message gives (under ``"role"``, else ``"type"`` as LangChain reads it)."""
    given = message["role"] if "role" in message else message.get("type")
    if given == _REMOVE:
        return _REMOVE
    if "content" not in message or given is None:
        raise ArgumentValueError(
            f"message dict must contain 'role' and 'content' keys, got {message!r}"
        )
    role = _ROLES.get(given) if isinstance(given, str) else None
    if role is None:
        raise ArgumentValueError(
            f"unexpected message role {given!r}: use one of 'user' ('human'), "
            f"'assistant' ('ai'), 'system', 'developer', 'tool', or 'remove'"
        )
    return role


def _check_fields(role: str, message: dict[Any, Any]) -> None:
    """Raise if the content, id, tool calls or tool call id of a dict message are malformed."""
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        raise ArgumentTypeError(
            f"message content must be a str or a list, not {type(content).__qualname__!r}"
        )
    msg_id = message.get("id")
    if msg_id is not None and not isinstance(msg_id, str):
        raise ArgumentTypeError(f"message id must be a str, not {type(msg_id).__qualname__!r}")
    calls = message.get("tool_calls")
    if calls is not None and not (
        isinstance(calls, list) and all(isinstance(c, dict) for c in calls)
    ):
        raise ArgumentTypeError(f"message tool_calls must be a list of dicts, got {calls!r}")
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        raise ArgumentValueError(
            f"a 'tool' message needs the str 'tool_call_id' of the call it answers, got {message!r}"
        )


def _dict_message(message: object) -> dict[str, Any]:
    """``message`` as a checked dict message with an id: itself when it already is one."""
    if isinstance(message, str):
        return {"role": "user", "content": message, "id": random_uuid()}
    if isinstance(message, tuple | list):
        if len(message) != 2 or not isinstance(message[0], str):
            raise ArgumentValueError(
                f"a message given as a sequence must be (role, content), got {message!r}"
            )
        message = {"role": message[0], "content": message[1]}
    if not isinstance(message, dict):
        raise ArgumentTypeError(
            "a message must be a dict, a str or a (role, content) tuple, "
            f"not {type(message).__qualname__!r}"
        )
    role = _role_of(message)
    if role == _REMOVE:
        if not isinstance(message.get("id"), str):
            raise ArgumentValueError(
                f"a 'remove' message needs the str 'id' of the message to delete, got {message!r}"
            )
        return message
    _check_fields(role, message)
    if (
        message.get("role") == role
        and message["content"] is not None
        and message.get("id") is not None
    ):
        return message
    return _rebuilt(role, message)


def _rebuilt(role: str, message: dict[Any, Any]) -> dict[str, Any]:
    """A new dict message: ``role`` first, ``None`` content made ``""``, an id if it had none."""
    out: dict[str, Any] = {"role": role, "content": message["content"] or ""}
    uses_role = "role" in message
    for key, value in message.items():
        if key not in ("role", "content") and (uses_role or key != "type"):
            out[key] = value
    if out.get("id") is None:
        out["id"] = random_uuid()
    return out


def _dict_id(message: dict[str, Any]) -> str:
    return message["id"]  # type: ignore[no-any-return]


def _dict_removal(message: dict[str, Any]) -> bool:
    return message.get("role", message.get("type")) == _REMOVE


# --- LangChain messages ----------------------------------------------------------------------


def _langchain_coerced(lc: types.ModuleType, messages: list[Any]) -> list[Any]:
    """``messages`` as LangChain message objects, each with an id, as LangGraph coerces them."""
    base, chunk = lc.BaseMessage, lc.BaseMessageChunk
    if not all(issubclass(t, base) and not issubclass(t, chunk) for t in set(map(type, messages))):
        messages = [
            lc.RemoveMessage(id=m["id"]) if isinstance(m, DictRemoveMessage) else m
            for m in messages
        ]
        messages = [lc.message_chunk_to_message(m) for m in lc.convert_to_messages(messages)]
    for m in messages:
        if m.id is None:
            m.id = random_uuid()
    return messages


def _langchain_id(message: Any) -> str:
    return message.id  # type: ignore[no-any-return]


# --- the reducer ------------------------------------------------------------------------------


def _merged(
    left: list[Any],
    right: list[Any],
    id_of: Callable[[Any], str],
    is_removal: Callable[[Any], bool],
) -> list[Any]:
    """``left`` updated by ``right``: replaced, appended and deleted by id, as LangGraph does."""
    remove_all = None
    for i, m in enumerate(right):
        if is_removal(m) and id_of(m) == REMOVE_ALL_MESSAGES:
            remove_all = i
    if remove_all is not None:
        return right[remove_all + 1 :]
    merged = left.copy()
    position = {id_of(m): i for i, m in enumerate(merged)}
    removed: set[str] = set()
    for m in right:
        msg_id = id_of(m)
        at = position.get(msg_id)
        if at is not None:
            if is_removal(m):
                removed.add(msg_id)
            else:
                removed.discard(msg_id)
                merged[at] = m
        elif is_removal(m):
            # LangGraph's wording.
            raise ArgumentValueError(
                f"Attempting to delete a message with an ID that doesn't exist ('{msg_id}')"
            )
        else:
            position[msg_id] = len(merged)
            merged.append(m)
    if removed:
        merged = [m for m in merged if id_of(m) not in removed]
    return merged


def _add_messages(left: Messages, right: Messages, *, format: Format = None) -> list[Any]:
    """Merge ``right`` into ``left`` by message id (see :func:`add_messages`)."""
    if format not in (None, "langchain-openai"):
        raise ArgumentValueError(
            f"Unrecognized format={format!r}. Expected one of 'langchain-openai', None."
        )
    left_list = left if isinstance(left, list) else [left]
    right_list = right if isinstance(right, list) else [right]
    lc = _langchain_messages()
    if lc is None:
        # format="langchain-openai" changes nothing: dict messages are in OpenAI's format.
        return _merged(
            [_dict_message(m) for m in left_list],
            [_dict_message(m) for m in right_list],
            _dict_id,
            _dict_removal,
        )
    merged = _merged(
        _langchain_coerced(lc, left_list),
        _langchain_coerced(lc, right_list),
        _langchain_id,
        lambda m: isinstance(m, lc.RemoveMessage),
    )
    if format == "langchain-openai":
        merged = lc.convert_to_messages(lc.convert_to_openai_messages(merged))
    return merged


@overload
def add_messages(left: Messages, right: Messages, *, format: Format = None) -> list[Any]: ...


@overload
def add_messages(
    left: None = None,
    right: None = None,
    *,
    format: Format = None,
) -> Callable[[Messages, Messages], list[Any]]: ...


def add_messages(
    left: Messages | None = None,
    right: Messages | None = None,
    *,
    format: Format = None,
) -> list[Any] | Callable[[Messages, Messages], list[Any]]:
    """Merge two lists of messages by id: the reducer of a conversation in graph state.

    Each side is a message or a list of them. A message of ``right`` whose id
    is in ``left`` replaces it in place; the others are appended, given a
    ``uuid4`` id if they have none. ``RemoveMessage(id=...)`` deletes the
    message with that id (``ValueError`` if there is none), and
    ``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` every message before it. Use it
    as ``Annotated[list[AnyMessage], add_messages]``. Called with neither side,
    it returns the reducer for ``format``: ``add_messages(format="langchain-openai")``
    (which needs ``langchain_core``; dict messages are already in that format).
    """
    if left is not None and right is not None:
        return _add_messages(left, right, format=format)
    if left is not None or right is not None:
        # LangGraph's wording, and its choice of side.
        raise ArgumentValueError(
            "Must specify non-null arguments for both 'left' and 'right'. Only "
            f"received: '{'left' if left else 'right'}'."
        )
    return partial(_add_messages, format=format)


class MessagesState(TypedDict):
    """A graph state holding a conversation: ``messages``, merged by :func:`add_messages`."""

    messages: Annotated[list[AnyMessage], add_messages]


class _MessageModule(types.ModuleType):
    """This module, with ``RemoveMessage`` looked up each time it is asked for.

    Importing the module never imports ``langchain_core``: only asking for
    ``RemoveMessage`` (or merging messages) does.
    """

    @property
    def RemoveMessage(self) -> type[Any]:
        """LangChain's ``RemoveMessage`` where it is importable, else :class:`DictRemoveMessage`."""
        lc = _langchain_messages()
        return DictRemoveMessage if lc is None else lc.RemoveMessage


sys.modules[__name__].__class__ = _MessageModule
