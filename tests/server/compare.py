"""Run the flows on the real LangGraph Server and on pyctx_web's server, and diff their transcripts.

``.venv/bin/python -m tests.server.compare [FLOW ...]`` starts both servers (the real one as
``./build.sh server`` installs it), runs each flow (all by default) against each over real
HTTP, and prints a unified diff of the normalized transcripts, less :data:`SERVER_ONLY`;
it exits with 1 when a flow differs. The tier turns a flow into a test of pyctx_web once it
gives no difference (README.md in this folder).
"""

from __future__ import annotations

import difflib
import sys
import tempfile
from pathlib import Path

from tests.server import pyctx_side
from tests.server.flows import FLOWS, run_flow
from tests.server.reference import langgraph_dev
from tests.server.transcript import render

# What only the real server says about itself, left out of both sides before they are
# compared: its versions, plan, host and request ids in a run's and a checkpoint's metadata;
# the user its authentication found (the in-page server has no authentication: the page is
# its only user); and the time its HTTP layer received the run's request, in milliseconds
# since the epoch, which its run records keep in their config. Also ``lc_versions``, the
# versions of the LangChain packages installed beside a server, which LangChain's callbacks
# put in a chat model's metadata: the two servers run in environments of their own.
SERVER_ONLY = frozenset(
    {
        "lc_versions",
        "langgraph_api_url",
        "langgraph_api_version",
        "langgraph_auth_permissions",
        "langgraph_auth_user",
        "langgraph_auth_user_id",
        "langgraph_host",
        "langgraph_plan",
        "langgraph_request_id",
        "langgraph_version",
        "__request_start_time_ms__",
    }
)


def normalized(base_url: str, name: str) -> str:
    """Flow ``name`` run against the server at ``base_url``: its transcript, less SERVER_ONLY."""
    return render(run_flow(base_url, name), base_url, SERVER_ONLY)


def difference(name: str, reference_url: str, pyctx_url: str, expected: str | None = None) -> str:
    """The unified diff of flow ``name``'s transcripts (empty when they are the same).

    ``expected``, when given, is the real server's transcript of the flow already taken.
    """
    if expected is None:
        expected = normalized(reference_url, name)
    actual = normalized(pyctx_url, name)
    lines = difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), "langgraph-server", "pyctx_web", lineterm=""
    )
    return "\n".join(lines)


def main(names: list[str]) -> int:
    """Print each flow's difference; 1 when any flow differs."""
    unknown = sorted(set(names) - set(FLOWS))
    if unknown:
        print(f"unknown flows: {', '.join(unknown)}; known: {', '.join(FLOWS)}", file=sys.stderr)
        return 2
    status = 0
    with (
        tempfile.TemporaryDirectory() as workdir,
        langgraph_dev(Path(workdir)) as reference,
        pyctx_side.serve() as pyctx,
    ):
        for name in names or list(FLOWS):
            diff = difference(name, reference, pyctx)
            print(f"# {name}: {'same' if not diff else 'differs'}")
            if diff:
                print(diff)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
