"""The worker's Python end: what it preloads for the snapshot, and its page messages."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import worker_main
from protocol import ModelError

import pyctx_web

APP = Path(worker_main.__file__).parent


def test_preload_imports_the_whole_app_and_pyctx_web_and_starts_nothing(
    monkeypatch: Any,
) -> None:
    """preload() imports every module of the app and of pyctx_web, and keeps no worker."""
    monkeypatch.setattr(worker_main, "_worker", None)
    asyncio.run(worker_main.preload())
    modules = {path.stem for path in APP.glob("*.py")}
    package = Path(pyctx_web.__file__).parent
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert modules <= set(sys.modules), modules - set(sys.modules)
    assert worker_main._worker is None


BOOT = """
import asyncio, sys
sys.path.insert(0, {app!r})
import worker_main
asyncio.run(worker_main.boot(lambda text: None))
print("\\n".join(sys.modules))
"""

NOT_AT_BOOT = {
    "pkgutil": "only preload() walks the packages, for the snapshot",
    "datetime": "a memory entry's timestamp is made with the first entry",
    "pyctx_web.chat._session": "a thread's session comes with its first message, after ready",
    "pyctx_web.chat": "the nodes read the chat's messages in a run, after ready",
    "pyctx_web.graph.func": "the think task is made at its first call, in a run",
    "offline_model": "the model answers the first message: imported after ready",
    "protocol": "the models' reply types come with the first model",
    "models": "a model is made from the settings when the page sends them",
    "pyctx_web.graph._internal._runnable": "only LangChain's agents make RunnableCallable nodes",
}
"""Modules a worker's start (import and boot) leaves for later, with why."""


def test_booting_the_worker_leaves_what_only_later_steps_use_unimported() -> None:
    """import worker_main and boot() leave pkgutil, datetime, the chat protocol and session,
    the functional API and the models unimported."""
    done = subprocess.run(
        [sys.executable, "-c", BOOT.format(app=str(APP))],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(done.stdout.split())
    assert "worker_main" in loaded
    assert loaded & set(NOT_AT_BOOT) == set()


def test_a_first_message_after_boot_gets_its_question(monkeypatch: Any) -> None:
    """After boot(post) and prepare(), a chat that needs a question posts needs_input for its
    thread."""
    monkeypatch.setattr(worker_main, "_worker", None)
    posted: list[dict[str, Any]] = []

    async def flow() -> None:
        await worker_main.boot(lambda text: posted.append(json.loads(text)))
        worker_main.prepare()
        chat = {"type": "chat", "text": worker_main.REHEARSAL_TEXT}
        worker_main.receive(json.dumps({"op": "send", "thread_id": "a", "message": chat}))
        for _ in range(500):
            await asyncio.sleep(0.01)
            if any(event["type"] == "needs_input" for event in posted):
                return

    asyncio.run(flow())
    asked = [event for event in posted if event["type"] == "needs_input"]
    assert [(event["thread_id"], event["kind"]) for event in asked] == [("a", "question")]


def test_receive_before_boot_says_to_boot_first(monkeypatch: Any) -> None:
    """A page message before boot() is refused with what to call first."""
    monkeypatch.setattr(worker_main, "_worker", None)
    with pytest.raises(
        RuntimeError, match=r"^the worker is not booted: call await boot\(post\) first$"
    ):
        worker_main.receive("{}")


def test_a_failing_background_task_is_posted_as_an_error() -> None:
    """start(work, failure) posts an error naming the failure and the exception."""
    posted: list[dict[str, Any]] = []

    async def broken() -> None:
        raise OSError("disk gone")

    async def flow() -> None:
        worker = worker_main.DemoWorker(lambda text: posted.append(json.loads(text)), _saver())
        worker.start(broken(), "The checkpoint store could not open")
        await asyncio.sleep(0.01)

    asyncio.run(flow())
    assert posted == [
        {"type": "error", "message": "The checkpoint store could not open: disk gone"}
    ]


def _saver() -> Any:
    from pyctx_web.graph.checkpoint.memory import InMemorySaver

    return InMemorySaver()


def test_a_turn_past_its_deadline_is_stopped_with_an_error() -> None:
    """A turn still running at turn_deadline_s is cancelled and the page is told why."""
    posted: list[dict[str, Any]] = []

    async def flow() -> None:
        worker = worker_main.DemoWorker(lambda text: posted.append(json.loads(text)), _saver())
        slow = {"kind": "offline", "token_delay_ms": 5000, "turn_deadline_s": 1}
        worker.configure(slow)
        await worker.chat("a", {"type": "chat", "text": "plan the launch of our new product"})
        await asyncio.sleep(0.05)

    asyncio.run(asyncio.wait_for(flow(), 30))
    errors = [event for event in posted if event["type"] == "error"]
    assert errors == [
        {
            "type": "error",
            "message": "The turn ran past its deadline of 1 s and was stopped.",
            "thread_id": "a",
        }
    ]
    assert {"type": "status", "stage": "cancelled", "thread_id": "a"} in posted


@pytest.mark.parametrize("value", [0, 0.5, 86401, "60", True, float("nan")])
def test_a_turn_deadline_out_of_range_is_refused(value: Any) -> None:
    """configure_model refuses a turn_deadline_s that is not a number from 1 to 86,400."""
    with pytest.raises(ModelError, match=r"^turn_deadline_s must be a number from 1 to 86,400\.$"):
        worker_main.turn_deadline({"kind": "offline", "turn_deadline_s": value})
