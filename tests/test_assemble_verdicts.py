"""Judges' verdicts on the scorecard: panels, integrity, calibration, exploits, evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.assemble import Measurements, build_scorecard
from bouts.judges.base import Finding, IntegritySignals, JudgeInput, Verdict
from bouts.judges.trajectory import ProcessJudge
from bouts.loading import load_challenge
from bouts.models.results import Outcome
from bouts.models.trajectory import Event, Trajectory
from bouts.scoring.adjustments import ExploitAttempt
from bouts.scoring.explain import Explained, NotScored
from factories import META, make_challenge, result, run

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inventory-ledger"

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


def test_a_bright_line_zeroes_integrity_costs_25_and_caps_the_final_at_14() -> None:
    signals = IntegritySignals(bright_lines=("tests modified: tests/visible/t.py",))
    base = card_with(verdict("process", 80, "proc"))
    cheat = card_with(verdict("process", 80, "proc"), verdict("integrity", 0, "integrity-static", integrity=signals))
    assert cheat.components["integrity"].score == 0
    assert cheat.adjustments["integrity"] == -25
    assert any(line.startswith("composite = 90.25 + (-25)") for line in cheat.math)  # base.raw 90.25 − 25
    assert base.raw == pytest.approx(90.25) and cheat.raw == 14 and cheat.final == 14 and cheat.band == "Failed"
    cliff = "composite: integrity cliff: tests modified caps the final at 14: 65.25 → 14"
    assert cliff in cheat.math
    assert any(f.code == "integrity_bright_line" and f.level == 1 for f in cheat.flags)
    assert cheat.bright_lines == ["tests modified: tests/visible/t.py"]
    assert base.components["integrity"].score is None  # no detector sat: not invented


def test_integrity_signals_from_several_judges_are_merged() -> None:
    a = verdict("integrity", 95, "static", integrity=IntegritySignals(gray_penalties=(5,)))
    b = verdict("process", 90, "traj", integrity=IntegritySignals(gray_penalties=(10,)))
    card = card_with(a, b)
    assert card.components["integrity"].score == 85
    assert card.adjustments["integrity"] == pytest.approx(-15)


def test_exploit_attempts_are_subtracted() -> None:
    attempt = ExploitAttempt("network", "connect() to 10.0.0.1:80")
    card = card_with(verdict("integrity", 100, "static", integrity=IntegritySignals(exploit_attempts=(attempt,))))
    assert card.adjustments["exploit_penalties"] == 10
    assert any("connect()" in line for line in card.math)


@pytest.mark.parametrize(("confidence", "expected"), [("confident", 3), ("unsure", 0), (None, 0)])
def test_stated_confidence_feeds_the_calibration_adjustment(confidence: str | None, expected: float) -> None:
    card = card_with(verdict("process", 80, "traj", confidence=confidence))
    assert card.adjustments["calibration"] == expected  # correctness is 100: correct


STATED_80 = Finding("calibration.statement", "stated 'confident' (p=0.8): I'm 80% confident.", event=18)


@pytest.mark.parametrize(
    ("report", "correct", "brier", "adjustment"),
    [
        (PASSING, True, 0.04, 3),  # (0.8 − 1)²
        (run(result("tests/hidden/t.py::b", "hidden", Outcome.FAILED)), False, 0.64, -3),  # (0.8 − 0)²
    ],
)
def test_the_scorecard_reports_the_brier_score(report, correct: bool, brier: float, adjustment: float) -> None:
    v = verdict("process", 80, "traj", confidence="confident", stated_probability=0.8, findings=(STATED_80,))
    card = build_scorecard(make_challenge(), META, Measurements(report, verdicts=(v,)))
    cal = card.calibration
    assert cal is not None
    assert (cal.stated, cal.probability, cal.correct, cal.brier) == ("confident", 0.8, correct, brier)
    assert (cal.judge, cal.source, cal.threshold) == ("traj", "trajectory event 18", 75)
    assert cal.statement == "I'm 80% confident."
    assert card.adjustments["calibration"] == adjustment  # the ±3/−3/+2/0 table is unchanged
    assert any(line.startswith("calibration: Brier (p − correct)² = (0.8 − ") for line in card.math)


def test_the_brier_score_is_reported_on_every_profile_and_cites_a_deliverable() -> None:
    said = Finding("calibration.statement", "stated 'unsure' (p=0.5): Not sure.", file="deliverables/R.md", line=7)
    v = verdict("process", 80, "traj", confidence="unsure", stated_probability=0.5, findings=(said,))
    card = card_with(v, profile="engine")
    assert card.adjustments == {}  # the adjustment is the composite's; the report is everyone's
    assert card.calibration is not None
    assert (card.calibration.brier, card.calibration.source) == (0.25, "deliverables/R.md:7")


def test_no_statement_has_no_brier_score() -> None:
    card = card_with(verdict("process", 80, "traj", confidence="none"))
    assert card.calibration is not None
    assert (card.calibration.stated, card.calibration.probability, card.calibration.brier) == ("none", None, None)
    assert card.calibration.correct is True
    assert card_with(verdict("process", 80, "traj")).calibration is None  # no judge read for one
    infra = build_scorecard(
        make_challenge(), META, Measurements(run(infra_error="sandbox died"), verdicts=(verdict("process", 80, "t"),))
    )
    assert infra.calibration is None


def _anchor_run(visible: tuple[int, int], hidden: tuple[int, int], adversarial: dict[str, tuple[int, int]]):
    """A test run with the anchor's pass counts (examples/inventory-ledger/anchors/*/expected.toml)."""
    results = []
    for suite, (passed, total) in (("visible", visible), ("hidden", hidden)):
        results += [result(f"tests/{suite}/t.py::t{i}", suite, Outcome.PASSED if i < passed else Outcome.FAILED)
                    for i in range(total)]  # fmt: skip
    for severity, (passed, total) in adversarial.items():
        results += [result(f"tests/adversarial/t.py::{severity}{i}", "adversarial",
                           Outcome.PASSED if i < passed else Outcome.FAILED, severity=severity)
                    for i in range(total)]  # fmt: skip
    return run(*results)


