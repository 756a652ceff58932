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
    assert efficiency_score(10, 0, 0, 0, 300, 100).value == 70  # 10 + 20 × (3 − 1), at most 30
    assert efficiency_score(10, 0, 0, 0, 150, 100).value == 80  # 10 + 20 × 0.5
    assert isinstance(efficiency_score(0, 0, 0, 0, 0, None), NotScored)


def test_fewer_tokens_than_the_budget_for_the_same_result_score_higher():
    """Seed 004: token efficiency rewards using fewer tokens than the budget."""
    assert efficiency_score(10, 0, 0, 0, 20, 100).value == 98  # 10 × 0.2
    assert efficiency_score(10, 0, 0, 0, 90, 100).value == 91  # 10 × 0.9
    assert efficiency_score(10, 0, 0, 0, 100, 100).value == 90  # continuous at the budget
    assert efficiency_score(10, 0, 0, 0, 10**9, None).value == 100  # no budget: not judged
    # the credit for tokens saved follows the result: saving tokens by doing nothing earns none
    assert efficiency_score(10, 0, 0, 0, 20, 100, result=1.0).value == 98
    assert efficiency_score(10, 0, 0, 0, 20, 100, result=0.5).value == 94  # 10 × (1 − 0.8 × 0.5)
    assert efficiency_score(10, 0, 0, 0, 20, 100, result=0.0).value == 90


def test_ten_and_fifty_tool_calls_against_the_same_decomposition_differ():
    """Seed 004's own example: with a 6-step reference, 10 actions are within the allowance of 30,
    50 are 5/3 of it."""
    ten = efficiency_score(10, 0, 0, 0, 0, None, steps=6)
    fifty = efficiency_score(50, 0, 0, 0, 0, None, steps=6)
    assert ten.value == 100
    assert fifty.value == pytest.approx(100 - 20 * (1 - 30 / 50))
    assert "actions: 50 vs 30 allowed (5 per step × 6 reference steps)" in fifty.math[4]
    assert efficiency_score(500, 0, 0, 0, 0, None, steps=6).value == pytest.approx(100 - 20 * (1 - 30 / 500))


def test_the_action_term_keeps_long_runs_apart():
    """Issue 38: the linear term reached its cap at twice the allowance, holding 479 of 500 real runs at
    the cap: 60, 120 and 600 actions scored alike. The share of actions beyond the allowance grows with
    each action and never reaches the cap."""
    values = [efficiency_score(n, 0, 0, 0, 0, None, steps=6).value for n in (60, 120, 600)]
    assert values[0] > values[1] > values[2] > 80
    assert efficiency_score(50, 0, 0, 0, 0, None).value == 100  # no reference decomposition


def test_brier_score():
    assert brier_score(0.9, True) == pytest.approx(0.01)
    assert brier_score(0.9, False) == pytest.approx(0.81)
    with pytest.raises(ValueError):
        brier_score(1.5, True)
