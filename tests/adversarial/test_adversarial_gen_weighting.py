"""The generated half weighs by severity against the pre-built half: it holds its full 60% once it
weighs as much as the pre-built tests, and less below that, so one low-severity generated test
cannot carry 60% of the adversarial component (the league-table false positive did)."""

from __future__ import annotations

import pytest

from bouts.scoring.components import adversarial_split
from bouts.scoring.explain import Explained, NotScored


def test_a_generated_suite_at_least_as_heavy_as_the_prebuilt_one_holds_sixty_percent() -> None:
    for weights in ((32, 39), (27, 27), (10, 100)):
        r = adversarial_split(Explained(50), Explained(100), weights=weights)
        assert r.value == pytest.approx(0.4 * 50 + 0.6 * 100)
        assert not any(line.startswith("generated share") for line in r.math)


def test_one_low_generated_test_cannot_carry_the_component() -> None:
    # league-table's high anchor before the fix: pre-built 20/24, one low generated test failed.
    r = adversarial_split(Explained(20 / 24 * 100), Explained(0), weights=(24, 1))
    share = 1.5 * 1 / (1.5 * 1 + 24)
    assert r.value == pytest.approx((1 - share) * 20 / 24 * 100)
    assert r.value > 75  # not 33.33, as when the one test held 60%
    assert any(line.startswith("generated share = 1.5×1 / (1.5×1 + 24)") for line in r.math)


def test_the_share_grows_with_the_generated_weight_up_to_its_cap() -> None:
    shares = []
    for w in (1, 5, 15, 26, 27, 40):
        r = adversarial_split(Explained(0), Explained(100), weights=(27, w))
        shares.append(r.value / 100)
    assert shares == sorted(shares) and shares[-1] == shares[-2] == pytest.approx(0.6)


def test_weights_do_not_matter_when_a_half_is_missing_or_the_split_is_all_or_nothing() -> None:
    assert adversarial_split(Explained(80), NotScored("none"), weights=(24, 1)).value == 80
    assert adversarial_split(Explained(80), Explained(0), prebuilt_share=0, weights=(24, 1)).value == 0
    assert adversarial_split(Explained(80), Explained(0), prebuilt_share=1, weights=(24, 1)).value == 80
    with pytest.raises(ValueError):
        adversarial_split(Explained(1), Explained(2), weights=(-1, 2))
