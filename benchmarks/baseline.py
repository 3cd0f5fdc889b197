"""The baseline build the startup figures are compared with: an earlier commit, built once.

:data:`BASELINE_REF` names the commit. :func:`ensure_baseline` builds, from
``git archive`` of it and cached by its ref under ``build/bench/baseline-REF``:
its sources (``src``), its wheel (``wheel``, ``python -m build`` of those sources)
and its distribution (``dist``): the stock Pyodide package of its pin, with its
stock ``python_stdlib.zip``, the pinned wheels and its own wheel registered in
the lock file, as its ``build.sh`` assembled it. Its demo is served by its own
``demo/serve.py``.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BASELINE_REF = "27b2fa1"
"""The commit whose build the startup and run-time figures are compared with."""

PROTOCOL_REF = "ecb5865"
"""A commit whose demo page spoke the chat protocol to its worker, with the rest of the
package as the LangGraph SDK client's page has it (the latest such commit when the page
became a client of its worker's agent server): the first-token row's baseline."""


@dataclass(frozen=True)
class Build:
    """Where one build's files are: its sources, its wheel and its Pyodide distribution."""

    label: str
    """How the tables name it."""
    src: Path
    """Its source tree: the package, ``demo/`` and ``pyproject.toml``."""
    wheel: Path
    """Its pyctx_web wheel (the one its demo loads)."""
    dist: Path
    """Its Pyodide distribution, served as ``/pyodide/``."""


def current_build(dist: Path) -> Build:
    """The working tree's build: ``build/dist`` as ``./build.sh setup`` assembled it."""
    wheel = lock_wheel(dist) or _newest(ROOT / "build" / "wheel")
    return Build("this build", ROOT, wheel, dist)


def lock_wheel(dist: Path) -> Path | None:
    """The wheel that ``pyodide-lock.json`` in ``dist`` registers for ``pyctx-web``, if any."""
    try:
        packages = json.loads((dist / "pyodide-lock.json").read_text())["packages"]
    except (OSError, KeyError, ValueError):
        return None
    entry = packages.get("pyctx-web") or packages.get("pyctx_web")
    if not entry:
        return None
    path = dist / entry["file_name"]
    return path if path.is_file() else None


def _newest(folder: Path) -> Path:
    wheels = sorted(folder.glob("pyctx_web-*.whl"), key=lambda path: path.stat().st_mtime)
    if not wheels:
        raise FileNotFoundError(f"no pyctx_web wheel in {folder}: run ./build.sh setup")
    return wheels[-1]


def ensure_baseline(ref: str = BASELINE_REF) -> Build:
    """The baseline build of ``ref``, built on first use and reused while its folder exists."""
    home = ROOT / "build" / "bench" / f"baseline-{ref}"
    build = Build(f"baseline {ref}", home / "src", home / "wheel", home / "dist")
    if (home / ".done").is_file():
        return Build(build.label, build.src, _newest(build.wheel), build.dist)
    print(f"bench: building the baseline {ref} once (build/bench/baseline-{ref})", file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    build.src.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(build.src, filter="data")
    wheel_options = ["-q", "--wheel", "--no-isolation", "--outdir", str(build.wheel)]
    subprocess.run(
        [sys.executable, "-m", "build", *wheel_options, str(build.src)],
        capture_output=True,
        check=True,
    )
    _assemble_dist(build)
    _demo_files(build, home / "demo-app")
    (home / ".done").write_text(ref + "\n")
    return Build(build.label, build.src, _newest(build.wheel), build.dist)


def _assemble_dist(build: Build) -> None:
    """The baseline's ``build/dist``: stock Pyodide, the pinned wheels and its own wheel."""
    pins = tomllib.loads((build.src / "pyproject.toml").read_text())["tool"]["pyctx-web"]["dist"]
    stock = ROOT / "build" / "cache" / f"pyodide-{pins['pyodide']}" / "package"
    if not (stock / "pyodide-lock.json").is_file():
        raise FileNotFoundError(f"{stock} is missing: run ./build.sh setup")
    shutil.copytree(stock, build.dist)
    for wheel in (ROOT / "build" / "cache" / "wheels").glob("*.whl"):
        shutil.copy2(wheel, build.dist)
    shutil.copy2(_newest(build.wheel), build.dist)
    wheels = sorted(f"./{wheel.name}" for wheel in build.dist.glob("*.whl"))
    options = ["--input", "pyodide-lock.json", "--output", "pyodide-lock.json", "--base-path", "."]
    subprocess.run(
        [str(ROOT / ".venv" / "bin" / "pyodide"), "lockfile", "add-wheels", *options, *wheels],
        cwd=build.dist,
        capture_output=True,
        check=True,
    )


def _demo_files(build: Build, demo_app: Path) -> None:
    """What a demo served with its app compiled needs beside the distribution: ``app.zip``
    (``demo/app`` compiled by the ref's own ``tools/bytecode.mjs`` in its Pyodide) and the
    page's ``pyctx_web.mjs``. Nothing for a ref whose ``demo/serve.py`` serves no ``demo-app``."""
    serve = build.src / "demo" / "serve.py"
    if not serve.is_file() or '"demo-app"' not in serve.read_text():
        return
    demo_app.mkdir(parents=True, exist_ok=True)
    mount = "/home/pyodide/demo_app"  # where its worker unpacks the app (its build.sh's)
    compile_app = [str(build.src / "tools" / "bytecode.mjs"), str(build.dist), "folder"]
    compile_app += [str(build.src / "demo" / "app"), str(demo_app / "app.zip"), mount]
    subprocess.run(["node", *compile_app], capture_output=True, check=True, cwd=build.src)
    source = (
        "import sys; from pyctx_web._js import module_source; "
        "open(sys.argv[1], 'w', encoding='utf-8').write(module_source())"
    )
    subprocess.run(
        [sys.executable, "-c", source, str(build.dist / "pyctx_web.mjs")],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(build.src)},
    )


def stdlib_is_compiled(dist: Path) -> bool:
    """Whether ``python_stdlib.zip`` in ``dist`` holds bytecode rather than only sources."""
    import zipfile

    with zipfile.ZipFile(dist / "python_stdlib.zip") as archive:
        return any(name.endswith(".pyc") for name in archive.namelist())
