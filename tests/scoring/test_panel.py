"""SPEC §3: the three-judge code-quality rule."""

from __future__ import annotations

import pytest

from bouts.scoring import panel
from bouts.scoring.explain import NotScored


def agg(scores):
    r = panel.aggregate(scores)
    assert isinstance(r, panel.PanelResult)
    return r


def test_worked_example_median():
    r = agg([72, 68, 76])
    assert (r.score.value, r.rule, r.human_review) == (72, "median", False)


def test_spread_exactly_15_is_median():
    r = agg([50, 60, 65])
    assert (r.score.value, r.rule, r.human_review) == (60, "median", False)


def test_spread_just_above_15_is_not_median():
    r = agg([50, 60, 65.5])
    assert r.rule != "median"


def test_single_outlier_mean_of_other_two():
    r = agg([70, 72, 90])
    assert (r.score.value, r.rule, r.human_review, r.outlier) == (71, "outlier_dropped", False, 2)


def test_single_outlier_below():
    r = agg([40, 80, 84])
    assert (r.score.value, r.rule, r.outlier) == (82, "outlier_dropped", 0)


def test_outlier_must_be_more_than_15_from_both():
    # 90 is exactly 15 from 75: not "more than 15 from both", so no outlier -> disagreement
    r = agg([60, 75, 90])
    assert r.rule == "disagreement"
    assert r.score.value == 75 - 10
    assert r.human_review


def test_two_outlier_candidates_larger_summed_distance_wins():
    # [10, 40, 90]: every pair is more than 15 apart, so all qualify.
    # summed distances: 10 -> 30 + 80 = 110; 40 -> 30 + 50 = 80; 90 -> 80 + 50 = 130.
    # 90 is the outlier: mean(10, 40) = 25.
    r = agg([10, 40, 90])
    assert (r.score.value, r.rule, r.outlier, r.human_review) == (25, "outlier_dropped", 2, False)


def test_outlier_candidates_order_does_not_matter():
    assert agg([90, 10, 40]).score.value == 25
    assert agg([40, 90, 10]).score.value == 25


def test_tie_in_summed_distance_is_disagreement():
    # [10, 50, 90]: 10 -> 40 + 80 = 120; 90 -> 80 + 40 = 120 (tie) -> mean 50 − 10 = 40
    r = agg([10, 50, 90])
    assert (r.score.value, r.rule, r.human_review, r.outlier) == (40, "disagreement", True, None)
    assert panel.HUMAN_REVIEW_MESSAGE == "Judges couldn't agree — code may be confusing or unconventional"
    assert "human review" in r.score.math[0]


def test_no_outlier_spread_over_15_mean_minus_10():
    r = agg([50, 60, 70])
    assert (r.score.value, r.rule, r.human_review) == (50, "disagreement", True)


def test_disagreement_floor_zero():
    # [0, 8, 16]: spread 16, no judge > 15 from both others, mean 8 − 10 -> floor 0
    r = agg([0, 8, 16])
    assert (r.score.value, r.rule, r.human_review) == (0, "disagreement", True)


def test_one_judge():
    r = agg([63])
    assert (r.score.value, r.rule, r.human_review) == (63, "single", False)


def test_two_judges_agree_median_is_mean():
    r = agg([60, 75])
    assert (r.score.value, r.rule) == (67.5, "median")


def test_two_judges_disagree():
    # two judges cannot outvote each other: mean − 10, human review
    r = agg([40, 80])
    assert (r.score.value, r.rule, r.human_review) == (50, "disagreement", True)


def test_no_judges_not_scored():
    assert isinstance(panel.aggregate([]), NotScored)


@pytest.mark.parametrize("bad", [-1, 100.5])
def test_judge_score_out_of_range(bad):
    with pytest.raises(ValueError):
        panel.aggregate([50, bad, 60])


def test_spread_exactly_15_with_decimal_scores_is_median():
    r = agg([1.1, 8, 16.1])
    assert (r.score.value, r.rule, r.human_review) == (8, "median", False)


def test_outlier_exactly_15_with_decimal_scores_is_not_an_outlier():
    # 1.1 is exactly 15 from 16.1: not more than 15 from both others, no outlier, spread 18.9
    # -> disagreement: mean(1.1, 16.1, 20) − 10 = 2.4 (the code drops 1.1 and gives 18.05)
    r = agg([1.1, 16.1, 20])
    assert r.rule == "disagreement"
    assert r.score.value == 2.4
