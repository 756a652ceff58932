"""The bundled challenges' anchors measured once (through the sandbox) for the assemble-level SPEC §6
properties: what ``bouts score`` measured, plus what is needed to run the trajectory judges again on
a changed trajectory (the view, the run) without running the tests again."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bouts.assemble import Measurements, build_scorecard
from bouts.judges.base import JUDGES, JudgeInput, Verdict
from bouts.loading import load_submission
from bouts.loading.view import build_view
from bouts.models.scorecard import Scorecard
from bouts.models.trajectory import Event, Trajectory
from bouts.pipeline import Measured, ScoreConfig, measure
from bouts.trajectory import load_trajectory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CHALLENGES = ("inventory-ledger", "league-table", "room-bookings", "rate-limiter-js", "journal-replay")
LEVELS = ("low", "mid", "high")
TRAJECTORY_JUDGES = ("trajectory-process", "trajectory-strategy", "trajectory-recovery", "trajectory-efficiency",
                     "trajectory-integrity")  # fmt: skip


@dataclass(frozen=True)
class Anchor:
    name: str
    measured: Measured
    inp: JudgeInput
    """What the judges read, with the run: to run the trajectory judges again."""
    trajectory: Trajectory | None

    def card(self, m: Measurements | None = None) -> Scorecard:
        return build_scorecard(self.measured.challenge, self.measured.meta, m or self.measured.measurements)

    def rejudged(self, trajectory: Trajectory | None, state: str = "present", m: Measurements | None = None
                 ) -> Measurements:  # fmt: skip
        """The measurements with the trajectory judges run again on ``trajectory`` (None: none brought)."""
        import bouts.judges.builtin  # noqa: F401

        base = m or self.measured.measurements
        inp = replace(self.inp, trajectory=trajectory)
        fresh = [JUDGES.create(name).judge(inp) for name in TRAJECTORY_JUDGES]
        kept: Sequence[Verdict] = [v for v in base.verdicts if v.judge not in TRAJECTORY_JUDGES]
        return replace(base, verdicts=(*kept, *fresh), trajectory=state)  # type: ignore[arg-type]

    def with_messages(self, *texts: str) -> Measurements:
        """The anchor's trajectory with the agent's ``texts`` said before it submits, judged again."""
        assert self.trajectory is not None
        events = list(self.trajectory.events)
        at = events[-1].t if events else 0.0
        said = [Event(t=at, kind="message", text=t, role="assistant") for t in texts]
        cut = next((i for i, e in enumerate(events) if e.kind == "submit"), len(events))
        return self.rejudged(self.trajectory.model_copy(update={"events": events[:cut] + said + events[cut:]}))


def measure_anchor(challenge: str, level: str, workdir: Path) -> Anchor:
    root = EXAMPLES / challenge
    measured = measure(root, root / "anchors" / level, config=ScoreConfig(sandbox="bubblewrap"))
    submission = load_submission(root / "anchors" / level, workdir)
    view = build_view(measured.challenge, submission.code_dir, submission.deliverables_dir)
    trajectory = load_trajectory(submission.trajectory_path) if submission.trajectory_path else None
    inp = JudgeInput(challenge=measured.challenge, view=view, trajectory=trajectory,
                     seed=measured.challenge.spec.tests.seed, run=measured.measurements.run)  # fmt: skip
    return Anchor(f"{challenge}/{level}", measured, inp, trajectory)


def available(challenge: str) -> bool:
    return challenge != "rate-limiter-js" or shutil.which("node") is not None
