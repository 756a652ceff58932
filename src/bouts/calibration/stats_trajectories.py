"""Judge a bare trajectory with the trajectory judges, for ``bouts stats --runs`` and the validity
benchmark: the components a scorecard would carry for it, without a test run (the judges then read the
log's test claims as written and say so: docs/trajectory-judges.md).

The submission's code is a directory the caller gives (an empty one for a log scored alone): what the
judges read of ``code/`` (protected files, existing paths) comes from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from bouts.calibration.stats_validity import LabelledRun

if TYPE_CHECKING:
    from bouts.judges.base import JudgeInput
    from bouts.models.challenge import Challenge
    from bouts.models.trajectory import Trajectory
    from bouts.models.verdict import Verdict

TRAJECTORY_COMPONENTS = ("process", "strategy", "recovery", "efficiency", "integrity")


def trajectory_judges() -> list[object]:
    from bouts.judges.trajectory import (
        EfficiencyJudge,
        ProcessJudge,
        RecoveryJudge,
        StrategyJudge,
        TrajectoryIntegrityJudge,
    )

    return [ProcessJudge(), StrategyJudge(), RecoveryJudge(), EfficiencyJudge(), TrajectoryIntegrityJudge()]


def judge_input(challenge: Challenge, code_dir: Path) -> JudgeInput:
    """The input every run shares (the challenge and the code view); each run adds its trajectory."""
    from bouts.judges.base import JudgeInput

    return JudgeInput.read(challenge, code_dir)


def verdicts(base: JudgeInput, trajectory: Trajectory) -> list[Verdict]:
    from dataclasses import replace

    inp = replace(base, trajectory=trajectory)
    return [j.judge(inp) for j in trajectory_judges()]  # type: ignore[attr-defined]


def baselines(trajectory: Trajectory) -> dict[str, float]:
    """Covariates any judge should beat: the raw token count (in + out) and the number of events."""
    tokens_in, tokens_out = trajectory.tokens
    return {"tokens": float(tokens_in + tokens_out), "events": float(len(trajectory.events))}


def labelled_run(key: str, label: bool | float, found: list[Verdict], covariates: Mapping[str, float]) -> LabelledRun:
    """The run as the validity report reads it: each component's score (None: not scored) and the rules
    of all its findings (those that took points and the informational ones)."""
    comps = {v.component: v.score.value for v in found}
    rules = {v.component: tuple(f.rule for f in v.findings) for v in found if v.findings}
    return LabelledRun(key=key, label=label, components=comps, findings=rules, baselines=dict(covariates))


def judge_file(base: JudgeInput, path: Path, key: str, label: bool | float) -> LabelledRun:
    """Load the log at ``path`` (any supported harness), judge it, and label it. Raises ``TrajectoryError``
    (naming the file and line) for a log no adapter reads."""
    from bouts.trajectory import load_trajectory

    trajectory = load_trajectory(path)
    return labelled_run(key, label, verdicts(base, trajectory), baselines(trajectory))
