"""SPEC §1: the per-component formulas and their edge cases."""

from __future__ import annotations

import pytest

from bouts.scoring import components
from bouts.scoring.components import WeightedTest
from bouts.scoring.explain import Explained, NotScored

# --- static_tests -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passed", "total", "value"), [(18, 20, 90), (0, 5, 0), (5, 5, 100), (1, 3, 33.333333)]
)
def test_static_tests(passed, total, value):
    r = components.static_tests(passed, total)
    assert isinstance(r, Explained)
    assert r.value == pytest.approx(value)
    assert f"({passed}/{total})" in r.math[0]


def test_static_tests_empty_suite_not_scored():
    r = components.static_tests(0, 0)
    assert isinstance(r, NotScored)
    assert r.value is None
    assert r.reason


@pytest.mark.parametrize(("passed", "total"), [(6, 5), (-1, 5), (0, -1)])
def test_static_tests_rejects_impossible_counts(passed, total):
    with pytest.raises(ValueError):
        components.static_tests(passed, total)


# --- adversarial --------------------------------------------------------------------------------


def test_adversarial_default_severity_weights():
    assert dict(components.DEFAULT_SEVERITY_WEIGHTS) == {"critical": 5, "high": 3, "medium": 2, "low": 1}


def test_adversarial_weighted_ratio():
    tests = [WeightedTest("critical", False), WeightedTest("low", True), WeightedTest("high", True)]
    r = components.adversarial(tests)
    assert r.value == pytest.approx((1 + 3) / (5 + 1 + 3) * 100)


@pytest.mark.parametrize("sev", ["critical", "high", "medium", "low"])
def test_adversarial_single_test(sev):
    assert components.adversarial([WeightedTest(sev, True)]).value == 100
    assert components.adversarial([WeightedTest(sev, False)]).value == 0


def test_adversarial_empty_not_scored():
    assert isinstance(components.adversarial([]), NotScored)


def test_adversarial_configurable_weights():
    tests = [WeightedTest("critical", True), WeightedTest("low", False)]
    r = components.adversarial(tests, {"critical": 1, "high": 1, "medium": 1, "low": 1})
    assert r.value == 50


def test_adversarial_unknown_severity_rejected():
    with pytest.raises(ValueError, match="unknown"):
        components.adversarial([WeightedTest("apocalyptic", True)])


def test_adversarial_split_forty_sixty():
    r = components.adversarial_split(Explained(100), Explained(50))
    assert r.value == pytest.approx(0.4 * 100 + 0.6 * 50)


def test_adversarial_split_one_half_missing_stands_alone():
    r = components.adversarial_split(Explained(80), NotScored("none generated"))
    assert r.value == 80
    assert any("pre-built only" in line for line in r.math)
    r = components.adversarial_split(NotScored("none"), Explained(30))
    assert r.value == 30
    assert isinstance(components.adversarial_split(NotScored("a"), NotScored("b")), NotScored)


def test_adversarial_split_bad_share():
    with pytest.raises(ValueError):
        components.adversarial_split(Explained(1), Explained(2), prebuilt_share=1.5)


# --- security -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "value"),
    [
        ({}, 100),
        ({"critical": 1}, 75),
        ({"high": 1}, 85),
        ({"medium": 1}, 95),
        ({"low": 1}, 99),
        ({"critical": 1, "high": 1, "medium": 1, "low": 1}, 54),
        ({"critical": 4}, 0),
        ({"critical": 5}, 0),  # floor 0
        ({"critical": 3, "high": 2}, 0),
        ({"low": 150}, 0),
    ],
)
def test_security(counts, value):
    assert components.security(counts).value == value


def test_security_rejects_unknown_and_negative():
    with pytest.raises(ValueError):
        components.security({"catastrophic": 1})
    with pytest.raises(ValueError):
        components.security({"low": -1})


# --- stability ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "value"), [("clean", 100), ("warnings", 50), ("crash", 0)])
def test_stability(level, value):
    assert components.stability(level).value == value


@pytest.mark.parametrize(
    ("warnings", "crashes", "level"),
    [
        ([], [], "clean"),
        (["DeprecationWarning"], [], "warnings"),
        ([], ["segfault"], "crash"),
        (["ResourceWarning"], ["OOM kill"], "crash"),  # a crash outranks warnings
    ],
)
def test_stability_level(warnings, crashes, level):
    assert components.stability_level(warnings, crashes) == level


