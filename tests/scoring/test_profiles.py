"""SPEC §2: the three profiles, the worked example, bands, rounding, clamping, provisional scores."""

from __future__ import annotations

import pytest

from bouts.scoring import components, panel, profiles
from bouts.scoring.components import WeightedTest
from bouts.scoring.explain import Explained, NotScored, round_half_up
from bouts.scoring.profiles import Adjustments
from bouts.scoring.weights import FAMILIES


def E(v: float) -> Explained:
    return Explained(v, ())


def worked_example_scores() -> dict[str, Explained]:
    """SPEC §2: 18/20 static, 14/20 weighted adversarial, judges [72, 68, 76], deliverable
    80/75/70/65, one medium security finding, clean run."""
    # 14 of 20 severity points: passed 5 + 5 + 2 + 2 = 14, failed 3 + 3 = 6.
    adv_tests = [
        WeightedTest("critical", True),
        WeightedTest("critical", True),
        WeightedTest("medium", True),
        WeightedTest("medium", True),
        WeightedTest("high", False),
        WeightedTest("high", False),
    ]
    static = components.static_tests(18, 20)
    adv = components.adversarial(adv_tests)
    cq = panel.aggregate([72, 68, 76])
    assert isinstance(cq, panel.PanelResult)
    doc = components.deliverable({"accuracy": 80, "clarity": 75, "completeness": 70, "actionability": 65})
    dels = components.deliverables([doc])
    sec = components.security({"medium": 1})
    stab = components.stability(components.stability_level([], []))
    for r in (static, adv, dels):
        assert isinstance(r, Explained)
    return {
        "static_tests": static,
        "adversarial": adv,
        "code_quality": cq.score,
        "deliverables": dels,
        "security": sec,
        "stability": stab,
    }


def test_worked_example_components():
    s = worked_example_scores()
    assert s["static_tests"].value == 90
    assert s["adversarial"].value == 70
    assert s["code_quality"].value == 72
    assert s["deliverables"].value == 74.5
    assert s["security"].value == 95
    assert s["stability"].value == 100


def test_worked_example_engine_exact():
    result = profiles.engine(worked_example_scores())
    assert result.raw == 82.075
    assert result.final == 82
    assert result.band == "Strong"
    assert not result.provisional
    assert result.missing == ()
    assert result.contributions["static_tests"].points == 31.5
    assert result.contributions["deliverables"].points == 11.175
    assert any("82.075" in line for line in result.math)


def test_worked_example_shows_up_in_all_profiles():
    results = profiles.all_profiles(worked_example_scores())
    assert set(results) == {"engine", "four-judge", "composite"}
    assert results["engine"].final == 82
    # the worked example's inputs carry nothing the other two profiles weigh
    assert results["four-judge"].final is None
    assert results["composite"].final is None


@pytest.mark.parametrize(
    ("final", "expected"),
    [
        (0, "Failed"),
        (14, "Failed"),
        (15, "Weak"),
        (34, "Weak"),
        (35, "Struggling"),
        (54, "Struggling"),
        (55, "Competent"),
        (74, "Competent"),
        (75, "Strong"),
        (89, "Strong"),
        (90, "Elite"),
        (100, "Elite"),
    ],
)
def test_band_boundaries(final, expected):
    assert profiles.band(final) == expected


@pytest.mark.parametrize(
    ("raw", "final"),
    [
        (82.5, 83),
        (82.49, 82),
        (0.5, 1),
        (99.5, 100),
        (74.5, 75),
        (14.5, 15),
        (82.075, 82),
        (82.49999999999999, 83),  # float noise of 82.5
        (82.50000000000001, 83),
        (0.35 * 90 + 0.15 * 70 + 0.2 * 72 + 0.15 * 74.5 + 0.1 * 95 + 0.05 * 100, 82),
    ],
)
def test_round_half_up(raw, final):
    assert round_half_up(raw) == final


def test_round_half_up_is_not_bankers():
    assert [round_half_up(x) for x in (0.5, 1.5, 2.5, 3.5)] == [1, 2, 3, 4]


def test_engine_rounding_half_up_through_profile():
    # every component 82.5 -> raw 82.5 -> 83 (banker's rounding would give 82)
    result = profiles.engine({k: E(82.5) for k in profiles.ENGINE_WEIGHTS})
    assert result.raw == 82.5
    assert result.final == 83


