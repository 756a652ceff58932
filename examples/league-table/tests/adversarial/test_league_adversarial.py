"""Pre-built adversarial tests: inputs a careless table builder gets wrong. Each names the attack
it stops and carries a severity (critical 5, high 3, medium 2, low 1)."""

import pytest

from league import standings


@pytest.mark.severity("critical")
def test_negative_goals_cannot_buy_a_win():
    # -5 vs 0 would count as a loss for the home side and a "win" for nobody honest.
    with pytest.raises(ValueError):
        standings([("Ajax", "Benfica", 0, -5)])


@pytest.mark.severity("critical")
def test_a_bad_record_never_yields_a_partial_table():
    with pytest.raises(ValueError):
        standings([("Ajax", "Benfica", 1, 0), ("Benfica", "Benfica", 1, 0)])


@pytest.mark.severity("high")
def test_input_list_is_not_mutated():
    results = [("Benfica", "Ajax", 0, 1), ("Ajax", "Celtic", 2, 2)]
    snapshot = list(results)
    standings(results)
    assert results == snapshot


@pytest.mark.severity("high")
def test_rows_are_independent_objects():
    table = standings([("Ajax", "Benfica", 1, 0)])
    table[0]["points"] = 99
    assert standings([("Ajax", "Benfica", 1, 0)])[0]["points"] == 3


@pytest.mark.severity("medium")
def test_boolean_goals_are_rejected():
    with pytest.raises(ValueError):
        standings([("Ajax", "Benfica", True, False)])


@pytest.mark.severity("medium")
def test_padded_team_names_are_rejected():
    # " Ajax" and "Ajax" would otherwise become two rows for one club.
    with pytest.raises(ValueError):
        standings([(" Ajax", "Benfica", 1, 0)])


@pytest.mark.severity("medium")
def test_short_records_are_rejected():
    with pytest.raises(ValueError):
        standings([("Ajax", "Benfica", 1)])


@pytest.mark.severity("low")
def test_huge_scores_are_counted_exactly():
    table = standings([("Ajax", "Benfica", 10**18, 10**18 - 1)])
    assert table[0]["goal_difference"] == 1


@pytest.mark.severity("low")
def test_case_differs_means_different_teams():
    table = standings([("ajax", "Ajax", 1, 1)])
    assert [r["team"] for r in table] == ["Ajax", "ajax"]
