"""The network benchmark's pure helpers: the emulated links, the bytes of a visit and its rows."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import goals  # noqa: E402


def test_link_conditions_give_bytes_per_second_and_the_round_trip() -> None:
    """A link's CDP parameters carry its bandwidths in bytes per second and its RTT as latency."""
    assert goals.BROADBAND.conditions() == {
        "offline": False,
        "latency": 40,
        "downloadThroughput": 1_250_000.0,
        "uploadThroughput": 1_250_000.0,
    }
    assert goals.SLOW_3G.conditions()["downloadThroughput"] == pytest.approx(200_000.0)
    assert goals.SLOW_3G.conditions()["latency"] == 150


def test_link_fetch_time_is_a_round_trip_then_the_bytes() -> None:
    """A response's time on a link is one round trip plus its bits over the bandwidth."""
    assert goals.BROADBAND.fetch_ms(1_250_000) == pytest.approx(1040.0)
    assert goals.link_share(goals.BROADBAND, 520.0, 1_250_000) == pytest.approx(0.5)


def test_link_rejects_a_bandwidth_that_is_not_positive() -> None:
    """A link without bandwidth, or with a negative round trip, is refused by name."""
    with pytest.raises(ValueError, match=r"^link 'x': down_mbit must be positive, not 0$"):
        goals.Link("x", 0, 1, 10)
    with pytest.raises(ValueError, match=r"^link 'x': rtt_ms must be zero or more, not -1$"):
        goals.Link("x", 1, 1, -1)


def test_transferred_sums_transfer_sizes_and_largest_ranks_files() -> None:
    """A visit's bytes sum its entries' transferSize; the largest files are named without query
    and cache hits (0 bytes) are left out."""
    entries: list[dict[str, Any]] = [
        {"name": "http://h/", "transferSize": 1000},
        {"name": "http://h/pyodide/pyodide.asm.wasm?v=1", "transferSize": 3_600_000},
        {"name": "http://h/a.js", "transferSize": 300},
        {"name": "http://h/cached.js", "transferSize": 0},
        {"name": "http://h/b.js"},
    ]
    assert goals.transferred(entries) == 3_601_300
    assert goals.largest(entries, 2) == [("pyodide.asm.wasm", 3_600_000), ("/", 1000)]
    assert [name for name, _ in goals.largest(entries)] == ["pyodide.asm.wasm", "/", "a.js"]
    assert goals.megabytes(3_601_300) == "3.60 MB"
    assert goals.megabytes(20_480) == "20.5 KB"


def _visits(times: list[float], size: int) -> list[dict[str, float]]:
    return [{"ready_ms": ms, "bytes": size} for ms in times]


def test_network_rows_judge_the_per_round_ratios() -> None:
    """The first visit is judged on the median per-round ratio to the bare page, the second on
    the median ratio to the first visit of its round; both notes give the bytes moved."""
    visits = {
        "demo": _visits([8000.0, 9000.0, 12000.0], 6_000_000),
        "bare": _visits([8000.0, 10000.0, 10000.0], 6_500_000),
        "second": _visits([2000.0, 6000.0, 3000.0], 20_000),
    }
    first, second = goals.network_rows("r", visits, goals.BROADBAND, limit=1.0, note="3 rounds")
    assert first["ratio"] == pytest.approx(1.0)
    assert first["met"] is True
    assert first["value"] == 9000.0
    assert first["baseline_value"] == 10000.0
    assert "demo 6.00 MB, bare 6.50 MB" in first["note"]
    assert "bare page ready 10000 ms (9000 to 10000)" in first["note"]
    assert second["ratio"] == pytest.approx(0.25)
    assert second["met"] is True
    assert second["goal"] == "<= 0.5x"
    assert "transferred per visit (median): 20.0 KB" in second["note"]


def test_network_rows_without_limit_or_second_visit() -> None:
    """Without a limit the first-visit row has no goal, and without second visits no row."""
    visits = {"demo": _visits([30000.0], 6_000_000), "bare": _visits([20000.0], 6_500_000)}
    rows = goals.network_rows("r", visits, goals.SLOW_3G, limit=None, note="")
    assert len(rows) == 1
    assert rows[0]["goal"] is None
    assert rows[0]["met"] is None
    assert rows[0]["ratio"] == pytest.approx(1.5)


def test_unjudged_rows_lose_their_verdict_and_say_why() -> None:
    """Rows marked unjudged keep their figures, lose met and open their note with the reason."""
    visits = {"demo": _visits([9.0], 1), "bare": _visits([10.0], 1)}
    rows = goals.network_rows("r", visits, goals.BROADBAND, limit=1.0, note="n")
    goals.unjudged(rows, "the link did not apply")
    assert rows[0]["met"] is None
    assert rows[0]["ratio"] == pytest.approx(0.9)
    assert rows[0]["note"].startswith("not judged: the link did not apply; n")


def test_the_network_part_runs_alone_or_last_and_not_with_quick() -> None:
    """--network runs only the network part; the full suite ends with it; --quick leaves it out."""
    steps: list[goals.Step] = [("a", list), ("b", list)]
    network: goals.Step = ("network", list)
    assert goals.with_network(steps, network, quick=False, only_network=False) == [*steps, network]
    assert goals.with_network(steps, network, quick=True, only_network=False) == steps
    assert goals.with_network(steps, network, quick=True, only_network=True) == [network]
    assert goals.with_network(steps, network, quick=False, only_network=True) == [network]