def test_engine_weights_exact():
    assert dict(profiles.ENGINE_WEIGHTS) == {
        "static_tests": 0.35,
        "adversarial": 0.15,
        "code_quality": 0.20,
        "deliverables": 0.15,
        "security": 0.10,
        "stability": 0.05,
    }
    assert sum(profiles.ENGINE_WEIGHTS.values()) == pytest.approx(1.0)


def test_four_judge_weights_and_value():
    assert dict(profiles.FOUR_JUDGE_WEIGHTS) == {
        "objective": 0.5,
        "process": 0.2,
        "strategy": 0.2,
        "integrity": 0.1,
    }
    r = profiles.four_judge({"objective": E(80), "process": E(60), "strategy": E(70), "integrity": E(100)})
    assert r.raw == pytest.approx(0.5 * 80 + 0.2 * 60 + 0.2 * 70 + 0.1 * 100)
    assert r.final == 76
    assert r.band == "Strong"


COMPOSITE_ALL = {
    "objective": E(80),
    "process": E(60),
    "strategy": E(70),
    "recovery": E(50),
    "efficiency": E(40),
}


def test_composite_default_weights_value():
    r = profiles.composite(COMPOSITE_ALL)
    expected = 0.45 * 80 + 0.15 * 60 + 0.15 * 70 + 0.10 * 50 + 0.10 * 40
    assert r.raw == pytest.approx(expected)
    assert r.final == round_half_up(expected)
    assert not r.provisional


def test_composite_family_weights_applied():
    w = FAMILIES["recovery-lab"]
    r = profiles.composite(COMPOSITE_ALL, w)
    assert r.raw == pytest.approx(0.30 * 80 + 0.15 * 60 + 0.10 * 70 + 0.35 * 50 + 0.10 * 40)


def test_composite_adjustments_added_not_averaged():
    adj = Adjustments(integrity=E(10), exploit_penalties=E(10), calibration=E(-3))
    base = profiles.composite(COMPOSITE_ALL).raw
    r = profiles.composite(COMPOSITE_ALL, adjustments=adj)
    assert r.raw == pytest.approx(base + 10 - 10 - 3)
    assert r.adjustments == {"integrity": 10, "exploit_penalties": 10, "calibration": -3}


def test_composite_clamped_at_zero_by_big_exploit_penalty():
    adj = Adjustments(exploit_penalties=E(500))
    r = profiles.composite(COMPOSITE_ALL, adjustments=adj)
    assert r.raw == 0
    assert r.final == 0
    assert r.band == "Failed"
    assert any("clamped" in line for line in r.math)


def test_composite_clamped_at_hundred_by_big_bonus():
    perfect = {k: E(100) for k in COMPOSITE_ALL}
    adj = Adjustments(integrity=E(10), calibration=E(5))
    r = profiles.composite(perfect, adjustments=adj)
    assert r.raw == 100
    assert r.final == 100
    assert r.band == "Elite"


def test_composite_perfect_without_adjustments_is_total_weight():
    # default weights sum to 95%: the rest is room for the adjustments
    perfect = {k: E(100) for k in COMPOSITE_ALL}
    assert profiles.composite(perfect).raw == pytest.approx(95.0)


def test_missing_component_is_provisional_and_rescaled():
    scores = {k: E(80) for k in profiles.ENGINE_WEIGHTS}
    scores["deliverables"] = NotScored("the challenge asks for no deliverables")
    r = profiles.engine(scores)
    assert r.provisional
    assert r.missing == ("deliverables",)
    assert r.raw == pytest.approx(80.0)
    assert r.contributions["deliverables"].score is None
    assert r.contributions["deliverables"].effective_weight == 0
    assert r.contributions["static_tests"].effective_weight == pytest.approx(0.35 / 0.85)
    assert any("provisional" in line for line in r.math)


def test_rescaled_weights_keep_profile_total():
    scores = {"static_tests": E(100), "adversarial": E(0)}
    r = profiles.engine(scores)
    # only static (0.35) and adversarial (0.15) present -> rescaled to 0.70/0.30
    assert r.raw == pytest.approx(70.0)
    assert set(r.missing) == {"code_quality", "deliverables", "security", "stability"}


def test_absent_key_counts_as_missing():
    r = profiles.four_judge({"objective": E(60)})
    assert r.provisional
    assert r.raw == 60
    assert set(r.missing) == {"process", "strategy", "integrity"}


def test_nothing_scored_gives_no_number():
    r = profiles.engine({})
    assert r.raw is None and r.final is None and r.band is None
    assert r.provisional


