"""The suites tier: LangGraph's and LangChain's own test suites, on real LangGraph and on pyctx_web.

Usage: ``python tests/suites/run.py [--cache DIR] [--only SUITE]... [--write-not-yet]``
(``./build.sh suites`` fetches the suites and their venvs first, then runs this).

Each suite of tests/suites/suites.toml runs twice: in ``venv-langgraph`` (real LangGraph,
the reference) and in ``venv-pyctx`` (no ``langgraph`` distribution; pyctx_plugin.py calls
``install_as_langgraph()`` before the suite's conftest files import langgraph; a suite's
``plugins``, modules of tests/suites/, are loaded after it, on that side only, e.g. to put
another pyctx_web class where the suite builds a LangGraph one). It prints,
per suite, passed/failed/skipped on both sides and the tests left out (left_out.toml: each
with the internal it tests). The tier fails when a test fails on real LangGraph, or fails
on pyctx_web while listed neither as left out nor in not_yet/<suite>.txt (the work list
of what pyctx_web does not pass yet). ``--write-not-yet`` rewrites those lists from the run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIDES = ("langgraph", "pyctx")
SUITE_TIMEOUT = 1200  # seconds for one suite on one side; a hang fails the tier


def pytest_command(suite: dict[str, Any], side: str, left_out: dict[str, str]) -> list[str]:
    """The pytest arguments of a suite on one side (run from the suite's folder)."""
    command = ["-m", "pytest", *suite["paths"]]
    command += ["-c", "pyproject.toml", "--rootdir", ".", "-o", "addopts=", "-q"]
    command += ["-p", "no:cacheprovider", "-p", "outcomes_plugin", "--timeout", "120"]
    command += ["--continue-on-collection-errors"]
    if side == "pyctx":
        command += ["-p", "pyctx_plugin"]
        for plugin in suite.get("plugins", ()):
            command += ["-p", str(plugin)]
    for test_id in left_out:
        command += ["--deselect", test_id]
    return command


def run_side(
    name: str, suite: dict[str, Any], side: str, cache: Path, left_out: dict[str, str]
) -> dict[str, str]:
    """Run one suite on one side; each test id and its outcome."""
    python = str(cache / f"venv-{side}" / "bin" / "python")
    out = cache / "outcomes" / f"{name}.{side}.json"
    out.parent.mkdir(exist_ok=True)
    out.unlink(missing_ok=True)
    env = {**os.environ, "PYCTX_SUITE_OUTCOMES": str(out), "PYTHONPATH": str(HERE)}
    env.pop("PYTHONSAFEPATH", None)
    if "conformance" in suite:
        command = [python, str(HERE / "conformance.py"), side, str(suite["conformance"]), str(out)]
        cwd = cache
    else:
        command = [python, *pytest_command(suite, side, left_out)]
        cwd = cache / str(suite["dist"])
    try:
        done = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, timeout=SUITE_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return {"(the whole suite, which timed out)": "failed"}
    if "conformance" in suite and done.stderr:  # why the conformance run could not start
        sys.stderr.write(done.stderr[-3000:])
    if not out.exists():
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        return {"(the whole suite, which wrote no outcomes)": "failed"}
    outcomes: dict[str, str] = json.loads(out.read_text(encoding="utf-8"))
    return {test: outcome for test, outcome in outcomes.items() if test not in left_out}


def read_not_yet(name: str) -> set[str]:
    """The test ids of not_yet/<name>.txt (comments and blank lines aside)."""
    path = HERE / "not_yet" / f"{name}.txt"
    if not path.exists():
        return set()
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return {line for line in lines if line and not line.startswith("#")}


def write_not_yet(name: str, failed: list[str]) -> None:
    """Rewrite not_yet/<name>.txt with the tests that fail on pyctx_web."""
    path = HERE / "not_yet" / f"{name}.txt"
    path.parent.mkdir(exist_ok=True)
    head = f"# {name}: the tests that pass on real LangGraph and not yet on pyctx_web.\n"
    path.write_text(head + "".join(f"{test}\n" for test in sorted(failed)), encoding="utf-8")


def count(outcomes: dict[str, str]) -> str:
    """``passed/failed/skipped`` of a side."""
    tally = Counter(outcomes.values())
    return f"{tally['passed']}/{tally['failed']}/{tally['skipped']}"


def against_reference(real: dict[str, str], ran: dict[str, str]) -> dict[str, str]:
    """pyctx_web's outcome of each test of the reference run.

    A test pyctx_web did not run (its module, or the whole run, failed before it) failed
    when it passed on real LangGraph; what only pyctx_web reports (a module that failed
    to import) is counted through its tests.
    """
    return {
        test: ran.get(test, "failed" if real[test] == "passed" else real[test]) for test in real
    }


def verdict(
    name: str, real: dict[str, str], pyctx: dict[str, str], not_yet: set[str]
) -> tuple[list[str], list[str]]:
    """The problems that fail the tier, and the tests of ``not_yet`` that pass now."""
    problems = [f"{name}: fails on real LangGraph: {t}" for t, o in real.items() if o == "failed"]
    problems += [
        f"{name}: fails on pyctx_web, not listed: {t}"
        for t, o in sorted(pyctx.items())
        if o == "failed" and t not in not_yet
    ]
    now_passing = sorted(t for t in not_yet if pyctx.get(t) == "passed")
    return problems, now_passing


def check_suite(name: str, suite: dict[str, Any], cache: Path, rewrite: bool) -> list[str]:
    """Run a suite on both sides, print its line; the problems that fail the tier."""
    left_out: dict[str, str] = LEFT_OUT.get(name, {})
    started = time.monotonic()
    real, ran = (run_side(name, suite, side, cache, left_out) for side in SIDES)
    pyctx = against_reference(real, ran)
    seconds = time.monotonic() - started
    not_yet = read_not_yet(name)
    if rewrite:
        not_yet = {test for test, outcome in pyctx.items() if outcome == "failed"}
        write_not_yet(name, sorted(not_yet))
    problems, now_passing = verdict(name, real, pyctx, not_yet)
    print(
        f"{name:22} real LangGraph {count(real):>12}   pyctx_web {count(pyctx):>12}   "
        f"left out {len(left_out):>3}   not yet {len(not_yet):>4}   "
        f"now passing {len(now_passing):>3}   ({seconds:.0f} s)",
        flush=True,
    )
    for test in now_passing:
        print(f"  passes now, remove from not_yet/{name}.txt: {test}")
    return problems


LEFT_OUT: dict[str, dict[str, str]] = tomllib.loads(
    (HERE / "left_out.toml").read_text(encoding="utf-8")
)


def main() -> int:
    """Run the suites; 1 when a test fails that is not expected to, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "cache" / "suites")
    parser.add_argument("--only", action="append", help="a suite of suites.toml (repeatable)")
    parser.add_argument("--write-not-yet", action="store_true", help="rewrite not_yet/*.txt")
    args = parser.parse_args()
    suites = tomllib.loads((HERE / "suites.toml").read_text(encoding="utf-8"))
    unknown = set(args.only or ()) - set(suites)
    if unknown:
        parser.error(f"no such suite: {', '.join(sorted(unknown))} (see tests/suites/suites.toml)")
    print("suite                  passed/failed/skipped on each side")
    problems: list[str] = []
    for name, suite in suites.items():
        if not args.only or name in args.only:
            problems += check_suite(name, suite, args.cache, args.write_not_yet)
    for name, tests in LEFT_OUT.items():
        for test, reason in tests.items() if not args.only or name in args.only else ():
            print(f"left out ({name}): {test}: {reason}")
    for problem in problems:
        print(problem)
    print("suites: " + (f"{len(problems)} unexpected failures" if problems else "as expected"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
