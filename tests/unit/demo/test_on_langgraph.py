"""The demo's graph file runs unmodified on LangGraph itself: under ``langgraph dev`` with
``demo/langgraph.json``, the question-and-approval flow through the SDK is the same as on the
worker's pyctx_web server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from worker_main import make_server

from pyctx_web.server import asgi_app
from tests.server.asgi_http import AsgiHttpServer
from tests.server.reference import langgraph_dev

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "demo"
SERVER_REF = ROOT / "build" / "cache" / "server-ref" / "venv" / "bin"
FLOW = Path(__file__).with_name("sdk_flow.py")

needs_server_ref = pytest.mark.skipif(
    not (SERVER_REF / "langgraph").exists(),
    reason="the real LangGraph Server is not installed: ./build.sh server installs it",
)


def sdk_flow(base_url: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(SERVER_REF / "python"), str(FLOW), base_url],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return dict(json.loads(done.stdout))


EXPECTED_TOOL = {
    "id": "call_1",
    "name": "send_email",
    "arguments": {"to": ["boss@example.com"], "subject": "Hi"},
    "status": "edited",
    "content": "Sent “Hi” to boss@example.com.",
}


@needs_server_ref
def test_langgraph_dev_and_the_worker_server_run_the_question_and_approval_flow_alike(
    tmp_path: Path,
) -> None:
    """langgraph dev serving demo/ (graph agent) and the worker's server give the SDK the same
    question, approval request, edited tool call, answer and final thread."""
    with langgraph_dev(tmp_path, DEMO) as base_url:
        real = sdk_flow(base_url)
    http = AsgiHttpServer(asgi_app(make_server()))
    with http as ours_url:
        ours = sdk_flow(ours_url)
    assert http.errors == []
    question, approval = real["interrupts"]
    assert question["question"] == "What should I do with your email?"
    assert approval["action_requests"][0]["name"] == "send_email"
    assert real["tools"] == [EXPECTED_TOOL]
    assert "".join(real["tokens"]).startswith("Sent “Hi” to boss@example.com.")
    assert real["types"] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert (real["status"], real["errors"]) == ("idle", [])
    assert ours == real


def test_the_app_imports_no_pyctx_web_module_for_the_offline_model() -> None:
    """The graph's modules import LangGraph's names, not pyctx_web's: a LangGraph Server without
    pyctx_web serves the demo (the worker registers pyctx_web under those names)."""
    names = {path.stem for path in (DEMO / "app").glob("*.py")}
    offline = {"assistant", "actions", "approval", "messages", "models", "observe"}
    offline |= {"offline_model", "protocol", "model_error"}
    assert offline <= names
    for name in sorted(offline):
        source = (DEMO / "app" / f"{name}.py").read_text(encoding="utf-8")
        imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
        assert not [line for line in imports if "pyctx_web" in line], name