def test_named_profiles():
    assert tuple(profiles.named("engine")) == tuple(profiles.ENGINE_WEIGHTS)
    assert tuple(profiles.named("four-judge")) == ("objective", "process", "strategy", "integrity")
    assert tuple(profiles.named("composite")) == (
        "objective",
        "process",
        "strategy",
        "recovery",
        "efficiency",
    )
    with pytest.raises(KeyError):
        profiles.named("nope")


# --- objective = the engine score of the six components (SPEC §1, scoring spec-2026.2) -------------


def test_objective_is_the_engine_score_of_the_worked_example():
    scores = worked_example_scores()
    objective = profiles.objective(scores)
    assert isinstance(objective, Explained)
    assert objective.value == pytest.approx(82.075)
    assert objective.math == ("objective = 0.35×90 + 0.15×70 + 0.2×72 + 0.15×74.5 + 0.1×95 + 0.05×100 = 82.075",)
    assert profiles.engine(scores).raw == objective.value


def test_every_engine_component_moves_the_composite():
    """The audit's finding: under the composite, a drop in deliverables or security changed nothing."""
    base = worked_example_scores()
    others = {"process": E(100), "strategy": E(100), "recovery": E(100), "efficiency": E(100)}

    def final_with(**changed: float) -> float:
        scores = {**base, **{k: E(v) for k, v in changed.items()}}
        scores["objective"] = profiles.objective(scores)
        result = profiles.all_profiles({**scores, **others})["composite"]
        assert result.raw is not None
        return result.raw

    reference = final_with()
    for name, weight in profiles.ENGINE_WEIGHTS.items():
        assert reference - final_with(**{name: 0}) == pytest.approx(0.45 * weight * base[name].value), name


def test_a_provisional_objective_makes_the_composite_provisional_naming_what_it_lacked():
    scores: dict[str, Explained | NotScored] = {
        "static_tests": E(90), "adversarial": E(70), "code_quality": NotScored("no code-quality judge sat"),
        "deliverables": E(80), "security": E(100), "stability": E(100),
        "process": E(100), "strategy": E(100), "recovery": E(100), "efficiency": E(100), "integrity": E(100),
    }  # fmt: skip
    scores["objective"] = profiles.objective(scores)
    assert scores["objective"].math[0].startswith("objective is provisional: code_quality not scored")
    results = profiles.all_profiles(scores)
    for name in ("composite", "four-judge", "engine"):
        assert results[name].provisional and results[name].missing == ("code_quality",), name
    assert "composite is provisional: its objective was made without code_quality" in results["composite"].math


def test_no_engine_component_scored_leaves_the_objective_unscored():
    assert isinstance(profiles.objective({"process": E(50)}), NotScored)


def test_a_component_that_does_not_apply_rescales_without_making_a_profile_provisional():
    scores = {k: E(80) for k in profiles.ENGINE_WEIGHTS}
    scores["deliverables"] = components.deliverables([])  # the challenge asks for none
    scores["stability"] = E(100)
    r = profiles.engine(scores)
    assert not r.provisional and r.missing == ()
    assert r.raw == pytest.approx((0.85 * 80 - 0.05 * 80 + 0.05 * 100) / 0.85)
    assert r.math[0].startswith("engine: deliverables does not apply (the challenge asks for no deliverables)")
    scores["objective"] = profiles.objective(scores)
    assert profiles.objective_missing(scores) == ()
    assert not profiles.all_profiles({**scores, **{k: E(50) for k in COMPOSITE_ALL if k != "objective"}})[
        "composite"
    ].provisional


def test_objective_95_with_strategy_30_is_flagged_for_review_and_scored_as_weighed():
    """docs/scoring.md, "where the seeds contradict themselves": the seeds read such a submission both
    as a legitimate profile (right answer, poor approach) and as a judge disagreement (Δ 65 > 40). We
    chose both: the level-1 flag opens a review item, and the score is the weights' and nothing else."""
    from bouts.scoring.review import divergence

    scores = {"objective": E(95), "process": E(80), "strategy": E(30), "integrity": E(100)}
    flag = divergence(scores)
    assert flag is not None and flag.level == 1 and "objective 95 vs strategy 30 (Δ 65)" in flag.message
    assert profiles.four_judge(scores).raw == pytest.approx(0.5 * 95 + 0.2 * 80 + 0.2 * 30 + 0.1 * 100)


def test_the_seed_mid_anchors_72_5_rounds_to_73():
    assert round_half_up(72.5) == 73 and round(72.5) == 72  # half up, not the banker's rounding
