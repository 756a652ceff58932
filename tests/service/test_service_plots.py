"""The calibration scatter's least-squares line is clipped to the 0-100 box, never clamped end by
end (issue 18, item 6: a fit of y = 1.69x − 51 was drawn as y = x)."""

from __future__ import annotations

import pytest

from bouts.service.api import plots


def _on_line(point: tuple[float, float], slope: float, intercept: float) -> bool:
    return point[1] == pytest.approx(slope * point[0] + intercept, abs=1e-9)


@pytest.mark.parametrize(
    ("slope", "intercept", "ends"),
    [
        (1.69, -51.0, ((51 / 1.69, 0.0), (151 / 1.69, 100.0))),  # leaves through the bottom and the top
        (0.5, 80.0, ((0.0, 80.0), (40.0, 100.0))),  # leaves through the top
        (-2.0, 150.0, ((25.0, 100.0), (75.0, 0.0))),  # falling, through the top and the bottom
        (0.0, 30.0, ((0.0, 30.0), (100.0, 30.0))),  # flat, side to side
        (1.0, 0.0, ((0.0, 0.0), (100.0, 100.0))),  # corner to corner
    ],
)
def test_a_line_is_clipped_to_the_box(slope: float, intercept: float, ends: tuple) -> None:
    got = plots.clip_line(slope, intercept)
    assert got is not None
    for point, want in zip(got, ends, strict=True):
        assert point == pytest.approx(want)
        assert _on_line(point, slope, intercept)
        assert 0 <= point[0] <= 100 and 0 <= point[1] <= 100


@pytest.mark.parametrize(("slope", "intercept"), [(1.0, 200.0), (0.0, -5.0), (-1.0, -1.0), (1.0, 100.0)])
def test_a_line_that_misses_the_box_is_not_drawn(slope: float, intercept: float) -> None:
    """(1, 100) only touches the corner (0, 100): a point, not a segment."""
    assert plots.clip_line(slope, intercept) is None


def test_the_scatter_draws_the_fit_where_it_is_not_the_diagonal() -> None:
    """Points exactly on y = 1.69x − 51: the drawn segment runs from where that line enters the
    box to where it leaves it, in SVG units, not along y = x."""
    points = [(x, 1.69 * x - 51, f"p{x}", None) for x in (40.0, 60.0, 80.0)]
    sc = plots.scatter(points)
    assert sc.fit is not None and sc.fit != sc.diagonal
    x0, y0, x1, y1 = sc.fit
    width, height = sc.right - sc.left, sc.bottom - sc.top
    assert x0 == pytest.approx(sc.left + width * (51 / 1.69) / 100, abs=0.06) and y0 == pytest.approx(sc.bottom)
    assert x1 == pytest.approx(sc.left + width * (151 / 1.69) / 100, abs=0.06) and y1 == pytest.approx(sc.top)
    assert height > 0
    assert plots.scatter([(x, x + 300, "far", None) for x in (10.0, 20.0)]).fit is None


@pytest.mark.parametrize(
    ("peak", "ticks"),
    [(0, [0, 1]), (1, [0, 1]), (3, [0, 1, 2, 3]), (4, [0, 1, 2, 3, 4]), (7, [0, 2, 4, 6, 8]), (10, [0, 5, 10]),
     (23, [0, 10, 20, 30]), (480, [0, 200, 400, 600])],
)  # fmt: skip
def test_count_axis_ticks_are_evenly_spaced_whole_numbers(peak: int, ticks: list[int]) -> None:
    """Issue 41: three attempts in a bin drew a y-axis reading 0, 1, 3."""
    assert plots.count_ticks(peak) == ticks


def test_the_histogram_scales_bars_to_its_top_tick() -> None:
    h = plots.histogram([0, 3, 1, 0, 0, 0, 0, 0, 0, 0])
    assert [t.label for t in h.yticks] == ["0", "1", "2", "3"]
    gaps = [a.pos - b.pos for a, b in zip(h.yticks, h.yticks[1:], strict=False)]
    assert max(gaps) - min(gaps) <= 0.2  # evenly spaced (positions are rounded to 0.1 SVG units)
    tallest = max(h.bars, key=lambda b: b.count)
    assert tallest.y == pytest.approx(h.yticks[-1].pos)  # 3 reaches the tick labelled 3
