"""``[budgets] iterations``: the refusal of an iteration past it (pure; the CLI and the service intake
raise it: tests/test_cli_score_options.py, tests/service/test_service_archives.py)."""

from __future__ import annotations

from bouts.scoring.budgets import iteration_refusal


def test_iterations_within_the_budget_or_without_one_may_be_scored():
    assert iteration_refusal(3, 3) is None
    assert iteration_refusal(1, 3) is None
    assert iteration_refusal(99, None) is None


def test_an_iteration_past_the_budget_is_refused_saying_which_may_be_scored():
    assert iteration_refusal(4, 3) == (
        "iteration 4 is past the challenge's budget of 3 iterations ([budgets] iterations in its "
        "challenge.toml): attempts 1-3 may be scored"
    )
    assert "budget of 1 iteration (" in (iteration_refusal(2, 1) or "")
