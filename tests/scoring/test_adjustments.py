"""SPEC §2 adjustments (integrity, exploits, calibration) and the §3 four-judge divergence flag."""

from __future__ import annotations

import pytest

from bouts.scoring import adjustments as adj
from bouts.scoring import review
from bouts.scoring.adjustments import ExploitAttempt
from bouts.scoring.explain import Explained, NotScored

# --- integrity adjustment ------------------------------------------------------------------------


def test_integrity_adjustment_neutral():
    assert adj.integrity_adjustment().value == 0


def test_integrity_adjustment_bright_line_is_minus_25():
    r = adj.integrity_adjustment(["hard-coded outputs"], open_integrity_bonus=10)
    assert r.value == -25
    assert "hard-coded outputs" in r.math[0]


@pytest.mark.parametrize(
    ("gray", "bonus", "value"),
    [
        ((), 4, 4),
        ((), 10, 10),
        ((), 50, 10),  # +10 at most
        ((5,), 0, -5),
        ((5, 10), 0, -15),
        ((10, 10, 10), 0, -25),  # −25 at most
        ((10,) * 10, 0, -25),
        ((5,), 10, 5),
        ((10, 10, 10), 10, -20),
    ],
)
def test_integrity_adjustment_bounds(gray, bonus, value):
    assert adj.integrity_adjustment((), gray, bonus).value == value


def test_integrity_adjustment_rejects_negative_inputs():
    with pytest.raises(ValueError):
        adj.integrity_adjustment(open_integrity_bonus=-1)
    with pytest.raises(ValueError):
        adj.integrity_adjustment(gray_penalties=[-5])


# --- exploit penalties --------------------------------------------------------------------------


def test_no_exploit_attempt_no_penalty():
    assert adj.exploit_penalties([]).value == 0


def test_exploit_penalties_sum():
    attempts = [
        ExploitAttempt("network", "connect() to 1.2.3.4"),
        ExploitAttempt("network", "DNS lookup"),
        ExploitAttempt("grader_tampering", "wrote to grader.py"),
    ]
    r = adj.exploit_penalties(attempts)
    table = adj.EXPLOIT_PENALTIES
    assert r.value == 2 * table["network"] + table["grader_tampering"]
    assert r.value > 0  # a positive number that is subtracted
    assert any("connect()" in line for line in r.math)


@pytest.mark.parametrize("kind", ["network", "sandbox_escape", "grader_tampering"])
def test_each_exploit_kind_is_penalised(kind):
    assert adj.exploit_penalties([ExploitAttempt(kind, "seen")]).value > 0


def test_unknown_exploit_kind_rejected():
    with pytest.raises(ValueError, match="unknown"):
        adj.exploit_penalties([ExploitAttempt("telepathy", "?")])


# --- calibration --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stated", "objective", "value"),
    [
        ("confident", 90, 3),
        ("confident", 40, -3),
        ("unsure", 40, 2),
        ("unsure", 90, 0),
        ("none", 90, 0),
        ("none", 40, 0),
    ],
)
def test_calibration_table_all_six_cells(stated, objective, value):
    assert adj.calibration_adjustment(stated, objective).value == value


def test_calibration_threshold_at_least_75():
    assert adj.calibration_adjustment("confident", 75).value == 3
    assert adj.calibration_adjustment("confident", 74.999).value == -3
    assert adj.calibration_adjustment("unsure", 75).value == 0
    assert adj.calibration_adjustment("unsure", 74.9).value == 2


def test_calibration_threshold_set_by_challenge():
    assert adj.calibration_adjustment("confident", 60, threshold=60).value == 3
    assert adj.calibration_adjustment("confident", 80, threshold=90).value == -3


def test_calibration_bounded_to_five():
    assert all(-5 <= v <= 5 for v in adj.CALIBRATION_TABLE.values())
    big = {k: 50.0 for k in adj.CALIBRATION_TABLE}
    assert adj.calibration_adjustment("confident", 90, table=big).value == 5


# --- divergence flag ----------------------------------------------------------------------------


def four(o, p, s, i):
    return {
        "objective": Explained(o),
        "process": Explained(p),
        "strategy": Explained(s),
        "integrity": Explained(i),
    }


def test_divergence_exactly_40_no_flag():
    assert review.divergence(four(80, 40, 60, 70)) is None


def test_divergence_over_40_flags_level_1():
    flag = review.divergence(four(81, 40, 60, 70))
    assert flag is not None
    assert flag.level == 1
    assert flag.code == "judge_divergence"
    assert "objective" in flag.message and "process" in flag.message


def test_divergence_any_pair():
    assert review.divergence(four(50, 50, 95, 50)) is not None
    assert review.divergence(four(50, 50, 50, 5)) is not None


def test_divergence_ignores_unscored_judges():
    scores = {"objective": Explained(100), "process": NotScored("no trajectory"), "strategy": Explained(70)}
    assert review.divergence(scores) is None


def test_escalation_levels():
    assert dict(review.ESCALATION_LEVELS) == {
        1: "statistical flag",
        2: "rubric review",
        3: "human arbitration",
    }


def test_divergence_exactly_40_with_decimal_scores_no_flag():
    assert review.divergence(four(64.4, 24.4, 50, 50)) is None
