"""The harness of the OpenAI-compatible model's Pyodide tests: the app modules and the server.

demo/app's model modules (protocol, http_policy, csp, reply_watch, sdk_reply,
sdk_transport, openai_model) are written into Pyodide's file system and imported as
the demo's worker imports them; the model loads the OpenAI SDK's packages from the
distribution when first used, as in the page. The scripted server
(tests/e2e/openai_server.py) runs in the test process on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.openai_server import OpenAIServer

__all__ = ["ASK_USER", "KEY", "MESSAGES", "app", "chunk", "complete", "server"]

APP = Path(__file__).resolve().parents[2] / "demo" / "app"
MODULES = (
    "model_error",
    "protocol",
    "http_policy",
    "csp",
    "reply_watch",
    "sdk_reply",
    "sdk_transport",
    "openai_model",
)
KEY = "sk-test-7Hq2-secret"
MESSAGES = [
    {"role": "system", "content": "You are the demo assistant."},
    {"role": "user", "content": "help me with email"},
]
ASK_USER = {
    "type": "function",
    "function": {
        "name": "ask_user",
        "description": "Ask the user a question.",
        "parameters": {"type": "object", "properties": {"question": {"type": "string"}}},
    },
}

_INSTALL = """
import base64 as _b64, importlib as _il, json as _json, pathlib as _pl, sys as _sys
_root = _pl.Path("/tmp/demo_app")
_root.mkdir(parents=True, exist_ok=True)
for _name, _text in _json.loads(_b64.b64decode("%s").decode()).items():
    (_root / f"{_name}.py").write_text(_text, encoding="utf-8")
    _sys.modules.pop(_name, None)
if str(_root) not in _sys.path:
    _sys.path.insert(0, str(_root))
_il.invalidate_caches()
import openai_model
"""


@pytest.fixture(scope="module")
def app(pyctx_module: Any) -> Any:
    """One Pyodide per module with the demo's model modules importable."""
    sources = {name: (APP / f"{name}.py").read_text(encoding="utf-8") for name in MODULES}
    encoded = base64.b64encode(json.dumps(sources).encode()).decode("ascii")
    pyctx_module.run(_INSTALL % encoded)
    return pyctx_module


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    """The scripted API on a free port of 127.0.0.1, shared by the module's tests."""
    with OpenAIServer() as running:
        yield running


_COMPLETE = """
async def _pyctx_complete(args):
    from openai_model import OpenAICompatibleModel
    from protocol import ModelError

    settings = args["settings"]
    model = OpenAICompatibleModel(args["base_url"], "scripted-model", args["key"], **settings)
    tokens = []

    async def on_token(piece):
        tokens.append(piece)

    try:
        reply = await model.complete(args["messages"], args["tools"], on_token=on_token)
    except ModelError as error:
        return {"error": str(error), "tokens": tokens}
    calls = [[call.id, call.name, call.arguments] for call in reply.tool_calls]
    return {"content": reply.content, "tool_calls": calls, "tokens": tokens}

import base64 as _b64, json as _json
_json.dumps(await _pyctx_complete(_json.loads(_b64.b64decode("%s").decode())))
"""


def complete(
    app: Any,
    server: OpenAIServer,
    *script: Any,
    base_url: str | None = None,
    tools: Any = (),
    **settings: Any,
) -> dict[str, Any]:
    """Script the server, then answer MESSAGES in Pyodide: the reply, or the ModelError's text."""
    server.script(*script)
    args = {
        "base_url": base_url or server.base_url,
        "key": KEY,
        "settings": settings,
        "messages": MESSAGES,
        "tools": list(tools),
    }
    encoded = base64.b64encode(json.dumps(args).encode()).decode("ascii")
    result: dict[str, Any] = json.loads(app.run_async(_COMPLETE % encoded))
    return result


def chunk(delta: Any, finish: str | None = None) -> dict[str, Any]:
    """A chat completion chunk of choice 0."""
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
