"""The package imports on CPython; build.sh and the demo server stop on a missing prerequisite."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import pyctx_web

ROOT = Path(__file__).resolve().parents[2]


def test_version_comes_from_package_metadata() -> None:
    """__version__ is the installed distribution's version."""
    assert pyctx_web.__version__ == importlib.metadata.version("pyctx-web")


def test_all_lists_exactly_the_public_names() -> None:
    """Every name in __all__ exists, and every public module-level name is in __all__."""
    for name in pyctx_web.__all__:
        assert hasattr(pyctx_web, name), name
    public = {
        name
        for name, value in vars(pyctx_web).items()
        if not name.startswith("_") and not isinstance(value, type(sys))
    }
    assert public <= set(pyctx_web.__all__), public - set(pyctx_web.__all__)


def test_not_in_pyodide_on_cpython() -> None:
    """IN_PYODIDE and IN_BROWSER are false on CPython, where no js module exists."""
    assert pyctx_web.IN_PYODIDE is False
    assert pyctx_web.IN_BROWSER is False
    assert "js" not in sys.modules


def test_wheel_ships_py_typed() -> None:
    """The package is marked as typed."""
    assert (ROOT / "pyctx_web" / "py.typed").is_file()


def _bin_without(tmp_path: Path, *missing: str) -> Path:
    """A bin folder with links to the tools build.sh needs, less the ones named."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in [
        "bash",
        "cat",
        "cut",
        "dirname",
        "sha256sum",
        "env",
        "id",
        "node",
        "npm",
        "python3",
    ]:
        if tool in missing:
            continue
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    return bin_dir


def _run_build_sh(tmp_path: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(ROOT / "build.sh", checkout / "build.sh")
    shutil.copy(ROOT / "pyproject.toml", checkout / "pyproject.toml")
    return subprocess.run(
        ["bash", str(checkout / "build.sh"), "setup"],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_build_sh_without_node_says_so_in_one_line(tmp_path: Path) -> None:
    """Without Node, build.sh stops at once with one line naming Node and how to get it."""
    result = _run_build_sh(tmp_path, _bin_without(tmp_path, "node", "npm"))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert "Node.js >= 18 is missing" in result.stderr
    assert "apt-get install nodejs" in result.stderr


def test_build_sh_without_python_312_says_so_in_one_line(tmp_path: Path) -> None:
    """With only a Python older than 3.12 and no pyenv, build.sh stops with one line naming it."""
    bin_dir = _bin_without(tmp_path, "python3")
    old = shutil.which("python3.11") or "/root/.pyenv/versions/3.11.7/bin/python3.11"
    if not os.path.exists(old):
        pytest.skip("no Python 3.11 interpreter on this machine to stand in for an old python3")
    (bin_dir / "python3").symlink_to(old)
    result = _run_build_sh(tmp_path, bin_dir)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert "a Python >= 3.12 is missing" in result.stderr


def test_demo_server_reports_a_taken_port(tmp_path: Path) -> None:
    """The demo server exits with one line naming the taken port and the --port option."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        dist = tmp_path / "dist"
        dist.mkdir()
        (dist / "pyodide.mjs").write_text("")
        result = subprocess.run(
            [
                sys.executable,
                str(ROOT / "demo" / "serve.py"),
                "--port",
                str(port),
                "--dist",
                str(dist),
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"serve.py: port {port} is taken: pass --port N (or set PORT) to use another"
    )


def test_after_restore_draws_fresh_random_state() -> None:
    """after_restore() reseeds the random module and the random part of checkpoint ids."""
    import random

    from pyctx_web.graph._engine import ids

    # Copies of both generators as a snapshot holds them: what every restored copy would draw.
    module_copy = random.Random()
    module_copy.setstate(random.getstate())
    ids_copy = random.Random()
    # _random is the bound getrandbits of the ids' generator, which is its __self__.
    ids_copy.setstate(ids._random.__self__.getstate())  # type: ignore[attr-defined]
    pyctx_web.after_restore()
    assert random.getrandbits(64) != module_copy.getrandbits(64)
    assert ids._random(64) != ids_copy.getrandbits(64)
