"""A Chromium page that crashes fails the one test it crashed in; the next test gets a fresh page.

The crashes are real: an inner pytest run, with this tier's conftest, sends its
pages to ``chrome://crash``, which makes Chromium kill the page's renderer as a
fault in it would. The outer test reads the inner run's JUnit report.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.pyodide.conftest import crash_message

ROOT = Path(__file__).resolve().parents[2]

INNER_TESTS = '''
import pytest
from playwright.sync_api import Error

SETUPS = []


def crash(runner):
    """Kill the renderer of the runner's page; the navigation fails with it."""
    with pytest.raises(Error, match="ERR_ABORTED|Page crashed"):
        runner.driver.goto("chrome://crash")


@pytest.fixture(scope="module")
def loaded(pyctx_module):
    """A module fixture built on the module's page, as the tier's app fixtures are."""
    pyctx_module.run("import pyctx_web\\nmarker = 'loaded'")
    return pyctx_module


@pytest.fixture(scope="module")
def crashes_once(pyctx_module):
    """A module fixture whose first set-up crashes the page."""
    SETUPS.append(pyctx_module)
    if len(SETUPS) == 1:
        crash(pyctx_module)
        pyctx_module.run("1")
    return pyctx_module


def test_module_page_crashes(loaded):
    loaded.run("leftover = 1")
    crash(loaded)
    loaded.run("1 + 1")


def test_after_module_page_crash(loaded):
    assert loaded.run("marker") == "loaded"
    assert loaded.run("'leftover' in globals()") is False


def test_own_page_crashes(pyctx):
    crash(pyctx)
    pyctx.run("1 + 1")


def test_after_own_page_crash(pyctx):
    assert pyctx.run("1 + 1") == 2


def test_setup_crashes(crashes_once):
    pass


def test_after_setup_crash(crashes_once):
    assert len(SETUPS) == 2
    assert crashes_once.run("1 + 1") == 2
'''

INNER_CONFTEST = "from tests.pyodide.conftest import *  # noqa: F403\n"
"""The inner run's conftest: this tier's fixtures and hooks."""


def run_inner(tmp_path: Path, dist_dir: Path) -> dict[str, tuple[str, str]]:
    """Run INNER_TESTS in Chromium; map each test's name to (outcome, message)."""
    (tmp_path / "test_inner.py").write_text(INNER_TESTS, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST, encoding="utf-8")
    report = tmp_path / "report.xml"
    command = [
        *(sys.executable, "-m", "pytest", "test_inner.py", "-q", "-p", "no:cacheprovider"),
        *(f"--rootdir={tmp_path}", f"--junitxml={report}", f"--dist-dir={dist_dir}"),
        *("--runtime", "chrome", "--runner", "playwright"),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    if not report.is_file():
        pytest.fail(f"the inner run left no report:\n{done.stdout}\n{done.stderr}")
    outcomes: dict[str, tuple[str, str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.attrib["name"].split("[")[0]
        problems = [child for child in case if child.tag in {"failure", "error"}]
        for problem in problems:
            outcomes[name] = (problem.tag, problem.attrib.get("message", ""))
        if not problems:
            outcomes[name] = ("passed", "")
    return outcomes


def test_a_crash_fails_its_test_once_and_the_next_test_gets_a_fresh_page(
    runtime: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Each crash fails only its test, naming the crash; the test after it passes on a new page."""
    if runtime != "chrome":
        pytest.skip("the pages that crash are Chromium's")
    dist_dir = Path.cwd() / request.config.getoption("--dist-dir")
    outcomes = run_inner(tmp_path, dist_dir)

    def crashed(name: str, when: str = "call") -> str:
        return crash_message(f"test_inner.py::{name}[chrome]", when)

    expected: dict[str, tuple[str, Any]] = {
        "test_module_page_crashes": ("failure", crashed("test_module_page_crashes")),
        "test_after_module_page_crash": ("passed", ""),
        "test_own_page_crashes": ("failure", crashed("test_own_page_crashes")),
        "test_after_own_page_crash": ("passed", ""),
        "test_setup_crashes": (
            "error",
            f'failed on setup with "{crashed("test_setup_crashes", "setup")}"',
        ),
        "test_after_setup_crash": ("passed", ""),
    }
    assert outcomes == expected
