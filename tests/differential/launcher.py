"""Run a LangGraph program on pyctx_web: ``python launcher.py PROGRAM [ARGS ...]``.

Registers pyctx_web under LangGraph's module names (``langgraph.graph``,
``langgraph.types``, ...) with ``install_as_langgraph()``, then runs the
program as ``__main__``, unchanged.
"""

from __future__ import annotations

import runpy
import sys

from pyctx_web.graph import install_as_langgraph


def main() -> None:
    """Install pyctx_web as ``langgraph`` and run the program named by the first argument."""
    install_as_langgraph()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
