"""A memory's importance over time as an SVG chart, drawn on the server.

No charting script: the page stays readable with scripts off, and nothing is fetched
from anywhere. Points are placed by time (x) and score (y, 0 to 1); dashed lines mark
the medium and high levels' lowest scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from xml.sax.saxutils import escape

from markupsafe import Markup

from api.presenters import iso

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 14, 30


@dataclass(frozen=True)
class ScorePoint:
    """One score of the memory, and when it was given."""

    at: datetime
    score: float
    level: str


def _x(at: datetime, first: datetime, span: float) -> float:
    plot = WIDTH - LEFT - RIGHT
    if span <= 0:
        return LEFT + plot / 2
    return LEFT + plot * (at - first).total_seconds() / span


def _y(score: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - min(max(score, 0.0), 1.0))


def score_chart(points: Sequence[ScorePoint], *, medium: float, high: float) -> Markup:
    """``<svg>`` of the points in time order (an empty chart says so)."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}">',
        "<title>importance score over time</title>",
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>'
        )
    for name, threshold in (("medium", medium), ("high", high)):
        y = _y(threshold)
        parts.append(
            f'<line class="threshold {name}" x1="{LEFT}" x2="{WIDTH - RIGHT}" '
            f'y1="{y:.1f}" y2="{y:.1f}"><title>{name} from {threshold:g}</title></line>'
        )
    ordered = sorted(points, key=lambda p: p.at)
    if not ordered:
        parts.append(
            f'<text class="empty" x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle">'
            "no scores yet</text></svg>"
        )
        return Markup("".join(parts))
    first, last = ordered[0].at, ordered[-1].at
    span = (last - first).total_seconds()
    xy = [(_x(p.at, first, span), _y(p.score)) for p in ordered]
    parts.append(
        '<polyline class="line" fill="none" points="'
        + " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
        + '"/>'
    )
    for (x, y), point in zip(xy, ordered, strict=True):
        label = f"{iso(point.at)}: {point.score:.3f} ({point.level})"
        parts.append(
            f'<circle class="point {escape(point.level)}" cx="{x:.1f}" cy="{y:.1f}" r="3.5">'
            f"<title>{escape(label)}</title></circle>"
        )
    bottom = HEIGHT - 8

    # Days for a long history; to the second when it all happened within two days.
    def when(at: datetime) -> str:
        return iso(at) if span < 2 * 86400 else at.date().isoformat()

    parts.append(f'<text class="axis" x="{LEFT}" y="{bottom}">{escape(when(first))}</text>')
    if span > 0:
        parts.append(
            f'<text class="axis" x="{WIDTH - RIGHT}" y="{bottom}" text-anchor="end">'
            f"{escape(when(last))}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
