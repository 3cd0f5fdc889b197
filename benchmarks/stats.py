"""Timing helpers shared by every benchmark module, on CPython and inside Pyodide.

Each figure is a median over rounds. A comparison times both sides in every
round, alternating which goes first, and reports the median of the per-round
ratios: noise that hits a round hits both sides.

Every timed span repeats its work in a batch, sized by calibration as ``timeit``
does, so that it lasts at least :func:`min_span`: many ticks of the clock in
every runtime, including a browser that coarsens ``performance.now()``. A
measurement that still reads zero is reported as degenerate (``"clock too
coarse"``), never raised.
"""

from __future__ import annotations

import statistics
import time
import timeit
from collections.abc import Awaitable, Callable
from typing import Any

COARSE = "clock too coarse"
"""The note of a comparison whose spans measured zero: no ratio could be taken."""

SPAN_TICKS = 200
"""How many clock ticks a timed span lasts at least: quantization costs under 0.5%."""

SPAN_FLOOR = 0.002
"""The shortest timed span, in seconds, however fine the clock."""

_resolution: float | None = None


def clock() -> float:
    """Seconds from a monotonic clock (``performance.now`` inside Pyodide)."""
    return time.perf_counter()


def clock_resolution(samples: int = 21) -> float:
    """The clock's observed tick in seconds: the median time between two changes of its reading.

    Measured once per process and cached. It includes the cost of a read, so on a
    fine clock it is the read's cost, and in a browser that coarsens
    ``performance.now()`` it is the coarsening (100 us, or 5 us when cross-origin
    isolated).
    """
    global _resolution
    if _resolution is None:
        ticks = []
        for _ in range(samples):
            start = clock()
            edge = clock()
            while edge == start:  # wait for a change, so that the next span starts on an edge
                edge = clock()
            after = clock()
            while after == edge:
                after = clock()
            ticks.append(after - edge)
        _resolution = statistics.median(ticks)
    return _resolution


def min_span() -> float:
    """The shortest span a timed batch may last in this runtime, in seconds."""
    return max(SPAN_FLOOR, SPAN_TICKS * clock_resolution())


def quantiles(values: list[float]) -> tuple[float, float, float]:
    """The 25th percentile, the median and the 75th percentile of ``values``.

    Raises ``ValueError`` for an empty list: callers check for degenerate data first.
    """
    ordered = sorted(values)
    if not ordered:
        raise ValueError("quantiles() arg is an empty sequence")
    if len(ordered) == 1:
        return ordered[0], ordered[0], ordered[0]
    q1, q2, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return q1, q2, q3


