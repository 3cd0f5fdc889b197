"""Client flows written with LangGraph's Python SDK, as transcripts of the server tier.

``py_sdk/flows.py`` runs one flow with ``langgraph-sdk``'s sync client, in the real
server's venv (build/cache/server-ref, which has the SDK: .venv has not), against a base
URL, recording each exchange as a JSON line as ``js/flows.mjs`` does. :func:`py_sdk_flow`
makes such a flow a flow of the tier, as :func:`tests.server.js_flows.js_flow` does.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.server.js_flows import read_exchanges
from tests.server.reference import ROOT
from tests.server.transcript import Recorder

SCRIPT = Path(__file__).resolve().parent / "py_sdk" / "flows.py"
PYTHON = ROOT / "build" / "cache" / "server-ref" / "venv" / "bin" / "python"
LIMIT = 120.0  # seconds a flow may take before it is given up on

PY_SDK_FLOWS = ("chat_interrupt", "background_rollback", "breakpoint_edit")
"""The flows of ``py_sdk/flows.py``, named ``py_<name>`` among the tier's flows."""


def py_sdk_flow(name: str) -> Callable[[Recorder], None]:
    """A flow of the tier that runs ``py_sdk/flows.py``'s flow ``name``."""

    def flow(client: Recorder) -> None:
        if not PYTHON.exists():
            raise RuntimeError(f"{PYTHON} is missing: run ./build.sh server (it installs it)")
        with tempfile.TemporaryDirectory() as folder:
            output = Path(folder) / "exchanges.jsonl"
            command = [str(PYTHON), str(SCRIPT), client.base_url, name, client.tag, str(output)]
            subprocess.run(command, cwd=ROOT, check=True, timeout=LIMIT)
            client.exchanges.extend(read_exchanges(output))

    flow.__doc__ = f"The Python SDK's flow {name!r} (tests/server/py_sdk/flows.py)."
    return flow
