"""An SVG bar chart of the cold-start and per-step figures, each beside its baseline."""

from __future__ import annotations

from html import escape
from typing import Any

BAR = 14
GAP = 10
LABEL_WIDTH = 360
PLOT_WIDTH = 420


def render(figures: list[dict[str, Any]]) -> str:
    """Return an SVG document: one pair of bars (pyctx_web, baseline) per charted figure."""
    rows = [f for f in figures if f["unit"] in {"ms", "us", "us/step"} and f["value"] is not None]
    groups = []
    for row in rows:
        bars: list[tuple[str, float, str, list[float] | None]] = [
            ("pyctx_web", row["value"], "#2457c5", row["spread"])
        ]
        if row["baseline_value"] is not None:
            bars.append((row["baseline"] or "baseline", row["baseline_value"], "#9aa5b1", None))
        groups.append((f"{row['name']} [{row['runtime']}]", row["unit"], bars))
    height = 40 + sum(len(bars) * BAR + GAP + 18 for _, _, bars in groups)
    width = LABEL_WIDTH + PLOT_WIDTH + 120
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="system-ui, sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="#fff"/>',
        '<text x="10" y="22" font-size="15" font-weight="600">'
        "pyctx_web: cold start (ms) and per-step cost (us), median of rounds "
        "(whiskers: quartiles)</text>",
    ]
    y = 40
    for title, unit, bars in groups:
        # A degenerate pair (every value zero) is drawn with empty bars, not divided by.
        longest = max(max([value, *(spread or [])]) for _, value, _, spread in bars)
        scale = PLOT_WIDTH / longest if longest > 0 else 0.0
        parts.append(f'<text x="10" y="{y + 11}" font-weight="600">{escape(title)}</text>')
        y += 18
        for label, value, colour, spread in bars:
            parts.append(f'<text x="20" y="{y + 11}">{escape(label)}</text>')
            parts.append(
                f'<rect x="{LABEL_WIDTH}" y="{y}" width="{value * scale:.1f}" height="{BAR - 2}" '
                f'fill="{colour}"/>'
            )
            end = max([value, *(spread or [])])
            if spread:
                parts.append(_whisker(spread, scale, y + (BAR - 2) / 2))
            parts.append(
                f'<text x="{LABEL_WIDTH + end * scale + 6:.1f}" y="{y + 11}">'
                f"{value:.1f} {unit}</text>"
            )
            y += BAR
        y += GAP
    parts.append("</svg>")
    return "\n".join(parts)


def _whisker(spread: list[float], scale: float, middle: float) -> str:
    """A line from the first to the third quartile, with end caps, across a bar's middle."""
    low, high = (LABEL_WIDTH + value * scale for value in spread)
    top, bottom = middle - 4, middle + 4
    return (
        f'<path d="M{low:.1f} {middle:.1f}H{high:.1f}M{low:.1f} {top:.1f}V{bottom:.1f}'
        f'M{high:.1f} {top:.1f}V{bottom:.1f}" stroke="#111" stroke-width="1.2" fill="none"/>'
    )
