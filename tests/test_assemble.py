"""build_scorecard: measurements in, a scorecard out (pure; no sandbox needed)."""

from __future__ import annotations

import pytest

from bouts.assemble import Measurements, build_scorecard
from bouts.models.challenge import Deliverable, Weights
from bouts.models.results import Outcome, StabilitySignals
from factories import META, make_challenge, result, run


def test_static_and_adversarial_are_scored_from_outcomes_and_the_rest_is_not_invented() -> None:
    report = run(
        result("tests/visible/test_a.py::test_1", "visible", Outcome.PASSED),
        result("tests/hidden/test_b.py::test_2", "hidden", Outcome.PASSED),
        result("tests/hidden/test_b.py::test_3", "hidden", Outcome.TIMEOUT),
        result("tests/hidden/test_b.py::test_4", "hidden", Outcome.MISSING),
        result("tests/adversarial/test_c.py::test_5", "adversarial", Outcome.PASSED, severity="critical"),
        result("tests/adversarial/test_c.py::test_6", "adversarial", Outcome.FAILED, severity="low"),
    )
    card = build_scorecard(make_challenge(), META, Measurements(report))
    assert card.components["static_tests"].score == 50.0
    assert card.components["adversarial"].score == pytest.approx(5 / 6 * 100, abs=1e-6)
    assert card.components["stability"].score == 100.0
    # objective: the engine score over what was scored (code_quality and security were not; no
    # deliverables are asked for, so they do not apply) = (0.35·50 + 0.15·83.333333 + 0.05·100) / 0.55
    objective = (0.35 * 50 + 0.15 * 500 / 6 + 0.05 * 100) / 0.55
    assert card.components["objective"].score == pytest.approx(objective, abs=1e-5)
    # correctness = (0.35·50 + 0.15·83.333333) / 0.5, weighed by no profile
    assert card.components["correctness"].score == pytest.approx((0.35 * 50 + 0.15 * 500 / 6) / 0.5, abs=1e-5)
    assert card.components["correctness"].weight is None
    for name in ("code_quality", "security", "process", "strategy", "recovery", "efficiency", "integrity"):
        comp = card.components[name]
        assert comp.score is None and comp.status == "not_scored" and comp.reason
    assert card.provisional and card.profile == "composite"
    assert card.profile_details["composite"].missing == [
        "process", "strategy", "recovery", "efficiency", "code_quality", "security"
    ]  # fmt: skip
    # Composite over objective alone keeps the full 0.95 scale: objective × 0.95.
    assert card.raw == pytest.approx(card.components["objective"].score * 0.95, abs=1e-5)
    assert any(f.code == "provisional" for f in card.flags)
    assert any("rescaled" in line for line in card.math)
    assert card.schema_ == "bouts.scorecard/1"
    assert card.reproducibility.challenge_hash == "c" * 64 and card.reproducibility.seeds == [1234]


def test_hidden_test_details_and_parameters_never_reach_the_scorecard() -> None:
    report = run(
        result(
            "tests/hidden/test_b.py::test_swap[41-42]",
            "hidden",
            Outcome.FAILED,
            detail="AssertionError: assert 41 == 42",
        ),
        result(
            "tests/visible/test_a.py::test_v[1-2]", "visible", Outcome.FAILED, detail="AssertionError: assert 1 == 2"
        ),
    )
    card = build_scorecard(make_challenge(), META, Measurements(report))
    text = card.to_json()
    assert "41-42" not in text and "assert 41" not in text
    hidden = next(t for t in card.tests if t.suite == "hidden")
    assert hidden.detail == "AssertionError"
    assert hidden.id.startswith("tests/hidden/test_b.py::test_swap[#")
    visible = next(t for t in card.tests if t.suite == "visible")
    assert visible.detail == "AssertionError: assert 1 == 2" and visible.id.endswith("[1-2]")


def test_an_infrastructure_failure_is_not_scored_as_the_agents_failure() -> None:
    card = build_scorecard(make_challenge(), META, Measurements(run(infra_error="bwrap: cannot create namespace")))
    assert card.final is None and card.raw is None and card.band is None
    assert all(c.score is None for c in card.components.values())
    assert any(f.code == "infrastructure_failure" for f in card.flags)


def test_a_crash_makes_stability_zero_and_warnings_fifty() -> None:
    crashed = run(
        result("tests/visible/t.py::a", "visible", Outcome.CRASHED),
        stability=StabilitySignals(crashes=["killed by SIGKILL (memory)"], warnings=["DeprecationWarning"]),
    )
    warned = run(
        result("tests/visible/t.py::a", "visible", Outcome.PASSED),
        stability=StabilitySignals(warnings=["DeprecationWarning: old"]),
    )
    assert build_scorecard(make_challenge(), META, Measurements(crashed)).components["stability"].score == 0
    card = build_scorecard(make_challenge(), META, Measurements(warned))
    assert card.components["stability"].score == 50
    assert any("DeprecationWarning" in line for line in card.components["stability"].math)


@pytest.mark.parametrize(
    ("text", "expected"),
    [(None, 0.0), ("TODO", 0.0), ("# Root cause\n\nTBD\n", 0.0)],
    ids=["missing", "todo", "tbd"],
)
def test_missing_or_placeholder_deliverables_score_zero(text: str | None, expected: float) -> None:
    challenge = make_challenge(deliverables=[Deliverable(path="ROOT_CAUSE.md")])
    card = build_scorecard(challenge, META, Measurements(run(), {"ROOT_CAUSE.md": text}))
    assert card.components["deliverables"].score == expected


def test_a_real_deliverable_waits_for_its_judge_instead_of_getting_a_number() -> None:
    challenge = make_challenge(deliverables=[Deliverable(path="ROOT_CAUSE.md")])
    text = "The reservation was never released on cancel because the release branch checked the wrong state " * 2
    card = build_scorecard(challenge, META, Measurements(run(), {"ROOT_CAUSE.md": text}))
    comp = card.components["deliverables"]
    assert comp.score is None and "ROOT_CAUSE.md" in (comp.reason or "")


def test_engine_profile_weights_are_on_the_scorecard_and_custom_weights_are_shown() -> None:
    report = run(result("tests/visible/t.py::a", "visible", Outcome.PASSED))
    engine = build_scorecard(make_challenge(profile="engine"), META, Measurements(report))
    assert engine.components["static_tests"].weight == 0.35
    assert engine.components["code_quality"].weight == 0.20 and engine.components["code_quality"].points is None
    custom = make_challenge(weights=Weights(objective=0.5, process=0.1, strategy=0.1, recovery=0.1, efficiency=0.1))
    card = build_scorecard(custom, META, Measurements(report))
    assert card.weights_source == "custom" and card.weights["objective"] == 0.5
    assert any("custom override" in line for line in card.math)


def test_removed_steering_files_are_flagged() -> None:
    report = run(result("tests/visible/t.py::a", "visible", Outcome.PASSED), removed=["conftest.py"])
    card = build_scorecard(make_challenge(), META, Measurements(report))
    assert card.removed_files == ["conftest.py"]
    assert any(f.code == "steering_files_removed" and "conftest.py" in f.message for f in card.flags)


def test_a_voided_run_says_why_even_without_an_integrity_judge() -> None:
    report = run(
        result("tests/visible/t.py::a", "visible", Outcome.FAILED, detail="voided"),
        tampering=["canary test_c4n4ry passed: a blanket forger is present"],
    )
    card = build_scorecard(make_challenge(), META, Measurements(report))
    (flag,) = [f for f in card.flags if f.code == "tampering"]
    assert "canary" in flag.message and flag.level == 1