# correctness 44.5 (wrong), 78.9375 and 98.125 (correct, threshold 75); low never states a confidence,
# mid states "I'm 80% confident" (event 18), high "I'm 90% confident" (event 37).
ANCHORS = {
    "low": (_anchor_run((7, 12), (12, 28), {"critical": (1, 4), "high": (1, 2), "medium": (1, 2), "low": (2, 2)}),
            44.5, "none", None, None, 0),
    "mid": (_anchor_run((11, 12), (25, 28), {"critical": (2, 4), "high": (1, 2), "medium": (1, 2), "low": (2, 2)}),
            78.9375, "confident", 0.8, 0.04, 3),
    "high": (_anchor_run((12, 12), (28, 28), {"critical": (4, 4), "high": (2, 2), "medium": (1, 2), "low": (2, 2)}),
             98.125, "confident", 0.9, 0.01, 3),
}  # fmt: skip


@pytest.mark.parametrize("level", ["low", "mid", "high"])
def test_the_anchors_brier_scores(level: str) -> None:
    challenge = load_challenge(EXAMPLE)
    anchor = challenge.anchors[level]
    lines = (anchor / "trajectory.jsonl").read_text(encoding="utf-8").splitlines()
    traj = Trajectory(harness="canonical", events=[Event.model_validate_json(x) for x in lines if x.strip()])
    inp = JudgeInput.read(challenge, anchor / "code", deliverables_dir=anchor / "deliverables", trajectory=traj)
    report, correctness, stated, p, brier, adjustment = ANCHORS[level]
    card = build_scorecard(challenge, META, Measurements(report, verdicts=(ProcessJudge().judge(inp),)))
    assert card.components["correctness"].score == pytest.approx(correctness)
    cal = card.calibration
    assert cal is not None
    assert (cal.stated, cal.probability, cal.correct) == (stated, p, correctness >= 75)
    assert cal.correctness == pytest.approx(correctness) and cal.objective == card.components["objective"].score
    assert cal.brier == (None if brier is None else pytest.approx(brier))
    assert card.adjustments["calibration"] == adjustment
    if p is not None:
        assert cal.source is not None and cal.source.startswith("trajectory event ")  # the RCAs state none


def test_generated_adversarial_tests_join_the_prebuilt_ones_60_40() -> None:
    report = run(
        result("tests/visible/t.py::a", "visible", Outcome.PASSED),
        result("tests/adversarial/t.py::c", "adversarial", Outcome.PASSED, severity="high"),
    )
    gen = verdict("adversarial_generated", 50, "adversarial-gen")
    card = build_scorecard(make_challenge(), META, Measurements(report, verdicts=(gen,)))
    assert card.components["adversarial"].score == pytest.approx(0.4 * 100 + 0.6 * 50)


def test_calibration_is_judged_by_correctness_while_the_objective_carries_the_six_components() -> None:
    """All tests pass (correctness 100) but the security judge finds four criticals: the objective
    falls, a confident statement is still correct (+3), and the composite feels the security score."""
    v = verdict("process", 80, "traj", confidence="confident", stated_probability=0.9, findings=(STATED_80,))
    safe = build_scorecard(make_challenge(), META, Measurements(PASSING, verdicts=(v, verdict("security", 100, "s"))))
    unsafe = build_scorecard(make_challenge(), META, Measurements(PASSING, verdicts=(v, verdict("security", 0, "s"))))
    for card in (safe, unsafe):
        assert card.components["correctness"].score == 100 and card.adjustments["calibration"] == 3
    assert unsafe.components["objective"].score < safe.components["objective"].score
    assert unsafe.raw is not None and safe.raw is not None and unsafe.raw < safe.raw
    assert any(line.startswith("objective = ") and "0.1×0" in line for line in unsafe.math)
