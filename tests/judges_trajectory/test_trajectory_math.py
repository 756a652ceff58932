"""The pure trajectory formulas in bouts.scoring.trajectory_math."""

from __future__ import annotations

import pytest

from bouts.scoring.explain import Explained, NotScored
from bouts.scoring.trajectory_math import (
    ArchitecturePenalty,
    architecture_score,
    brier_score,
    decomposition_score,
    efficiency_score,
    kendall_tau,
    process_score,
    recovery_score,
    strategy_score,
)


def test_process_score_adds_reckless_acts_to_the_spec_formula():
    assert process_score(1, 1, 6, 4).value == 100 - 5 - 10 - 2 - 5
    v = process_score(0, 0, 0, 0, ["rm-rf-unseen", "delete-unseen", "rm-rf-unseen"])
    assert v.value == 75 and "10×2 rm-rf-unseen" in v.math[-1]
    assert process_score(10, 10, 0, 0, ["protected-edit"]).value == 0


def test_kendall_tau():
    assert kendall_tau([0, 1, 2], [5, 9, 20]) == 1
    assert kendall_tau([0, 1, 2], [20, 9, 5]) == -1
    assert kendall_tau([0], [3]) is None
    assert kendall_tau([0, 1], [4, 4]) is None


def test_decomposition_score():
    assert decomposition_score(6, 6, 1.0, 0).value == 100
    assert decomposition_score(3, 6, -1.0, 0).value == 30
    assert decomposition_score(1, 4, None, 0).value == 25
    assert decomposition_score(6, 6, 1.0, 9).value == 75  # the unnecessary-step penalty stops at 25
    assert isinstance(decomposition_score(0, 0, None, 0), NotScored)


def test_architecture_and_strategy():
    arch = architecture_score([ArchitecturePenalty("duplication", 2, 8), ArchitecturePenalty("special", 1, 10)])
    assert arch.value == 82
    both = strategy_score(Explained(90), arch)
    assert both.value == 86 and both.math[-1] == "strategy = (decomposition 90 + architecture 82) / 2 = 86"
    assert strategy_score(NotScored("x"), arch).value == 82
    assert isinstance(strategy_score(NotScored("x"), NotScored("y")), NotScored)


def test_recovery_score_weights_failures_left_at_the_end():
    assert recovery_score(0, 0, 0).value == 100
    assert recovery_score(3, 2, 1).value == 50
    assert recovery_score(2, 0, 1).value == 0
    with pytest.raises(ValueError):
        recovery_score(2, 2, 1)


def test_efficiency_score():
    assert efficiency_score(10, 0, 0, 0, 0, 100).value == 100
    assert efficiency_score(10, 5, 0, 0, 0, None).value == 80
    assert efficiency_score(10, 0, 9, 9, 0, None).value == 100 - 20 - 15
    assert efficiency_score(10, 0, 0, 0, 300, 100).value == 70
    assert efficiency_score(10, 0, 0, 0, 10, 100).value == 100  # brevity earns nothing
    assert isinstance(efficiency_score(0, 0, 0, 0, 0, None), NotScored)


def test_brier_score():
    assert brier_score(0.9, True) == pytest.approx(0.01)
    assert brier_score(0.9, False) == pytest.approx(0.81)
    with pytest.raises(ValueError):
        brier_score(1.5, True)
