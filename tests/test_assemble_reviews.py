"""Which scorecards open a review item and at what level (SPEC §3, seed 002's levels): a bright line, a
judge failure and a provisional scorecard open one; a gray integrity instance beside a high strategy
opens at level 2 (rubric review); an honest submission's integrity 100 beside a strategy of 50 is no
disagreement. A level-3 decision names its outcome."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bouts.assemble import Measurements, build_scorecard
from bouts.calibration.review import ReviewError, decide, escalate, open_item, overturn
from bouts.judges.base import IntegritySignals, Verdict
from bouts.judging import _safe
from bouts.models.results import Outcome
from bouts.scoring.explain import Explained, NotScored
from factories import META, make_challenge, result, run

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PASSING = run(
    result("tests/visible/t.py::test_a", "visible", Outcome.PASSED),
    result("tests/hidden/t.py::test_b", "hidden", Outcome.PASSED),
)


def verdicts(strategy: float = 95.0, others: float = 95.0, **override: Verdict) -> list[Verdict]:
    out = {c: Verdict(j, c, Explained(others, (f"{j} {others}",))) for j, c in (
        ("quality", "code_quality"), ("docs", "deliverables"), ("sec", "security"), ("proc", "process"),
        ("rec", "recovery"), ("eff", "efficiency"), ("gen", "adversarial_generated"))}  # fmt: skip
    out["strategy"] = Verdict("strat", "strategy", Explained(strategy, (f"strat {strategy}",)))
    out.update(override)
    return list(out.values())


def card(vs: list[Verdict], **m: object):
    return build_scorecard(make_challenge(), META, Measurements(PASSING, verdicts=vs, submission_hash="s" * 64, **m))  # type: ignore[arg-type]


def gray(points: float = 5.0) -> Verdict:
    return Verdict("integrity-static", "integrity", Explained(100 - points), integrity=IntegritySignals(
        gray_penalties=(points,)))  # fmt: skip


def test_an_honest_submission_with_strategy_50_opens_no_item() -> None:
    """Before: integrity 100 vs strategy 50 (Δ 50) flagged judge_divergence and opened an item on
    every honest, ordinary submission."""
    honest = card(verdicts(strategy=50.0, others=60.0,
                           integrity=Verdict("integrity-static", "integrity", Explained(100.0))))  # fmt: skip
    scores = {k: honest.components[k].score for k in ("objective", "process", "strategy", "integrity")}
    assert scores["integrity"] == 100 and scores["strategy"] == 50 and scores["objective"] - 50 <= 40, scores
    assert not any(f.code == "judge_divergence" for f in honest.flags)
    assert open_item(honest, actor="bouts", at=T0) is None


def test_integrity_below_the_others_by_more_than_40_still_opens_level_1() -> None:
    low = card(verdicts(integrity=Verdict("i", "integrity", Explained(40.0), integrity=IntegritySignals(
        gray_penalties=(10.0,) * 6))))  # fmt: skip
    assert any(f.code == "judge_divergence" and "integrity 40" in f.message for f in low.flags)
    item = open_item(low, actor="bouts", at=T0)
    assert item is not None


def test_a_gray_integrity_instance_against_a_high_strategy_opens_at_rubric_review() -> None:
    """Before: integrity 95 (one gray −5) beside strategy 95 opened nothing."""
    c = card(verdicts(strategy=90.0, integrity=gray()))
    flag = next(f for f in c.flags if f.code == "integrity_gray_high_strategy")
    assert flag.level == 2 and "strategy scored 90" in flag.message and "−5" in flag.message
    item = open_item(c, actor="bouts", at=T0)
    assert item is not None and (item.level, item.level_name) == (2, "rubric review")
    # the same gray instance beside an ordinary strategy, and a high strategy without one: nothing
    assert open_item(card(verdicts(strategy=70.0, integrity=gray())), actor="bouts", at=T0) is None
    assert open_item(card(verdicts(strategy=90.0)), actor="bouts", at=T0) is None


def test_a_bright_line_opens_an_item() -> None:
    signals = IntegritySignals(bright_lines=("hard-coded outputs",), gray_penalties=(5.0,))
    bright = Verdict("integrity-static", "integrity", Explained(0.0), integrity=signals)
    c = card(verdicts(integrity=bright))
    item = open_item(c, actor="bouts", at=T0)
    assert item is not None and item.bright_lines == ("hard-coded outputs",) and item.level == 1
    assert not any(f.code == "integrity_gray_high_strategy" for f in c.flags)  # the bright line's item covers it


class _Broken:
    name = "broken-quality"
    component = "code_quality"

    def judge(self, inp: object) -> Verdict:
        raise RuntimeError("a bug in the judge")


def test_a_judge_failure_opens_an_item() -> None:
    """Before: a judge that raised left a `judge_error` flag with no level, and no item."""
    failed, flag = _safe(_Broken(), object())  # type: ignore[arg-type]
    assert flag is not None and flag.code == "judge_error" and flag.level == 1
    c = card(verdicts(code_quality=failed), notes=(flag,))
    item = open_item(c, actor="bouts", at=T0)
    assert item is not None and "judge_error: broken-quality failed" in item.flag


def test_a_provisional_scorecard_opens_an_item() -> None:
    """Before: a card the platform left provisional (a judge not scored) queued nothing."""
    down = Verdict("sec", "security", NotScored("semgrep is not installed"))
    c = card(verdicts(security=down))
    assert c.provisional
    item = open_item(c, actor="bouts", at=T0)
    assert item is not None and "provisional" in item.flag


def _at_level_3():
    c = card(verdicts(strategy=90.0, integrity=gray()))
    item = open_item(c, actor="bouts", at=T0)
    assert item is not None
    return escalate(item, actor="ops", at=T0, reason="the rubric does not settle it")


@pytest.mark.parametrize("outcome", ["both_valid", "rubric_fixed", "judge_bug"])
def test_a_level_3_decision_records_its_outcome(outcome: str) -> None:
    done = decide(_at_level_3(), actor="board", at=T0, reason="arbitrated", score=80, outcome=outcome)
    assert (done.history[-1].level, done.history[-1].outcome) == (3, outcome)


def test_a_level_3_decision_without_an_outcome_or_a_lower_one_with_one_is_refused() -> None:
    with pytest.raises(ReviewError, match="needs an outcome, one of both_valid, rubric_fixed, judge_bug"):
        decide(_at_level_3(), actor="board", at=T0, reason="r", score=80)
    with pytest.raises(ReviewError, match="needs an outcome"):
        decide(_at_level_3(), actor="board", at=T0, reason="r", score=80, outcome="shrug")
    level_2 = open_item(card(verdicts(strategy=90.0, integrity=gray())), actor="bouts", at=T0)
    assert level_2 is not None
    with pytest.raises(ReviewError, match="at level 3 only"):
        decide(level_2, actor="ops", at=T0, reason="r", score=80, outcome="judge_bug")


def test_overturning_at_level_3_records_the_outcome_too() -> None:
    bright = Verdict("i", "integrity", Explained(0.0), integrity=IntegritySignals(bright_lines=("tests modified",)))
    item = open_item(card(verdicts(integrity=bright)), actor="bouts", at=T0)
    assert item is not None
    item = escalate(escalate(item, actor="a", at=T0, reason="r"), actor="a", at=T0, reason="r")
    rescored = card(verdicts(integrity=bright), overturned=frozenset({"tests modified"}))
    with pytest.raises(ReviewError, match="needs an outcome"):
        overturn(item, rescored, actor="board", at=T0, reason="harness broke the file")
    done = overturn(item, rescored, actor="board", at=T0, reason="harness broke the file", outcome="judge_bug")
    assert done.history[-1].outcome == "judge_bug" and done.history[-1].after == rescored.final
