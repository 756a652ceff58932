"""Kendall τ-b without scipy on the scoring path (issue 17): the same values as scipy's, ties included."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import pytest
from scipy.stats import kendalltau

from bouts.scoring.trajectory_math import kendall_tau


def _scipy(xs: list[int], ys: list[int]) -> float | None:
    tau = kendalltau(xs, ys).statistic
    return None if math.isnan(tau) else float(tau)


@pytest.mark.parametrize("seed", range(40))
def test_tau_b_matches_scipy_with_and_without_ties(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 14)
    spread = rng.choice([2, 3, 5, 50])  # small spreads give many ties in both orders
    xs = [rng.randrange(spread) for _ in range(n)]
    ys = [rng.randrange(spread) for _ in range(n)]
    ours, theirs = kendall_tau(xs, ys), _scipy(xs, ys)
    if theirs is None:
        assert ours is None
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize(
    ("xs", "ys"),
    [
        ([0, 1, 2, 3], [10, 20, 30, 40]),
        ([0, 1, 2, 3], [40, 30, 20, 10]),
        ([0, 1, 2, 3], [1, 1, 2, 2]),
        ([0, 0, 1, 1], [1, 1, 2, 2]),
        ([0, 1, 2, 3, 4], [2, 0, 4, 1, 3]),
    ],
)
def test_tau_b_on_hand_picked_orders(xs: list[int], ys: list[int]) -> None:
    assert kendall_tau(xs, ys) == pytest.approx(_scipy(xs, ys), abs=1e-12)


def test_undefined_tau_is_none() -> None:
    assert kendall_tau([0], [3]) is None
    assert kendall_tau([0, 1, 2], [4, 4, 4]) is None
    assert kendall_tau([7, 7], [1, 2]) is None


def test_orders_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="one length"):
        kendall_tau([0, 1], [0, 1, 2])


def test_scoring_does_not_import_scipy() -> None:
    """``bouts score``'s import path stays lean: scipy costs about 0.6 s to import."""
    code = "import sys, bouts.pipeline, bouts.cli.main; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
