"""pytest plugin of both sides: write each test's outcome to the JSON file $PYCTX_SUITE_OUTCOMES.

A test failed when its setup, call or teardown failed; skipped when skipped (or an
expected failure); else passed. tests/suites/run.py compares the two sides' files.
"""

from __future__ import annotations

import json
import os

import pytest

_outcomes: dict[str, str] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Record the worst outcome of a test's three phases."""
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.skipped and _outcomes.get(report.nodeid) != "failed":
        _outcomes[report.nodeid] = "skipped"
    else:
        _outcomes.setdefault(report.nodeid, "passed")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A module that fails to import counts as one failed test, named by its node id."""
    if report.failed:
        _outcomes[report.nodeid] = "failed"


def pytest_sessionfinish() -> None:
    """Write the outcomes where the runner asked."""
    with open(os.environ["PYCTX_SUITE_OUTCOMES"], "w", encoding="utf-8") as file:
        json.dump(_outcomes, file, indent=1, sort_keys=True)
