"""The benchmark's start-up and baseline helpers: rows, round order and module lists."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import baseline  # noqa: E402
import goals  # noqa: E402
import startup  # noqa: E402


def test_rotation_puts_each_kind_first_in_turn() -> None:
    """Successive rounds start with each kind in turn and keep every kind once."""
    firsts = [goals.rotation(["a", "b", "c"], index)[0] for index in range(6)]
    assert firsts == ["a", "b", "c", "a", "b", "c"]
    assert sorted(goals.rotation(["a", "b", "c"], 2)) == ["a", "b", "c"]
    assert goals.rotation([], 3) == []


def test_bounded_row_judges_the_median_against_the_limit() -> None:
    """A bounded row is met when the median is at most the limit, whatever the quartiles."""
    row = goals.bounded("x", "r", [40.0, 45.0, 90.0], "ms", limit=50)
    assert row["value"] == 45.0
    assert row["met"] is True
    assert row["goal"] == "<= 50 ms"
    assert goals.bounded("x", "r", [60.0, 45.0, 70.0], "ms", limit=50)["met"] is False


def test_bounded_row_carries_its_paired_baseline() -> None:
    """With per-round baselines, the row gives their median and the median per-round ratio."""
    row = goals.bounded(
        "x", "r", [10.0, 20.0, 30.0], "ms", limit=50, bases=[20.0, 40.0, 60.0], baseline="b"
    )
    assert row["baseline"] == "b"
    assert row["baseline_value"] == 40.0
    assert row["ratio"] == pytest.approx(0.5)


def test_bounded_row_without_rounds_is_not_judged() -> None:
    """No measured rounds give no value, no verdict and a note saying so."""
    row = goals.bounded("x", "r", [], "ms", limit=50)
    assert row["value"] is None
    assert row["met"] is None
    assert "no rounds measured" in row["note"]


def test_ratio_row_judges_the_median_of_per_round_ratios() -> None:
    """A ratio row is met when the median of the per-round ratios is at most the limit."""
    row = goals.ratio_row(
        "x", "r", [1.0, 2.0, 6.0], [2.0, 5.0, 10.0], "ms", baseline="b", limit=0.5
    )
    assert row["ratio"] == pytest.approx(0.5)
    assert row["met"] is True
    assert row["ratio_spread"] == pytest.approx([0.45, 0.55])


def test_added_row_judges_the_median_per_round_difference() -> None:
    """An added row is met when the median of the per-round differences is at most the limit,
    however far apart the two medians are."""
    row = goals.added_row(
        "x", "r", [30.0, 50.0, 100.0], [25.0, 20.0, 95.0], "ms", baseline="b", limit=10
    )
    assert row["value"] == 50.0
    assert row["baseline_value"] == 25.0
    assert row["goal"] == "<= +10 ms over the baseline"
    assert row["met"] is True
    assert row["note"].startswith("difference +5.0 ms")
    missed = goals.added_row("x", "r", [40.0, 50.0], [20.0, 20.0], "ms", baseline="b", limit=10)
    assert missed["met"] is False


def test_added_row_without_pairs_is_not_judged() -> None:
    """Unpaired or missing rounds give no value, no verdict and a note saying so."""
    row = goals.added_row("x", "r", [1.0], [], "ms", baseline="b", limit=10)
    assert row["value"] is None
    assert row["met"] is None
    assert "no paired rounds measured" in row["note"]


def test_unused_modules_keeps_the_parents_of_used_modules() -> None:
    """A package whose submodule ran is needed; modules that ran nothing are listed, sorted."""
    imported = ["pkg", "pkg.sub", "pkg.sub.leaf", "uuid", "hashlib", "__future__", "json"]
    used = ["pkg.sub.leaf", "json"]
    assert goals.unused_modules(imported, used) == ["hashlib", "uuid"]


def test_unused_modules_forgives_the_standard_librarys_own_imports() -> None:
    """What a used outside module imported is needed; what the own package imported is not."""
    imported = ["pyctx_web.a", "hashlib", "_md5", "uuid", "js"]
    importers = {"hashlib": "pyctx_web.a", "_md5": "hashlib", "uuid": "pyctx_web.a"}
    used = ["pyctx_web.a", "hashlib"]
    assert goals.unused_modules(imported, used, importers) == ["uuid"]


def test_versus_rows_pair_runs_by_figure() -> None:
    """Each figure's ratio is the median over pairs; a figure missing in a pair is skipped there."""

    def row(name: str, value: float) -> dict[str, object]:
        return {"name": name, "runtime": "cpython", "value": value, "unit": "ns"}

    runs = [[row("get", 110.0), row("run", 50.0)], [row("get", 100.0)], [row("get", 90.0)]]
    bases = [[row("get", 100.0), row("run", 50.0)], [row("get", 100.0)], [row("get", 100.0)]]
    rows = goals.versus_rows(runs, bases, baseline="base")
    by_name = {r["name"]: r for r in rows}
    assert by_name["get, against the baseline"]["ratio"] == pytest.approx(1.0)
    assert by_name["get, against the baseline"]["met"] is True
    assert "3 pairs" in by_name["get, against the baseline"]["note"]
    assert "1 pairs" in by_name["run, against the baseline"]["note"]


def test_after_load_is_the_reported_span_else_elapsed_less_the_runtime_stage() -> None:
    """The worker's time after loadPyodide is the span it reports, else its elapsed time less
    the runtime stage."""
    ready = {"elapsed_ms": 2600, "stages": {"runtime": 2100, "packages": 130, "app": 360}}
    assert startup.after_load_ms({**ready, "after_load_ms": 490}) == 490.0
    assert startup.after_load_ms(ready) == 500.0
    assert startup.after_load_ms({"stages": {"packages": 10, "app": 20}}) == 30.0
    assert startup.after_load_ms({"type": "ready"}) is None


def test_stock_stdlib_is_the_other_stdlib_archive() -> None:
    """The stock standard library is a python_stdlib*.zip other than python_stdlib.zip."""
    names = ["pyodide.mjs", "python_stdlib.zip", "python_stdlib.stock.zip", "x.whl"]
    assert startup.stock_stdlib(names) == "python_stdlib.stock.zip"
    assert startup.stock_stdlib(["python_stdlib.zip", "pyodide.mjs"]) is None


def test_lock_wheel_reads_the_registered_wheel(tmp_path: Path) -> None:
    """The wheel the lock file names for pyctx-web is found; a missing entry or file gives None."""
    (tmp_path / "pyctx_web-1-py3-none-any.whl").write_bytes(b"")
    lock = {"packages": {"pyctx-web": {"file_name": "pyctx_web-1-py3-none-any.whl"}}}
    (tmp_path / "pyodide-lock.json").write_text(json.dumps(lock))
    assert baseline.lock_wheel(tmp_path) == tmp_path / "pyctx_web-1-py3-none-any.whl"
    (tmp_path / "pyodide-lock.json").write_text(json.dumps({"packages": {}}))
    assert baseline.lock_wheel(tmp_path) is None
    assert baseline.lock_wheel(tmp_path / "absent") is None
