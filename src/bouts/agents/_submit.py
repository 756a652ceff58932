"""From a finished agent run to a scorecard: the submission directory built from the final workspace
and the recorded trajectory, then the same ``score(...)`` every driver calls."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bouts.models.challenge import Challenge
from bouts.models.scorecard import Recording, Scorecard
from bouts.models.trajectory import Trajectory
from bouts.pipeline import ScoreConfig, score
from bouts.trajectory import to_jsonl

DELIVERABLES = "deliverables"


def write_submission(
    workspace: Path, challenge: Challenge, dest: Path, *, agent: str, trajectory: Trajectory,
    elapsed_s: float | None, iteration: int = 1,
) -> Path:  # fmt: skip
    """Lay out a submission (SPEC §5) in ``dest`` from the workspace the agent left.

    ``code/`` is the workspace without its ``deliverables/`` folder and without the copies of the
    visible tests it was given, where the agent left them untouched (a changed or added test stays:
    it is evidence for the integrity judges). A required deliverable the agent wrote at the top of
    the workspace instead of under ``deliverables/`` is taken from there (and left out of ``code/``).
    """
    code, deliverables = dest / "code", dest / DELIVERABLES
    shutil.copytree(workspace, code, ignore=lambda where, _: [DELIVERABLES] if Path(where) == workspace else [])
    _drop_untouched_visible_tests(code, challenge.root / "tests" / "visible")
    if (workspace / DELIVERABLES).is_dir():
        shutil.copytree(workspace / DELIVERABLES, deliverables)
    deliverables.mkdir(exist_ok=True)
    for d in challenge.spec.deliverables:
        loose = code / d.path
        if not (deliverables / d.path).exists() and loose.is_file() and not loose.is_symlink():
            (deliverables / d.path).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(loose, deliverables / d.path)
    meta = [f"agent = {json.dumps(agent)}", f"challenge = {json.dumps(challenge.spec.id)}", f"iteration = {iteration}"]
    if elapsed_s is not None:
        meta.append(f"elapsed_s = {float(elapsed_s)}")
    (dest / "submission.toml").write_text("\n".join(meta) + "\n", encoding="utf-8")
    lines = list(to_jsonl(trajectory.events))
    (dest / "trajectory.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return dest


def _drop_untouched_visible_tests(code: Path, visible: Path) -> None:
    given = code / "tests" / "visible"
    if not given.is_dir() or not visible.is_dir():
        return
    for path in sorted(given.rglob("*"), reverse=True):
        original = visible / path.relative_to(given)
        same = path.is_file() and original.is_file() and path.read_bytes() == original.read_bytes()
        if same and not path.is_symlink():
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    for folder in (given, given.parent):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def score_recorded(challenge: Challenge, submission: Path, recording: Recording, config: ScoreConfig) -> Scorecard:
    """Score a submission whose trajectory the engine recorded (``recording`` says who and how)."""
    return score(challenge.root, submission, config=config, recording=recording)
