"""Panel reliability: how much a panel's judges agree across many submissions. Pure math, no I/O.

Input is a table of scores, judge → submission → score (0-100, or None where the judge did not
score that submission). Two figures per panel, for the calibration report:

- **Krippendorff's α (interval)**: 1 − D_o / D_e, where D_o is the observed disagreement within
  submissions and D_e the disagreement expected by chance over all scores. α = 1 is perfect
  agreement, 0 is chance level, below 0 systematic disagreement. It tolerates missing scores and
  any number of judges; only submissions with at least two scores are *pairable* and count.
- **distance from the panel median**: for each judge, the mean |score − median of every judge's
  score on that submission| over the pairable submissions it scored. A judge far from the others
  (a lenient model, a broken analyser) shows here before α reveals that something is off.

Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", §C (interval metric δ² = (c−k)²).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass

Scores = Mapping[str, Mapping[str, float | None]]
"""judge → submission (unit) → score, None or absent where the judge did not score it."""


@dataclass(frozen=True)
class Reliability:
    alpha: float | None
    """Krippendorff's α (interval); None when undefined (fewer than two pairable values, or no
    variation at all, where D_e = 0)."""
    units: int
    """Submissions with at least two scores (the pairable units α was computed over)."""
    values: int
    """Scores in those units."""
    distance_from_median: Mapping[str, float | None]
    """Per judge: mean absolute distance from the panel median (None: it scored no pairable unit)."""


def _units(scores: Scores) -> dict[str, dict[str, float]]:
    """submission → judge → score, keeping only submissions with two or more scores."""
    by_unit: dict[str, dict[str, float]] = {}
    for judge, row in scores.items():
        for unit, value in row.items():
            if value is not None:
                by_unit.setdefault(unit, {})[judge] = float(value)
    return {u: js for u, js in by_unit.items() if len(js) >= 2}


def _pair_sum(values: list[float]) -> float:
    """Σ over ordered pairs i ≠ j of (v_i − v_j)², in O(n): 2(m·Σv² − (Σv)²)."""
    m = len(values)
    total = sum(values)
    return 2.0 * (m * sum(v * v for v in values) - total * total)


def krippendorff_alpha_interval(scores: Scores) -> float | None:
    """Krippendorff's α with the interval metric; None where it is undefined."""
    units = _units(scores)
    pooled = [v for js in units.values() for v in js.values()]
    n = len(pooled)
    if n < 2:
        return None
    observed = sum(_pair_sum(list(js.values())) / (len(js) - 1) for js in units.values()) / n
    expected = _pair_sum(pooled) / (n * (n - 1))
    if expected <= 1e-12:
        return None  # every score identical: agreement is trivial, α is 0/0
    return 1.0 - observed / expected


def distance_from_median(scores: Scores) -> dict[str, float | None]:
    """Each judge's mean |score − panel median| over the pairable submissions it scored."""
    units = _units(scores)
    distances: dict[str, list[float]] = {judge: [] for judge in scores}
    for js in units.values():
        median = statistics.median(js.values())
        for judge, value in js.items():
            distances[judge].append(abs(value - median))
    return {j: (statistics.fmean(d) if d else None) for j, d in distances.items()}


def reliability(scores: Scores) -> Reliability:
    """α, the pairable counts and each judge's distance from the median, for one panel."""
    units = _units(scores)
    return Reliability(
        alpha=krippendorff_alpha_interval(scores),
        units=len(units),
        values=sum(len(js) for js in units.values()),
        distance_from_median=distance_from_median(scores),
    )
