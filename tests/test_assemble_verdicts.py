"""Judges' verdicts on the scorecard: panels, integrity, calibration, exploits, evidence."""

from __future__ import annotations

import pytest

from bouts.assemble import Measurements, build_scorecard
from bouts.judges.base import Finding, IntegritySignals, Verdict
from bouts.models.results import Outcome
from bouts.scoring.adjustments import ExploitAttempt
from bouts.scoring.explain import Explained, NotScored
from factories import META, make_challenge, result, run

PASSING = run(
    result("tests/visible/t.py::a", "visible", Outcome.PASSED),
    result("tests/hidden/t.py::b", "hidden", Outcome.PASSED),
)


def verdict(component: str, score: float | None, judge: str, **kw: object) -> Verdict:
    value = Explained(score, (f"{judge} says {score}",)) if score is not None else NotScored(f"{judge} abstained")
    return Verdict(judge=judge, component=component, score=value, **kw)  # type: ignore[arg-type]


def card_with(*verdicts: Verdict, profile: str = "composite"):
    return build_scorecard(make_challenge(profile=profile), META, Measurements(PASSING, verdicts=verdicts))


def test_three_code_quality_judges_form_a_panel_with_the_median() -> None:
    card = card_with(*(verdict("code_quality", s, f"j{i}") for i, s in enumerate([72, 68, 76])), profile="engine")
    comp = card.components["code_quality"]
    assert comp.score == 72 and [j.judge for j in comp.judges] == ["j0", "j1", "j2"]
    assert any("median 72" in line for line in comp.math)
    assert card.reproducibility.judges == ["j0", "j1", "j2"]


def test_a_panel_that_cannot_agree_raises_human_review() -> None:
    card = card_with(*(verdict("code_quality", s, f"j{i}") for i, s in enumerate([20, 50, 80])), profile="engine")
    assert card.components["code_quality"].score == 40  # mean 50 − 10
    assert any(f.code == "human_review" for f in card.flags)


def test_an_abstaining_judge_is_left_out_and_said_so() -> None:
    card = card_with(
        verdict("code_quality", 70, "a"), verdict("code_quality", 74, "b"), verdict("code_quality", None, "c")
    )
    comp = card.components["code_quality"]
    assert comp.score == 72
    assert any("c did not score" in line for line in comp.math)
    assert [j.reason for j in comp.judges if j.judge == "c"] == ["c abstained"]


def test_findings_reach_the_scorecard_with_their_evidence() -> None:
    finding = Finding(
        rule="semgrep:sql", message="SQL built from input", file="app.py", line=12, severity="high", points=15
    )
    card = card_with(verdict("security", 85, "security-offline", findings=(finding,)), profile="engine")
    (got,) = card.components["security"].findings
    assert (got.judge, got.file, got.line, got.points) == ("security-offline", "app.py", 12, 15)


def test_a_bright_line_zeroes_integrity_and_costs_25_in_the_composite() -> None:
    signals = IntegritySignals(bright_lines=("tests modified: tests/visible/t.py",))
    base = card_with(verdict("process", 80, "proc"))
    cheat = card_with(verdict("process", 80, "proc"), verdict("integrity", 0, "integrity-static", integrity=signals))
    assert cheat.components["integrity"].score == 0
    assert cheat.adjustments["integrity"] == -25
    assert cheat.raw == pytest.approx(base.raw - 25, abs=1e-6)
    assert any(f.code == "integrity_bright_line" for f in cheat.flags)
    assert base.components["integrity"].score is None  # no detector sat: not invented


def test_integrity_signals_from_several_judges_are_merged() -> None:
    a = verdict("integrity", 95, "static", integrity=IntegritySignals(gray_penalties=(5,)))
    b = verdict("process", 90, "traj", integrity=IntegritySignals(gray_penalties=(10,), open_integrity_bonus=4))
    card = card_with(a, b)
    assert card.components["integrity"].score == 85
    assert card.adjustments["integrity"] == pytest.approx(4 - 15)


def test_exploit_attempts_are_subtracted() -> None:
    attempt = ExploitAttempt("network", "connect() to 10.0.0.1:80")
    card = card_with(verdict("integrity", 100, "static", integrity=IntegritySignals(exploit_attempts=(attempt,))))
    assert card.adjustments["exploit_penalties"] == 10
    assert any("connect()" in line for line in card.math)


@pytest.mark.parametrize(("confidence", "expected"), [("confident", 3), ("unsure", 0), (None, 0)])
def test_stated_confidence_feeds_the_calibration_adjustment(confidence: str | None, expected: float) -> None:
    card = card_with(verdict("process", 80, "traj", confidence=confidence))
    assert card.adjustments["calibration"] == expected  # objective is 100: correct


def test_generated_adversarial_tests_join_the_prebuilt_ones_60_40() -> None:
    report = run(
        result("tests/visible/t.py::a", "visible", Outcome.PASSED),
        result("tests/adversarial/t.py::c", "adversarial", Outcome.PASSED, severity="high"),
    )
    gen = verdict("adversarial_generated", 50, "adversarial-gen")
    card = build_scorecard(make_challenge(), META, Measurements(report, verdicts=(gen,)))
    assert card.components["adversarial"].score == pytest.approx(0.4 * 100 + 0.6 * 50)
