"""pyctx_web.graph.message and langchain_core: imported only when used, coerced as LangGraph does.

The dict form of messages is covered by the scenarios
(tests/scenarios/message_scenarios.py); here, the look-up of
``langchain_core`` in fresh interpreters, and the LangChain form where it is
installed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pyctx_web.graph import message

ROOT = Path(__file__).resolve().parents[3]
HAS_LANGCHAIN = importlib.util.find_spec("langchain_core") is not None


def _run(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter that imports this checkout."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )


def test_importing_the_module_does_not_import_langchain_core() -> None:
    """Importing pyctx_web.graph.message, MessagesState or add_messages skips langchain_core."""
    done = _run(
        """
        import sys
        from pyctx_web.graph import MessagesState, add_messages
        import pyctx_web.graph.message
        print("langchain_core" in sys.modules)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]


def test_without_langchain_core_messages_are_dicts() -> None:
    """Where langchain_core cannot be imported, messages are dicts, and RemoveMessage makes one."""
    done = _run(
        """
        import sys
        sys.modules["langchain_core"] = None  # import langchain_core raises ImportError
        from pyctx_web.graph.message import DictRemoveMessage, RemoveMessage, add_messages
        merged = add_messages([], [{"role": "human", "content": "Hi", "id": "1"}, "Bye"])
        left = add_messages(merged, RemoveMessage(id="1"))
        print(RemoveMessage is DictRemoveMessage, merged[0], left[0]["content"])
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True {'role': 'user', 'content': 'Hi', 'id': '1'} Bye"


@pytest.mark.skipif(not HAS_LANGCHAIN, reason="langchain_core is not installed")
def test_with_langchain_core_messages_are_its_objects() -> None:
    """Where langchain_core is importable, dicts, strings and tuples become its message objects."""
    from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage

    # Typed as pyctx_web's dict form; with langchain_core present it is langchain_core's class.
    removal: object = message.RemoveMessage
    assert removal is RemoveMessage
    merged = message.add_messages(
        [HumanMessage("Hi", id="1")], [{"role": "assistant", "content": "Hello"}, ("user", "Bye")]
    )
    assert [type(m) for m in merged] == [HumanMessage, AIMessage, HumanMessage]
    assert all(isinstance(m.id, str) for m in merged)
    assert message.add_messages(merged, [RemoveMessage(id="1")]) == merged[1:]
    # pyctx_web's dict removal is understood there too.
    assert message.add_messages(merged, [message.DictRemoveMessage("1")]) == merged[1:]


def test_unknown_attribute_of_the_module_raises_attribute_error() -> None:
    """A name the module lacks raises AttributeError naming it, as for any module."""
    with pytest.raises(
        AttributeError,
        match=r"^module 'pyctx_web\.graph\.message' has no attribute 'MessageGraph'$",
    ):
        _ = message.MessageGraph  # type: ignore[attr-defined]  # the missing name is under test