def figure(
    name: str,
    runtime: str,
    value: float | None,
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
    """The row of a measured comparison; its goal is a ratio of at most ``limit``.

    A degenerate comparison (no ratio) is neither met nor missed: its note says why.
    """
    ratio = measured["ratio"]
    notes = [text for text in (note, measured.get("degenerate") or "") if text]
    return figure(
        name,
        runtime,
        measured["value"],
        unit,
        spread=measured["spread"],
        baseline=baseline,
        baseline_value=measured["baseline_value"],
        ratio=ratio,
        ratio_spread=measured["ratio_spread"],
        goal=f"<= {limit:g}x",
        met=None if ratio is None else ratio <= limit,
        note="; ".join(notes),
    )


def _grown(number: int, elapsed: float, target: float) -> int:
    """The next batch size to try after ``number`` repetitions took ``elapsed`` seconds."""
    # Aim 20% past the target from the rate seen so far, growing at most tenfold a try.
    grow = 10.0 if elapsed <= 0 else min(10.0, 1.2 * target / elapsed)
    return max(number + 1, int(number * grow))


def calibrate(timed: Callable[[int], float], *, start: int = 1) -> int:
    """How many repetitions make ``timed(number)`` last at least :func:`min_span`.

    ``timed(number)`` runs the work ``number`` times and returns the seconds it took.
    """
    target, number = min_span(), max(1, start)
    while (elapsed := timed(number)) < target:
        number = _grown(number, elapsed, target)
    return number


async def acalibrate(timed: Callable[[int], Awaitable[float]], *, start: int = 1) -> int:
    """:func:`calibrate` for work that is awaited."""
    target, number = min_span(), max(1, start)
    while (elapsed := await timed(number)) < target:
        number = _grown(number, elapsed, target)
    return number


def compare_sync(
    stmt: str, baseline_stmt: str, namespace: dict[str, Any], *, rounds: int, number: int
) -> dict[str, Any]:
    """Time ``stmt`` against ``baseline_stmt``, interleaved; per-call nanoseconds and ratios.

    Each side repeats its statement at least ``number`` times a round, more when
    that would last less than :func:`min_span`.
    """
    timer = timeit.Timer(stmt, globals=namespace)
    base_timer = timeit.Timer(baseline_stmt, globals=namespace)
    count = calibrate(timer.timeit, start=number)  # also the warm-up
    base_count = calibrate(base_timer.timeit, start=number)
    values: list[float] = []
    bases: list[float] = []
    for round_index in range(rounds):
        if round_index % 2:
            base = base_timer.timeit(base_count)
            value = timer.timeit(count)
        else:
            value = timer.timeit(count)
            base = base_timer.timeit(base_count)
        values.append(value / count * 1e9)
        bases.append(base / base_count * 1e9)
    return summarize(values, bases) | {"batch": (count, base_count)}


def _batch(work: Callable[[], Awaitable[object]]) -> Callable[[int], Awaitable[float]]:
    async def timed(number: int) -> float:
        start = clock()
        for _ in range(number):
            await work()
        return clock() - start

    return timed


async def compare_async(
    work: Callable[[], Awaitable[object]],
    baseline: Callable[[], Awaitable[object]],
    *,
    rounds: int,
    units: int = 1,
    scale: float = 1.0,
) -> dict[str, Any]:
    """Like :func:`compare_sync` for awaited work; values are ``scale`` times seconds per unit.

    Each call of ``work`` (and of ``baseline``) does ``units`` units of work; both
    are repeated in calibrated batches.
    """
    timed, base_timed = _batch(work), _batch(baseline)
    count = await acalibrate(timed)  # also the warm-up
    base_count = await acalibrate(base_timed)
    values: list[float] = []
    bases: list[float] = []
    for round_index in range(rounds):
        if round_index % 2:
            base = await base_timed(base_count)
            value = await timed(count)
        else:
            value = await timed(count)
            base = await base_timed(base_count)
        values.append(value / (count * units) * scale)
        bases.append(base / (base_count * units) * scale)
    return summarize(values, bases) | {"batch": (count, base_count)}


def summarize(values: list[float], bases: list[float]) -> dict[str, Any]:
    """Medians, quartiles and the median per-round ratio of paired measurements.

    Rounds where either side measured zero give no ratio. When no round gives one,
    or there are no rounds, the result is degenerate: ``ratio`` is ``None`` and
    ``degenerate`` says why. It never raises for the data it is given.
    """
    ratios = [
        value / base for value, base in zip(values, bases, strict=True) if base > 0 and value > 0
    ]
    result: dict[str, Any] = {
        "value": None,
        "spread": None,
        "baseline_value": None,
        "ratio": None,
        "ratio_spread": None,
        "degenerate": None,
    }
    if values:
        v1, v2, v3 = quantiles(values)
        result.update(value=v2, spread=(v1, v3))
    if bases:
        result["baseline_value"] = quantiles(bases)[1]
    if ratios:
        r1, r2, r3 = quantiles(ratios)
        result.update(ratio=r2, ratio_spread=(r1, r3))
    elif not values:
        result["degenerate"] = "no rounds measured"
    else:
        result["degenerate"] = COARSE
    return result
