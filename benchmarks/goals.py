"""Pure helpers of the startup and baseline figures: round order, goal rows, module lists.

Nothing here measures: the functions turn lists of measurements (one per round)
into result rows, so that they can be tested without a browser.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

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


def added_row(
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
    """A row of paired rounds whose goal is a median per-round difference (``values[i]``
    less ``bases[i]``) of at most ``limit``; the note gives the difference's quartiles.

    Without pairs it is not judged, and its note says so.
    """
    goal = f"<= +{limit:g} {unit} over the baseline"
    if not values or len(values) != len(bases):
        notes = [note] if note else []
        notes.append("no paired rounds measured")
        return figure(name, runtime, None, unit, goal=goal, note="; ".join(notes))
    low, median, high = quantiles(values)
    d1, d2, d3 = quantiles([a - b for a, b in zip(values, bases, strict=True)])
    difference = f"difference {d2:+.1f} {unit} (quartiles {d1:+.1f} to {d3:+.1f})"
    return figure(
        name,
        runtime,
        median,
        unit,
        spread=(low, high),
        baseline=baseline,
        baseline_value=quantiles(bases)[1],
        goal=goal,
        met=d2 <= limit,
        note="; ".join(text for text in (difference, note) if text),
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


@dataclass(frozen=True)
class Link:
    """A network link that Chromium emulates: bandwidth each way (Mbit/s) and round trip (ms)."""

    label: str
    down_mbit: float
    up_mbit: float
    rtt_ms: float

    def __post_init__(self) -> None:
        for name in ("down_mbit", "up_mbit"):
            if not getattr(self, name) > 0:
                raise ValueError(
                    f"link {self.label!r}: {name} must be positive, not {getattr(self, name)!r}"
                )
        if not self.rtt_ms >= 0:
            raise ValueError(
                f"link {self.label!r}: rtt_ms must be zero or more, not {self.rtt_ms!r}"
            )

    def conditions(self) -> dict[str, Any]:
        """The parameters of CDP's ``Network.emulateNetworkConditions`` for this link."""
        return {
            "offline": False,
            "latency": self.rtt_ms,
            "downloadThroughput": self.down_mbit * 1e6 / 8,
            "uploadThroughput": self.up_mbit * 1e6 / 8,
        }

    def fetch_ms(self, size: int) -> float:
        """The time a response of ``size`` bytes takes here: a round trip, then its bytes."""
        return self.rtt_ms + size * 8 / (self.down_mbit * 1e3)


BROADBAND = Link("10 Mbit/s, 40 ms RTT", 10, 10, 40)
"""The link of the first- and second-visit goals."""

SLOW_3G = Link("1.6 Mbit/s, 150 ms RTT (slow 3G)", 1.6, 1.6, 150)
"""A slow mobile link, reported without a goal."""

THROTTLED = 0.8
"""The least share of a link's expected time a worker's fetch takes when the link applies to it."""


def transferred(entries: Iterable[Mapping[str, Any]]) -> int:
    """The bytes a visit moved: the sum of its Resource Timing entries' ``transferSize``."""
    return sum(int(entry.get("transferSize") or 0) for entry in entries)


def largest(entries: Iterable[Mapping[str, Any]], count: int = 6) -> list[tuple[str, int]]:
    """The ``count`` entries that moved the most bytes, as (file name, bytes), largest first."""
    sizes: dict[str, int] = {}
    for entry in entries:
        path = urlsplit(str(entry["name"])).path
        name = path.rsplit("/", 1)[-1] or path
        sizes[name] = sizes.get(name, 0) + int(entry.get("transferSize") or 0)
    ranked = sorted(sizes.items(), key=lambda item: (-item[1], item[0]))
    return [item for item in ranked[:count] if item[1] > 0]


def megabytes(size: float) -> str:
    """``size`` bytes as the rows print them: megabytes (10^6), or kilobytes under 0.1 MB."""
    return f"{size / 1e6:.2f} MB" if size >= 100_000 else f"{size / 1e3:.1f} KB"


def link_share(link: Link, measured_ms: float, size: int) -> float:
    """A fetch's measured time over the time ``link`` takes for ``size`` bytes (1 if throttled)."""
    return measured_ms / link.fetch_ms(size)


def network_rows(
    runtime: str,
    visits: Mapping[str, Sequence[Mapping[str, Any]]],
    link: Link,
    *,
    limit: float | None,
    note: str,
) -> list[dict[str, Any]]:
    """The rows of one link's rounds: the demo's first visit against bare Pyodide's, and the
    demo's second visit against its first when the rounds have one.

    ``visits`` maps ``demo``, ``bare`` and, optionally, ``second`` to one visit per round
    (``ready_ms`` and ``bytes``); ``second[i]`` followed ``demo[i]`` in its browser context.
    Without ``limit`` the first-visit row has no goal.
    """
    demo, bare, second = visits["demo"], visits["bare"], visits.get("second", [])
    ready = [float(visit["ready_ms"]) for visit in demo]
    bare_ready = [float(visit["ready_ms"]) for visit in bare]
    bytes_note = f"transferred per visit (median): demo {_median_mb(demo)}, bare {_median_mb(bare)}"
    spread = ""
    if bare_ready:
        low, mid, high = quantiles(bare_ready)
        spread = f"bare page ready {mid:.0f} ms ({low:.0f} to {high:.0f})"
    first = ratio_row(
        f"demo first visit, {link.label}, cold cache: navigation to ready",
        runtime,
        ready,
        bare_ready,
        "ms",
        baseline="stock Pyodide page, same server, fresh browser each",
        limit=limit if limit is not None else 1.0,
        note="; ".join(text for text in (note, spread, bytes_note) if text),
    )
    if limit is None:
        first.update(goal=None, met=None)
    rows = [first]
    if second:
        rows.append(
            ratio_row(
                f"demo second visit, {link.label}, same browser: navigation to ready",
                runtime,
                [float(visit["ready_ms"]) for visit in second],
                ready,
                "ms",
                baseline="its first visit in that browser",
                limit=0.5,
                note=f"{note}; transferred per visit (median): {_median_mb(second)}",
            )
        )
    return rows


def unjudged(rows: Iterable[dict[str, Any]], reason: str) -> None:
    """Mark ``rows`` not judged, their notes saying ``reason``."""
    for row in rows:
        if row["goal"] is not None:
            row["met"] = None
        row["note"] = "; ".join(text for text in (f"not judged: {reason}", row["note"]) if text)


def _median_mb(visits: Sequence[Mapping[str, Any]]) -> str:
    sizes = [float(visit["bytes"]) for visit in visits]
    return megabytes(quantiles(sizes)[1]) if sizes else "not measured"


Step = tuple[str, Callable[[], list[dict[str, Any]]]]
"""A part of the suite: its label, and what measures it (a runtime's measurements)."""


def with_network(
    steps: list[Step], network_step: Step, *, quick: bool, only_network: bool
) -> list[Step]:
    """The suite's parts: the network part alone with ``only_network``, else after the others
    unless ``quick`` (a first visit over 10 Mbit/s takes seconds a round)."""
    if only_network:
        return [network_step]
    return steps if quick else [*steps, network_step]
