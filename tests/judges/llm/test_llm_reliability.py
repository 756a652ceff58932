"""Panel reliability math: Krippendorff's α (interval) and distance from the panel median."""

from __future__ import annotations

import random

import krippendorff
import numpy as np
import pytest

from bouts.judges.llm.reliability import distance_from_median, krippendorff_alpha_interval, reliability


def _table(rows: list[list[float | None]]) -> dict[str, dict[str, float | None]]:
    return {f"j{j}": {f"s{u}": v for u, v in enumerate(row)} for j, row in enumerate(rows)}


@pytest.mark.parametrize("seed", range(8))
def test_alpha_matches_the_reference_implementation(seed):
    rng = random.Random(seed)
    rows = [[None if rng.random() < 0.2 else rng.randint(0, 100) for _ in range(15)] for _ in range(3)]
    expected = krippendorff.alpha(
        reliability_data=np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=float),
        level_of_measurement="interval",
    )
    assert krippendorff_alpha_interval(_table(rows)) == pytest.approx(expected, abs=1e-9)


def test_textbook_values():
    assert krippendorff_alpha_interval(_table([[10, 50, 90], [10, 50, 90], [10, 50, 90]])) == 1
    # Judges disagreeing systematically (reversed order) are worse than chance.
    assert krippendorff_alpha_interval(_table([[10, 50, 90], [90, 50, 10]])) < 0


def test_undefined_cases():
    assert krippendorff_alpha_interval(_table([[70, 70], [70, 70]])) is None  # no variation at all
    assert krippendorff_alpha_interval(_table([[70, None], [None, 60]])) is None  # nothing pairable


def test_distance_from_the_panel_median_finds_the_lenient_judge():
    rows = [[60, 70, 80], [62, 68, 80], [95, 100, 100], [None, None, None]]
    d = distance_from_median(_table(rows))
    assert d["j0"] == pytest.approx(2 / 3) and d["j1"] == pytest.approx(2 / 3)
    assert d["j2"] > 20 and d["j3"] is None
    r = reliability(_table(rows))
    assert r.units == 3 and r.values == 12 - 3 and r.distance_from_median == d
