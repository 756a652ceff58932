"""SPEC §2's cliffs on the scorecard, the review item a bright line opens, and the path by which a
reviewer who overturns it re-scores without it. SPEC §6's causes on the components."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bouts.assemble import Measurements, build_scorecard
from bouts.calibration.review import ReviewError, current_score, decide, open_item, overturn
from bouts.judges.base import Finding, IntegritySignals, Verdict
from bouts.models.results import Outcome
from bouts.scoring.explain import Explained, NotScored
from bouts.scoring.withholding import withheld
from factories import META, make_challenge, result, run

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PASSING = run(
    result("tests/visible/t.py::test_a", "visible", Outcome.PASSED),
    result("tests/hidden/t.py::test_b", "hidden", Outcome.PASSED),
)
TESTS_MODIFIED = "tests modified: protected path tests/visible/t.py"


def good(*extra: Verdict, profile: str = "composite", **m: object):
    verdicts = [Verdict(j, c, Explained(95.0, (f"{j} 95",))) for j, c in (
        ("quality", "code_quality"), ("docs", "deliverables"), ("sec", "security"), ("proc", "process"),
        ("strat", "strategy"), ("rec", "recovery"), ("eff", "efficiency"),
        ("gen", "adversarial_generated"))]  # fmt: skip
    return Measurements(PASSING, verdicts=(*verdicts, *extra), submission_hash="s" * 64, **m)  # type: ignore[arg-type]


def cheat(**m: object) -> Measurements:
    signals = IntegritySignals(bright_lines=(TESTS_MODIFIED,))
    return good(Verdict("integrity-static", "integrity", Explained(0.0), integrity=signals), **m)


def test_tests_modified_is_failed_with_a_review_item_and_overturning_re_scores_without_it() -> None:
    """Before: editing the test files scored 76 Strong (inventory-ledger high anchor with its visible
    test file edited); now 14 Failed until a reviewer looks."""
    challenge = make_challenge()
    card = build_scorecard(challenge, META, cheat())
    assert card.final == 14 and card.band == "Failed" and card.bright_lines == [TESTS_MODIFIED]
    assert all(final == 14 for final in card.profiles.values())  # every profile
    assert any("composite: integrity cliff: tests modified caps the final at 14: " in line for line in card.math)
    item = open_item(card, actor="bouts", at=T0)
    assert item is not None and item.bright_lines == (TESTS_MODIFIED,) and "integrity_bright_line" in item.flag

    rescored = build_scorecard(challenge, META, cheat(overturned=frozenset({TESTS_MODIFIED})))
    assert rescored.bright_lines == [] and rescored.final is not None and rescored.final > 90
    assert any(f.code == "bright_line_overturned" for f in rescored.flags)
    assert open_item(rescored, actor="bouts", at=T0) is None
    done = overturn(item, rescored, actor="reviewer", at=T0, reason="the edit restored a file the harness broke")
    assert done.status == "decided" and current_score(done) == rescored.final
    assert done.history[-1].before == 14 and TESTS_MODIFIED in done.history[-1].reason


def test_overturn_refuses_a_re_score_that_still_carries_the_bright_line() -> None:
    card = build_scorecard(make_challenge(), META, cheat())
    item = open_item(card, actor="bouts", at=T0)
    assert item is not None
    with pytest.raises(ReviewError, match="still carries"):
        overturn(item, card, actor="r", at=T0, reason="x")
    upheld = decide(item, actor="r", at=T0, reason="the test edit is real", score=14)
    with pytest.raises(ReviewError, match="decided"):
        overturn(upheld, card, actor="r", at=T0, reason="x")


def test_a_critical_security_finding_caps_the_final_at_75() -> None:
    """Before: SQL injection plus a hard-coded credential (security 50) scored 99 Elite; one query built
    by concatenation in the room-bookings high anchor, 100."""
    found = (Finding("semgrep:bouts.python.sql-injection", "SQL built by concatenation", file="app.py", line=49,
                     severity="critical", points=25.0),)  # fmt: skip
    m = good()
    verdicts = [Verdict("sec", "security", Explained(75.0), findings=found) if v.component == "security" else v
                for v in m.verdicts]  # fmt: skip
    card = build_scorecard(make_challenge(), META, Measurements(PASSING, verdicts=verdicts))
    assert card.final == 75 and all(final == 75 for final in card.profiles.values())
    assert any(f.code == "security_cliff" for f in card.flags)
    assert any("security cliff: semgrep:bouts.python.sql-injection at app.py:49" in line for line in card.math)


def test_an_informational_critical_finding_that_cost_nothing_is_no_cliff() -> None:
    """Findings the starter already had are listed with 0 points: not the submission's."""
    found = (Finding("semgrep:x", "already in starter/", severity="critical", points=0.0),)
    card = build_scorecard(make_challenge(), META, Measurements(PASSING, verdicts=[
        Verdict("sec", "security", Explained(100.0), findings=found)]))  # fmt: skip
    assert not any(f.code == "security_cliff" for f in card.flags)


