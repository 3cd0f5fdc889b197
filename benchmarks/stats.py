"""Timing helpers shared by every benchmark module, on CPython and inside Pyodide.

Each figure is a median over rounds. A comparison times both sides in every
round, alternating which goes first, and reports the median of the per-round
ratios: noise that hits a round hits both sides.
"""

from __future__ import annotations

import statistics
import time
import timeit
from collections.abc import Awaitable, Callable
from typing import Any


def quantiles(values: list[float]) -> tuple[float, float, float]:
    """The 25th percentile, the median and the 75th percentile of ``values``."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0], ordered[0], ordered[0]
    q1, q2, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return q1, q2, q3


def figure(
    name: str,
    runtime: str,
    value: float,
    unit: str,
    *,
    spread: tuple[float, float] | None = None,
    baseline: str | None = None,
    baseline_value: float | None = None,
    ratio: float | None = None,
    ratio_spread: tuple[float, float] | None = None,
    goal: str | None = None,
    met: bool | None = None,
    note: str = "",
) -> dict[str, Any]:
    """One row of the results: a measured value, and its comparison when it has one."""
    return {
        "name": name,
        "runtime": runtime,
        "value": value,
        "unit": unit,
        "spread": list(spread) if spread else None,
        "baseline": baseline,
        "baseline_value": baseline_value,
        "ratio": ratio,
        "ratio_spread": list(ratio_spread) if ratio_spread else None,
        "goal": goal,
        "met": met,
        "note": note,
    }


def compared(
    name: str,
    runtime: str,
    measured: dict[str, Any],
    unit: str,
    *,
    baseline: str,
    limit: float,
    note: str = "",
) -> dict[str, Any]:
    """The row of a measured comparison; its goal is a ratio of at most ``limit``."""
    return figure(
        name,
        runtime,
        measured["value"],
        unit,
        spread=measured["spread"],
        baseline=baseline,
        baseline_value=measured["baseline_value"],
        ratio=measured["ratio"],
        ratio_spread=measured["ratio_spread"],
        goal=f"<= {limit:g}x",
        met=measured["ratio"] <= limit,
        note=note,
    )


def compare_sync(
    stmt: str, baseline_stmt: str, namespace: dict[str, Any], *, rounds: int, number: int
) -> dict[str, Any]:
    """Time ``stmt`` against ``baseline_stmt``, interleaved; per-call nanoseconds and ratios."""
    timer = timeit.Timer(stmt, globals=namespace)
    base_timer = timeit.Timer(baseline_stmt, globals=namespace)
    timer.timeit(number // 10 or 1)  # warm up both
    base_timer.timeit(number // 10 or 1)
    values: list[float] = []
    bases: list[float] = []
    for round_index in range(rounds):
        if round_index % 2:
            base = base_timer.timeit(number)
            value = timer.timeit(number)
        else:
            value = timer.timeit(number)
            base = base_timer.timeit(number)
        values.append(value / number * 1e9)
        bases.append(base / number * 1e9)
    return summarize(values, bases)


async def compare_async(
    run: Callable[[], Awaitable[float]],
    baseline: Callable[[], Awaitable[float]],
    *,
    rounds: int,
) -> dict[str, Any]:
    """Like :func:`compare_sync` for coroutines that return their own measured seconds."""
    await run()
    await baseline()
    values: list[float] = []
    bases: list[float] = []
    for round_index in range(rounds):
        if round_index % 2:
            base = await baseline()
            value = await run()
        else:
            value = await run()
            base = await baseline()
        values.append(value)
        bases.append(base)
    return summarize(values, bases)


def summarize(values: list[float], bases: list[float]) -> dict[str, Any]:
    """Medians, quartiles and the median per-round ratio of paired measurements."""
    ratios = [value / base for value, base in zip(values, bases, strict=True) if base > 0]
    v1, v2, v3 = quantiles(values)
    b2 = quantiles(bases)[1]
    r1, r2, r3 = quantiles(ratios)
    return {
        "value": v2,
        "spread": (v1, v3),
        "baseline_value": b2,
        "ratio": r2,
        "ratio_spread": (r1, r3),
    }


def clock() -> float:
    """Seconds from a monotonic clock (``performance.now`` inside Pyodide)."""
    return time.perf_counter()
