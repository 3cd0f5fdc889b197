"""Import figures in Pyodide under Node: each import timed in a fresh interpreter.

Every sample is one ``node import_node.mjs`` process: Pyodide loads, the wheel's
files are written into site-packages, and one ``import`` is timed with
``time.perf_counter`` inside Python. The kinds of sample (this build and the
baseline; ``pyctx_web``, and the package the demo's worker speaks to its page with:
``pyctx_web.server``, the LangGraph Server API, or in a build that has it the chat
protocol ``pyctx_web.chat`` with its ``ChatSession``) take turns, in rotating order.
One more process per build imports that package, then runs the demo app's start and
first message ("help me with email", offline model, up to its question) with a
profiler that records every module whose code runs: the modules the import added
that ran nothing are the ones the demo's worker did not need before its first message.
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
STORE = "pyctx_web"
"""The context store, imported alone."""


def protocol_module(build: Build) -> str:
    """What ``build``'s demo worker imports to answer its page: ``pyctx_web.server`` (the
    LangGraph Server API), or, in a build with the chat protocol, ``pyctx_web.chat`` with its
    :class:`~pyctx_web.chat.ChatSession` (which ``pyctx_web.chat`` imports when first named)."""
    if (build.src / "pyctx_web" / "chat").is_dir():
        return "pyctx_web.chat._session"
    return "pyctx_web.server"


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
    """The import rows: the store and each build's protocol package timed against the
    baseline, and the protocol package's modules unused by the first message."""
    builds = (current, base)
    kinds = [(build, target) for target in ("store", "protocol") for build in builds]
    modules = {"store": {b.label: STORE for b in builds}}
    modules["protocol"] = {b.label: protocol_module(b) for b in builds}
    times: dict[tuple[str, str], list[float]] = {}
    added: dict[tuple[str, str], list[str]] = {}
    for round_index in range(rounds):
        for build, target in goals.rotation(kinds, round_index):
            measured = sample(build, modules[target][build.label])
            times.setdefault((build.label, target), []).append(measured["ms"])
            added[(build.label, target)] = measured["modules"]
    note = goals.rounds_note(rounds, quick) + "; a fresh Pyodide each"
    runtime = "pyodide-node"

    def row(name: str, target: str, *, limit: float) -> dict[str, Any]:
        counts = [
            f"{build.label}: {len(added[(build.label, target)])} modules added"
            + ("" if target == "store" else f" by import {modules[target][build.label]}")
            for build in builds
        ]
        return goals.bounded(
            name,
            runtime,
            times[(current.label, target)],
            "ms",
            limit=limit,
            bases=times[(base.label, target)],
            baseline=f"{base.label}, interleaved",
            note="; ".join([note, ", ".join(counts)]),
        )

    store = row("import pyctx_web (the context store)", "store", limit=10)
    unused = first_message_unused(current, modules["protocol"][current.label])
    base_unused = first_message_unused(base, modules["protocol"][base.label])
    mine = modules["protocol"][current.label]
    name = f"import {mine} (what the demo's worker answers its page with)"
    protocol = row(name, "protocol", limit=float("inf"))
    listed = "not measured (no question came)" if unused is None else ", ".join(unused) or "none"
    protocol.update(
        goal="imports only what the first message uses",
        met=None if unused is None else not unused,
        note=protocol["note"] + f"; imported but unused by the demo's first message: {listed}"
        f" ({base.label}: {len(base_unused or [])})",
    )
    return [store, protocol]


def first_message_unused(build: Build, module: str) -> list[str] | None:
    """The modules ``import module`` adds that the demo's first message runs no code of.

    ``None`` when the first message did not reach its question.
    """
    measured = sample(build, module, session=True)
    if not measured.get("asked"):
        return None
    return goals.unused_modules(measured["modules"], measured["used"], measured["importers"])
