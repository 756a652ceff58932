"""SPEC §4: leaderboard order and trajectory shapes."""

from __future__ import annotations

import pytest

from bouts.scoring.leaderboard import Entry, rank, render_history, shape, sort_key


def names(entries):
    return [e.agent for _, e in rank(entries)]


def test_higher_score_first():
    es = [Entry("a", 70, 1, 10), Entry("b", 90, 9, 999), Entry("c", 80, 1, 1)]
    assert names(es) == ["b", "c", "a"]


def test_tie_on_score_fewer_iterations_first():
    es = [Entry("a", 80, 3, 10), Entry("b", 80, 1, 999)]
    assert names(es) == ["b", "a"]


def test_tie_on_score_and_iterations_faster_first():
    es = [Entry("a", 80, 2, 300), Entry("b", 80, 2, 120.5)]
    assert names(es) == ["b", "a"]


def test_unknown_time_sorts_last_among_equals():
    es = [Entry("a", 80, 2, None), Entry("b", 80, 2, 5000)]
    assert names(es) == ["b", "a"]


def test_full_tie_shares_rank_and_order_is_total():
    es = [Entry("z", 80, 2, 60), Entry("a", 80, 2, 60), Entry("m", 70, 1, 1)]
    ranked = rank(es)
    assert [(r, e.agent) for r, e in ranked] == [(1, "a"), (1, "z"), (3, "m")]


def test_sort_key_order_of_keys():
    assert sort_key(Entry("a", 85, 3, 42.0)) == (False, -85, 3, 42.0, "a")


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ([85], "one-shot"),
        ([60, 72, 78, 85], "monotonic"),
        ([60, 60, 60], "monotonic"),  # never lower than the attempt before
        ([60, 75], "monotonic"),  # a single attempt before the jump is not "flat"
        ([60, 72, 70, 85], "regression"),
        ([80, 79.5], "regression"),
        ([60, 61, 62, 80], "last-jump"),
        ([60, 65, 80], "last-jump"),  # flat band exactly 5, jump exactly 15
        ([60, 65, 79], "monotonic"),  # jump 14
        ([60, 66, 81], "monotonic"),  # not flat: 6 apart before the jump
        ([60, 60, 100], "last-jump"),
        ([60, 62, 40, 90], "regression"),  # regression wins over a final jump
    ],
)
def test_shape(history, expected):
    assert shape(history) == expected


def test_shape_needs_an_attempt():
    with pytest.raises(ValueError):
        shape([])


def test_render_history():
    assert render_history([60, 72, 78, 85]) == "[60 → 72 → 78 → 85]"
    assert render_history([60.5]) == "[60.5]"


def test_shape_boundaries_with_decimal_scores():
    assert shape([0.4, 5.4, 20.4]) == "last-jump"


def test_provisional_entries_rank_after_every_complete_one() -> None:
    """SPEC §6: a provisional scorecard (a component the platform failed to measure) ranks after every
    complete one, whatever its score. Before: it was ranked with them on its rescaled score."""
    es = [Entry("p", 99, 1, 1, provisional=True), Entry("a", 60, 3, 900), Entry("q", 80, 1, 1, provisional=True)]
    assert [(r, e.agent) for r, e in rank(es)] == [(1, "a"), (2, "p"), (3, "q")]