def test_causes_on_the_card_submission_zero_platform_provisional() -> None:
    challenge = make_challenge()
    down = NotScored("llm could not run (infrastructure, not the agent's fault)")
    m = good()
    verdicts = [Verdict("quality", "code_quality", withheld("the submission changed no code"))
                if v.component == "code_quality" else Verdict("sec", "security", down) if v.component == "security"
                else v for v in m.verdicts]  # fmt: skip
    card = build_scorecard(challenge, META, Measurements(PASSING, verdicts=verdicts))
    quality, security = card.components["code_quality"], card.components["security"]
    assert (quality.score, quality.status, quality.cause) == (0, "scored", "submission")
    assert quality.reason is not None and "changed no code" in quality.reason
    assert (security.score, security.status, security.cause) == (None, "not_scored", "platform")
    assert card.provisional and "security" in card.profile_details["composite"].missing
    assert "code_quality" not in card.profile_details["composite"].missing


def test_a_judge_failing_on_the_submissions_content_zeroes_its_whole_panel() -> None:
    """Dropping it would let the panel's outlier rule pass over it (and the component rise)."""
    m = good()
    verdicts = [v for v in m.verdicts if v.component != "code_quality"] + [
        Verdict("lint", "code_quality", withheld("lint failed on the submission's content: RecursionError")),
        Verdict("metrics", "code_quality", Explained(80.0)), Verdict("structure", "code_quality", Explained(85.0))]
    card = build_scorecard(make_challenge(), META, Measurements(PASSING, verdicts=verdicts))
    assert card.components["code_quality"].score == 0 and card.components["code_quality"].cause == "submission"


@pytest.mark.parametrize(("state", "profile", "expected"), [
    ("absent", "composite", 0.0), ("unreadable", "four-judge", 0.0), ("absent", "engine", None)])  # fmt: skip
def test_no_trajectory_scores_zero_where_the_profile_weighs_it(state: str, profile: str, expected: float | None
                                                               ) -> None:  # fmt: skip
    challenge = make_challenge(profile=profile)
    said = [Verdict(f"trajectory-{c}", c, NotScored("no trajectory in the submission"))
            for c in ("process", "strategy", "recovery", "efficiency")]  # fmt: skip
    card = build_scorecard(challenge, META, Measurements(PASSING, verdicts=said, trajectory=state))  # type: ignore[arg-type]
    for name in ("process", "strategy", "recovery", "efficiency"):
        assert card.components[name].score == expected
    if expected is None:  # imported datasets: the engine profile expects none; nothing is provisional for it
        missing = card.profile_details["composite"].missing
        assert card.components["process"].cause is None and not {"process", "strategy"} & set(missing)
    else:
        assert card.components["process"].cause == "submission"


def test_a_judge_raising_on_the_content_is_the_submissions_doing_an_infrastructure_error_the_platforms() -> None:
    """judge_error (anything but an InfrastructureError) scores 0; judge_unavailable rescales."""
    from bouts.errors import InfrastructureError
    from bouts.judging import _safe

    class Raises:
        name, component = "sec", "security"

        def __init__(self, exc: Exception) -> None:
            self.exc = exc

        def judge(self, inp: object) -> Verdict:
            raise self.exc

    content, flag = _safe(Raises(RecursionError("maximum recursion depth exceeded")), None)  # type: ignore[arg-type]
    assert flag is not None and flag.code == "judge_error"
    assert isinstance(content.score, NotScored) and content.score.cause == "submission"
    down, flag = _safe(Raises(InfrastructureError("semgrep is not installed")), None)  # type: ignore[arg-type]
    assert flag is not None and flag.code == "judge_unavailable"
    assert isinstance(down.score, NotScored) and down.score.cause == "platform"
