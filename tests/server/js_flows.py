"""Client flows written with LangGraph's JavaScript SDK, run by Node, as transcripts of the tier.

``js/flows.mjs`` runs one flow with ``@langchain/langgraph-sdk``'s ``Client`` (from
node_modules, as package.json pins it) against a base URL, with a fetch that records each
exchange as a JSON line. :func:`js_flow` makes such a flow a flow of the tier: it runs Node
against the Recorder's server and adds the exchanges Node recorded to the Recorder's, so
they are rendered, kept in ``expected/`` and compared as the HTTP flows are.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.server.transcript import Exchange, Recorder, parse_sse

SCRIPT = Path(__file__).resolve().parent / "js" / "flows.mjs"
ROOT = SCRIPT.parents[3]
NODE_LIMIT = 120.0  # seconds a Node flow may take before it is given up on


def _exchange(record: dict[str, Any]) -> Exchange:
    if "stopped" in record:
        return Exchange("#", f"the flow stopped: {record['stopped']}", None, {}, 0, {})
    exchange = Exchange(
        record["method"],
        record["path"],
        record["body"],
        record["request_headers"],
        record["status"],
        record["headers"],
    )
    text: str = record.get("text", "")
    if record["headers"].get("content-type", "").startswith("text/event-stream"):
        exchange.events = list(parse_sse(iter(text.splitlines())))
    elif text:
        exchange.json = _json_or_text(text)
    return exchange


def _json_or_text(text: str) -> Any:
    # A body that is not JSON (a plain-text error page) is kept as its text.
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def read_exchanges(path: Path) -> list[Exchange]:
    """The exchanges ``js/flows.mjs`` wrote to ``path``, one JSON line each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [_exchange(json.loads(line)) for line in lines if line]


def js_flow(name: str) -> Callable[[Recorder], None]:
    """A flow of the tier that runs ``js/flows.mjs``'s flow ``name`` with Node."""

    def flow(client: Recorder) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("node is missing: the JavaScript SDK's flows need Node")
        with tempfile.TemporaryDirectory() as folder:
            output = Path(folder) / "exchanges.jsonl"
            command = [node, str(SCRIPT), client.base_url, name, client.tag, str(output)]
            subprocess.run(command, cwd=ROOT, check=True, timeout=NODE_LIMIT)
            client.exchanges.extend(read_exchanges(output))

    flow.__doc__ = f"The JavaScript SDK's flow {name!r} (tests/server/js/flows.mjs)."
    return flow


JS_FLOWS = (
    "chat_interrupt",
    "edit_and_branch",
    "background_control",
    "resumable",
    "stateless_and_errors",
)
"""The flows of ``js/flows.mjs``, named ``js_<name>`` among the tier's flows."""
