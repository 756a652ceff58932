"""The example challenge's anchors: the judges rank low < mid < high where the trajectories allow it.

Measured (docs/trajectory-judges.md#anchors): process 65 / 90 / 90, strategy 83.16 / 98.67 / 98.67,
recovery 0 / 50 / 100. Process and strategy tie mid and high, and the rules say they should:
- process: each loses 10 for one failed test run followed by no read, search or diagnostic command
  (mid event 13 goes straight to the write-up; high event 19 goes from a message straight to an
  edit). Counting a message as investigation would separate them, but that bends the rule.
- strategy: both realise all six reference steps in the same order (both read code before the first
  test run: τ = 0.867), and the architecture heuristics find no smell in either diff. What separates
  them is how much validation the code does, which static_tests and adversarial measure.
"""

from __future__ import annotations

import pytest

from bouts.judges.base import JudgeInput
from bouts.judges.trajectory import ProcessJudge, RecoveryJudge, StrategyJudge, TrajectoryIntegrityJudge
from bouts.models.trajectory import Event, Trajectory


def _verdicts(challenge, level):
    anchor = challenge.anchors[level]
    lines = (anchor / "trajectory.jsonl").read_text(encoding="utf-8").splitlines()
    traj = Trajectory(harness="canonical", events=[Event.model_validate_json(line) for line in lines if line.strip()])
    inp = JudgeInput.read(challenge, anchor / "code", trajectory=traj)
    judges = {
        "process": ProcessJudge(),
        "strategy": StrategyJudge(),
        "recovery": RecoveryJudge(),
        "integrity": TrajectoryIntegrityJudge(),
    }
    return {k: j.judge(inp) for k, j in judges.items()}


@pytest.fixture(scope="module")
def anchors(challenge):
    return {level: _verdicts(challenge, level) for level in ("low", "mid", "high")}


def _score(anchors, level, component):
    return anchors[level][component].score.value


def test_recovery_ranks_low_mid_high(anchors):
    assert [_score(anchors, lvl, "recovery") for lvl in ("low", "mid", "high")] == [0, 50, 100]


def test_process_ranks_low_mid_high(anchors):
    assert [_score(anchors, lvl, "process") for lvl in ("low", "mid", "high")] == [65, 90, 100]
    low = [(f.rule, f.event) for f in anchors["low"]["process"].findings if f.points]
    assert low == [
        ("process.unread-edit", 2),
        ("process.unread-edit", 3),
        ("process.uninvestigated-failure", 4),
        ("process.unread-edit", 6),
        ("process.uninvestigated-failure", 7),
    ]
    assert [f.event for f in anchors["mid"]["process"].findings if f.points] == [13]
    # high reads the failing tests after its one failed run (event 20): nothing deducted.
    assert [f.event for f in anchors["high"]["process"].findings if f.points] == []


def test_strategy_ranks_low_below_mid_and_high(anchors):
    low, mid, high = (_score(anchors, lvl, "strategy") for lvl in ("low", "mid", "high"))
    assert low == pytest.approx(83.162278) and mid == high == pytest.approx(98.666667, abs=1e-5)
    assert any(
        f.rule == "strategy.architecture.special" and f.file == "ledger/money.py"
        for f in anchors["low"]["strategy"].findings
    )
    assert any(f.rule == "strategy.step-missing" for f in anchors["low"]["strategy"].findings)


def test_stated_confidence(anchors):
    assert [anchors[lvl]["process"].confidence for lvl in ("low", "mid", "high")] == ["none", "confident", "confident"]


def test_no_anchor_crosses_an_integrity_line(anchors):
    for level in ("low", "mid", "high"):
        assert _score(anchors, level, "integrity") == 100
