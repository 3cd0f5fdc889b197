"""Import figures in Pyodide under Node: each import timed in a fresh interpreter.

Every sample is one ``node import_node.mjs`` process: Pyodide loads, the wheel's
files are written into site-packages, and one ``import`` is timed with
``time.perf_counter`` inside Python. The kinds of sample (this build and the
baseline; ``pyctx_web``, ``pyctx_web.chat``, and ``pyctx_web.chat`` with its
``ChatSession``) take turns, in rotating order.
One more process per build imports ``pyctx_web.chat``, then runs the demo app's
start and first message ("help me with email", offline model) with a profiler
that records every module whose code runs: the modules the import added that
ran nothing are the ones a chat session did not need before its first message.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import goals
from baseline import ROOT, Build

HERE = Path(__file__).resolve().parent
TARGETS = ("pyctx_web", "pyctx_web.chat", "pyctx_web.chat._session")
"""What is imported: the context store, the chat protocol, and the chat protocol with
:class:`~pyctx_web.chat.ChatSession` (which ``pyctx_web.chat`` imports when first named)."""


def unpacked(wheel: Path) -> Path:
    """``wheel``'s files unpacked under ``build/bench/site``, once per wheel content."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()[:16]
    folder = ROOT / "build" / "bench" / "site" / f"{wheel.stem}-{digest}"
    if not (folder / ".done").is_file():
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(folder)
        (folder / ".done").write_text(wheel.name + "\n")
    return folder


def sample(build: Build, module: str, *, session: bool = False) -> dict[str, Any]:
    """One fresh interpreter of ``build``: the import of ``module``, and the first message."""
    command = ["node", str(HERE / "import_node.mjs"), str(build.dist), str(unpacked(build.wheel))]
    command.append(module)
    if session:
        command.append(str(build.src / "demo" / "app"))
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def rows(current: Build, base: Build, *, rounds: int, quick: bool) -> list[dict[str, Any]]:
    """The import rows: both targets timed against the baseline, and chat's unused modules."""
    kinds = [(build, target) for target in TARGETS for build in (current, base)]
    times: dict[tuple[str, str], list[float]] = {}
    added: dict[tuple[str, str], list[str]] = {}
    for round_index in range(rounds):
        for build, target in goals.rotation(kinds, round_index):
            measured = sample(build, target)
            times.setdefault((build.label, target), []).append(measured["ms"])
            added[(build.label, target)] = measured["modules"]
    note = goals.rounds_note(rounds, quick) + "; a fresh Pyodide each"
    runtime = "pyodide-node"

    def row(name: str, target: str, *, limit: float, about: str = "") -> dict[str, Any]:
        counts = [
            f"{build.label}: {len(added[(build.label, target)])} modules added"
            for build in (current, base)
        ]
        return goals.bounded(
            name,
            runtime,
            times[(current.label, target)],
            "ms",
            limit=limit,
            bases=times[(base.label, target)],
            baseline=f"{base.label}, interleaved",
            note="; ".join([note, *([about] if about else []), ", ".join(counts)]),
        )

    store = row("import pyctx_web (the context store)", "pyctx_web", limit=10)
    unused, base_unused = chat_unused(current), chat_unused(base)
    chat = row("import pyctx_web.chat", "pyctx_web.chat", limit=float("inf"))
    listed = "not measured (no question came)" if unused is None else ", ".join(unused) or "none"
    chat.update(
        goal="imports only what the first message uses",
        met=None if unused is None else not unused,
        note=chat["note"] + f"; imported but unused by the demo's first message: {listed}"
        f" ({base.label}: {len(base_unused or [])})",
    )
    session = row(
        "import pyctx_web.chat, then its ChatSession",
        "pyctx_web.chat._session",
        limit=float("inf"),
        about="what a page that makes a session pays for the chat protocol",
    )
    session.update(goal=None, met=None)
    return [store, chat, session]


def chat_unused(build: Build) -> list[str] | None:
    """The modules ``import pyctx_web.chat`` adds that the demo's first message runs no code of.

    ``None`` when the first message did not reach its question.
    """
    measured = sample(build, "pyctx_web.chat", session=True)
    if not measured.get("asked"):
        return None
    return goals.unused_modules(measured["modules"], measured["used"], measured["importers"])
