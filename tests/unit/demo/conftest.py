"""The demo's Python app (demo/app) is a folder of top-level modules, as the worker loads them."""

from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[3] / "demo" / "app"
if str(APP) not in sys.path:
    sys.path.insert(0, str(APP))
