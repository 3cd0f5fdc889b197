"""The differential tier: LangGraph programs run on real LangGraph and on pyctx_web, compared.

Each program in ``programs/`` is written as LangGraph's documentation writes it
(its docstring names the guide). It runs in a subprocess, either with the
Python of ``.venv-langgraph`` (real ``langgraph`` from PyPI, the reference) or
with this project's Python through ``launcher.py``, which registers pyctx_web
under LangGraph's module names first. Standard output is normalized (ids,
times and addresses masked, see :func:`normalize`) and compared exactly with
``expected/<name>.txt``, the reference's normalized output.

Regenerate the expected files from real LangGraph with
``.venv/bin/python -m tests.differential.support --update [NAME ...]``.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROGRAMS = HERE / "programs"
EXPECTED = HERE / "expected"
LAUNCHER = HERE / "launcher.py"
REFERENCE_PYTHON = ROOT / ".venv-langgraph" / "bin" / "python"
TIMEOUT = 120.0
"""Seconds a program may run on either side."""

LATER: dict[str, str] = {}
"""Programs of LangGraph features pyctx_web does not offer yet, with the feature.

They keep their expected output and are checked on real LangGraph, but are
expected to fail on pyctx_web (strictly: one that starts to pass must leave
this list), and do not count towards the tier's programs.
"""

PYODIDE = frozenset(
    {
        "errors_async",
        "functional_async",
        "history_step_records_async",
        "interrupt_validate",
        "map_reduce_send",
        "parallel_branches",
        "stream_async_custom",
        "task_in_node_async",
        "time_travel_async",
        "wait_user_input_async",
    }
)
"""Programs that also run inside Pyodide: async throughout (``main()`` is awaited
there), with no thread and no database file."""

PYODIDE_SYNC = frozenset(
    {
        "breakpoints_after_before",
        "command_goto",
        "context_schema",
        "dataclass_state",
        "draw_subgraph_xray",
        "durability_modes",
        "functional_api_guide",
        "functional_interrupt",
        "input_output_private",
        "interrupt_approve",
        "interrupt_basic",
        "interrupt_multiple",
        "interrupt_resume_update",
        "invalid_update",
        "loops_recursion_limit",
        "persistence_history",
        "quickstart",
        "static_breakpoints",
        "stream_checkpoints_tasks_debug",
        "stream_graph_state",
        "subgraph_interrupt",
        "subgraph_shared_state",
        "subgraph_streamed_in_sync_node",
        "task_in_node",
        "task_in_node_failures",
        "time_travel",
    }
)
"""Sync programs (``invoke``, ``stream``, ``get_state``... at the top level) that also
run inside Pyodide, unmodified, where JSPI lets the sync forms block (Chromium);
they need no thread, no database file and no package beyond typing_extensions."""

MIN_PROGRAMS = 15
"""How many programs, besides :data:`LATER`, the tier has at least."""


def program_names() -> list[str]:
    """Every program, by file name without ``.py``, sorted."""
    return sorted(path.stem for path in PROGRAMS.glob("*.py"))


def counted_names() -> list[str]:
    """The programs that count towards the tier: all but :data:`LATER`."""
    return [name for name in program_names() if name not in LATER]


def program_path(name: str) -> Path:
    """The file of program ``name``."""
    return PROGRAMS / f"{name}.py"


def expected_path(name: str) -> Path:
    """The file of program ``name``'s expected (normalized reference) output."""
    return EXPECTED / f"{name}.txt"


_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_TOKEN = re.compile(
    r"(?P<checkpoint>(?<='checkpoint_id': ')[^']*(?='))"
    rf"|(?P<uuid>\b{_UUID}\b)"
    r"|(?P<hex>\b[0-9a-fA-F]{32}\b)"
    r"|(?P<time>\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?)"
    r"|(?P<addr>\b0x[0-9a-fA-F]{4,}\b)"
)


def normalize(text: str) -> str:
    """``text`` with ids, times and memory addresses masked, and line ends made ``\\n``.

    A UUID (thread or checkpoint id) becomes ``<uuid-N>`` and a 32-digit hex id
    (an interrupt id) ``<hex-N>``, numbered in order of first appearance, so
    that the output still shows which ids are equal; the value of a
    ``'checkpoint_id'`` key is numbered with the UUIDs whatever its form. Times
    become ``<time>`` and addresses ``0x<addr>``.
    """
    numbers: dict[str, dict[str, int]] = {"uuid": {}, "hex": {}}

    def mask(match: re.Match[str]) -> str:
        kind = match.lastgroup or ""
        if kind == "time":
            return "<time>"
        if kind == "addr":
            return "0x<addr>"
        table = numbers["hex" if kind == "hex" else "uuid"]
        number = table.setdefault(match.group().lower(), len(table) + 1)
        return f"<{'hex' if kind == 'hex' else 'uuid'}-{number}>"

    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(_TOKEN.sub(mask, line.rstrip()) for line in lines)


@dataclass(frozen=True)
class Run:
    """What a program did on one side."""

    side: str
    stdout: str
    stderr: str
    returncode: int

    def failure(self) -> str:
        """A description of a run that exited with an error, with the end of its stderr."""
        tail = "\n".join(self.stderr.strip().splitlines()[-25:])
        return f"the program exited with {self.returncode} on {self.side}:\n{tail}"


def _environment() -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("LANGCHAIN_", "LANGSMITH_", "PYTHON"))
    }
    env.update(PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    return env


def run(name: str, side: str, cwd: Path) -> Run:
    """Run program ``name`` on ``side`` (``"langgraph"`` or ``"pyctx_web"``) in folder ``cwd``."""
    program = str(program_path(name))
    if side == "langgraph":
        command = [str(REFERENCE_PYTHON), program]
    elif side == "pyctx_web":
        command = [sys.executable, str(LAUNCHER), program]
    else:
        raise ValueError(f"unknown side {side!r}")
    done = subprocess.run(
        command,
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        check=False,
    )
    return Run(side, done.stdout, done.stderr, done.returncode)


def difference(name: str, expected: str, actual: str, side: str) -> str | None:
    """A unified diff of ``actual`` against ``expected``, or ``None`` when they are equal."""
    if expected == actual:
        return None
    lines = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        fromfile=f"expected/{name}.txt (real LangGraph)",
        tofile=f"{name} on {side}",
    )
    return "".join(lines)


def update(names: list[str], cwd: Path) -> int:
    """Rewrite the expected output of ``names`` (all programs when empty) from real LangGraph."""
    status = 0
    for name in names or program_names():
        result = run(name, "langgraph", cwd)
        if result.returncode != 0:
            print(f"{name}: {result.failure()}", file=sys.stderr)
            status = 1
            continue
        expected_path(name).write_text(normalize(result.stdout), encoding="utf-8")
        print(f"{name}: {expected_path(name).relative_to(ROOT)}")
    return status


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--update [NAME ...]`` rewrites expected outputs from real LangGraph."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite expected/ from LangGraph")
    parser.add_argument("names", nargs="*", help="programs (default: all)")
    args = parser.parse_args(argv)
    if not args.update:
        parser.error("nothing to do: give --update")
    if not REFERENCE_PYTHON.exists():
        parser.error(f"{REFERENCE_PYTHON} is missing: run ./build.sh setup")
    with tempfile.TemporaryDirectory() as folder:
        return update(args.names, Path(folder))


if __name__ == "__main__":
    sys.exit(main())
