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


def test_three_way_disagreement_is_mean_minus_10_with_review():
    # Issue 39: [50, 70, 95] — every judge is more than 15 from both others, nobody agrees: SPEC §3's
    # "otherwise", mean 71.67 − 10 = 61.67 and human review (it was 60, the mean of 50 and 70).
    r = agg([50, 70, 95])
    assert (r.rule, r.human_review, r.outlier) == ("disagreement", True, None)
    assert r.score.value == pytest.approx(215 / 3 - 10)
    # [20, 36, 100] gave 28 (mean of 20 and 36); the rule gives 52 − 10 = 42.
    assert agg([20, 36, 100]).score.value == pytest.approx(42)
    for order in ([90, 10, 40], [40, 90, 10], [10, 40, 90]):
        assert agg(order).score.value == pytest.approx(140 / 3 - 10)


def test_two_candidates_of_four_larger_summed_distance_wins():
    # Four judges, two of them more than 15 from every other: 0 -> 50+52+100 = 202, 100 -> 50+48+100 = 198.
    r = agg([0, 50, 52, 100])
    assert (r.rule, r.outlier, r.human_review) == ("outlier_dropped", 0, False)
    assert r.score.value == pytest.approx(202 / 3)


def test_tie_in_summed_distance_is_disagreement():
    # [10, 50, 90]: all three qualify (and 10 and 90 tie anyway) -> mean 50 − 10 = 40
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
