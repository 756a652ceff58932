"""Smoke test: every sample of real harness logs gets a verdict from every trajectory judge, no error."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bouts.judges.base import JUDGES, JudgeInput
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.scoring.explain import Explained, NotScored
from bouts.trajectory import load_trajectory

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "data" / "trajectories"
TRAJECTORY_JUDGES = (
    "trajectory-process",
    "trajectory-strategy",
    "trajectory-recovery",
    "trajectory-efficiency",
    "trajectory-integrity",
)


def _samples() -> list[Path]:
    """Every real log: a file, or a folder that is one log (an OpenHands V1 conversation: events/ beside
    base_state.json), taken whole and never file by file."""
    if not SAMPLES.is_dir():
        return []
    folders = [p for p in sorted(SAMPLES.rglob("events")) if p.is_dir() and (p.parent / "base_state.json").is_file()]
    conversations = [p.parent for p in folders]
    return sorted(
        [
            p
            for p in SAMPLES.rglob("*")
            if p.is_file()
            and p.name != "SOURCES.md"
            and not p.name.endswith((".story.md", ".swebench-report.json"))
            and not any(c in p.parents for c in conversations)
        ]
        + conversations
    )


def test_every_trajectory_judge_is_registered():
    assert set(TRAJECTORY_JUDGES) <= set(JUDGES.names())
    for name in TRAJECTORY_JUDGES:
        judge = JUDGES.create(name)
        assert judge.name == name and JUDGES.describe()[name]


@pytest.mark.parametrize("path", _samples(), ids=lambda p: f"{p.parent.name}/{p.name[:40]}")
def test_an_honest_real_log_is_never_contradicted_and_says_why_it_was_not_compared(path, challenge, tmp_path):
    # The worst engine run there is (every visible test red), and no engine run at all: real agents' logs
    # ran other suites, or ran them before their last change, so the claims check abstains, with a note.
    every_test_red = RunReport(
        results=[
            TestResult(id=f"{f}::test_{k}", suite="visible", outcome=Outcome.FAILED)
            for f in challenge.test_files["visible"]
            for k in range(12)
        ],
        sandbox="none",
    )
    every_test_green = every_test_red.model_copy(
        update={"results": [r.model_copy(update={"outcome": Outcome.PASSED}) for r in every_test_red.results]})
    traj = load_trajectory(path)
    for run in (every_test_red, every_test_green, None):
        inp = JudgeInput.read(challenge, tmp_path, trajectory=traj, run=run)
        integrity = JUDGES.create("trajectory-integrity").judge(inp)
        assert isinstance(integrity.score, Explained) and integrity.integrity is not None
        assert not any("contradicted" in line for line in integrity.integrity.bright_lines)
        assert not any(f.rule.endswith("-contradicted") for f in integrity.findings)
        # Measured red code makes what the log's runs resolved unverified (withheld, never penalised).
        said = ("trajectory claims: not compared (", "trajectory claims: unverified (")
        assert any(line.startswith(said if run is every_test_red else said[:1]) for line in integrity.score.math)
        recovery = JUDGES.create("trajectory-recovery").judge(inp)
        without_run = JUDGES.create("trajectory-recovery").judge(replace(inp, run=None))
        if run is every_test_red:
            assert recovery.score.value <= without_run.score.value  # type: ignore[union-attr,operator]
        else:
            assert recovery.score.value == without_run.score.value  # type: ignore[union-attr]


@pytest.mark.parametrize("path", _samples(), ids=lambda p: f"{p.parent.name}/{p.name[:40]}")
def test_real_log_gets_a_verdict(path, challenge, tmp_path):
    traj = load_trajectory(path)
    inp = JudgeInput.read(challenge, tmp_path, trajectory=traj)
    for name in TRAJECTORY_JUDGES:
        verdict = JUDGES.create(name).judge(inp)
        assert isinstance(verdict.score, Explained | NotScored)
        if isinstance(verdict.score, Explained):
            assert 0 <= verdict.score.value <= 100 and verdict.score.math
        assert all(f.event is None or 0 <= f.event < len(traj.events) for f in verdict.findings)
