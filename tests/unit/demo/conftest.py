"""The demo's Python app (demo/app) is a folder of top-level modules, as the worker loads them.

Its graph imports LangGraph's names, which are pyctx_web's here (``install_as_langgraph``,
as the worker registers them); ``api.py`` drives the worker's server as the page's client does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyctx_web.graph import install_as_langgraph

APP = Path(__file__).resolve().parents[3] / "demo" / "app"
if str(APP) not in sys.path:
    sys.path.insert(0, str(APP))
install_as_langgraph()
