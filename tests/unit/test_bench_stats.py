"""The benchmark's statistics: degenerate measurements are reported, never raised."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import chart  # noqa: E402
import stats  # noqa: E402


def test_summarize_all_zero_baselines_is_degenerate() -> None:
    """Zero baselines in every round give no ratio and a 'clock too coarse' note."""
    result = stats.summarize([5.0, 6.0, 7.0], [0.0, 0.0, 0.0])
    assert result["ratio"] is None
    assert result["ratio_spread"] is None
    assert result["degenerate"] == stats.COARSE
    assert result["value"] == 6.0
    assert result["baseline_value"] == 0.0


def test_summarize_skips_only_the_zero_rounds() -> None:
    """Rounds with a zero on either side are left out of the ratio; the others count."""
    result = stats.summarize([2.0, 4.0, 0.0, 9.0], [1.0, 0.0, 1.0, 3.0])
    assert result["ratio"] == pytest.approx(2.5)
    assert result["degenerate"] is None


def test_summarize_without_rounds_is_degenerate() -> None:
    """No rounds at all give no value and say so."""
    result = stats.summarize([], [])
    assert result["value"] is None
    assert result["ratio"] is None
    assert result["degenerate"] == "no rounds measured"


def test_compared_row_of_a_degenerate_measurement_is_not_judged() -> None:
    """A comparison without a ratio is neither met nor missed, and its note says why."""
    row = stats.compared(
        "x", "cpython", stats.summarize([1.0], [0.0]), "us", baseline="b", limit=1.2
    )
    assert row["met"] is None
    assert row["ratio"] is None
    assert stats.COARSE in row["note"]


def test_calibrate_grows_a_batch_past_the_minimum_span() -> None:
    """A batch that measures zero is grown until it lasts at least the minimum span."""
    seen: list[int] = []

    def timed(number: int) -> float:
        seen.append(number)
        # A clock that reads zero for fewer than 1,000 repetitions: a coarse one.
        return 0.0 if number < 1_000 else number * stats.min_span() / 1_000

    assert stats.calibrate(timed) >= 1_000
    assert seen == sorted(seen)


def test_chart_draws_a_degenerate_pair() -> None:
    """A pair of zero bars is drawn empty, not divided by."""
    row = stats.figure("x", "r", 0.0, "us", baseline="b", baseline_value=0.0)
    assert 'width="0.0"' in chart.render([row])


def test_chart_draws_the_quartiles_of_a_row_as_a_whisker() -> None:
    """A row with quartiles gets a whisker from its first to its third quartile, scaled with
    the bars, and the longest of bar and whisker sets the scale."""
    row = stats.figure(
        "x", "r", 50.0, "ms", spread=(40.0, 100.0), baseline="b", baseline_value=25.0
    )
    svg = chart.render([row])
    assert f'<path d="M{chart.LABEL_WIDTH + 168:.1f} ' in svg
    assert f"H{chart.LABEL_WIDTH + chart.PLOT_WIDTH:.1f}" in svg
    assert f'width="{chart.PLOT_WIDTH / 2:.1f}"' in svg
    assert "<path" not in chart.render([stats.figure("x", "r", 50.0, "ms")])


def test_growth_row_with_zero_first_window_is_not_judged() -> None:
    """A 1000-step run whose first window measured zero reports no ratio instead of raising."""
    import bench_graph

    row = bench_graph._growth_row("InMemorySaver", "r", [0.0, 0.0], [1e-4, 1e-4])
    assert row["ratio"] is None
    assert row["met"] is None
    assert stats.COARSE in row["note"]
