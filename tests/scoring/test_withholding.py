"""SPEC §6 in the pure core: a component the submission kept from being measured scores 0 with the
reason; one the platform failed to measure is not scored and rescales (provisional)."""

from __future__ import annotations

from bouts.scoring import profiles
from bouts.scoring.explain import Explained, NotScored, Withheld
from bouts.scoring.withholding import settle, weighs_trajectory, withheld, without_trajectory


def test_the_submissions_doing_scores_zero_with_the_reason_in_the_math() -> None:
    result = settle("code_quality", withheld("the submission changed no code", ("0 files changed",)))
    assert isinstance(result, Withheld) and result.value == 0
    assert result.reason == "the submission changed no code"
    assert result.math[0] == "0 files changed"
    assert result.math[-1].startswith("code_quality = 0: the submission changed no code")


def test_a_platform_failure_stays_not_scored() -> None:
    down = NotScored("llm-judge could not run (infrastructure, not the agent's fault)")
    assert settle("code_quality", down) is down
    inapplicable = NotScored("the challenge asks for no deliverables", applies=False, cause="submission")
    assert settle("deliverables", inapplicable) is inapplicable


def test_no_trajectory_is_the_submissions_doing_only_where_the_profile_weighs_it() -> None:
    assert weighs_trajectory("composite") and weighs_trajectory("four-judge") and not weighs_trajectory("engine")
    assert without_trajectory("present", "composite") is None
    absent = without_trajectory("absent", "composite")
    assert absent is not None and absent.cause == "submission" and absent.applies
    unreadable = without_trajectory("unreadable", "four-judge", "line 3: not JSON")
    assert unreadable is not None and "could not be read (line 3: not JSON)" in unreadable.reason
    engine = without_trajectory("absent", "engine")  # imported datasets: the engine profile needs none
    assert engine is not None and not engine.applies


def test_withholding_costs_what_rescaling_would_have_given() -> None:
    """The rescale this replaces: the inventory-ledger low anchor went 27 → 32 without a trajectory."""
    base = {k: Explained(60.0) for k in ("static_tests", "adversarial", "code_quality", "deliverables",
                                          "security", "stability")}  # fmt: skip
    base["objective"] = profiles.objective(base)
    rescaled = {**base, **{k: NotScored("no trajectory") for k in ("process", "strategy", "recovery", "efficiency")}}
    zeroed = {**base, **{k: settle(k, withheld("no trajectory")) for k in ("process", "strategy", "recovery",
                                                                             "efficiency")}}  # fmt: skip
    assert profiles.composite(rescaled).final == 57 and profiles.composite(rescaled).provisional  # 60 × 0.95
    result = profiles.composite(zeroed)
    assert result.final == 27 and not result.provisional  # 0.45 × 60
