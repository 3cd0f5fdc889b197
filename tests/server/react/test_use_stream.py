"""LangGraph's React hook, ``useStream``, holding one conversation with the real LangGraph Server
and with ``pyctx_web.server``: the hook's states must be the same.

``conversation.mjs`` renders the real hook (React, react-dom and
``@langchain/langgraph-sdk/react`` from node_modules) into a jsdom document under Node and
talks over real HTTP to a server of the useStream example's graph
(``examples/usestream/graph.py``): a message, a new hook mounted on the thread while its
question waits (as a reloaded page), the question answered, an approval, then a second turn
whose email is rejected. After each step it records the hook's values, messages,
interrupt and error; ids are replaced by ``<id:N>`` in order of first appearance, since
each server makes its own.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server import pyctx_side
from tests.server.reference import ServerStartError, langgraph_dev

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
GRAPH_FOLDER = ROOT / "examples" / "usestream"
CONVERSATION = HERE / "conversation.mjs"
RUN_LIMIT = 180.0  # seconds for the whole conversation, far above its ~2 s

IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")
"""UUIDs (thread, run, message ids; inside ``lc_run--...`` too) and interrupt ids (32 hex)."""

STEPS = ["mount", "ask", "reload", "answer", "approve", "ask again", "answer again", "reject"]
ANSWERS = {
    "approve": "Done: sent the weekly report to ana@example.com.",
    "reject": "All right, I did not send the report.",
}
"""The steps that end with the model's streamed text, and that text."""


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real LangGraph Server (``langgraph dev``) serving examples/usestream's graph."""
    try:
        with langgraph_dev(tmp_path_factory.mktemp("usestream-real"), GRAPH_FOLDER) as url:
            yield url
    except ServerStartError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="module")
def pyctx_server() -> Iterator[str]:
    """``pyctx_web.server`` serving the same graph file, over HTTP."""
    with pyctx_side.serve(GRAPH_FOLDER) as url:
        yield url


def converse(base_url: str) -> list[dict[str, Any]]:
    """The steps ``conversation.mjs`` recorded against the server at ``base_url``."""
    done = subprocess.run(
        ["node", str(CONVERSATION), base_url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_LIMIT,
        check=False,
    )
    assert done.returncode == 0, f"conversation.mjs failed against {base_url}:\n{done.stderr}"
    steps: list[dict[str, Any]] = json.loads(done.stdout)["steps"]
    return steps


def normalized(value: Any) -> Any:
    """``value`` with each distinct id replaced by ``<id:N>``, N in order of first appearance."""
    seen: dict[str, str] = {}
    text = json.dumps(value, sort_keys=True)
    return json.loads(IDS.sub(lambda m: seen.setdefault(m[0], f"<id:{len(seen)}>"), text))


def settled_states(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The hook's state once each step settled, by step name, ids normalized."""
    states: dict[str, Any] = normalized({step["name"]: step["settled"] for step in steps})
    return states


def interrupt_actions(state: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The pending interrupt's actions and the decisions each allows."""
    request = state["interrupt"]["value"]
    configs = {config["action_name"]: config for config in request["review_configs"]}
    return [
        (action["name"], configs[action["name"]]["allowed_decisions"])
        for action in request["action_requests"]
    ]


def assert_streamed_answers(steps: list[dict[str, Any]]) -> None:
    """The answers of the model streamed: the hook showed each growing, ending in the whole."""
    for step in steps:
        streamed = step["streamed"]
        if step["name"] not in ANSWERS:
            continue
        assert streamed[-1] == ANSWERS[step["name"]]
        assert len(streamed) > 1, f"{step['name']}: the answer came whole, not streamed"
        assert all(later.startswith(text) for text, later in itertools.pairwise(streamed))


def test_use_stream_sees_the_same_states_on_both_servers(
    real_server: str, pyctx_server: str
) -> None:
    """useStream's values, messages, interrupt and error after each step of a conversation with
    two interrupts per turn are the same on pyctx_web's server as on the real LangGraph Server."""
    real = converse(real_server)
    ours = converse(pyctx_server)
    assert [step["name"] for step in real] == STEPS
    states = settled_states(real)
    assert interrupt_actions(states["ask"]) == [("ask_user", ["respond"])]
    assert states["reload"]["messages"] == states["ask"]["messages"]
    # Read back from the thread's state: the interrupt without its stream's response_schema.
    assert states["reload"]["interrupt"] == {
        key: states["ask"]["interrupt"][key] for key in ("id", "value")
    }
    assert interrupt_actions(states["answer"]) == [("send_email", ["approve", "reject"])]
    assert states["approve"]["interrupt"] is None
    assert states["approve"]["values"]["outbox"] == [
        {"to": "ana@example.com", "subject": "The weekly report"}
    ]
    assert states["reject"]["messages"][-1]["content"] == ANSWERS["reject"]
    assert_streamed_answers(real)
    assert_streamed_answers(ours)
    assert settled_states(ours) == settled_states(real)