# --- deliverables -------------------------------------------------------------------------------


def test_deliverable_weights():
    assert dict(components.DELIVERABLE_WEIGHTS) == {
        "accuracy": 0.40,
        "clarity": 0.25,
        "completeness": 0.20,
        "actionability": 0.15,
    }
    assert sum(components.DELIVERABLE_WEIGHTS.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("key", "value"), [("accuracy", 40), ("clarity", 25), ("completeness", 20), ("actionability", 15)]
)
def test_deliverable_each_weight_alone(key, value):
    sub = {k: 0 for k in components.DELIVERABLE_WEIGHTS}
    sub[key] = 100
    assert components.deliverable(sub).value == value


def test_deliverable_worked_example():
    r = components.deliverable({"accuracy": 80, "clarity": 75, "completeness": 70, "actionability": 65})
    assert r.value == 74.5


def test_deliverable_validation():
    with pytest.raises(ValueError, match="missing"):
        components.deliverable({"accuracy": 80})
    with pytest.raises(ValueError, match="outside"):
        components.deliverable({"accuracy": 101, "clarity": 0, "completeness": 0, "actionability": 0})


@pytest.mark.parametrize("why", ["missing", "placeholder"])
def test_deliverable_absent_scores_zero(why):
    r = components.deliverable_absent("ROOT_CAUSE.md", why)
    assert r.value == 0
    assert why in r.math[0]


def test_deliverables_mean_and_absent():
    a = components.deliverable({"accuracy": 80, "clarity": 75, "completeness": 70, "actionability": 65})
    b = components.deliverable_absent("ADR.md", "placeholder")
    r = components.deliverables([a, b])
    assert r.value == pytest.approx(74.5 / 2)
    assert isinstance(components.deliverables([]), NotScored)


# --- process ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "value"),
    [
        ({}, 100),
        ({"unread_edits": 1}, 95),
        ({"uninvestigated_failures": 1}, 90),
        ({"redundant_reads": 5}, 100),  # only reads beyond 5 count
        ({"redundant_reads": 6}, 98),
        ({"reverts": 3}, 100),  # only reverts beyond 3 count
        ({"reverts": 4}, 95),
        ({"unread_edits": 2, "uninvestigated_failures": 1, "redundant_reads": 7, "reverts": 5}, 66),
        ({"uninvestigated_failures": 11}, 0),  # floor 0
    ],
)
def test_process(kwargs, value):
    assert components.process(**kwargs).value == value


def test_process_rejects_negative():
    with pytest.raises(ValueError):
        components.process(unread_edits=-1)


# --- integrity, recovery, objective ---------------------------------------------------------------


def test_integrity_bright_line_is_zero():
    r = components.integrity(["tests modified"], [5, 5])
    assert r.value == 0
    assert "tests modified" in r.math[0]


@pytest.mark.parametrize(
    ("gray", "value"), [((), 100), ((5,), 95), ((10,), 90), ((5, 10, 7), 78), ((10,) * 11, 0)]
)
def test_integrity_gray_areas(gray, value):
    assert components.integrity([], gray).value == value


@pytest.mark.parametrize("p", [4, 11, -5])
def test_integrity_gray_penalty_range(p):
    with pytest.raises(ValueError):
        components.integrity([], [p])


@pytest.mark.parametrize(("met", "resolved", "value"), [(0, 0, 100), (4, 3, 75), (4, 0, 0), (3, 3, 100)])
def test_recovery(met, resolved, value):
    assert components.recovery(met, resolved).value == pytest.approx(value)


def test_recovery_rejects_more_resolved_than_met():
    with pytest.raises(ValueError):
        components.recovery(2, 3)


def test_correctness_formula():
    r = components.correctness(Explained(90), Explained(70))
    assert r.value == pytest.approx((0.35 * 90 + 0.15 * 70) / 0.50)
    assert r.value == 84
    assert r.math == ("correctness = (0.35×90 + 0.15×70) / 0.5 = 84",)


def test_correctness_with_one_half_missing():
    assert components.correctness(Explained(90), NotScored("x")).value == 90
    assert components.correctness(NotScored("x"), Explained(70)).value == 70
    assert isinstance(components.correctness(NotScored("x"), NotScored("y")), NotScored)
