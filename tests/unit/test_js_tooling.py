"""The JavaScript tooling's pins (package.json): exact, locked, and the built Pyodide's types."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _dev_dependencies() -> dict[str, str]:
    package: dict[str, Any] = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    assert "dependencies" not in package, "the JavaScript tooling is for development only"
    dev: dict[str, str] = package["devDependencies"]
    return dev


def test_every_tool_is_pinned_to_one_version() -> None:
    """Each package of the JavaScript tooling is pinned to an exact version, not a range."""
    loose = {
        name: v for name, v in _dev_dependencies().items() if not re.fullmatch(r"\d+\.\d+\.\d+", v)
    }
    assert loose == {}


def test_pyodide_types_are_those_of_the_pyodide_built() -> None:
    """The Pyodide whose types tsc checks the JavaScript against is the one build/dist holds."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    built = pyproject["tool"]["pyctx-web"]["dist"]["pyodide"]
    assert _dev_dependencies()["pyodide"] == built


def test_lock_file_installs_the_pinned_versions() -> None:
    """package-lock.json (what npm ci installs) holds the versions package.json pins."""
    lock: dict[str, Any] = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    locked = {
        name: lock["packages"][f"node_modules/{name}"]["version"] for name in _dev_dependencies()
    }
    assert locked == _dev_dependencies()
