"""Geometry of the pages' small inline SVG plots. Pure: numbers in, coordinates out; the templates
draw them (so every label goes through Jinja's autoescape) and the stylesheet colours them (the CSP
allows no inline style). Scores live on 0-100; coordinates are SVG user units, rounded to 0.1."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


def _r(v: float) -> float:
    return round(v, 1)


@dataclass(frozen=True)
class Spark:
    """A score trajectory as a sparkline (0-100 bottom to top)."""

    width: int
    height: int
    line: str
    """``x,y x,y ...`` for a polyline."""
    dots: list[tuple[float, float, float]]
    """(x, y, score) of every attempt."""


def sparkline(history: Sequence[float], *, width: int = 120, height: int = 30, pad: float = 4.0) -> Spark:
    n = len(history)
    step = (width - 2 * pad) / (n - 1) if n > 1 else 0.0
    dots = []
    for i, v in enumerate(history):
        x = pad + i * step if n > 1 else width / 2
        y = pad + (100 - _clamp(v)) / 100 * (height - 2 * pad)
        dots.append((_r(x), _r(y), v))
    return Spark(width, height, " ".join(f"{x},{y}" for x, y, _ in dots), dots)


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    w: float
    h: float
    label: str
    count: int


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class Histogram:
    width: int
    height: int
    left: float
    top: float
    bottom: float
    """y of the x axis."""
    right: float
    bars: list[Bar]
    xticks: list[Tick]
    yticks: list[Tick]
    total: int


def bins10(values: Sequence[float]) -> list[int]:
    """Counts in 10-point bins 0-10, ..., 90-100 (100 in the last), as ``bouts stats`` bins."""
    out = [0] * 10
    for v in values:
        out[min(9, max(0, int(v // 10)))] += 1
    return out


def count_ticks(peak: int, most: int = 5) -> list[int]:
    """Evenly spaced whole-number ticks from 0 to the first tick at or above ``peak`` (a count), at
    most ``most`` of them, the step 1, 2 or 5 times a power of ten: 3 → 0 1 2 3, 7 → 0 2 4 6 8."""
    peak = max(1, peak)
    scale = 1
    while True:
        for step in (scale, 2 * scale, 5 * scale):
            top = -(-peak // step) * step
            if top // step + 1 <= most:
                return list(range(0, top + 1, step))
        scale *= 10


def histogram(counts: Sequence[int], *, width: int = 440, height: int = 190) -> Histogram:
    left, top, right, bottom = 34.0, 10.0, width - 10.0, height - 26.0
    ys = count_ticks(max(counts, default=0))
    peak = ys[-1]  # the axis ends at a tick: bars are read against evenly spaced whole numbers
    slot = (right - left) / len(counts) if counts else 0.0
    bars = []
    for i, c in enumerate(counts):
        h = (bottom - top) * c / peak
        lo = i * 100 // len(counts)
        hi = (i + 1) * 100 // len(counts)
        bars.append(Bar(_r(left + i * slot + 1), _r(bottom - h), _r(slot - 2), _r(h), f"{lo}–{hi}", c))
    xticks = [Tick(_r(left + i * slot), str(i * 100 // len(counts))) for i in range(len(counts) + 1)]
    yticks = [Tick(_r(bottom - (bottom - top) * v / peak), str(v)) for v in ys]
    return Histogram(width, height, left, top, bottom, right, bars, xticks, yticks, sum(counts))


@dataclass(frozen=True)
class Point:
    cx: float
    cy: float
    x: float
    y: float
    label: str
    href: str | None = None


@dataclass(frozen=True)
class Scatter:
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    points: list[Point]
    ticks: list[tuple[float, float, str]]
    """(x position, y position, label) of the shared 0/25/50/75/100 ticks."""
    diagonal: tuple[float, float, float, float]
    """y = x: where two judges that agree would put every attempt."""
    fit: tuple[float, float, float, float] | None = None
    """Least-squares line over the points, when it is defined."""
    n: int = 0


def scatter(
    points: Sequence[tuple[float, float, str, str | None]], *, size: int = 340, margin: float = 46.0
) -> Scatter:
    """``points``: (x score, y score, label, link) on 0-100 × 0-100."""
    left, top, right, bottom = margin, 10.0, size - 10.0, size - margin + 10.0

    def sx(v: float) -> float:
        return _r(left + (right - left) * _clamp(v) / 100)

    def sy(v: float) -> float:
        return _r(bottom - (bottom - top) * _clamp(v) / 100)

    pts = [Point(sx(x), sy(y), x, y, label, href) for x, y, label, href in points]
    ticks = [(sx(v), sy(v), str(v)) for v in (0, 25, 50, 75, 100)]
    fit = None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if len(points) >= 2 and len(set(xs)) >= 2:
        slope, intercept = statistics.linear_regression(xs, ys)
        segment = clip_line(slope, intercept)
        if segment is not None:
            (x0, y0), (x1, y1) = segment
            fit = (sx(x0), sy(y0), sx(x1), sy(y1))
    return Scatter(size, size, left, top, right, bottom, pts, ticks, (sx(0), sy(0), sx(100), sy(100)), fit, len(pts))


def clip_line(slope: float, intercept: float, lo: float = 0.0, hi: float = 100.0
              ) -> tuple[tuple[float, float], tuple[float, float]] | None:  # fmt: skip
    """The part of the line ``y = slope·x + intercept`` inside the box [lo, hi]², as its two ends
    (left to right), or None when the line misses the box. Clipping, not clamping: clamping each
    end of the 0-100 segment to the box would draw another line (a fit of y = 1.69x − 51 came out
    as y = x)."""
    ends: list[tuple[float, float]] = []
    for x in (lo, hi):  # where the line crosses the box's left and right sides
        y = slope * x + intercept
        if lo <= y <= hi:
            ends.append((x, y))
    if slope != 0:
        for y in (lo, hi):  # and its bottom and top
            x = (y - intercept) / slope
            if lo < x < hi:
                ends.append((x, y))
    ends = sorted(set(ends))
    if len(ends) < 2:
        return None
    return ends[0], ends[-1]


@dataclass(frozen=True)
class AnchorRow:
    key: str
    expected: float
    actual: float | None
    ok: bool | None
    y: float
    band: tuple[float, float]
    """x from expected − tolerance to expected + tolerance (clipped to 0-100)."""
    ex: float
    ax: float | None


@dataclass(frozen=True)
class AnchorPlot:
    width: int
    height: int
    left: float
    right: float
    rows: list[AnchorRow]
    ticks: list[Tick]


def anchor_plot(
    rows: Sequence[tuple[str, float, float | None, bool | None]], *, tolerance: float, width: int = 520,
    row_h: float = 20.0,
) -> AnchorPlot:  # fmt: skip
    """Each (key, expected, measured or None, within tolerance or None) as one row: the tolerance
    band around the expected score, a tick at it and a dot at the measured score."""
    left, right = 120.0, width - 12.0

    def sx(v: float) -> float:
        return _r(left + (right - left) * _clamp(v) / 100)

    out = [
        AnchorRow(key, exp, act, ok, _r(8 + i * row_h + row_h / 2), (sx(exp - tolerance), sx(exp + tolerance)),
                  sx(exp), None if act is None else sx(act))  # fmt: skip
        for i, (key, exp, act, ok) in enumerate(rows)
    ]
    height = int(8 + len(rows) * row_h + 22)
    return AnchorPlot(width, height, left, right, out, [Tick(sx(v), str(v)) for v in (0, 25, 50, 75, 100)])


def _clamp(v: float) -> float:
    return max(0.0, min(100.0, float(v)))
