"""The worker's Python end: what it preloads for the snapshot, its server and its page messages."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import worker_main

import pyctx_web
from pyctx_web.server import AgentServer
from tests.unit.demo.api import DemoApi

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


def test_the_rehearsal_streams_the_models_question() -> None:
    """The run preload() rehearses goes as far as the model's question."""
    raw = asyncio.run(worker_main.rehearse(worker_main.make_server()))
    assert b"What should I do with your email?" in raw
    assert b"event: error" not in raw


BOOT = """
import asyncio, sys
sys.path.insert(0, {app!r})
import worker_main
asyncio.run(worker_main.boot(lambda text: None))
print("\\n".join(sys.modules))
"""

NOT_AT_BOOT = {
    "pkgutil": "only preload() walks the packages, for the snapshot",
    "openai_model": "the API model comes with the settings that choose it",
    "sdk_transport": "the OpenAI SDK's transport comes with the API model",
    "openai": "the OpenAI SDK is loaded when the API model is chosen",
    "pyctx_web.graph._internal._runnable": "only LangChain's agents make RunnableCallable nodes",
}
"""Modules a worker's start (import and boot) leaves for later, with why."""


def test_booting_the_worker_leaves_what_only_later_steps_use_unimported() -> None:
    """import worker_main and boot() leave pkgutil, the API model and the OpenAI SDK unimported."""
    done = subprocess.run(
        [sys.executable, "-c", BOOT.format(app=str(APP))],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(done.stdout.split())
    assert "worker_main" in loaded
    assert loaded & set(NOT_AT_BOOT) == set()


def test_boot_gives_the_server_whose_first_run_gets_its_question(monkeypatch: Any) -> None:
    """boot(post) returns the worker's AgentServer: after prepare(), a first run on a new
    thread of graph agent ends at the model's question."""
    monkeypatch.setattr(worker_main, "_worker", None)

    async def flow() -> list[Any]:
        server = await worker_main.boot(lambda text: None)
        assert isinstance(server, AgentServer)
        worker_main.prepare()
        api = DemoApi(server)
        await api.new_thread()
        await api.say(worker_main.REHEARSAL_TEXT)
        return await api.pending()

    [question] = asyncio.run(flow())
    assert question["question"] == "What should I do with your email?"


def test_receive_before_boot_says_to_boot_first(monkeypatch: Any) -> None:
    """A page message before boot() is refused with what to call first."""
    monkeypatch.setattr(worker_main, "_worker", None)
    with pytest.raises(
        RuntimeError, match=r"^the worker is not booted: call await boot\(post\) first$"
    ):
        worker_main.receive("{}")


def answers(*messages: Any) -> list[dict[str, Any]]:
    """What the worker posts for each page message (outside the API), in order."""
    posted: list[dict[str, Any]] = []
    worker = worker_main.DemoWorker(lambda text: posted.append(json.loads(text)), None)  # type: ignore[arg-type]
    for message in messages:
        worker.receive(json.dumps(message))
    return posted


def test_configure_model_checks_the_settings_and_answers_with_the_model() -> None:
    """configure_model answers ok with what the page may show of the model, or why not."""
    posted = answers(
        {"op": "configure_model", "model": {"kind": "offline", "token_delay_ms": 5}},
        {"op": "configure_model", "model": {"kind": "gpt"}},
        {
            "op": "configure_model",
            "model": {"kind": "openai", "base_url": "http://x", "model": "m"},
        },
    )
    assert posted == [
        {"type": "model", "ok": True, "kind": "offline", "token_delay_ms": 5},
        {
            "type": "model",
            "ok": False,
            "message": "Unknown model kind 'gpt': choose offline or openai.",
        },
        {"type": "model", "ok": False, "message": "The OpenAI-compatible model needs an API key."},
    ]


def test_graph_is_answered_with_the_assistants_nodes_and_edges() -> None:
    """{op: graph} is answered with the assistant's nodes and edges, as get_graph() draws them."""
    [drawn] = answers({"op": "graph"})
    assert drawn["type"] == "graph"
    assert [node["id"] for node in drawn["nodes"]] == [
        "__start__", "intake", "enrich", "plan", "respond", "__end__"
    ]  # fmt: skip
    assert {"source": "plan", "target": "respond", "conditional": False} in drawn["edges"]


def test_a_message_the_worker_does_not_take_is_answered_with_an_error() -> None:
    """An unknown op, or a message that is not an object, gets one error naming the problem."""
    assert answers({"op": "send"}, [1]) == [
        {"type": "error", "message": "Unknown op 'send': expected configure_model or graph."},
        {"type": "error", "message": "A message to the worker must be an object with an op."},
    ]


def test_a_failing_background_task_is_posted_as_an_error() -> None:
    """start(work, failure) posts an error naming the failure and the exception."""
    posted: list[dict[str, Any]] = []

    async def broken() -> None:
        raise OSError("disk gone")

    async def flow() -> None:
        worker = worker_main.DemoWorker(lambda text: posted.append(json.loads(text)), None)  # type: ignore[arg-type]
        worker.start(broken(), "The checkpoint store could not open")
        await asyncio.sleep(0.01)

    asyncio.run(flow())
    assert posted == [
        {"type": "error", "message": "The checkpoint store could not open: disk gone"}
    ]
