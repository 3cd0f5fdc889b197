"""Run-time figures of this build against the baseline build, in alternating processes.

Each pair runs :mod:`bench_versus` once in a process of this build and once in
a process of the baseline build (in alternating order): on CPython with the
baseline's sources first on ``sys.path``, and in Pyodide under Node with the
baseline's distribution and wheel. A row's ratio is the median over pairs of
this build's figure over the baseline's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import goals
from baseline import Build

HERE = Path(__file__).resolve().parent
FILES = ["stats.py", "driver.py", "bench_context.py", "bench_graph.py", "bench_jsbridge.py"]

# Imports pyctx_web before the benchmark modules (which put the working tree on sys.path),
# and refuses to measure another copy of it than the one asked for.
CPYTHON = """
import asyncio, os, platform, sys
sys.path.insert(0, sys.argv[1])
import pyctx_web
expected = os.path.realpath(sys.argv[3])
if not os.path.realpath(pyctx_web.__file__).startswith(expected + os.sep):
    raise SystemExit(f"pyctx_web came from {pyctx_web.__file__}, not {expected}")
import driver
runtime = f"cpython {platform.python_version()}"
print(asyncio.run(driver.main(runtime, sys.argv[2] == "1", ["bench_versus"])))
"""


def run_cpython(build: Build, quick: bool) -> list[dict[str, Any]]:
    """:mod:`bench_versus`'s rows in a CPython process importing ``build``'s package."""
    env = {**os.environ, "PYTHONPATH": str(build.src)}
    # -P: the working directory (the tree of this build) does not go first on sys.path.
    command = [sys.executable, "-P", "-c", CPYTHON, str(HERE), "1" if quick else "0"]
    command.append(str(build.src))
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env, timeout=1800)
    rows: list[dict[str, Any]] = json.loads(out.stdout.strip().splitlines()[-1])["figures"]
    return rows


def run_node(build: Build, quick: bool) -> list[dict[str, Any]]:
    """:mod:`bench_versus`'s rows in Pyodide under Node with ``build``'s distribution."""
    files = [str(HERE / name) for name in [*FILES, "bench_versus.py"]]
    env = {**os.environ, "BENCH_MODULES": "bench_versus"}
    command = ["node", str(HERE / "pyodide_node.mjs"), str(build.dist), "1" if quick else "0"]
    out = subprocess.run(
        command + files, capture_output=True, text=True, check=True, env=env, timeout=1800
    )
    rows: list[dict[str, Any]] = json.loads(out.stdout.strip().splitlines()[-1])["figures"]
    return rows


def rows(
    current: Build, base: Build, *, pairs: int, cpython_pairs: int, quick: bool
) -> list[dict[str, Any]]:
    """Every :mod:`bench_versus` row of both runtimes against the baseline.

    CPython takes ``cpython_pairs`` pairs of processes: its speed on a shared machine swings
    by up to 2x between windows of a second, and one process samples less than a second.
    """
    result: list[dict[str, Any]] = []
    for runner, count in ((run_cpython, cpython_pairs), (run_node, pairs)):
        runs: dict[str, list[list[dict[str, Any]]]] = {current.label: [], base.label: []}
        for pair in range(count):
            for build in goals.rotation([current, base], pair):
                runs[build.label].append(runner(build, quick))
        result += goals.versus_rows(runs[current.label], runs[base.label], baseline=base.label)
    if quick:
        for row in result:
            row["note"] += " (--quick)"
    return result
