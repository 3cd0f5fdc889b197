"""The suites tier's verdict (tests/suites/run.py): what fails it and what is only reported."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.suites.run import against_reference, pytest_command, verdict

SUITES = Path(__file__).resolve().parents[1] / "suites"


def test_a_test_pyctx_web_did_not_run_failed_if_it_passed_on_the_reference() -> None:
    """A test missing from pyctx_web's run failed, or was skipped when LangGraph skipped it."""
    real = {"a": "passed", "b": "skipped", "c": "passed"}
    assert against_reference(real, {"c": "passed", "module.py": "failed"}) == {
        "a": "failed",
        "b": "skipped",
        "c": "passed",
    }


def test_only_unlisted_failures_and_reference_failures_fail_the_tier() -> None:
    """A listed pyctx_web failure is no problem; an unlisted one or a reference failure is."""
    real = {"a": "passed", "b": "passed", "c": "failed"}
    pyctx = {"a": "failed", "b": "failed", "c": "failed"}
    problems, now_passing = verdict("s", real, pyctx, {"a", "c"})
    assert problems == [
        "s: fails on real LangGraph: c",
        "s: fails on pyctx_web, not listed: b",
    ]
    assert now_passing == []


def test_a_listed_test_that_passes_is_reported_not_failed() -> None:
    """A not-yet test that passes on pyctx_web is reported as passing now and fails nothing."""
    problems, now_passing = verdict("s", {"a": "passed"}, {"a": "passed"}, {"a"})
    assert (problems, now_passing) == ([], ["a"])


def test_each_left_out_test_names_its_suite_and_reason() -> None:
    """left_out.toml's sections are suites of suites.toml and every test has a reason."""
    suites = tomllib.loads((SUITES / "suites.toml").read_text(encoding="utf-8"))
    left_out = tomllib.loads((SUITES / "left_out.toml").read_text(encoding="utf-8"))
    assert set(left_out) <= set(suites)
    assert all(isinstance(r, str) and r.strip() for t in left_out.values() for r in t.values())


def test_a_suites_plugins_load_after_pyctx_plugin_on_the_pyctx_side_only() -> None:
    """A suite's plugins follow pyctx_plugin on pyctx_web's side; the reference has none."""
    suite = {"dist": "d", "paths": ["tests"], "plugins": ["store_as_sqlite"]}
    pyctx = pytest_command(suite, "pyctx", {})
    at = pyctx.index("pyctx_plugin")
    assert pyctx[at + 1 : at + 3] == ["-p", "store_as_sqlite"]
    assert "store_as_sqlite" not in pytest_command(suite, "langgraph", {})


def test_each_plugin_a_suite_names_is_a_module_of_the_tier() -> None:
    """Every plugin of suites.toml is a module in tests/suites (the runner's PYTHONPATH)."""
    suites = tomllib.loads((SUITES / "suites.toml").read_text(encoding="utf-8"))
    plugins = {p for suite in suites.values() for p in suite.get("plugins", ())}
    assert plugins
    assert all((SUITES / f"{plugin}.py").is_file() for plugin in plugins)
