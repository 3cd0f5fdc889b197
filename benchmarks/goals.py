"""Pure helpers of the startup and baseline figures: round order, goal rows, module lists.

Nothing here measures: the functions turn lists of measurements (one per round)
into result rows, so that they can be tested without a browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from stats import compared, figure, quantiles, summarize

T = TypeVar("T")

UNSEEN = frozenset({"__future__", "js", "pyodide_js"})
"""Modules a profiler cannot judge: ``__future__`` (free to import) and the proxies of
JavaScript's scope, whose uses are calls of JavaScript functions."""

NOT_SLOWER = 1.1
"""The ratio to the baseline under which a run-time figure counts as not slower (noise)."""


def rotation(kinds: Sequence[T], round_index: int) -> list[T]:
    """The order of ``kinds`` in round ``round_index``: rotated, so that none always goes first."""
    if not kinds:
        return []
    shift = round_index % len(kinds)
    return [*kinds[shift:], *kinds[:shift]]


def rounds_note(rounds: int, quick: bool) -> str:
    """How many rounds a row's figure is the median of, marked when ``--quick`` made them few."""
    return f"{rounds} rounds" + (" (--quick: few rounds, wide quartiles)" if quick else "")


def bounded(
    name: str,
    runtime: str,
    values: list[float],
    unit: str,
    *,
    limit: float,
    bases: list[float] | None = None,
    baseline: str | None = None,
    with_ratio: bool = True,
    note: str = "",
) -> dict[str, Any]:
    """A row whose goal is a median of at most ``limit``; ``bases`` are its per-round baseline.

    With ``bases``, the row also carries the baseline's median and, ``with_ratio``, the
    median of the per-round ratios. Without values it is not judged, and its note says so.
    """
    notes = [note] if note else []
    if not values:
        notes.append("no rounds measured")
        return figure(name, runtime, None, unit, goal=f"<= {limit:g} {unit}", note="; ".join(notes))
    low, median, high = quantiles(values)
    paired = summarize(values, bases) if bases else None
    ratio = paired if paired and with_ratio else None
    return figure(
        name,
        runtime,
        median,
        unit,
        spread=(low, high),
        baseline=baseline if bases else None,
        baseline_value=paired["baseline_value"] if paired else None,
        ratio=ratio["ratio"] if ratio else None,
        ratio_spread=ratio["ratio_spread"] if ratio else None,
        goal=f"<= {limit:g} {unit}",
        met=median <= limit,
        note="; ".join(notes),
    )


def ratio_row(
    name: str,
    runtime: str,
    values: list[float],
    bases: list[float],
    unit: str,
    *,
    baseline: str,
    limit: float,
    note: str = "",
) -> dict[str, Any]:
    """A row of paired rounds whose goal is a median per-round ratio of at most ``limit``."""
    return compared(
        name, runtime, summarize(values, bases), unit, baseline=baseline, limit=limit, note=note
    )


def unused_modules(
    imported: Iterable[str],
    used: Iterable[str],
    importers: Mapping[str, str] | None = None,
    *,
    own: str = "pyctx_web",
) -> list[str]:
    """The modules of ``imported`` that were not needed while ``used`` ran, sorted.

    A package is needed when a module under it is (importing a module imports its
    parents), and so is what a needed module outside the ``own`` package imported
    (``importers`` maps a module to the module whose import statement loaded it): the
    standard library's own dependencies are not the package's choice. What the ``own``
    package imports must be used itself. :data:`UNSEEN` modules are left out.
    """
    needed: set[str] = set()
    pending = list(used)
    while pending:
        name = pending.pop()
        if name in needed:
            continue
        needed.add(name)
        parts = name.split(".")
        pending.extend(".".join(parts[:end]) for end in range(1, len(parts)))
        if name != own and not name.startswith(own + "."):
            pending.extend(child for child, parent in (importers or {}).items() if parent == name)
    return sorted(name for name in set(imported) - needed if name not in UNSEEN)


def versus_rows(
    runs: list[list[dict[str, Any]]],
    base_runs: list[list[dict[str, Any]]],
    *,
    baseline: str,
    limit: float = NOT_SLOWER,
) -> list[dict[str, Any]]:
    """Each figure of paired runs against the same figure of the baseline's runs.

    ``runs[i]`` and ``base_runs[i]`` are the rows of one pair of runs, taken one after
    the other. A row's value is the median over pairs of its median, and its ratio the
    median of the per-pair ratios; the goal is a ratio of at most ``limit``. Figures
    missing on either side of a pair are skipped in that pair.
    """
    names: list[tuple[str, str]] = []
    for rows in runs:
        for row in rows:
            key = (row["name"], row["runtime"])
            if key not in names:
                names.append(key)
    result = []
    for name, runtime in names:
        values, bases = [], []
        for rows, base_rows in zip(runs, base_runs, strict=True):
            value = _value_of(rows, name, runtime)
            base = _value_of(base_rows, name, runtime)
            if value is not None and base is not None:
                values.append(value)
                bases.append(base)
        unit = next(r["unit"] for rows in runs for r in rows if r["name"] == name)
        result.append(
            ratio_row(
                f"{name}, against the baseline",
                runtime,
                values,
                bases,
                unit,
                baseline=baseline,
                limit=limit,
                note=f"{len(values)} pairs of runs; not slower: ratio <= {limit:g}",
            )
        )
    return result


def _value_of(rows: list[dict[str, Any]], name: str, runtime: str) -> float | None:
    for row in rows:
        if row["name"] == name and row["runtime"] == runtime and row["value"] is not None:
            return float(row["value"])
    return None
